# 12-tiling.sh — day 12's figure for `make bench`: the solution's blocked CPU GEMM as a
# percentage of OpenBLAS (cblas_sgemm, one thread) at N = 1024, both timed side by side in one
# run of the day's lab program (best of 3 each), on this machine. Goal: at least 50 %.
set -uo pipefail
out=build/bench/12-tiling
mkdir -p "$out"
tools/build/build-lab 12-tiling solutions sim "$out" > "$out/build.log" 2>&1 ||
    { echo "12-tiling: the solution did not build (see $out/build.log)" >&2; exit 1; }
"$out/lab" "$out/results.csv" > "$out/lab.log" 2>&1 ||
    { echo "12-tiling: the lab program failed (see $out/lab.log)" >&2; exit 1; }
awk -F, '$1 == "cpu" && $2 == 1024 && $12 != "" && $13 != "" {
    printf "day12_blocked_gemm_n1024_gflop_per_s: %.1f GFLOP/s (one thread)\n", $12
    printf "day12_openblas_sgemm_n1024_gflop_per_s: %.1f GFLOP/s (one thread)\n", $13
    printf "day12_blocked_gemm_percent_of_openblas_n1024: %.0f %% (goal >= 50)\n", 100 * $12 / $13
    found = 1
} END { if (!found) { print "12-tiling: no N = 1024 row with both GFLOP/s in the results" > "/dev/stderr"; exit 1 } }' \
    "$out/results.csv"
