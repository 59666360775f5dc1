# 18-attention-naive.gp — Day 18's picture: what naive attention moves and holds as the sequence
# grows, for one causal head of d = 64. Points, counted on the simulator (n = 16 .. 512): all the
# global bytes the three kernels moved, the bytes of the n x n score matrix alone (4 n^2), and
# the device memory the run allocated (q, k, v, out and the scores). Lines: the same grown as n^2
# from the largest counted point out to n = 262144 (predicted: arithmetic, not measured), and the
# H100 SXM's memory (memory_gib in data/gpus.csv, 2^30 bytes each), which one head's score matrix fills near
# n = 146542. Log-log: a slope of 2 is n^2.
#   gnuplot -e "csv='build/18-attention-naive/results.csv'; png='out.png'" plots/18-attention-naive.gp
# With png='' it draws the same picture as text in the terminal.
set datafile separator ','
set datafile missing ''
gpus = ARG0[1:strstrt(ARG0, 'plots/18-attention-naive.gp') - 1] . 'data/gpus.csv'
stats gpus skip 1 using (strcol(1) eq 'h100-sxm' ? $14 * 2**30 : 0) nooutput
h100_bytes = STATS_max
# The rows of the CSV (lengths whose run was right); with none, only the predicted lines are drawn.
rows = int(system(sprintf("awk 'END { print NR - 1 }' '%s'", csv)))
last_n = 512
last_global = NaN
valid_global = 0
if (rows > 0) {
    stats csv skip 1 using 1 nooutput
    last_n = STATS_max
    stats csv skip 1 using (valid(3) ? 1 : 0) nooutput
    valid_global = STATS_sum > 0
    if (valid_global) {
        stats csv skip 1 using ($1 == last_n ? $3 : 0) nooutput
        last_global = STATS_max
    }
}
set logscale xy 2
set xrange [16:262144]
set format x '2^{%L}'
set logscale y 10
set yrange [1e3:1e14]
set format y '10^{%L}'
set grid xtics ytics
set key top left box opaque
set xlabel 'sequence length n (tokens), one head, d = 64, causal'
set ylabel 'bytes (log scale)'
d = 64
# n^2 from the largest counted point; the footprint's own formula (4 n^2 + 16 n d) is exact.
global_grown(n) = valid_global ? last_global * (n / last_n)**2 : NaN
footprint(n) = 4.0 * n * n + 16.0 * n * d

if (png ne '') {
    set terminal pngcairo size 1200,760 font ',11'
    set output png
    set title sprintf("Day 18: naive attention keeps the n x n scores in global memory — bytes moved and memory held grow as n^2\npoints: counted on the simulator (n = 16 .. %.0f); lines: the same grown as n^2 (predicted, arithmetic, not measured)", last_n) font ',12'
    set label 1 sprintf('H100 SXM memory, %.0f GiB (data/gpus.csv)', h100_bytes / 2**30) at 24, h100_bytes * 2.2 textcolor rgb '#d62728'
    set label 2 sprintf('one head'."'".'s scores alone fill it at n = %.0f', floor(sqrt(h100_bytes / 4))) at sqrt(h100_bytes / 4), h100_bytes / 6 right textcolor rgb '#d62728'
    if (rows > 0 && !valid_global) { set label 4 'global bytes: counted only on the simulator (BACKEND=sim)' at 64, 1e12 textcolor rgb '#555555' }
    if (rows > 0) {
        plot global_grown(x) with lines dt 2 lw 2 lc rgb '#1f77b4' title 'global bytes moved, grown as n^2 (predicted)', \
             csv skip 1 using 1:3 with linespoints pt 7 ps 1.3 lw 2 lc rgb '#1f77b4' title 'global bytes moved by the three kernels (counted)', \
             footprint(x) with lines dt 2 lw 2 lc rgb '#2ca02c' title 'memory footprint 4 n^2 + 16 n d (predicted)', \
             '' skip 1 using 1:8 with points pt 5 ps 1.3 lc rgb '#2ca02c' title 'memory footprint the run allocated (counted)', \
             '' skip 1 using 1:7 with points pt 9 ps 1.3 lc rgb '#9467bd' title 'the score matrix alone, 4 n^2 (counted)', \
             h100_bytes with lines lw 2 lc rgb '#d62728' notitle
    } else {
        set label 3 'no length right yet: make check DAY=18 says what to fix' at 64, 1e12 textcolor rgb '#555555'
        plot footprint(x) with lines dt 2 lw 2 lc rgb '#2ca02c' title 'memory footprint 4 n^2 + 16 n d (predicted)', \
             h100_bytes with lines lw 2 lc rgb '#d62728' notitle
    }
} else {
    set terminal dumb size 110,32
    set format x '2^%L'
    set format y '1e%L'
    set title 'bytes vs n (log-log): o global moved (counted), # footprint (counted); H100 80 GiB line'
    set key off
    if (rows > 0) {
        plot csv skip 1 using 1:3 with points pt 'o', '' skip 1 using 1:8 with points pt '#', \
             global_grown(x) with lines, footprint(x) with lines, h100_bytes with lines
    } else {
        plot footprint(x) with lines, h100_bytes with lines
    }
}
