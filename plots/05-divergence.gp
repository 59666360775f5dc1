# 05-divergence.gp — Day 05's picture: how full a warp's lanes are (SIMT efficiency) when groups
# of g consecutive threads alternate between two equally long paths, g = 1 .. 128, counted on
# the simulator, beside what your branch_cost_model predicts; below it, how many warp steps the
# branch takes relative to warp-uniform groups of 32 (the time the paths cost, serialized).
#   gnuplot -e "csv='build/05-divergence/results.csv'; png='out.png'" plots/05-divergence.gp
# With png='' it draws the efficiency panel as a text plot in the terminal.
set datafile separator ','
set datafile missing ''
set key autotitle columnhead
set logscale x 2
set xrange [0.85:150]
set xtics ('1' 1, '2' 2, '4' 4, '8' 8, '16' 16, '24' 24, '32' 32, '48' 48, '64' 64, '96' 96, '128' 128)
set grid xtics ytics
# the groups the text discusses: the powers of two, and 24, 48 and 96
marked(g) = (int(g) & (int(g) - 1)) == 0 || int(g) == 24 || int(g) == 48 || int(g) == 96
if (png ne '') {
    set terminal pngcairo size 1100,900 font ',11'
    set output png
    set multiplot layout 2,1 title "Day 05: a warp pays for both paths unless all 32 lanes agree — 2048 threads, groups of g threads alternate between two 64-step paths\nCOUNTED on the simulator (every step of every warp), not timed; the line is your branch\\_cost\\_model's prediction" font ',12'
    set lmargin 12
    set ylabel 'SIMT efficiency (active lanes / 32)'
    set yrange [0:1.12]
    set ytics 0,0.25,1
    set key bottom right opaque box
    set label 1 'g < 32: every warp holds both paths, each runs with half its lanes' at 1.1,0.40 left font ',10'
    set label 2 'g = 32, 64, 96, 128: each group is whole warps, so every warp takes one path' at 1.1,0.97 left font ',10'
    set arrow 2 from 21.5,0.975 to 30,0.995 head size 1.5,20 lc rgb '#555555'
    set label 3 'g = 48: one warp in three holds the end of one group and the start of the next' at 1.1,0.82 left font ',10'
    set arrow 3 from 21.5,0.82 to 45,0.77 head size 1.5,20 lc rgb '#555555'
    set xlabel 'g: threads per group taking the same path (log scale)'
    plot csv using 1:3 with lines lw 2 lc rgb '#1f77b4' title 'predicted (your model)', \
         '' using 1:2 with points pt 7 ps 0.6 lc rgb '#d62728' title 'counted, every g', \
         '' using 1:(marked($1) ? $2 : NaN) with points pt 6 ps 2 lw 2 lc rgb '#d62728' title 'counted, g in the text'
    unset label 1
    unset label 2
    unset label 3
    unset arrow 2
    unset arrow 3
    set ylabel 'warp steps issued, relative to g = 32'
    set yrange [0.8:2.2]
    set ytics 1,0.25,2
    set key top right opaque box
    set label 4 'both paths, one after the other: twice the steps' at 1.1,2.08 left font ',10'
    set label 5 'one path per warp: the fewest steps' at 1.1,1.1 left font ',10'
    set arrow 5 from 8.5,1.09 to 30,1.01 head size 1.5,20 lc rgb '#555555'
    plot csv using 1:5 with lines lw 2 lc rgb '#1f77b4' title 'predicted (your model)', \
         '' using 1:4 with points pt 7 ps 0.6 lc rgb '#d62728' title 'counted, every g', \
         '' using 1:(marked($1) ? $4 : NaN) with points pt 6 ps 2 lw 2 lc rgb '#d62728' title 'counted, g in the text'
    unset multiplot
} else {
    set terminal dumb size 110,32
    set yrange [0:1.1]
    set ytics 0,0.25,1
    set key bottom right
    set xlabel 'g: threads per group taking the same path (log scale)'
    set title 'SIMT efficiency vs group size g (O counted, # your model): 1.0 only when whole warps agree'
    plot csv using 1:3 with lines lt 2 title 'predicted (your model)', \
         '' using 1:(marked($1) ? $2 : NaN) with points pt 'O' title 'counted'
}
