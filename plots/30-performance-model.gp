# 30-performance-model.gp — Day 30's picture: the performance model against the toy engine on
# this CPU (15M shape, seeded FP32 weights, one thread). Left: each measured configuration at
# its predicted time (your roofline bound, from this core's measured bandwidth and FMA peak)
# and its measured time, with the line where they would be equal. Right: the same runs on this
# CPU's roofline, each at its intensity (counted by your model) and the FLOP/s it reached.
#   gnuplot -e "csv='build/30-performance-model/results.csv'; png='out.png'" plots/30-performance-model.gp
# Columns: phase, batch, prompt, context, flops, bytes, intensity, predicted_ms, measured_ms,
# measured_over_predicted, measured_gflop_per_s, attainable_gflop_per_s, peak_gflop_per_s,
# bandwidth_gb_per_s, bound. png='' draws a text plot.
set datafile separator ','
set key autotitle columnhead
stats csv using 13 nooutput
peak = STATS_max
stats csv using 14 nooutput
bandwidth = STATS_max
ridge = peak / bandwidth
stats csv using 10 nooutput
worst = STATS_max
best = STATS_min
stats csv using 8 nooutput
lowest = STATS_min
stats csv using 9 nooutput
highest = STATS_max
roof(x) = x * bandwidth < peak ? x * bandwidth : peak
is_decode(p) = strcol(1) eq 'decode'
if (png ne '') {
    set terminal pngcairo size 1500,720 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 30: the performance model against the toy Llama (15M shape, seeded FP32 weights, one thread)\n" . \
        "measured on this machine's CPU (one core) — not a GPU; predicted = your roofline bound from this core's measured probes" font ',13' noenhanced
    # left: predicted against measured
    set title sprintf('predicted against measured: the engine runs at %.1fx to %.1fx its bound', best, worst) font ',12'
    set logscale xy
    set xrange [lowest / 1.6 : highest * 1.6]
    set yrange [lowest / 1.6 : highest * 1.6]
    set xtics (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    set ytics (0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
    set xlabel 'predicted time (ms, log scale): the roofline bound, max(FLOPs / peak, bytes / bandwidth)'
    set ylabel 'measured time (ms, log scale): median of 5 runs, thread CPU time'
    set grid xtics ytics mxtics mytics lc rgb '#dddddd'
    set key top left box opaque spacing 1.3 noenhanced
    set samples 200
    plot x with lines lw 2 dt 1 lc rgb '#000000' title 'measured = predicted (the bound reached)', \
         2 * x with lines lw 1.5 dt 2 lc rgb '#888888' title 'measured = 2 x predicted', \
         csv using 8:(is_decode(0) ? $9 : NaN) with points pt 7 ps 1.6 lc rgb '#d62728' title 'decode steps, batch 1 to 16 (prompt 32)', \
         csv using 8:(is_decode(0) ? $9 : NaN):(sprintf('b=%d', $2)) with labels offset 2.2,-0.6 font ',9' tc rgb '#d62728' notitle, \
         csv using 8:(is_decode(0) ? NaN : $9) with points pt 5 ps 1.4 lc rgb '#1f77b4' title 'prefills of 8 to 255 tokens (batch 1)', \
         csv using 8:(is_decode(0) ? NaN : $9):(sprintf('p=%d', $3)) with labels offset -2.4,0.7 font ',9' tc rgb '#1f77b4' notitle
    # right: the roofline
    set title sprintf('on this CPU''s roofline: peak %.0f GFLOP/s, %.1f GB/s, ridge %.1f FLOP/byte (measured)', peak, bandwidth, ridge) font ',12'
    set xrange [0.25:128]
    set yrange [2:2 * peak]
    set xtics (0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128)
    set ytics auto
    unset mxtics
    set xlabel 'arithmetic intensity (FLOP/byte, counted by your model: FLOPs over weight + KV bytes)' noenhanced
    set ylabel 'GFLOP/s (log scale)'
    set key bottom right box opaque spacing 1.3 noenhanced
    set arrow 1 from ridge, 2 to ridge, 2 * peak nohead dt 3 lc rgb '#555555'
    set label 2 'memory-bound' at graph 0.05, graph 0.93 left font ',10' textcolor rgb '#1f4e99'
    set label 3 'compute-bound' at graph 0.95, graph 0.93 right font ',10' textcolor rgb '#a05a00'
    set samples 400
    plot roof(x) with lines lw 3 lc rgb '#000000' title 'attainable = min(peak, intensity x bandwidth) (predicted)', \
         csv using 7:(is_decode(0) ? $11 : NaN) with points pt 7 ps 1.6 lc rgb '#d62728' title 'decode steps (measured FLOP/s)', \
         csv using 7:(is_decode(0) ? $11 : NaN):(sprintf('b=%d', $2)) with labels offset 0,-1.1 font ',9' tc rgb '#d62728' notitle, \
         csv using 7:(is_decode(0) ? NaN : $11) with points pt 5 ps 1.4 lc rgb '#1f77b4' title 'prefills (measured FLOP/s)', \
         csv using 7:(is_decode(0) ? NaN : $11):(sprintf('p=%d', $3)) with labels offset 0,1.1 font ',9' tc rgb '#1f77b4' notitle
    unset multiplot
} else {
    set terminal dumb size 110,28
    set logscale xy
    set key off
    set title 'measured ms (y) against predicted ms (x), log-log, this CPU:  d = decode step,  p = prefill,  . = equal'
    set samples 40
    plot x with points pt '.' notitle, csv using 8:(is_decode(0) ? $9 : NaN) with points pt 'd' notitle, \
         csv using 8:(is_decode(0) ? NaN : $9) with points pt 'p' notitle
}
