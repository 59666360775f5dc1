#!/usr/bin/env bash
# 22-flash-attention.sh — day 22's figure for `make bench`: the solution's tiled CPU attention
# (FlashAttention's loop, tiles of 32, 68 KiB of buffers) against day 18's algorithm in float
# (the n x n scores in memory, 64 MiB) at N = 4096, one causal head of d = 64, both timed side by
# side in one run of the day's lab program (best of 3 each), on this machine, one core.
set -uo pipefail
out=build/bench/22-flash-attention
mkdir -p "$out"
tools/build/build-lab 22-flash-attention solutions sim "$out" > "$out/build.log" 2>&1 ||
    { echo "22-flash-attention: the solution did not build (see $out/build.log)" >&2; exit 1; }
"$out/lab" "$out/results.csv" > "$out/lab.log" 2>&1 ||
    { echo "22-flash-attention: the lab program failed (see $out/lab.log)" >&2; exit 1; }
awk -F, '$1 == "cpu" && $2 == 4096 && $12 != "" && $13 != "" {
    printf "day22_naive_attention_n4096_seconds: %.4f s (n x n scores in memory, %.0f MiB, one core)\n", $12, $14 / 2^20
    printf "day22_tiled_attention_n4096_seconds: %.4f s (tiles of %d, %.1f KiB of buffers, one core)\n", $13, $4, $15 / 1024
    printf "day22_naive_over_tiled_n4096: %.2f (measured side by side in one run)\n", $12 / $13
    found = 1
} END { if (!found) { print "22-flash-attention: no N = 4096 row with both times in the results" > "/dev/stderr"; exit 1 } }' \
    "$out/results.csv"
