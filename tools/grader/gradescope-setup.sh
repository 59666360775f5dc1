#!/usr/bin/env bash
# gradescope-setup.sh — setup.sh of the autograder zip that `make gradescope` builds: Gradescope
# runs it once, as root, when it builds the autograder's image. It installs what the book and the
# grader need (tools/setup: the same list and the same checks as everywhere else) and builds the
# grader's tools, so that grading a submission builds nothing but it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/book"
tools/setup --grade
make -s libs build/tools/grade-sandbox build/tools/grade-report build/tools/lab-policy
