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
set yrange [0.1:1e8]
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
plot csv using 3:xtic(label_column) title 'this CPU, naive matmul (measured)' lc rgb '#d62728', \
     '' using 4 title 'GPU FP32 peak (datasheet)' lc rgb '#1f77b4', \
     '' using 5 title 'GPU FP16 Tensor Core peak, dense (datasheet)' lc rgb '#2ca02c'
