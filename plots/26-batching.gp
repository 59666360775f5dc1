# 26-batching.gp — Day 26's picture: static against continuous (iteration-level) batching as the
# arrival rate grows. The same 1000 requests (data/requests-sharegpt-like.csv, its arrival times
# scaled to each rate) served by Llama-2-7B FP16 on an H100 SXM's roofline: every step's cost is
# predicted (weights once a step, each request's KV entries, FLOPs per new token), the steps are
# added up by the lab's discrete-event simulator (counted). No GPU was used.
#   gnuplot -e "csv='build/26-batching/results.csv'; png='out.png'" plots/26-batching.gp
# Columns: scheduler, rate_per_s, tokens_per_s, requests_per_s, ttft_p50_s, ttft_p99_s,
# tpot_p50_ms, tpot_p99_ms, mean_batch, makespan_s. With png='' it draws a text plot.
set datafile separator ','
set logscale x 2
set xrange [0.8:160]
set xtics ('1' 1, '2' 2, '4' 4, '8' 8, '16' 16, '32' 32, '64' 64, '128' 128)
set grid xtics ytics lc rgb '#dddddd'
is(name, column) = strcol(1) eq name ? column(column) : NaN
# rows alternate static, continuous (the driver's order) after the header, which gnuplot counts as
# row 0: every 2::1 is static, every 2::2 continuous
stats csv using (is('static', 3)) nooutput
static_max = STATS_max
stats csv using (is('continuous', 3)) nooutput
continuous_max = STATS_max
stats csv using (strcol(1) eq 'static' && $2 == 32 ? $3 : NaN) nooutput
static_32 = STATS_max
stats csv using (strcol(1) eq 'continuous' && $2 == 32 ? $3 : NaN) nooutput
continuous_32 = STATS_max
if (png ne '') {
    set terminal pngcairo size 1500,1000 font ',11'
    set output png
    set multiplot layout 2,2 title "Day 26: static against continuous batching, Llama-2-7B FP16 on an H100 SXM, 1000 ShareGPT-like requests\n" . \
        "step costs predicted by the roofline, time counted by the lab's simulator (no GPU was used); KV budget 111 624 tokens, at most 256 requests a step" font ',13'
    set xlabel 'arrival rate (requests/s, log scale)'
    set key top left box opaque
    # throughput
    set title 'throughput: output tokens / (last finish - first arrival)' font ',12'
    set ylabel 'tokens/s (counted)'
    set yrange [0:*]
    set arrow 1 from 32, graph 0 to 32, graph 1 nohead dt 3 lc rgb '#888888'
    set label 1 sprintf('the shipped trace, 32 req/s: %.0f vs %.0f tokens/s (%.2fx)', continuous_32, static_32, \
        continuous_32 / static_32) at 30, graph 0.62 right font ',10'
    plot csv every 2::2 using 2:3 with linespoints lw 2.5 pt 7 lc rgb '#3182bd' title 'continuous (iteration-level)', \
         csv every 2::1 using 2:3 with linespoints lw 2.5 pt 5 lc rgb '#e6550d' title 'static (a batch runs to its longest request)'
    unset label 1
    # TTFT
    set title 'time to first token (waiting in the queue + prefill)' font ',12'
    set ylabel 'TTFT (s, counted, log scale)'
    set logscale y
    set yrange [0.003:100]
    set key top left
    plot csv every 2::2 using 2:6 with linespoints lw 2.5 pt 7 lc rgb '#3182bd' title 'continuous p99', \
         csv every 2::2 using 2:5 with linespoints lw 1.5 pt 6 dt 2 lc rgb '#3182bd' title 'continuous p50', \
         csv every 2::1 using 2:6 with linespoints lw 2.5 pt 5 lc rgb '#e6550d' title 'static p99', \
         csv every 2::1 using 2:5 with linespoints lw 1.5 pt 4 dt 2 lc rgb '#e6550d' title 'static p50'
    # TPOT
    unset logscale y
    set title 'time per output token after the first (each request: its decode span / (tokens - 1))' font ',12'
    set ylabel 'TPOT (ms, counted)'
    set yrange [0:*]
    plot csv every 2::2 using 2:8 with linespoints lw 2.5 pt 7 lc rgb '#3182bd' title 'continuous p99', \
         csv every 2::2 using 2:7 with linespoints lw 1.5 pt 6 dt 2 lc rgb '#3182bd' title 'continuous p50', \
         csv every 2::1 using 2:8 with linespoints lw 2.5 pt 5 lc rgb '#e6550d' title 'static p99', \
         csv every 2::1 using 2:7 with linespoints lw 1.5 pt 4 dt 2 lc rgb '#e6550d' title 'static p50'
    # batch
    set title 'requests in a step, averaged over the steps' font ',12'
    set ylabel 'mean batch (requests a step, counted)'
    plot csv every 2::2 using 2:9 with linespoints lw 2.5 pt 7 lc rgb '#3182bd' title 'continuous', \
         csv every 2::1 using 2:9 with linespoints lw 2.5 pt 5 lc rgb '#e6550d' title 'static'
    unset multiplot
} else {
    set terminal dumb size 110,28
    set key off
    set yrange [0:*]
    set title sprintf("tokens/s vs arrival rate (requests/s, log):  c = continuous (up to %.0f),  s = static (up to %.0f)", \
        continuous_max, static_max)
    plot csv every 2::2 using 2:3 with points pt 'c' notitle, \
         csv every 2::1 using 2:3 with points pt 's' notitle
}
