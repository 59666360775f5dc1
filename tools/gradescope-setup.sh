#!/usr/bin/env bash
# gradescope-setup.sh — setup.sh of the autograder zip that `make gradescope` builds: Gradescope
# runs it once, as root, when it builds the autograder's image. It installs what the book and the
# grader need and builds the grader's tools, so that grading a submission builds nothing but it.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends clang gnuplot-nox libcriterion-dev pkg-config libopenblas-dev \
    make bubblewrap unzip zip ca-certificates
cd "$(dirname "${BASH_SOURCE[0]}")/book"
make -s libs build/tools/grade-sandbox build/tools/grade-report build/tools/lab-policy
