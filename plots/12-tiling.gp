# 12-tiling.gp — Day 12's picture: what reuse buys. Left, counted on the simulator: the floats
# the matmul kernels load from global memory fall as 2 N^3 / T with the tile size T (tile 1 is
# the naive kernel), while the floats read from shared memory stay at 2 N^3: the reads moved
# on chip. Right, measured on this CPU, one core: GFLOP/s of the naive loop, the loop order,
# the blocked matmul and the system BLAS against the matrix size.
#   gnuplot -e "csv='build/12-tiling/results.csv'; png='out.png'" plots/12-tiling.gp
# With png='' it draws the same two panels as text in the terminal.
set datafile separator ','
set datafile missing ''
gpu(col) = strcol(1) eq 'gpu' && column(col) > 0 ? column(col) : NaN
cpu(col) = strcol(1) eq 'cpu' && column(col) > 0 ? column(col) : NaN
# N of the GPU rows, and the CPU's name, from the file itself.
stats csv skip 1 using (gpu(2)) nooutput
gpu_n = STATS_max
cpu_name = 'this CPU'
stats csv skip 1 using (strcol(1) eq 'cpu' ? (cpu_name = strcol(14), 0) : 0) nooutput
predicted(t) = 2.0 * gpu_n**3 / t
set logscale x 2
set logscale y 10
set grid xtics ytics
set key top right opaque box

if (png ne '') {
    set terminal pngcairo size 1400,600 font ',11'
    set output png
    set multiplot layout 1,2 title sprintf("Day 12: tiling is reuse — each float brought in is used T times (GPU: counted on the simulator; CPU: measured on %s, one core)", cpu_name) font ',13' noenhanced

    set title sprintf("GPU matmul, N = %d: floats loaded per kernel (counted)", gpu_n)
    set xlabel 'tile size T (1 = the naive kernel, no tile)'
    set ylabel 'floats loaded (log scale)'
    set xrange [0.7:48]
    set xtics (1, 8, 16, 32)
    set yrange [5e4:2e7]
    set format y '10^{%L}'
    plot predicted(x) with lines dt 2 lw 2 lc rgb '#555555' title 'predicted: 2 N^3 / T', \
         csv skip 1 using 3:(gpu(4)) with points pt 7 ps 1.8 lc rgb '#1f77b4' title 'from global memory (counted)', \
         '' skip 1 using 3:(gpu(4)):(sprintf('%.0f', gpu(4))) with labels left offset 1,0.9 font ',10' notitle, \
         '' skip 1 using 3:(gpu(6)) with linespoints pt 5 ps 1.4 lc rgb '#ff7f0e' title 'from shared memory (counted): 2 N^3, the reads moved on chip'

    set title 'CPU matmul, N x N x N: GFLOP/s (measured, best of 3, side by side)'
    set xlabel 'N (log scale)'
    set ylabel 'GFLOP/s (log scale)'
    set xrange [48:1400]
    set xtics (64, 128, 256, 512, 1024)
    set yrange [0.2:400]
    set format y '%g'
    set key top left
    plot csv skip 1 using 2:(cpu(13)) with linespoints pt 9 ps 1.3 lw 2 lc rgb '#2ca02c' title 'system BLAS (OpenBLAS, 1 thread)', \
         '' skip 1 using 2:(cpu(12)) with linespoints pt 7 ps 1.3 lw 2 lc rgb '#1f77b4' title 'blocked + 6x16 register micro-kernel', \
         '' skip 1 using 2:(cpu(11)) with linespoints pt 5 ps 1.2 lw 2 lc rgb '#ff7f0e' title 'loop order i, p, j (vectorised)', \
         '' skip 1 using 2:(cpu(10)) with linespoints pt 13 ps 1.3 lw 2 lc rgb '#d62728' title 'naive i, j, p (not run past N = 768)'
    unset multiplot
} else {
    set terminal dumb size 120,30
    set multiplot layout 1,2
    set key off
    set title sprintf('GPU N=%d: floats loaded vs tile, counted', gpu_n)
    set xrange [0.7:48]
    set xtics (1, 8, 16, 32)
    set yrange [5e4:2e7]
    set format y '%.0e'
    plot predicted(x) with lines, csv skip 1 using 3:(gpu(4)) with points pt 'G', '' skip 1 using 3:(gpu(6)) with points pt 'S'
    set title 'CPU GFLOP/s vs N: B=BLAS b=blocked o=order n=naive'
    set xrange [48:1400]
    set xtics (64, 256, 1024)
    set yrange [0.2:400]
    set format y '%g'
    plot csv skip 1 using 2:(cpu(13)) with linespoints pt 'B', '' skip 1 using 2:(cpu(12)) with linespoints pt 'b', \
         '' skip 1 using 2:(cpu(11)) with linespoints pt 'o', '' skip 1 using 2:(cpu(10)) with linespoints pt 'n'
    unset multiplot
}
