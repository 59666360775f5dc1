# 27-batch-vs-tpot.gp — Day 27's picture: what a bigger decode batch costs each token and gives
# the server. Left: TPOT against the batch — predicted by the roofline for Llama-2-7B in FP16
# on an H100 SXM and an A100 (16-token prompts, 16 generated), predicted and measured for the
# toy Llama's 15M shape on this CPU. Right: the batch's tokens per second. Each series' knee
# (knee_batch, the closed form) is marked by a dashed line of its colour. Below: the two regimes
# on the H100, predicted — short contexts bend at the compute knee, long ones rise from batch 1
# with the caches' bytes and have no knee (dotted where the caches no longer fit the card).
#   gnuplot -e "csv='build/27-batch-vs-tpot/results.csv'; png='out.png'" plots/27-batch-vs-tpot.gp
# Columns: series (h100-sxm, a100-80gb, h100-sxm-long, h100-sxm-long-unfit, h100-sxm-long-compute,
# cpu-predicted, cpu-measured), batch, tpot_ms,
# tokens_per_s, knee_batch. png='' draws a text plot.
set datafile separator ','
set key autotitle columnhead
is(s) = strcol(1) eq s
stats csv using (is('h100-sxm') ? $5 : NaN) nooutput
knee_h100 = STATS_max
stats csv using (is('a100-80gb') ? $5 : NaN) nooutput
knee_a100 = STATS_max
stats csv using (is('cpu-predicted') ? $5 : NaN) nooutput
knee_cpu = STATS_max
h100 = '#1f77b4'; a100 = '#2ca02c'; cpu = '#d62728'; long = '#9467bd'
stats csv using (is('h100-sxm-long-most') ? $2 : NaN) nooutput
fit_long = STATS_max
if (png ne '') {
    set terminal pngcairo size 1500,1300 font ',11'
    set output png
    set multiplot title "Day 27: TPOT stays flat while a decode step is memory-bound, and grows with the batch past the knee\n" . \
        "GPUs: predicted by the roofline (Llama-2-7B, FP16, 24 positions attended); CPU: the toy Llama's 15M shape, FP32, one core, predicted and measured" font ',13' noenhanced
    set logscale xy
    set xrange [0.8:1300]
    set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
    set xlabel 'batch (sequences decoded together, log scale)'
    set grid xtics ytics lc rgb '#dddddd'
    set key top left box opaque spacing 1.2 noenhanced
    set key width -2
    set arrow 1 from knee_h100, graph 0 to knee_h100, graph 1 nohead dt 2 lw 1.5 lc rgb h100 back
    set arrow 2 from knee_a100, graph 0 to knee_a100, graph 1 nohead dt 2 lw 1.5 lc rgb a100 back
    set arrow 3 from knee_cpu, graph 0 to knee_cpu, graph 1 nohead dt 2 lw 1.5 lc rgb cpu back
    set label 1 sprintf('H100 knee %.0f', knee_h100) at knee_h100, graph 0.10 right offset -0.5,0 font ',10' textcolor rgb h100
    set label 2 sprintf('A100 knee %.0f', knee_a100) at knee_a100, graph 0.04 right offset -0.5,0 font ',10' textcolor rgb a100
    set label 3 sprintf('CPU knee %.1f', knee_cpu) at knee_cpu, graph 0.04 left offset 0.5,0 font ',10' textcolor rgb cpu
    # top left: TPOT
    set size 0.5,0.52
    set origin 0,0.43
    set title 'TPOT: the time of one decode step (every sequence gets a token)' font ',12'
    set ylabel 'milliseconds per output token (log scale)'
    set yrange [1:100]
    plot csv using (is('h100-sxm') ? $2 : NaN):3 with linespoints lw 2.5 pt 7 lc rgb h100 title 'H100 SXM, Llama-2-7B (predicted)', \
         csv using (is('a100-80gb') ? $2 : NaN):3 with linespoints lw 2.5 pt 5 lc rgb a100 title 'A100 80GB, Llama-2-7B (predicted)', \
         csv using (is('cpu-predicted') ? $2 : NaN):3 with lines lw 2 dt 3 lc rgb cpu title 'this CPU, 15M shape (predicted: roofline of the probes)', \
         csv using (is('cpu-measured') ? $2 : NaN):3 with linespoints lw 2.5 pt 9 lc rgb cpu title 'this CPU, 15M shape (measured, best of 5)'
    # top right: throughput
    set origin 0.5,0.43
    set title "the batch's throughput: batch / TPOT" font ',12'
    set ylabel 'tokens per second, all sequences together (log scale)'
    set yrange [100:200000]
    set key top left
    plot csv using (is('h100-sxm') ? $2 : NaN):4 with linespoints lw 2.5 pt 7 lc rgb h100 title 'H100 SXM, Llama-2-7B (predicted)', \
         csv using (is('a100-80gb') ? $2 : NaN):4 with linespoints lw 2.5 pt 5 lc rgb a100 title 'A100 80GB, Llama-2-7B (predicted)', \
         csv using (is('cpu-predicted') ? $2 : NaN):4 with lines lw 2 dt 3 lc rgb cpu title 'this CPU, 15M shape (predicted)', \
         csv using (is('cpu-measured') ? $2 : NaN):4 with linespoints lw 2.5 pt 9 lc rgb cpu title 'this CPU, 15M shape (measured)'
    # below: the two regimes on one H100, predicted
    set size 1,0.43
    set origin 0,0
    unset arrow
    unset label
    set title "Which regime? Llama-2-7B on an H100 SXM, FP16, predicted: the knee at short contexts, the caches' bytes at long ones" font ',12'
    set ylabel 'milliseconds per output token (log scale)'
    set yrange [0.01:400]
    set key top left box opaque spacing 1.2 noenhanced width -6
    set arrow 1 from knee_h100, graph 0 to knee_h100, graph 1 nohead dt 2 lw 1.5 lc rgb h100 back
    set label 1 sprintf('knee %.0f (context 24)', knee_h100) at knee_h100, graph 0.06 right offset -0.5,0 font ',10' textcolor rgb h100
    set arrow 2 from 64, graph 0 to 64, graph 1 nohead dt 3 lw 1 lc rgb '#777777' back
    set arrow 3 from 256, graph 0 to 256, graph 1 nohead dt 3 lw 1 lc rgb '#777777' back
    set label 2 "the seed's batches: 64" at 64, graph 0.12 right offset -0.5,0 font ',10' textcolor rgb '#555555'
    set label 3 "and 256" at 256, graph 0.12 right offset -0.5,0 font ',10' textcolor rgb '#555555'
    set arrow 4 from fit_long, graph 0 to fit_long, graph 1 nohead dt 4 lw 1.5 lc rgb long back
    set label 4 sprintf('at context 1088 at most %.0f sequences fit one H100', fit_long) at fit_long, graph 0.30 left offset 0.5,0 font ',10' textcolor rgb long
    plot csv using (is('h100-sxm') ? $2 : NaN):3 with linespoints lw 2.5 pt 7 lc rgb h100 title 'context 24 positions (16-token prompts): flat, then bends at the compute knee (epsilon 0.29)', \
         csv using (is('h100-sxm-long') ? $2 : NaN):3 with linespoints lw 2.5 pt 11 lc rgb long title 'context 1088 positions (1024-token prompts): rises from batch 1 with the caches, no knee (epsilon > 1)', \
         csv using (is('h100-sxm-long-unfit') ? $2 : NaN):3 with linespoints lw 2 dt 3 pt 11 lc rgb long title '... the same where the caches no longer fit one H100', \
         csv using (is('h100-sxm-long-compute') ? $2 : NaN):3 with lines lw 1.5 dt 2 lc rgb '#777777' title 'context 1088: the FLOPs alone (B f / P), below the bytes at every batch'
    unset multiplot
} else {
    set terminal dumb size 110,28
    set logscale xy
    set xrange [0.8:1300]
    set key off
    set title 'TPOT (ms) vs batch, log-log:  H = H100, A = A100 (predicted),  c = this CPU measured,  p = CPU predicted'
    plot csv using (is('h100-sxm') ? $2 : NaN):3 with points pt 'H', csv using (is('a100-80gb') ? $2 : NaN):3 with points pt 'A', \
         csv using (is('cpu-measured') ? $2 : NaN):3 with points pt 'c', csv using (is('cpu-predicted') ? $2 : NaN):3 with points pt 'p'
}
