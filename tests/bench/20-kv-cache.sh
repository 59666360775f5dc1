#!/usr/bin/env bash
# 20-kv-cache.sh — day 20's figures for `make bench`: the time of the token at position 512 of the
# toy Llama's 42M shape (seeded FP32 weights, one thread) with the solution's KV cache (one decode
# step: median of the 7 steps at 512 .. 518) and without a cache (the whole sequence of 513 tokens
# recomputed: median of 3 prefills), measured side by side in one run of the day's lab program on
# this machine. No target: the ratio grows with the position (the chapter explains why).
set -uo pipefail
out=build/bench/20-kv-cache
mkdir -p "$out"
tools/build/build-lab 20-kv-cache solutions sim "$out" > "$out/build.log" 2>&1 ||
    { echo "20-kv-cache: the solution did not build (see $out/build.log)" >&2; exit 1; }
"$out/lab" "$out/results.csv" > "$out/lab.log" 2>&1 ||
    { echo "20-kv-cache: the lab program failed (see $out/lab.log)" >&2; exit 1; }
awk -F, '$3 == 512 && $1 == "measured-cached" { cached = $5; cached_gflop = $6 }
         $3 == 512 && $1 == "measured-engine-cache" { engine = $5 }
         $3 == 512 && $1 == "measured-uncached" { uncached = $5; uncached_gflop = $6 }
END {
    if (cached == "" || uncached == "") { print "20-kv-cache: no position-512 rows in the results" > "/dev/stderr"; exit 1 }
    printf "day20_cached_ms_per_token_at_512: %.2f ms (42M shape, the solution'"'"'s cache: one decode step, %.3f GFLOP counted)\n", cached, cached_gflop
    printf "day20_engine_cache_ms_per_token_at_512: %.2f ms (the same step with lib/llama'"'"'s own cache and attention)\n", engine
    printf "day20_uncached_ms_per_token_at_512: %.1f ms (the same token, all 513 tokens recomputed, %.1f GFLOP counted)\n", uncached, uncached_gflop
    printf "day20_cache_speedup_at_512: %.0f x (measured side by side; %.0f x in counted FLOPs)\n", uncached / cached, uncached_gflop / cached_gflop
}' "$out/results.csv"
