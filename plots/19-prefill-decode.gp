# 19-prefill-decode.gp — Day 19's picture: the two phases of a request on the toy Llama's 15M
# shape, measured on this CPU. Left: time per token against the prompt's length — a prefill's
# time over its prompt, and one decode step after it. Right: both phases of every prompt on this
# CPU's roofline (one core: FMA peak and the bandwidth of reading the weights, both measured),
# each at its intensity (counted from the shape) and the FLOP/s it reached. Every time is the median
# of the lab's repeats; the labels are computed from those medians over several prompts, never from
# one sample, and the plot says when the repeats of a point spread widely (a busy machine).
#   gnuplot -e "csv='build/19-prefill-decode/results.csv'; png='out.png'" plots/19-prefill-decode.gp
# Columns: prompt, prefill_ms_per_token, decode_ms_per_token, prefill_intensity, decode_intensity,
# prefill_gflop_per_s, decode_gflop_per_s, prefill_attainable_gflop_per_s,
# decode_attainable_gflop_per_s, peak_gflop_per_s, bandwidth_gb_per_s, prefill_spread, decode_spread.
# png='' draws a text plot.
set datafile separator ','
set key autotitle columnhead
stats csv using 10 nooutput
peak = STATS_max
stats csv using 11 nooutput
bandwidth = STATS_max
ridge = peak / bandwidth
# decode over prefill per token, where prefill has flattened (32 tokens and more): a range of medians
stats csv using ($1 >= 32 ? $3 / $2 : 1/0) nooutput
gap_low = STATS_min
gap_high = STATS_max
stats csv using ($12 > $13 ? $12 : $13) nooutput
widest_spread = STATS_max
noisy = widest_spread > 0.5
stats csv using 5 nooutput
decode_intensity = STATS_min
roof(x) = x * bandwidth < peak ? x * bandwidth : peak
if (png ne '') {
    set terminal pngcairo size 1500,720 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 19: prefill and decode of the toy Llama's 15M shape (seeded FP32 weights, one thread)\n" . \
        "measured on this machine's CPU (one core) — not a GPU; intensities counted from the shape by your functions" font ',13' noenhanced
    # left: time per token
    set title 'time per token against the prompt (measured, median of 7 runs)' font ',12'
    set logscale xy
    set xrange [0.8:320]
    set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
    set xlabel 'prompt length (tokens, log scale)'
    set ylabel 'milliseconds per token (log scale)'
    set grid xtics ytics mytics lc rgb '#dddddd'
    set key top right box opaque spacing 1.3 noenhanced
    set label 1 sprintf("%.0f to %.0fx apart from 32 tokens on:\ndecode reads every weight for one token", gap_low, gap_high) at graph 0.5, graph 0.62 center font ',10'
    if (noisy) {
        set label 5 sprintf("noisy run: the 7 repeats of one point spread by up to %.0f%%\n(slowest over fastest); the medians are drawn", 100 * widest_spread) at graph 0.03, graph 0.06 left font ',10' textcolor rgb '#b00000'
    } else {
        set label 5 sprintf("quiet run: the 7 repeats of every point within %.0f%%", 100 * widest_spread) at graph 0.03, graph 0.05 left font ',10' textcolor rgb '#555555'
    }
    plot csv using 1:3 with linespoints lw 2.5 pt 7 lc rgb '#d62728' title 'decode: one step after the prompt (GEMV, M = 1)', \
         csv using 1:2 with linespoints lw 2.5 pt 5 lc rgb '#1f77b4' title 'prefill: its time / prompt length (GEMM, M = prompt)'
    unset label 1
    unset label 5
    # right: the roofline
    set title sprintf('on this CPU''s roofline: peak %.0f GFLOP/s, %.1f GB/s, ridge %.1f FLOP/byte', peak, bandwidth, ridge) font ',12'
    set xrange [0.25:64]
    set yrange [4:2 * peak]
    set xtics (0.25, 0.5, 1, 2, 4, 8, 16, 32, 64)
    set xlabel 'arithmetic intensity (FLOP/byte, counted: matmul + attention FLOPs over weight + KV bytes)' noenhanced
    set ylabel 'GFLOP/s (log scale)'
    set key bottom right box opaque spacing 1.3 noenhanced
    set arrow 1 from ridge, 4 to ridge, 2 * peak nohead dt 3 lc rgb '#555555'
    set label 2 'memory-bound' at graph 0.05, graph 0.93 left font ',10' textcolor rgb '#1f4e99'
    set label 3 'compute-bound' at graph 0.95, graph 0.93 right font ',10' textcolor rgb '#a05a00'
    set label 4 sprintf("decode after every prompt:\n%.2f FLOP/byte, the same each time", decode_intensity) at first decode_intensity * 1.1, graph 0.225 left font ',10' textcolor rgb '#d62728'
    set samples 400
    plot roof(x) with lines lw 3 lc rgb '#000000' title 'attainable = min(peak, intensity x bandwidth) (measured probes)', \
         csv using 5:7 with points pt 7 ps 1.6 lc rgb '#d62728' title 'decode steps after every prompt (measured FLOP/s)', \
         csv using 4:6 with points pt 5 ps 1.4 lc rgb '#1f77b4' title 'prefills (measured FLOP/s), labelled by prompt length', \
         csv using 4:($1 <= 128 ? $6 : NaN):(sprintf('%d', $1)) with labels offset 0,1.1 font ',9' notitle, \
         csv using 4:($1 > 128 ? $6 : NaN):(sprintf('%d', $1)) with labels offset 0,-1.1 font ',9' notitle
    unset multiplot
} else {
    set terminal dumb size 110,28
    set logscale xy
    set xrange [0.8:320]
    set key off
    set title 'ms per token vs prompt length (log-log), measured on this CPU:  d = decode step,  p = prefill / prompt'
    plot csv using 1:3 with points pt 'd' notitle, csv using 1:2 with points pt 'p' notitle
}
