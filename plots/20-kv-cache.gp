# 20-kv-cache.gp — Day 20's picture: what the KV cache saves and what it costs. Left: the toy
# Llama's time per generated token against its position, with your cache and the engine's own (one
# decode step) and without a cache (the whole sequence recomputed), measured on this CPU. Right: the FP16 cache of one
# sequence against the context length for every model of data/models.csv, from the lab's formula,
# beside an H100's 80 GiB.
#   gnuplot -e "csv='build/20-kv-cache/results.csv'; png='out.png'" plots/20-kv-cache.gp
# Columns: series, model, position, context_tokens, time_ms, counted_gflop, kv_bytes.
# With png='' it draws a text plot (the left panel).
set datafile separator ','
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
is(series) = strcol(1) eq series
measured(series) = is(series) ? $5 : NaN
kv(name) = (strcol(1) eq 'kv-fp16' && strcol(2) eq name) ? $7 / 2**30 : NaN
stats csv using (is('measured-uncached') && $3 == 512 ? $5 : NaN) nooutput
uncached_512 = STATS_max
stats csv using (is('measured-cached') && $3 == 512 ? $5 : NaN) nooutput
cached_512 = STATS_max
if (png ne '') {
    set terminal pngcairo size 1500,760 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 20: the KV cache turns a token's cost from the whole sequence into one step, and pays in memory\n" . \
        "left: measured on this CPU (the toy Llama's 42M shape, seeded FP32 weights, one thread); right: the lab's size formula" font ',13'
    # left: time per token
    set title "time to generate the token at position p (measured)" font ',12'
    set logscale xy
    set xrange [0.8:1300]
    set yrange [1:20000]
    set xtics ('1' 1, '4' 4, '16' 16, '64' 64, '256' 256, '1024' 1024)
    set format y '%g'
    set xlabel 'position p of the token in the sequence (log scale)'
    set ylabel 'milliseconds per generated token (log scale)'
    set key top left box opaque spacing 1.3
    set label 1 sprintf("at p = 512: %.0f ms without a cache,\n%.1f ms with your cache: %.0fx", uncached_512, cached_512, \
        uncached_512 / cached_512) at 1.2, 2500 left font ',10'
    plot csv using 3:(measured('measured-uncached')) with linespoints lw 2.5 pt 7 ps 1.1 lc rgb '#e6550d' \
             title 'without a cache: recompute all p + 1 tokens (a prefill), grows as p', \
         csv using 3:(measured('measured-cached')) with linespoints lw 2.5 pt 5 ps 1.1 lc rgb '#3182bd' \
             title 'with your cache: one decode step, almost flat', \
         csv using 3:(measured('measured-engine-cache')) with linespoints lw 1.5 dt 2 pt 4 ps 1 lc rgb '#555555' \
             title "with the engine's own cache (the same work, attention in SIMD lanes)" 
    unset label 1
    # right: KV bytes
    set title "one sequence's FP16 KV cache against the context (from your kv_cache_bytes)" font ',12' noenhanced
    set xrange [256:131072]
    set yrange [0.001:200]
    set xtics ('256' 256, '1K' 1024, '4K' 4096, '16K' 16384, '32K' 32768, '128K' 131072)
    set ytics ('0.001' 0.001, '0.01' 0.01, '0.1' 0.1, '1' 1, '10' 10, '100' 100)
    set xlabel 'context: tokens cached (log scale)'
    set ylabel 'GiB (log scale)'
    set key bottom right box opaque spacing 1.1 font ',10'
    set arrow 2 from 256, 80 to 131072, 80 nohead lw 2 dt 2 lc rgb '#cc0000'
    set label 2 "an H100's 80 GiB: the whole GPU (72 GiB usable in the book's budget)" at 300, 105 left font ',10' tc rgb '#cc0000'
    set arrow 3 from 4096, 0.001 to 4096, 200 nohead dt 3 lc rgb '#777777'
    set label 3 "Llama-2-7B at 4096 tokens:\nexactly 2 GiB (checked)" at 3700, 3.5 right font ',10'
    set label 4 '' at 4096, 2 point pt 7 ps 1.3 lc rgb '#3182bd'
    plot csv using 4:(kv('Llama-2-13B')) with lines lw 2.5 lc rgb '#756bb1' title 'Llama-2-13B (40 layers x 40 K/V heads)', \
         csv using 4:(kv('Llama-2-7B')) with lines lw 2.5 lc rgb '#3182bd' title 'Llama-2-7B (32 x 32)', \
         csv using 4:(kv('Llama-2-70B')) with lines lw 2.5 lc rgb '#e6550d' title 'Llama-2-70B (80 x 8, GQA)', \
         csv using 4:(kv('Llama-3-70B')) with lines lw 2.5 dt 2 lc rgb '#fdae6b' title 'Llama-3-70B (80 x 8: the same)', \
         csv using 4:(kv('Llama-3-8B')) with lines lw 2.5 lc rgb '#31a354' \
             title 'Llama-3-8B = Mistral-7B = Mixtral-8x7B (32 x 8)', \
         csv using 4:(kv('Qwen2-7B')) with lines lw 2.5 lc rgb '#636363' title 'Qwen2-7B (28 x 4)'
    unset multiplot
} else {
    set terminal dumb size 110,28
    unset grid
    set logscale xy
    set xrange [0.8:1300]
    set key off
    set title "ms per generated token vs position (log-log):  u = recomputed without a cache,  c = with your cache"
    plot csv using 3:(measured('measured-uncached')) with points pt 'u' notitle, \
         csv using 3:(measured('measured-cached')) with points pt 'c' notitle
}
