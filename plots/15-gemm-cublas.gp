# 15-gemm-cublas.gp — Day 15's picture: what calling the library buys. Left, measured on this CPU,
# one core: the three other transpose pairs through the row-major trick, and the loop-order CPU
# matmul of day 12, each as a percentage of the system BLAS doing C = A B (pair NN) through the
# simulator's cuBLAS: the median over the driver's rounds of the ratio taken within each round,
# with a bar from the lowest round to the highest. When the rounds ranged over more than 10 %, the
# title says the run was noisy and by how much (read from every row, never from one sample).
# Right, predicted for an H100 SXM from its roofline: the share of the BF16 tensor peak a cuBLAS
# GEMM of N x N x N can reach, and day 12's tiled kernel as a percentage of it and of FP32 cuBLAS
# (cublasSgemm, on the same FP32 cores: the fair comparison for an FP32 kernel).
#   gnuplot -e "csv='build/15-gemm-cublas/results.csv'; png='out.png'" plots/15-gemm-cublas.gp
# With png='' it draws the same two panels as text in the terminal.
set datafile separator ','
set datafile missing ''
# columns: 2 n, 3 pair, 7-9 loop order % of NN (median, low, high), 10-12 pair % of NN, 13-15 predicted, 16 rounds
measured(pair, col) = strcol(1) eq 'measured' && strcol(3) eq pair && column(col) > 0 ? column(col) : NaN
predicted(col) = strcol(1) eq 'predicted' && column(col) > 0 ? column(col) : NaN
machine = 'this CPU'
rounds = 0
stats csv skip 1 using (strcol(1) eq 'measured' ? (machine = strcol(17), rounds = column(16), 0) : 0) nooutput
# The widest range of the rounds, in percent, over every measured row: the loop order's and each pair's but NN's.
widest = 0
stats csv skip 1 using (strcol(1) eq 'measured' && column(8) > 0 ? \
      (widest = (column(9) / column(8) - 1) * 100 > widest ? (column(9) / column(8) - 1) * 100 : widest, \
       strcol(3) ne 'NN' && column(11) > 0 && (column(12) / column(11) - 1) * 100 > widest ? \
           widest = (column(12) / column(11) - 1) * 100 : 0, 0) : 0) nooutput
noise = widest > 10 ? sprintf("\na noisy run: the rounds ranged over up to %.0f %% (the machine was busy); read the medians", widest) \
                    : sprintf("; the rounds agreed within %.0f %%", widest)
set logscale x 2
set grid xtics ytics
set key opaque box
# The measured rows come four to an N (pairs NN, NT, TN, TT) after the four check rows: `every 4::R`
# takes one pair's rows, so its points join into a line.

if (png ne '') {
    set terminal pngcairo size 1400,600 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 15: call the library with the row-major trick C^T = B^T A^T; cuBLAS is the yardstick" font ',13'

    set title sprintf("Measured on %s%s: %% of the system BLAS (pair NN)\nmedian of %d rounds, bars from the lowest round to the highest%s", \
                      machine, machine eq 'GPU' ? '' : ", one core, in the thread's CPU time", rounds, noise) noenhanced
    set xlabel 'N (matrices N x N, log scale)'
    set ylabel '% of the system BLAS at the same N'
    set xrange [48:1024]
    set xtics (64, 128, 256, 384, 512, 768)
    set yrange [0:165]
    set key top left font ',10'
    plot 100 with lines dt 2 lc rgb '#555555' title 'the system BLAS, pair NN (OpenBLAS via the simulator''s cuBLAS)', \
         csv skip 1 every 4::5 using 2:(measured('NT', 10)) with lines lw 2 lc rgb '#1f77b4' notitle, \
         '' skip 1 every 4::5 using 2:(measured('NT', 10)):11:12 with yerrorbars pt 5 ps 1.2 lw 1 lc rgb '#1f77b4' title 'pair NT: C = A B^T (measured)', \
         '' skip 1 every 4::6 using 2:(measured('TN', 10)) with lines lw 2 lc rgb '#ff7f0e' notitle, \
         '' skip 1 every 4::6 using 2:(measured('TN', 10)):11:12 with yerrorbars pt 7 ps 1.2 lw 1 lc rgb '#ff7f0e' title 'pair TN: C = A^T B (measured)', \
         '' skip 1 every 4::7 using 2:(measured('TT', 10)) with lines lw 2 lc rgb '#9467bd' notitle, \
         '' skip 1 every 4::7 using 2:(measured('TT', 10)):11:12 with yerrorbars pt 9 ps 1.2 lw 1 lc rgb '#9467bd' title 'pair TT: C = A^T B^T (measured)', \
         '' skip 1 every 4::4 using 2:(measured('NN', 7)) with lines lw 2 lc rgb '#d62728' notitle, \
         '' skip 1 every 4::4 using 2:(measured('NN', 7)):8:9 with yerrorbars pt 13 ps 1.4 lw 1 lc rgb '#d62728' title 'day 12''s loop-order CPU matmul (measured)'

    set title 'Predicted for an H100 SXM from its roofline (data/gpus.csv), not measured'
    set yrange [1:700]
    set xlabel 'N (matrices N x N, log scale)'
    set ylabel 'percent (log scale)'
    set xrange [48:24000]
    set xtics (64, 256, 1024, 4096, 16384)
    set logscale y 10
    set key top left Left reverse width -9 font ',10'
    plot csv skip 1 using 2:(predicted(13)) with linespoints pt 7 ps 1.2 lw 2 lc rgb '#2ca02c' title 'cuBLAS GEMM, BF16 in, FP32 out: % of the BF16 tensor peak', \
         '' skip 1 using 2:(predicted(15)) with linespoints pt 9 ps 1.2 lw 2 lc rgb '#ff7f0e' title 'day 12''s tiled kernel (FP32, tile 32): % of FP32 cuBLAS (cublasSgemm)', \
         '' skip 1 using 2:(predicted(14)) with linespoints pt 5 ps 1.2 lw 2 lc rgb '#d62728' title 'day 12''s tiled kernel: % of the BF16 cuBLAS above'
    unset multiplot
} else {
    set terminal dumb size 120,30
    set multiplot layout 1,2
    set key off
    set title sprintf('measured: %% of BLAS NN, medians (t=NT/TN/TT, L=loop order)%s', widest > 10 ? ', NOISY' : '')
    set xrange [48:1024]
    set yrange [0:130]
    plot csv skip 1 using 2:(measured('NT', 10)) with points pt 't', '' skip 1 using 2:(measured('TN', 10)) with points pt 't', \
         '' skip 1 using 2:(measured('TT', 10)) with points pt 't', '' skip 1 using 2:(measured('NN', 7)) with points pt 'L'
    set title 'predicted H100: C=cuBLAS % of peak, T=tiled % of cuBLAS BF16, S=of FP32'
    set xrange [48:24000]
    set logscale y 10
    set yrange [1:150]
    plot csv skip 1 using 2:(predicted(13)) with points pt 'C', '' skip 1 using 2:(predicted(14)) with points pt 'T', \
         '' skip 1 using 2:(predicted(15)) with points pt 'S'
    unset multiplot
}
