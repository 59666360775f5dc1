#!/usr/bin/env bash
# release.sh — checks of the student release (make release: tools/ci/release, tools/ci/release-check):
# it is the same bytes each time; it holds nothing of what it leaves out; unpacked in a fresh folder,
# it builds and `make check DAY=01` fails on the untouched lab exactly as in the full book, then passes
# with the solution's files put in; the commands that need what it leaves out say so; and
# release-check does find a solution, a hidden test or solution lines put into a release by mistake.
# Prints "ok ..." per check and exits non-zero on the first failure.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/release-test.XXXXXX")
trap 'kill $(jobs -p) 2> /dev/null; wait; rm -rf "$tmp"' EXIT
name=gpu-to-llm-inference-student
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }
export BACKEND=sim

# The full book's own verdict on the untouched day 01, to compare with the release's (in the background).
tools/check 01-why-gpu labs "$tmp/full" > "$tmp/full.out" 2>&1 &
full_check=$!

# -- the tarball ----------------------------------------------------------------------------------
tools/ci/release "$tmp/a" > "$tmp/release.log" 2>&1 || bad "tools/ci/release failed:"$'\n'"$(cat "$tmp/release.log")"
tarball=$tmp/a/$name.tar.gz
grep -q '^release-check: ok' "$tmp/release.log" || bad "tools/ci/release did not run release-check"
ok "make release writes $name.tar.gz, and release-check finds nothing of the solutions in it"
# Made again, and checked with solutions put in by mistake, in the background (both are judged at the end).
tools/ci/release "$tmp/b" > /dev/null 2>&1 &
second_release=$!

tar -tzf "$tarball" | sed "s|^$name/||" > "$tmp/list"
if grep -E '^(solutions|tests/wrong|tests/grader|tools/grader|course|tools/course|tests/course)(/|$)|\.rubric$' "$tmp/list" > "$tmp/leaked"; then
    bad "the release holds what it leaves out: $(head -5 "$tmp/leaked" | tr '\n' ' ')"
fi
ok "no path under solutions/, tests/wrong/, tests/grader/ (the hidden tests), tools/grader/ or the course kit"
for needed in RELEASE.md Makefile README.md tools/setup tools/check tools/build/build-lab tools/build/config.sh \
              labs/driver-sums.txt tests/01-why-gpu.c tests/support/report.c plots/01-why-gpu.gp data/gpus.csv lib/sim/tools/simcc; do
    grep -qx "$needed" "$tmp/list" || bad "the release lacks $needed"
done
ok "the release holds RELEASE.md and what make check needs"

# -- release-check finds what a release must not hold ----------------------------------------------------
plant_and_check() {
    planted=$tmp/planted/$name
    mkdir -p "$tmp/planted" && tar -xzf "$tarball" -C "$tmp/planted"
    # a solution file renamed and changed by a comment (so no longer a copy), an exact copy of a
    # solution, a hidden test, solution lines put in a chapter, and an earlier day's answer put into a
    # later day's driver (as day 22's once held day 18's kernels)
    { echo "/* kept by mistake */"; cat solutions/07-reduction/reduce.cu; } > "$planted/labs/07-reduction/reduce-solved.cu"
    cp solutions/18-attention-naive/attention.cu "$planted/labs/18-attention-naive/attention.cu.orig"
    mkdir -p "$planted/tests/grader/hidden" && cp tests/grader/hidden/01-why-gpu.c "$planted/tests/grader/hidden/"
    grep -v -F -x -f labs/12-tiling/tiled.cu solutions/12-tiling/tiled.cu | awk 'length($0) > 40' | head -3 >> "$planted/chapters/12-tiling/README.md"
    grep -v -F -x -f labs/18-attention-naive/attention.cu solutions/18-attention-naive/attention.cu |
        sed 's/attention_forward/naive_attention/' >> "$planted/labs/22-flash-attention/driver/run.cu"
    tar -C "$tmp/planted" -czf "$tmp/planted.tar.gz" "$name"
    tools/ci/release-check "$tmp/planted.tar.gz" > "$tmp/planted.out" 2>&1 && { echo "release-check passes a release holding solutions"; return 1; }
    for expected in "labs/07-reduction/reduce-solved.cu:[0-9]* holds a line of solutions/07-reduction/reduce.cu" \
                    "labs/18-attention-naive/attention.cu.orig is a copy of solutions/18-attention-naive/attention.cu" \
                    "holds tests/grader/hidden/01-why-gpu.c, which the student release leaves out" \
                    "chapters/12-tiling/README.md:[0-9]* holds a line of solutions/12-tiling/tiled.cu" \
                    "labs/22-flash-attention/driver/run.cu:[0-9]* holds a line of solutions/18-attention-naive/attention.cu"; do
        grep -q "$expected" "$tmp/planted.out" || { echo "release-check does not report '$expected':"; cat "$tmp/planted.out"; return 1; }
    done
}
plant_and_check > "$tmp/plant.log" 2>&1 &
planted_check=$!

# -- unpacked in a fresh folder: it builds, and make check works as in the full book -------------------
mkdir -p "$tmp/fresh" && tar -xzf "$tarball" -C "$tmp/fresh" || bad "the tarball does not unpack"
release=$tmp/fresh/$name
make -s -C "$release" -j2 libs > "$tmp/libs.log" 2>&1 || bad "the release's libraries do not build:"$'\n'"$(tail -20 "$tmp/libs.log")"
(cd "$release" && make check DAY=01) > "$tmp/untouched.out" 2>&1 && bad "make check DAY=01 passes on the untouched lab of the release"
grep -q '^Day 01 — 0 of [0-9]* checks passed' "$tmp/untouched.out" && grep -q 'FAIL vector_add' "$tmp/untouched.out" ||
    bad "make check DAY=01 in the release does not end with the verdict:"$'\n'"$(tail -20 "$tmp/untouched.out")"
wait "$full_check"
# make's own lines (its error line, and the directories it enters when it runs inside make test) aside
check_output() { grep -v -E '^make(\[[0-9]+\])?: (\*\*\*|Entering directory|Leaving directory)' "$1" | sed "s|$2|OUT|g"; }
diff <(check_output "$tmp/untouched.out" "$release/build/01-why-gpu") <(check_output "$tmp/full.out" "$tmp/full") > "$tmp/untouched.diff" ||
    bad "make check DAY=01 says something else in the release than in the full book:"$'\n'"$(head -20 "$tmp/untouched.diff")"
ok "in the unpacked release, make check DAY=01 builds and fails on the untouched lab, word for word as in the full book"
grep -q 'you changed the driver' "$tmp/untouched.out" && bad "the release's drivers differ from labs/driver-sums.txt"
diff <(LC_ALL=C sort "$release/labs/driver-sums.txt") <(cd "$release" && tools/ci/driver-sums | LC_ALL=C sort) > /dev/null ||
    bad "labs/driver-sums.txt does not hold in the release"
ok "labs/driver-sums.txt holds in the release"

# tools/check is what make check runs after tools/setup and the libraries, both done above.
cp solutions/01-why-gpu/* "$release/labs/01-why-gpu/"
(cd "$release" && tools/check 01) > "$tmp/solved.out" 2>&1 ||
    bad "make check DAY=01 fails in the release with the solution's files in the lab:"$'\n'"$(tail -20 "$tmp/solved.out")"
grep -q '^Day 01 — \([0-9]*\) of \1 checks passed' "$tmp/solved.out" && [[ -s $release/build/01-why-gpu/plot.png ]] ||
    bad "the solved day 01 in the release: no full verdict or no plot:"$'\n'"$(tail -5 "$tmp/solved.out")"
ok "with the solution's files copied into its lab, make check DAY=01 passes in the release and draws the plot"

# -- what the release does not have says so ------------------------------------------------------------
for command in test grade gradescope plots bench nvcc-check release; do
    (cd "$release" && make "$command" SUBMISSIONS=x) > "$tmp/$command.out" 2>&1 && bad "make $command succeeds in the release"
    grep -q "make $command is not part of the student release" "$tmp/$command.out" ||
        bad "make $command in the release does not say that it is not part of it:"$'\n'"$(cat "$tmp/$command.out")"
done
ok "make test, grade, gradescope, plots, bench, nvcc-check and release say that they are not part of the release"
(cd "$release" && tools/check 01 solutions) > "$tmp/src.out" 2>&1 && bad "make check SRC=solutions succeeds in the release"
grep -q 'SRC=solutions: the student release has no solutions' "$tmp/src.out" ||
    bad "make check SRC=solutions in the release does not say why it fails:"$'\n'"$(tail -5 "$tmp/src.out")"
ok "make check SRC=solutions says that the release has no solutions"
(cd "$release" && make help) > "$tmp/help.out" 2>&1 || bad "make help fails in the release"
grep -q 'RELEASE.md' "$tmp/help.out" && grep -q 'make check DAY=01 ' "$tmp/help.out" &&
    ! grep -q -E 'SRC=solutions|make (test|grade|gradescope|plots|bench|release) ' "$tmp/help.out" ||
    bad "make help in the release lists what it does not have, or not RELEASE.md:"$'\n'"$(cat "$tmp/help.out")"
ok "make help in the release lists only its commands, and points to RELEASE.md"

wait "$second_release" && cmp -s "$tarball" "$tmp/b/$name.tar.gz" || bad "two runs of tools/ci/release give different tarballs"
ok "made twice, the tarball is the same bytes"
wait "$planted_check" || bad "$(cat "$tmp/plant.log")"
ok "release-check finds a changed copy of a solution, an exact copy, a hidden test, solution lines in a chapter" \
   "and an earlier day's answer in a later day's driver"
