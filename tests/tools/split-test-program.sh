#!/usr/bin/env bash
# split-test-program.sh — checks of the test program's two parts on the simulator
# (tools/build/build-lab, tools/build/runner-stand-in, tests/support/report.c, lib/sim/module/): the
# runner, which writes the report, loads a stand-in for the learner's code, never the code itself;
# the stand-in holds exactly the names the tests take from the code, each function a trap; the runner
# refuses to run if it finds the real code loaded in itself, and refuses a report channel that is not
# a pipe; a kernel defined in such a library is found by cudaLaunchKernel through its void *.
# Prints "ok ..." per check and exits non-zero on the first failure.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
source tools/build/config.sh
tmp=$(mktemp -d "${TMPDIR:-/tmp}/split-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }

make -s libs build/tools/lab-policy || bad "the book's libraries do not build"
out=$tmp/day01
BACKEND=sim tools/build/build-lab 01-why-gpu solutions sim "$out" > "$tmp/build.log" 2>&1 || bad "day 01 does not build: $(tail -3 "$tmp/build.log")"

# -- the parts --------------------------------------------------------------------------------------
readelf -d "$out/tests" > "$tmp/dynamic"
grep -q 'NEEDED.*\[liblab-code.so\]' "$tmp/dynamic" && grep -q 'RUNPATH.*\[\$ORIGIN/runner\]' "$tmp/dynamic" ||
    bad "the test program does not load liblab-code.so from \$ORIGIN/runner: $(grep -E 'NEEDED|RUNPATH' "$tmp/dynamic")"
ok "the test program loads liblab-code.so, found in runner/ beside it"
# the names the program takes from the code library, and those the stand-in defines
nm -D --defined-only "$out/code/liblab-code.so" | awk '{ print $3 }' | sort > "$tmp/code.names"
nm -D --undefined-only "$out/tests" | awk '{ sub(/@.*/, "", $2); print $2 }' | sort | comm -12 - "$tmp/code.names" > "$tmp/used.names"
nm -D --defined-only "$out/runner/liblab-code.so" | awk '$2 != "A" && $3 !~ /^(_edata|_end|__bss_start)$/ { print $3 }' | sort > "$tmp/stand-in.names"
[[ -s $tmp/used.names ]] && grep -qx flops_matmul "$tmp/used.names" || bad "the tests take no names from the code library"
diff -q "$tmp/used.names" "$tmp/stand-in.names" > /dev/null ||
    bad "the stand-in's names are not the tests' names from the code: $(diff "$tmp/used.names" "$tmp/stand-in.names" | head -5 | tr '\n' ' ')"
ok "the stand-in defines exactly the $(wc -l < "$tmp/used.names") names the tests take from the learner's code"
instructions=$(objdump -d --no-show-raw-insn "$out/runner/liblab-code.so" | awk '/^ *[0-9a-f]+:/ { print $2 }' | sort | uniq -c)
[[ $(awk '{ print $2 }' <<< "$instructions") == ud2 && $(awk '{ print $1 }' <<< "$instructions") == "$(wc -l < "$tmp/used.names")" ]] ||
    bad "the stand-in's code is not one trap a function: $instructions"
ok "each function of the stand-in is one trapping instruction"

# -- who loads what ------------------------------------------------------------------------------
LD_DEBUG=files LAB_REPORT=$tmp/report.tsv "$out/tests" -j1 --filter='flops/*' > "$tmp/loads.log" 2>&1
runner_pid=$(sed -n 's/^ *\([0-9]*\):.*file=liblab-code.so .*needed by .*\/tests .*/\1/p' "$tmp/loads.log" | head -1)
[[ -n $runner_pid ]] || bad "no process loaded liblab-code.so for the test program"
grep "^ *$runner_pid:.*calling init: " "$tmp/loads.log" | grep -q 'liblab-code.so' || bad "the runner loaded no liblab-code.so"
grep "^ *$runner_pid:.*calling init: .*liblab-code.so" "$tmp/loads.log" | grep -q "$out/runner/liblab-code.so" ||
    bad "the runner loaded the learner's code: $(grep "^ *$runner_pid:.*calling init: .*liblab-code.so" "$tmp/loads.log")"
workers=$(grep "calling init: $out/code/liblab-code.so" "$tmp/loads.log" | grep -vc "^ *$runner_pid:")
((workers >= 2)) || bad "the workers did not load the learner's code (seen in $workers processes)"
[[ $(grep -c '^passed	flops/' "$tmp/report.tsv") == 2 ]] || bad "the flops tests do not pass: $(cut -f1,2 "$tmp/report.tsv" | grep flops)"
ok "the runner loads the stand-in, each of the $workers workers the learner's code, and the checks pass"

LD_LIBRARY_PATH=$out/code LAB_REPORT=$tmp/forced.tsv "$out/tests" -j1 --filter='flops/*' > "$tmp/forced.log" 2>&1
status=$?
((status == 2)) && grep -q 'refuses to run: it loaded the lab' "$tmp/forced.log" && [[ ! -e $tmp/forced.tsv ]] ||
    bad "a runner that loaded the learner's code ran anyway (exit $status): $(head -2 "$tmp/forced.log")"
ok "a runner that finds the learner's code loaded in itself refuses to run, and writes no report"

# -- the report channel ------------------------------------------------------------------------------
: > "$tmp/a-file"
LAB_REPORT_FD=3 "$out/tests" -j1 --filter='flops/matmul' 3>> "$tmp/a-file" > "$tmp/fd.log" 2>&1
status=$?
((status == 2)) && grep -q 'LAB_REPORT_FD is not an open pipe' "$tmp/fd.log" && [[ ! -s $tmp/a-file ]] ||
    bad "LAB_REPORT_FD naming a regular file was taken (exit $status, $(wc -c < "$tmp/a-file") bytes written)"
LAB_REPORT=/dev/fd/3 "$out/tests" -j1 --filter='flops/matmul' 3>> "$tmp/a-file" > "$tmp/fd.log" 2>&1
status=$?
((status == 2)) && grep -q 'LAB_REPORT names a file descriptor' "$tmp/fd.log" && [[ ! -s $tmp/a-file ]] ||
    bad "LAB_REPORT=/dev/fd/3 was taken (exit $status, $(wc -c < "$tmp/a-file") bytes written)"
LAB_REPORT_FD=3 "$out/tests" -j1 --filter='flops/matmul' 3>&1 > /dev/null 2>&1 | cat > "$tmp/piped.tsv"
grep -q '^passed	flops/matmul	' "$tmp/piped.tsv" || bad "a pipe as LAB_REPORT_FD got no report: $(head -c 200 "$tmp/piped.tsv")"
ok "the report goes only to a pipe (LAB_REPORT_FD) or a file by name (LAB_REPORT): a descriptor of a file is refused"

# -- a kernel in a shared library, launched through its void * -----------------------------------------
cat > "$tmp/library.cu" <<'CU'
__global__ void double_in_library(float *x) { x[threadIdx.x] *= 2.0f; }
extern "C" const void *library_kernel(void) { return (const void *)double_in_library; }
CU
cat > "$tmp/main.cu" <<'CU'
#include <cstdio>
extern "C" const void *library_kernel(void);
int main()
{
    float host[4] = {1, 2, 3, 4}, *x;
    cudaMalloc(&x, sizeof host);
    cudaMemcpy(x, host, sizeof host, cudaMemcpyHostToDevice);
    void *arguments[] = {&x};
    cudaError_t status = cudaLaunchKernel(library_kernel(), dim3(1), dim3(4), arguments, 0, 0);
    cudaMemcpy(host, x, sizeof host, cudaMemcpyDeviceToHost);
    printf("%s %g %g %g %g\n", cudaGetErrorName(status), host[0], host[1], host[2], host[3]);
    return 0;
}
CU
lib/sim/tools/simcc -c "$tmp/library.cu" -o "$tmp/library.o" > "$tmp/lib.log" 2>&1 || bad "library.cu does not build: $(tail -3 "$tmp/lib.log")"
mkdir -p "$tmp/with" "$tmp/without"
"$BOOK_CXX" $BOOK_LDFLAGS -shared -Wl,-soname,liblibrary.so -o "$tmp/with/liblibrary.so" "$tmp/library.o" build/lib/sim-code-module.o &&
    "$BOOK_CXX" $BOOK_LDFLAGS -shared -Wl,-soname,liblibrary.so -o "$tmp/without/liblibrary.so" "$tmp/library.o" ||
    bad "the kernel library does not link"
lib/sim/tools/simcc -o "$tmp/main" "$tmp/main.cu" "$tmp/with/liblibrary.so" > "$tmp/main.log" 2>&1 || bad "main.cu does not build: $(tail -3 "$tmp/main.log")"
LD_LIBRARY_PATH=$tmp/with "$tmp/main" > "$tmp/with.out" 2>&1
grep -qx 'cudaSuccess 2 4 6 8' "$tmp/with.out" || bad "a library's kernel launched through its void * did not run: $(head -3 "$tmp/with.out")"
LD_LIBRARY_PATH=$tmp/without "$tmp/main" > "$tmp/without.out" 2>&1
grep -q '^cudaErrorInvalidDeviceFunction 1 2 3 4' "$tmp/without.out" ||
    bad "without lib/sim/module/code_module.c the launch should be refused: $(head -3 "$tmp/without.out")"
ok "a kernel in a shared library linked with lib/sim/module/code_module.c runs through its void * (and is refused without it)"
