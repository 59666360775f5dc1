# 22-flash-attention.gp — Day 22's picture: what FlashAttention stops moving. Left, counted on the
# simulator for one causal head of d = 64: the global bytes of the FlashAttention kernel (tiles of
# 32) against n, with the formula's prediction and day 18's score matrix alone (24 n^2: written
# twice, read four times), the floor of any unfused attention. Middle, counted at n = 256: the flash
# bytes for tiles of 8, 16 and 32, d = 64 and 128, falling as 1 / tile as the formula says.
# Right, measured on this CPU, one core: seconds of day 18's algorithm (n x n scores in memory)
# and of the tiled version, for n = 1024 .. 4096.
#   gnuplot -e "csv='build/22-flash-attention/results.csv'; png='out.png'" plots/22-flash-attention.gp
# With png='' it draws the same three panels as text in the terminal.
set datafile separator ','
set datafile missing ''
part(name, col) = strcol(1) eq name && strcol(col) ne '' ? column(col) : NaN
dim(name, col, d) = strcol(1) eq name && $3 == d && strcol(col) ne '' ? column(col) : NaN
cpu_name = 'this CPU'
stats csv skip 1 using (strcol(1) eq 'cpu' ? (cpu_name = strcol(14), 0) : 0) nooutput
tile_n = 256
matrix_256 = 24.0 * tile_n**2
# The formula at n = 256, causal, for a tile T dividing n: q and out 8 n d, and k and v 8 d for each
# key row of the t (t + 1) / 2 key tiles the t = n / T query tiles visit: 4 n d (n / T + 1).
predicted(T, d) = 8.0 * tile_n * d + 4.0 * tile_n * d * (tile_n / T + 1)
set grid xtics ytics

if (png ne '') {
    set terminal pngcairo size 1800,620 font ',11'
    set output png
    set multiplot layout 1,3 title sprintf("Day 22: FlashAttention keeps the scores on chip (GPU bytes: counted on the simulator; CPU time: measured on %s, one core)", cpu_name) font ',13' noenhanced

    set title 'GPU, one causal head, d = 64: global bytes vs n (flash counted; matrix predicted)'
    set xlabel 'sequence length n (tokens, log scale)'
    set ylabel 'global bytes requested (log scale)'
    set logscale xy
    set xrange [48:700]
    set xtics (64, 128, 256, 512)
    set yrange [3e4:2e7]
    set format y '10^{%L}'
    set key top left Left reverse box opaque
    plot csv skip 1 using 2:(part('gpu-n', 7)) with linespoints pt 7 ps 1.2 dt 2 lw 2 lc rgb '#9467bd' title "24 n^2: the score matrix alone (predicted)", \
         '' skip 1 using 2:(part('gpu-n', 6)) with lines dt 3 lw 2 lc rgb '#555555' title 'flash predicted: 8nd + 8d x key rows visited', \
         '' skip 1 using 2:(part('gpu-n', 5)) with points pt 5 ps 1.5 lc rgb '#1f77b4' title 'flash, T = 32 (counted); labels: matrix / flash', \
         '' skip 1 using 2:(part('gpu-n', 5)):(strcol(1) eq 'gpu-n' && strcol(5) ne '' ? sprintf('%.1fx', $7 / $5) : '') with labels offset 0,-1.3 font ',10' tc rgb '#1f77b4' notitle

    set title sprintf('GPU, n = %d, causal: FlashAttention bytes vs tile size (counted)', tile_n)
    set xlabel 'tile size T (queries per block = keys per tile; log scale)'
    set ylabel 'global bytes requested (log scale)'
    set xrange [6:42]
    set xtics (8, 16, 32)
    set yrange [2e5:2e7]
    set key top right Left reverse box opaque
    set samples 200
    plot predicted(x, 128) with lines dt 3 lw 2 lc rgb '#ff7f0e' title 'predicted, d = 128: 8nd + 4nd (n / T + 1)', \
         csv skip 1 using 4:(dim('gpu-tile', 5, 128)) with points pt 9 ps 1.8 lc rgb '#ff7f0e' title 'counted, d = 128', \
         predicted(x, 64) with lines dt 3 lw 2 lc rgb '#1f77b4' title 'predicted, d = 64', \
         csv skip 1 using 4:(dim('gpu-tile', 5, 64)) with points pt 5 ps 1.5 lc rgb '#1f77b4' title 'counted, d = 64', \
         matrix_256 with lines dt 2 lw 2 lc rgb '#9467bd' title "day 18's score matrix alone, 24 n^2"

    set title 'CPU, one causal head, d = 64: seconds (measured, best of 3, side by side)'
    set xlabel 'sequence length n (tokens, log scale)'
    set ylabel 'seconds (log scale)'
    set xrange [700:7000]
    set xtics (1024, 2048, 4096)
    set yrange [0.005:5]
    set format y '%g'
    set key top left Left reverse box opaque
    plot csv skip 1 using 2:(part('cpu', 10)) with linespoints pt 7 ps 1.5 lw 2 lc rgb '#d62728' title "naive: n x n scores (64 MiB at n = 4096)", \
         '' skip 1 using 2:(part('cpu', 11)) with linespoints pt 5 ps 1.5 lw 2 lc rgb '#1f77b4' title 'tiled, tile 32: 68 KiB of buffers, any n', \
         '' skip 1 using 2:(part('cpu', 11)):(strcol(1) eq 'cpu' && strcol(10) ne '' && strcol(11) ne '' ? sprintf('naive / tiled: %.2f', $10 / $11) : '') with labels offset 0,-1.3 font ',10' tc rgb '#1f77b4' notitle
    unset multiplot
} else {
    set terminal dumb size 150,30
    set multiplot layout 1,3
    set key off
    set logscale xy
    set title 'GPU bytes vs n: M=matrix 24n^2 F=flash'
    set xrange [48:700]
    set xtics (64, 256, 512)
    set yrange [3e4:2e7]
    set format y '%.0e'
    plot csv skip 1 using 2:(part('gpu-n', 7)) with points pt 'M', '' skip 1 using 2:(part('gpu-n', 5)) with points pt 'F'
    set title 'bytes vs tile: 6=d64 1=d128'
    set xrange [6:42]
    set xtics (8, 16, 32)
    set yrange [2e5:2e7]
    plot csv skip 1 using 4:(dim('gpu-tile', 5, 64)) with points pt '6', '' skip 1 using 4:(dim('gpu-tile', 5, 128)) with points pt '1'
    set title 'CPU s vs n: N=naive T=tiled'
    set xrange [700:7000]
    set xtics (1024, 4096)
    set yrange [0.005:5]
    set format y '%g'
    plot csv skip 1 using 2:(part('cpu', 10)) with points pt 'N', '' skip 1 using 2:(part('cpu', 11)) with points pt 'T'
    unset multiplot
}
