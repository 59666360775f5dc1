#!/usr/bin/env bash
# test-tools.sh — checks of the learner's commands themselves: DAY resolution and its
# errors, SRC errors, hints, reset (in a throw-away clone), progress, the rewriter.
# Prints "ok ..." per check and exits non-zero on the first failure.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
source tools/common.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }
expect_output() {   # description pattern command...
    local what=$1 pattern=$2; shift 2
    local output; output=$("$@" 2>&1)
    grep -q -- "$pattern" <<<"$output" || bad "$what: expected '$pattern' in:"$'\n'"$output"
    ok "$what"
}

for arg in 1 01 why-gpu 01-why-gpu; do
    [[ $(resolve_day "$arg") == 01-why-gpu ]] || bad "DAY=$arg does not resolve to 01-why-gpu"
done
ok "DAY accepts 1, 01, why-gpu and 01-why-gpu"
[[ $(resolve_day 30) == 30-performance-model ]] || bad "DAY=30"
ok "DAY=30 resolves"

expect_output "an unknown day lists the valid ones" "02  cuda-model" tools/check 99
tools/check 99 >/dev/null 2>&1 && bad "an unknown day exits 0"
ok "an unknown day exits non-zero"
expect_output "no DAY says how to give one" "Add DAY=NN" tools/check ""
expect_output "a missing SRC folder is named" "SRC=/nonexistent: no such folder" tools/check 01 /nonexistent
expect_output "a SRC folder without the edited files names the missing file" "has no vector_add.cu (the files edited for day 01 are" tools/check 01 "$tmp"
expect_output "BACKEND is validated" "BACKEND must be sim or cuda" env BACKEND=tpu tools/check 01

expect_output "progress lists thirty days" "of 30 days passed" tools/progress
[[ $(tools/progress | grep -cE '^[0-3][0-9] ') == 30 ]] || bad "progress does not show 30 rows"
ok "progress shows 30 rows"

# The rewriter leaves strings, comments and line numbers alone.
cat > "$tmp/rewrite.cu" <<'CU'
const char *s = "k<<<1, 2>>>(x)"; // k<<<1,2>>>(x)
/* k<<<3, 4>>>(y) */
void f() { ns::kern<float, 2><<<dim3(1, 2),
    64, 0, 0>>>(a, b); }
CU
build/tools/cu2sim "$tmp/rewrite.cu" > "$tmp/rewrite.cpp"
grep -q '"k<<<1, 2>>>(x)"; // k<<<1,2>>>(x)' "$tmp/rewrite.cpp" || bad "cu2sim rewrote a string or a comment"
grep -q 'sim::launcher(ns::kern<float, 2>, "ns::kern<float,2>", __FILE__, __LINE__, dim3(1, 2),' "$tmp/rewrite.cpp" \
    || bad "cu2sim did not rewrite a qualified template launch: $(cat "$tmp/rewrite.cpp")"
[[ $(wc -l < "$tmp/rewrite.cpp") == $(( $(wc -l < "$tmp/rewrite.cu") + 1 )) ]] || bad "cu2sim changed the line count"
ok "cu2sim rewrites launches, not strings or comments, and keeps line numbers"
printf '__global__ void k() { __shared__ int x = 3; }\n' > "$tmp/init.cu"
expect_output "a __shared__ initializer is refused with the line" "init.cu:1: error: a __shared__ variable cannot have an initializer" build/tools/cu2sim "$tmp/init.cu"
expect_output "simcc refuses an unknown option" "unknown option --frobnicate" lib/sim/tools/simcc --frobnicate x.cu

# A CUDA header the simulator does not provide is a clear error, never one taken from a toolkit.
printf '#include <mma.h>\n__global__ void k() {}\nint main() { k<<<1, 1>>>(); return 0; }\n' > "$tmp/mma.cu"
expect_output "a CUDA header the simulator lacks says so, and what to use instead" \
    "mma.h (WMMA, Tensor Core fragments) is not simulated" lib/sim/tools/simcc -o "$tmp/mma" "$tmp/mma.cu"
# Cooperative groups' tiles of several warps build; what CUDA does not give them (shfl_down, a conversion
# to thread_group) is refused by simcc with why and what to do instead.
cat > "$tmp/tile64.cu" <<'CU'
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void k(int *o)
{
    __shared__ cg::block_tile_memory<128> s;
    auto t = cg::tiled_partition<64>(cg::this_thread_block(s));
    t.sync();
    o[0] = t.thread_rank() + t.meta_group_rank();
#ifdef SHUFFLE_DOWN
    o[1] = t.shfl_down(o[0], 1);
#endif
#ifdef AS_THREAD_GROUP
    cg::thread_group g = t;
    g.sync();
#endif
}
int main() { return 0; }
CU
lib/sim/tools/simcc -o "$tmp/tile64" "$tmp/tile64.cu" > "$tmp/tile64.log" 2>&1 ||
    bad "a tile of 64 threads with sync() and its ranks does not build: $(cat "$tmp/tile64.log")"
ok "a tile of 64 threads (thread_block_tile<64>, block_tile_memory) builds"
expect_output "shfl_down on a tile of 64 threads is refused by simcc, saying what to use instead" \
    "simcc: cooperative groups' tiles of more than 32 threads" \
    lib/sim/tools/simcc -DSHUFFLE_DOWN -o "$tmp/tile64" "$tmp/tile64.cu"
expect_output "a tile of 64 threads is not a thread_group, as nvcc refuses it, and simcc says what to pass instead" \
    "simcc: a cooperative groups tile of more than 32 threads (thread_block_tile<64> to <1024>) is not a thread_group" \
    lib/sim/tools/simcc -DAS_THREAD_GROUP -o "$tmp/tile64" "$tmp/tile64.cu"
# A texture fetch the simulator lacks (3-D) is a compile error naming it, not an unknown name.
printf '__global__ void k(float *o, cudaTextureObject_t t) { o[0] = tex3D<float>(t, 0, 0, 0); }\nint main() {}\n' \
    > "$tmp/tex3d.cu"
expect_output "tex3D is refused at compile time, by name" "tex3D: 3-D textures are not simulated" \
    lib/sim/tools/simcc -o "$tmp/tex3d" "$tmp/tex3d.cu"
printf '#include <builtin_types.h>\nint main() { return 0; }\n' > "$tmp/toolkit.cu"
if lib/sim/tools/simcc -o "$tmp/toolkit" "$tmp/toolkit.cu" > "$tmp/toolkit.log" 2>&1; then
    bad "a toolkit-only header (builtin_types.h) was taken from an installed CUDA toolkit"
fi
grep -q "simcc: builtin_types.h is not a header the simulator provides" "$tmp/toolkit.log" ||
    bad "a header nobody provides gets no explanation: $(cat "$tmp/toolkit.log")"
ok "a header the simulator does not provide is never taken from a CUDA toolkit, and the error says why"
printf '#include <cuda_profiler_api.h>\n__global__ void k() {}\nint main() { cudaProfilerStart(); k<<<1, 1>>>(); return cudaProfilerStop() != cudaSuccess; }\n' > "$tmp/profiler.cu"
lib/sim/tools/simcc -o "$tmp/profiler" "$tmp/profiler.cu" > "$tmp/profiler.log" 2>&1 && "$tmp/profiler" ||
    bad "cudaProfilerStart/Stop do not build and succeed: $(cat "$tmp/profiler.log")"
ok "cudaProfilerStart and cudaProfilerStop build and succeed"

# hint and reset work on a clone, so that this checkout is never touched.
git clone -q "$root" "$tmp/clone" 2>/dev/null || bad "cannot clone the repository"
mkdir -p "$tmp/clone/build" && cp -r "$root/build/lib" "$root/build/tools" "$root/build/config.mk" "$tmp/clone/build/" 2>/dev/null
cd "$tmp/clone" || exit 2
expect_output "the first hint" "Hint 1 of" tools/hint 01
expect_output "the next hint" "Hint 2 of" tools/hint 01
echo "my work" >> labs/01-why-gpu/flops.c
expect_output "reset restores the lab" "restored" tools/reset 01
git diff --quiet -- labs/01-why-gpu || bad "reset left labs/01-why-gpu changed"
grep -rq "my work" backups/ || bad "reset lost the learner's file (no backup holds it)"
ok "reset keeps a backup of the learner's files"
mkdir -p build/01-why-gpu && echo "failing 1 2" > build/01-why-gpu/status
echo "more work" >> labs/01-why-gpu/flops.c && tools/reset 01 > /dev/null
[[ $(tools/progress | grep '^01 ') == *"not started"* ]] || bad "after make reset, progress says: $(tools/progress | grep '^01 ')"
ok "after make reset, progress shows the day as not started"

# Checking another source keeps its results apart from the learner's own.
BACKEND=sim QUIET=1 tools/check 04 solutions > /dev/null 2>&1 || bad "the day-04 solution fails make check"
[[ -s build/04-latency-hiding/solutions/plot.png && ! -e build/04-latency-hiding/plot.png ]] ||
    bad "make check SRC=solutions did not keep its plot in build/04-latency-hiding/solutions/"
ok "make check SRC=solutions writes its results and plot apart from the learner's"

# An edited driver: make check says so and checks with the driver as shipped, as the grader does
# (tests/grader/hostile/edits-driver.patch is the same submission, graded: only flops/matmul fails).
cp "$root/tests/grader/hostile/edits-driver.files/labs/01-why-gpu/driver/run.cu" labs/01-why-gpu/driver/run.cu
cp "$root/solutions/01-why-gpu/vector_add.cu" labs/01-why-gpu/
cp "$root/solutions/01-why-gpu/flops.c" labs/01-why-gpu/
sed -i 's|return 2 \* m \* n \* k;|return m * n * k;|' labs/01-why-gpu/flops.c
output=$(BACKEND=sim tools/check 01 2>&1)
grep -q "note: you changed the driver: labs/01-why-gpu/driver/run.cu. A grader uses the driver as shipped, so this check does too" <<< "$output" ||
    bad "an edited driver file is not reported:"$'\n'"$output"
failing=$(grep -v '^passed' build/01-why-gpu/labs-sim/report.tsv | cut -f2 | tr '\n' ' ')
[[ $failing == "flops/matmul " ]] || bad "with an edited driver, make check fails '$failing', the grader only 'flops/matmul '"
ok "an edited driver file is reported, and make check uses the shipped one, as the grader does"
git checkout -q -- labs/01-why-gpu

# The verdict does not depend on what else is built: a solution with its own argmax, softmax and
# matmul gives the same verdict before and after the engine's library (lib/llama) is built.
cd "$root" || exit 2
mkdir -p "$tmp/own-names" && cp solutions/03-sm-warps/* "$tmp/own-names/"
printf '\nint argmax(const float *x, int n) { return n > 0 && x[0] > 0; }\nvoid matmul(void) {}\nvoid softmax(float *x) { (void)x; }\n' >> "$tmp/own-names/occupancy.c"
rm -f "$tmp/clone/build/lib/libllama.a"
(cd "$tmp/clone" && QUIET=1 BACKEND=sim tools/check 03 "$tmp/own-names" "$tmp/own-before") || bad "a solution with its own argmax fails make check"
make -s -C "$tmp/clone" build/lib/libllama.a > /dev/null 2>&1 || bad "the engine's library does not build"
(cd "$tmp/clone" && QUIET=1 BACKEND=sim tools/check 03 "$tmp/own-names" "$tmp/own-after") ||
    bad "a solution with its own argmax fails make check once lib/llama is built"
ok "a solution's own argmax, matmul and softmax pass make check before and after lib/llama is built"
