#!/usr/bin/env bash
# 10-bandwidth.sh — `make bench`, day 10: the solution's C triad next to memcpy on this machine,
# measured side by side in one run of the day's lab (512 MiB working set, far past the last-level
# cache: DRAM), as `name: value unit` lines. Goal: the triad within 10 % of the best that any of
# the five (copy, scale, add, triad, memcpy) reaches there. Runs from the repository root.
set -euo pipefail
out=build/bench/10-bandwidth
mkdir -p build/bench
tools/build/build-lab 10-bandwidth solutions sim "$out" > "$out.build.log" 2>&1 ||
    { echo "bench 10-bandwidth: the solution does not build (see $out.build.log)" >&2; exit 1; }
"$out/lab" "$out/results.csv" > "$out/lab.log"
awk -F, '
    $1 == "cpu-measured" { if ($4 + 0 > largest) largest = $4 + 0; row[NR] = $0 }
    END {
        for (i in row) {
            split(row[i], f, ",")
            if (f[4] + 0 != largest) continue
            gb[f[3]] = f[7] + 0
            if (f[7] + 0 > best) { best = f[7] + 0; best_name = f[3] }
        }
        printf "cpu_triad_dram_bandwidth: %.1f GB/s (the solution'"'"'s C triad, 24 B/element as STREAM counts, %.0f MiB working set)\n", gb["triad"], largest / 2^20
        printf "cpu_triad_dram_bandwidth_with_write_allocate: %.1f GB/s (the same run, counting the 32 B/element the bus carried)\n", gb["triad"] * 32 / 24
        printf "cpu_memcpy_dram_bandwidth: %.1f GB/s (memcpy over the same memory, timed side by side, 16 B per double copied)\n", gb["memcpy"]
        printf "cpu_triad_vs_memcpy: %.0f %%\n", 100 * gb["triad"] / gb["memcpy"]
        printf "cpu_triad_vs_best_of_five: %.0f %% (target >= 90; the best was %s)\n", 100 * gb["triad"] / best, best_name
    }' "$out/results.csv"
