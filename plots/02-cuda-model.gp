# 02-cuda-model.gp — Day 02's picture: which block wrote each element of a 37 x 45 matrix
# covered by blocks of 16 x 8 threads (a 3 x 5 grid whose right and bottom blocks hang
# over the edge).
#   gnuplot -e "csv='build/02-cuda-model/results.csv'; png='out.png'" plots/02-cuda-model.gp
# With png='' it prints the same map as letters in the terminal: block 0 is A, 1 is B, ...
set datafile separator ','
set key off
set xlabel 'column (threadIdx.x + blockIdx.x * 16)'
set ylabel 'row (threadIdx.y + blockIdx.y * 8)'
if (png ne '') {
    set terminal pngcairo size 1000,900 font ',11'
    set output png
    # The grid is 3 x 16 = 48 threads wide and 5 x 8 = 40 tall: 3 columns and 3 rows of
    # threads fall outside the 45 x 37 matrix. Shade them: their bounds check keeps them idle.
    set xrange [-0.5:47.5]
    set yrange [39.5:-0.5]
    set object 1 rectangle from 44.5,-0.5 to 47.5,39.5 fc rgb '#555555' fs pattern 4 noborder
    set object 2 rectangle from -0.5,36.5 to 44.5,39.5 fc rgb '#555555' fs pattern 4 noborder
    set style textbox opaque noborder
    set label 1 'hatched: threads of the grid with no element (row ≥ 37 or col ≥ 45) — the bounds check keeps them idle' at 23.5,38.6 center front boxed font ',10'
    set title "Day 02: which block wrote each element — 37 × 45 matrix, 16 × 8 blocks, a 3 × 5 grid\nblock number = blockIdx.y · gridDim.x + blockIdx.x; the last column and row of blocks hang over the edge"
    set palette maxcolors 15 defined (0 '#1f77b4', 1 '#ff7f0e', 2 '#2ca02c', 3 '#d62728', 4 '#9467bd', 5 '#8c564b', 6 '#e377c2', 7 '#7f7f7f', 8 '#bcbd22', 9 '#17becf', 10 '#aec7e8', 11 '#ffbb78', 12 '#98df8a', 13 '#ff9896', 14 '#c5b0d5')
    set cbrange [-0.5:14.5]
    set cbtics 1
    set cblabel 'block number'
    set xtics 0,8,48
    set ytics 0,8,40
    plot csv using 2:1:3 with image, \
         csv using 2:1:((int($1) % 8 == 3 && int($2) % 16 == 7) ? sprintf('block %d', $3) : '') with labels font ',10' tc rgb '#000000'
} else {
    set terminal dumb size 104,46
    set xrange [-0.5:44.5]
    set yrange [36.5:-0.5]
    set title 'which block wrote each element (A = block 0, B = block 1, ...)'
    set xtics 0,16,44
    set ytics 0,8,36
    letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
    plot csv using 2:1:($3 < 0 ? '?' : substr(letters, int($3) + 1, int($3) + 1)) with labels
}
