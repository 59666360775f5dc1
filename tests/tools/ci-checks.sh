#!/usr/bin/env bash
# ci-checks.sh — the checks make test holds lib/ to (tools/ci/give-up-check, style-check, lint) catch
# what they are there to catch: each is run on a copy of lib/ with one wrong thing planted in it (an
# abort in the simulator, an exit in a library that returns its errors, an allocation used untested,
# a measurement in a comment, a type without its library's prefix, a new compiler warning; and a commit
# whose subject is too long, in a clone), and must fail naming the file; on the copy as committed each
# passes. A check that cannot fail is no check.
# Prints "ok ..." per check and exits non-zero after the last check when one failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ci-checks.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; failed=1; }

# The copy: what the checks read (lib/, tests/support, the checks and their baselines).
copy=$tmp/tree
mkdir -p "$copy/tools/ci" "$copy/tests"
if ! cp -r lib "$copy/" || ! cp -r tests/support "$copy/tests/" ||
   ! cp -r tools/ci/give-up-check tools/ci/style-check tools/ci/lint tools/ci/lint-baseline "$copy/tools/ci/"; then
    echo "FAILED: cannot copy the tree"; exit 1
fi

catches() {   # CHECK FILE PATTERN DESCRIPTION TEXT: TEXT appended to FILE makes CHECK fail, saying PATTERN
    local check=$1 file=$2 pattern=$3 description=$4 text=$5
    cp "$copy/$file" "$tmp/saved"
    printf '%s\n' "$text" >> "$copy/$file"
    local output status
    output=$("$copy/tools/ci/$check" 2>&1); status=$?
    cp "$tmp/saved" "$copy/$file"
    if ((status != 0)) && grep -q -E -- "$pattern" <<< "$output"; then ok "$check catches $description"
    else bad "$check passes $description (exit $status):"$'\n'"$(head -5 <<< "$output")"; fi
}

for check in give-up-check style-check; do
    if "$copy/tools/ci/$check" > "$tmp/clean.log" 2>&1; then ok "$check passes the library as committed"
    else bad "$check fails the library as committed: $(head -3 "$tmp/clean.log")"; fi
done

# give-up-check: one way to give up, one way to get memory, per library
catches give-up-check lib/sim/warps.c 'lib/sim/warps\.c:[0-9]+:.*sim_fatal or sim_crash' \
    "an abort() in the simulator outside errors.c" \
    $'static void planted_stop(void)\n{\n    abort();\n}'
catches give-up-check lib/sim/streams.c 'lib/sim/streams\.c:[0-9]+:' "a bare malloc in the simulator" \
    $'static void *planted_memory(void)\n{\n    return malloc(16);\n}'
catches give-up-check lib/lab/table.c 'exits in planted_lookup, whose name does not end in _or_exit' \
    "an exit in a lib/lab function not named *_or_exit" \
    $'int planted_lookup(int row)\n{\n    if (row < 0) exit(1);\n    return row;\n}'
catches give-up-check lib/lab/timer.c 'lib/lab/timer\.c:[0-9]+:.*lab_alloc_or_exit' "a bare calloc in lib/lab" \
    $'static double *planted_times(int n)\n{\n    return calloc((size_t)n, sizeof(double));\n}'
catches give-up-check lib/llama/sampler.c 'lib/llama/sampler\.c:[0-9]+:.*never exit' "an exit in lib/llama" \
    $'static void planted_refusal(int n)\n{\n    if (n < 0) exit(2);\n}'
catches give-up-check lib/simd/lanes.h 'lib/simd/lanes\.h:[0-9]+:.*lib/simd cannot fail' "an allocation in lib/simd" \
    $'static inline float *planted_lanes(void) { return (float *)malloc(64); }'
catches give-up-check lib/perfmodel/report.c 'planted is used without a test' \
    "an allocation lib/perfmodel uses untested" \
    $'static float *planted_buffer(void)\n{\n    float *planted = malloc(64);\n    planted[0] = 1;\n'\
$'    return planted;\n}'

# style-check: rules in comments, figures in records; types named as their library's functions
catches style-check lib/llama/matmul.c 'matmul\.c:[0-9]+:.*a measurement in a comment' "a time in a comment" \
    '/* 2 x 3 tiles: 4.13 ms a step on the Xeon */'
catches style-check lib/llama/forward.c 'forward\.c:[0-9]+:.*a measurement in a comment' "a median in a comment" \
    '/* the L2 prefetch wins, medians of 11 */'
catches style-check lib/perfmodel/estimate.c 'estimate\.c:[0-9]+:.*a measurement in a comment' \
    "a speed ratio in a comment" \
    '// inlined: as a function of its own it ran 1.7 times slower'
catches style-check lib/llama/llama.h 'llama\.h:[0-9]+: the type planted_state' "a type without its library's prefix" \
    'typedef struct planted_state { int step; } planted_state;'

# style-check: a commit subject past 72 characters, in a clone with one more commit (and this tree's check)
subject="A planted subject that goes on and on past the seventy-two characters git's one-line views show"
subjects_from=$(sed -n 's/^subjects_from=//p' tools/ci/style-check)
if ! git rev-parse -q --verify "$subjects_from^{commit}" > /dev/null; then
    echo "skipped: style-check's subjects (commit $subjects_from is not in this clone's history: a shallow clone?)"
elif git clone -q --no-checkout "$root" "$tmp/clone" 2> /dev/null &&
     git -C "$tmp/clone" checkout -q HEAD 2> /dev/null &&
     git -C "$tmp/clone" -c user.name=planted -c user.email=planted@example.invalid \
         commit -q --allow-empty -m "$subject" &&
   cp tools/ci/style-check "$tmp/clone/tools/ci/"; then
    output=$("$tmp/clone/tools/ci/style-check" 2>&1); status=$?
    if ((status != 0)) && grep -q "has ${#subject} characters: keep it within 72" <<< "$output"; then
        ok "style-check catches a commit subject past 72 characters"
    else bad "style-check passes a subject of ${#subject} characters (exit $status):"$'\n'"$(tail -3 <<< "$output")"; fi
else
    bad "cannot clone the repository to plant a commit"
fi

# lint: a new compiler warning beyond the committed baseline fails (shellcheck, cppcheck, gcc installed)
if command -v shellcheck > /dev/null && command -v cppcheck > /dev/null && command -v gcc > /dev/null; then
    catches lint lib/lab/table.c 'gcc finds what its baseline does not hold' \
        "a new gcc -Wall -Wextra warning in lib/" \
        $'int lab_planted_warning(void)\n{\n    int unused = 3;\n    return 0;\n}'
else
    echo "skipped: lint's own check (shellcheck, cppcheck and gcc are not all installed; tools/setup --all" \
         "installs them)"
fi
exit "$failed"
