#!/usr/bin/env bash
# simcc-options.sh — lib/sim/tools/simcc takes nvcc's command line: every option that only matters on
# a GPU is accepted and ignored (its value too, whether after '=' or as the next argument), the host
# side's options reach the host compiler and linker, the compilation phases work as nvcc's (-c, -dc,
# -dlink, -x cu), and what cannot be simulated (-ptx, -cubin, -E …) is refused by name. The option
# lists come from simcc itself, so an option added there is tested here. Prints "ok ..." per check and
# exits non-zero after the last check when one failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/simcc-options.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
simcc=lib/sim/tools/simcc
failed=0
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; failed=1; }
make -s libs || { echo "FAILED: the simulator does not build"; exit 1; }
export SIMCC_LIBS_BUILT=$root

cat > "$tmp/k.cu" <<'CU'
#include <cstdio>
__global__ void fill(int *x) { x[threadIdx.x] = threadIdx.x; }
int main()
{
    int *x, h[64];
    cudaMalloc(&x, sizeof h);
    fill<<<1, 64>>>(x);
    cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost);
    printf("%d\n", h[63]);
    return 0;
}
CU
"$simcc" -c -o "$tmp/warm.o" "$tmp/k.cu" > /dev/null 2>&1   # the precompiled header, made once

# Every GPU-only option, as simcc lists them: with a value (as the next argument), and without.
list() { sed -n "/^$1=\" [A-Za-z]/,/\"\$/p" "$simcc" | sed "s/^$1=\"//; s/\"\$//" | tr -s '[:space:]' '\n' | grep .; }
list gpu_options_with_value > "$tmp/with-value"
list gpu_flags > "$tmp/flags"
(($(wc -l < "$tmp/with-value") > 50 && $(wc -l < "$tmp/flags") > 50)) || { echo "FAILED: cannot read simcc's option lists"; exit 1; }
accepts() {   # NAME ARG...: compiles k.cu with ARG... added; prints ok or the error
    local name=$1; shift
    if "$simcc" "$@" -c -o "$tmp/$name.o" "$tmp/k.cu" > "$tmp/$name.log" 2>&1 && [[ -s $tmp/$name.o ]]; then echo "ok"
    else head -2 "$tmp/$name.log" | tr '\n' ' '; fi
}
export -f accepts; export simcc tmp
refused=$( { while read -r name; do echo "$name -$name x"; done < "$tmp/with-value"
             while read -r name; do echo "$name -$name"; done < "$tmp/flags"; } |
           xargs -P "$(nproc)" -L 1 bash -c 'result=$(accepts "$0" "$@"); [[ $result == ok ]] || echo "$0: $result"' )
[[ -z $refused ]] && ok "simcc accepts and ignores each of nvcc's $(cat "$tmp/with-value" "$tmp/flags" | wc -l) GPU-only options, a value after it consumed" ||
    bad "options refused: $refused"

# Every option of the nvcc installed here, if one is (nvcc --help, both spellings): simcc knows each, whether
# it takes it, passes it on or refuses it by name, and never answers "unknown option" (each is tried alone, so
# that simcc stops after reading it: no input files, a value missing, or not simulated).
if command -v nvcc > /dev/null; then
    nvcc --help | awk '/^--[A-Za-z]/ { name = $1; sub(/^--/, "", name); print "--" name
                                       if (match($0, /\(-[A-Za-z0-9_-]+\)/)) print substr($0, RSTART, RLENGTH) }' |
        tr -d '()' > "$tmp/nvcc-options"
    unknown=$(cd "$tmp" && while read -r option; do
                  "$root/$simcc" "$option" 2>&1 < /dev/null | grep -q 'unknown option' && echo "$option"
              done < "$tmp/nvcc-options" | tr '\n' ' ')
    if (($(wc -l < "$tmp/nvcc-options") < 200)); then bad "cannot read nvcc --help's options"
    elif [[ -z $unknown ]]; then
        release=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
        ok "simcc knows each of the $(wc -l < "$tmp/nvcc-options") spellings of nvcc $release's options"
    else bad "options of nvcc that simcc does not know: $unknown"; fi
else
    echo "skipped: no nvcc here to read the options of (the lists in simcc are from CUDA 13's nvcc --help)"
fi

# The spellings of the issue that brought this test (nvcc's documentation, each form), built and run.
builds_and_runs() {   # ARG...
    "$simcc" "$@" -o "$tmp/k" "$tmp/k.cu" > "$tmp/run.log" 2>&1 && [[ $("$tmp/k") == 63 ]]
}
for options in "-lineinfo" "--generate-line-info" "-gencode arch=compute_80,code=sm_80" "-gencode=arch=compute_90,code=sm_90" \
               "--generate-code=arch=compute_80,code=[sm_80,compute_80]" "-maxrregcount=32" "-maxrregcount 32" "-G" \
               "-Xptxas -v" "-Xptxas=-v,-warn-spills" "--ptxas-options=-v" "-rdc=true" "-rdc true" "--expt-relaxed-constexpr" \
               "-Xcompiler -Wall,-Wextra" "--compiler-options=-Wall" "-ccbin g++" "-ccbin=/usr/bin/g++" "-arch=sm_80" "-arch sm_90" \
               "--gpu-architecture=sm_80" "-O3" "-O 2" "--optimize=1" "-std=c++17" "--std c++17" "-DSIZE=64" "-D SIZE" \
               "--define-macro=SIZE" "-I$tmp" "--include-path $tmp" "-lm" "--library m" "-L/usr/lib" "--library-path=/usr/lib" \
               "-use_fast_math" "--use_fast_math" "-ftz=true" "--default-stream per-thread" "-m64" "-MMD -MP" \
               "-Xlinker --as-needed" "-w" "-cudart static" "-lcudart" "-lcublas" "-g" "-ftemplate-depth 64" \
               "--ftemplate-depth=128" "-noeh" "--no-exceptions" "--sanitize memcheck" "-jobserver"; do
    # shellcheck disable=SC2086
    if builds_and_runs $options; then ok "simcc $options builds and runs a kernel"; else bad "simcc $options: $(head -2 "$tmp/run.log")"; fi
done

# The phases: -dc and -dlink (separate compilation), -x cu, -shared; what has no meaning on a CPU is refused.
if "$simcc" -dc -o "$tmp/k.o" "$tmp/k.cu" && "$simcc" -dlink -o "$tmp/link.o" "$tmp/k.o" && "$simcc" -o "$tmp/k" "$tmp/k.o" "$tmp/link.o" &&
   [[ $("$tmp/k") == 63 ]]; then ok "nvcc -dc, then -dlink, then the link: the program runs"
else bad "separate compilation (-dc, -dlink) does not build"; fi
cp "$tmp/k.cu" "$tmp/k.cpp"
if "$simcc" -x cu -o "$tmp/k" "$tmp/k.cpp" > "$tmp/x.log" 2>&1 && [[ $("$tmp/k") == 63 ]]; then ok "-x cu compiles a .cpp file as CUDA (its launch rewritten)"
else bad "-x cu k.cpp: $(head -2 "$tmp/x.log")"; fi
if "$simcc" -pg -c -o "$tmp/pg.o" "$tmp/k.cu" > "$tmp/pg.log" 2>&1; then ok "simcc -pg compiles for gprof (host code)"
else bad "simcc -pg: $(head -2 "$tmp/pg.log")"; fi
for phase in -ptx -cubin -fatbin -E -M -lib -run -r -optf -V --version -arch-ls -code-ls -clean; do
    "$simcc" "$phase" "$tmp/k.cu" > "$tmp/phase.log" 2>&1
    status=$?
    if ((status == 2)) && grep -q -- "$phase is not simulated" "$tmp/phase.log"; then ok "$phase is refused by name"
    else bad "$phase: exit $status, $(head -1 "$tmp/phase.log")"; fi
done
"$simcc" --no-such-option "$tmp/k.cu" > "$tmp/unknown.log" 2>&1
(($? == 2)) && grep -q 'unknown option --no-such-option' "$tmp/unknown.log" && ok "an option nvcc does not have is refused, named" ||
    bad "an unknown option: $(head -1 "$tmp/unknown.log")"
exit "$failed"
