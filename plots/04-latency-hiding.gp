# 04-latency-hiding.gp — Day 04's picture: how busy one warp scheduler is with N resident warps,
# each doing c = 8 cycles of math per memory wait of L cycles: the simulation (points) against
# min(1, N c / (c + L)) (lines), one colour per latency, each curve's knee (c + L) / c marked.
#   gnuplot -e "csv='build/04-latency-hiding/results.csv'; png='out.png'" plots/04-latency-hiding.gp
# With png='' it draws a text plot in the terminal instead.
set datafile separator ','
set datafile columnheaders
set xrange [0:65]
set yrange [0:1.12]
set xlabel 'warps resident on one scheduler, N'
set ylabel 'utilisation: fraction of cycles that issue'
set grid xtics ytics
set xtics 0,8,64
set ytics 0,0.25,1
# The curves, by latency (column 1). Columns: 3 warps, 4 simulated, 5 closed form, 6 knee.
at(L, v) = (column(1) == L ? v : NaN)
first(L) = (column(1) == L && column(3) == 1)
# A knee beyond the axis (L = 800: 101 warps) is marked at the right edge instead.
knee_x(L) = (first(L) ? (column(6) <= 64 ? column(6) : 64) : NaN)
knee_line(L) = (first(L) && column(6) <= 64 ? column(6) : NaN)
knee_text(L) = (column(6) <= 64 ? sprintf('knee %.1f', column(6)) : sprintf('L = %d: knee at %.0f →', L, column(6)))
if (png ne '') {
    set terminal pngcairo size 1200,720 font ',11'
    set output png
    set title "Day 04: one scheduler issues in min(1, N c / (c + L)) of its cycles (c = 8 cycles of math per wait of L):\nrising with every warp up to the knee N = (c + L) / c (dashed), flat after it. Shaded: more warps than an H100 scheduler can hold (16)"
    set key at graph 0.99, graph 0.38 right top opaque box title 'memory wait L' reverse Left
    # The top axis counts the same warps per SM (4 schedulers an SM), which holds at most 64: only
    # the part of the sweep an H100 can hold gets per-SM labels; beyond it the model asks "what if".
    set x2range [0:260]
    set x2tics ('0' 0, '32' 32, '64: all an SM holds' 64) nomirror
    set x2label 'the same warps per SM on an H100 (4 schedulers an SM): 4 N' offset 0,-0.3
    set xtics nomirror
    set object 1 rectangle from 16,0 to 65,1.12 fc rgb '#f0f0f0' fs solid 1.0 noborder back
    set label 1 "more warps than an H100 scheduler holds (16):\nwhat the model says more warps would do" at 40,0.07 center textcolor rgb '#555555'
    set style textbox opaque noborder
    colours = '#1f77b4 #2ca02c #ff7f0e #d62728'
    plot for [i=1:4] csv using 3:(at(100 * 2**(i-1), $5)) with lines lw 2 lc rgb word(colours, i) notitle, \
         for [i=1:4] csv using 3:(at(100 * 2**(i-1), $4)) with points pt 7 ps 0.7 lc rgb word(colours, i) \
             title sprintf('L = %d cycles', 100 * 2**(i-1)), \
         for [i=1:4] csv using (knee_line(100 * 2**(i-1))):(0):(0):(1) with vectors nohead dt 2 lw 1.5 \
             lc rgb word(colours, i) notitle, \
         NaN with points pt 7 lc rgb '#000000' title 'points: simulated', \
         NaN with lines lw 2 lc rgb '#000000' title 'lines: closed form', \
         for [i=1:4] csv using (knee_x(100 * 2**(i-1))):(1.0 + 0.025 * i):(knee_text(100 * 2**(i-1))) \
             with labels boxed offset char (i == 4 ? -8 : 0), 0 textcolor rgb word(colours, i) notitle
} else {
    set terminal dumb size 110,34
    set title 'utilisation of one scheduler vs warps N (c = 8). A: L=100  B: L=200  C: L=400  D: L=800;  | = knee'
    set key off
    set ytics 0,0.2,1
    letters = 'ABCD'
    plot for [i=1:4] csv using 3:(at(100 * 2**(i-1), $4)):(substr(letters, i, i)) with labels, \
         for [i=1:4] csv using (knee_line(100 * 2**(i-1))):(0):(0):(1) with vectors nohead
}
