# 01-why-gpu.gp — Day 01's picture: the GFLOP/s of a naive matmul on this CPU (measured)
# against the datasheet peaks of each GPU in data/gpus.csv, on a log scale.
#   gnuplot -e "csv='build/01-why-gpu/results.csv'; png='out.png'" plots/01-why-gpu.gp
# With png='' it draws a text plot in the terminal instead, labelled with the short keys.
set datafile separator ','
set datafile missing ''
set key autotitle columnhead
set logscale y
set format y '10^{%L}'
set ylabel 'GFLOP/s (log scale)'
# The range follows the data: a loaded CPU's small bar stays visible, the peaks keep headroom.
stats csv using 3 nooutput
low = STATS_min
stats csv using 5 nooutput
set yrange [10 ** floor(log10(low / 3)) : 10 ** ceil(log10(STATS_max * 30))]
set grid ytics
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set key top left opaque box
if (png ne '') {
    set terminal pngcairo size 1200,650 font ',11'
    set output png
    set title "Day 01: one CPU core running a naive loop vs each GPU's peak (GPU bars are datasheet ceilings, not measurements)"
    set xtics rotate by -30 nomirror
} else {
    set terminal dumb size 120,30
    set format y '%.0e'
    set key off
    set title 'GFLOP/s, log scale.  * this CPU, naive loop (measured)   # GPU FP32 peak   $ GPU FP16 Tensor peak'
}
label_column = (png ne '') ? 1 : 2
# Bars of a clustered histogram of 3 columns with gap 1 sit at x = row + (column - 1) / 4.
bar_text(v) = v >= 1000 ? sprintf("%.0f", v) : sprintf("%.2g", v)
if (png ne '') {
    plot csv using 3:xtic(label_column) title 'this CPU, naive matmul (measured)' lc rgb '#d62728', \
         '' using 4 title 'GPU FP32 peak (datasheet)' lc rgb '#1f77b4', \
         '' using 5 title 'GPU FP16 Tensor Core peak, dense (datasheet)' lc rgb '#2ca02c', \
         '' using ($0 - 0.25):3:(bar_text($3)) with labels offset 0,0.8 font ',9' notitle, \
         '' using ($0):4:(bar_text($4)) with labels rotate by 90 left offset 0,0.6 font ',8' notitle, \
         '' using ($0 + 0.25):5:(bar_text($5)) with labels rotate by 90 left offset 0,0.6 font ',8' notitle
} else {
    plot csv using 3:xtic(label_column) title 'this CPU, naive matmul (measured)' lc rgb '#d62728', \
         '' using 4 title 'GPU FP32 peak (datasheet)' lc rgb '#1f77b4', \
         '' using 5 title 'GPU FP16 Tensor Core peak, dense (datasheet)' lc rgb '#2ca02c'
}
