# 27-batch-vs-tpot.gp — Day 27's picture: what a bigger decode batch costs each token and gives
# the server. Left: TPOT against the batch — predicted by the roofline for Llama-2-7B in FP16
# on an H100 SXM and an A100 (16-token prompts, 16 generated), predicted and measured for the
# toy Llama's 15M shape on this CPU. Right: the batch's tokens per second. Each series' knee
# (knee_batch, the closed form) is marked by a dashed line of its colour.
#   gnuplot -e "csv='build/27-batch-vs-tpot/results.csv'; png='out.png'" plots/27-batch-vs-tpot.gp
# Columns: series (h100-sxm, a100-80gb, cpu-predicted, cpu-measured), batch, tpot_ms,
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
h100 = '#1f77b4'; a100 = '#2ca02c'; cpu = '#d62728'
if (png ne '') {
    set terminal pngcairo size 1500,720 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 27: TPOT stays flat while a decode step is memory-bound, and grows with the batch past the knee\n" . \
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
    # left: TPOT
    set title 'TPOT: the time of one decode step (every sequence gets a token)' font ',12'
    set ylabel 'milliseconds per output token (log scale)'
    set yrange [1:100]
    plot csv using (is('h100-sxm') ? $2 : NaN):3 with linespoints lw 2.5 pt 7 lc rgb h100 title 'H100 SXM, Llama-2-7B (predicted)', \
         csv using (is('a100-80gb') ? $2 : NaN):3 with linespoints lw 2.5 pt 5 lc rgb a100 title 'A100 80GB, Llama-2-7B (predicted)', \
         csv using (is('cpu-predicted') ? $2 : NaN):3 with lines lw 2 dt 3 lc rgb cpu title 'this CPU, 15M shape (predicted: roofline of the probes)', \
         csv using (is('cpu-measured') ? $2 : NaN):3 with linespoints lw 2.5 pt 9 lc rgb cpu title 'this CPU, 15M shape (measured, best of 5)'
    # right: throughput
    set title "the batch's throughput: batch / TPOT" font ',12'
    set ylabel 'tokens per second, all sequences together (log scale)'
    set yrange [100:200000]
    set key top left
    plot csv using (is('h100-sxm') ? $2 : NaN):4 with linespoints lw 2.5 pt 7 lc rgb h100 title 'H100 SXM, Llama-2-7B (predicted)', \
         csv using (is('a100-80gb') ? $2 : NaN):4 with linespoints lw 2.5 pt 5 lc rgb a100 title 'A100 80GB, Llama-2-7B (predicted)', \
         csv using (is('cpu-predicted') ? $2 : NaN):4 with lines lw 2 dt 3 lc rgb cpu title 'this CPU, 15M shape (predicted)', \
         csv using (is('cpu-measured') ? $2 : NaN):4 with linespoints lw 2.5 pt 9 lc rgb cpu title 'this CPU, 15M shape (measured)'
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
