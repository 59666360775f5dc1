# 07-reduction.gp — Day 07's picture: what each step of the reduction changes. Three panels
# counted on the simulator (divergence, bank conflicts, barriers per element) and a fourth with
# the roofline estimate for an H100 SXM — the same floor for all six, because all six read
# the input once.
#   gnuplot -e "csv='build/07-reduction/results.csv'; png='out.png'" plots/07-reduction.gp
# With png='' it draws the same four panels as text in the terminal.
set datafile separator ','
set datafile missing ''
set style data histogram
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.8
set key off
set grid ytics
set xrange [0.3:6.7]
set xtics nomirror scale 0
set ytics nomirror
label(v, name) = sprintf("%d %s", int(v), name)
# One read of 2^20 floats at the H100 SXM's 3350 GB/s (data/gpus.csv), in microseconds.
floor_us = 4.0 * 2**20 / 3350e9 * 1e6
# Measured times exist only when the lab ran on a real GPU (BACKEND=cuda).
stats csv using (valid(11) ? 1 : 0) nooutput
measured_points = STATS_sum

if (png ne '') {
    set terminal pngcairo size 1400,950 font ',11'
    set output png
    set multiplot layout 2,2 title "Day 07: six reductions of 2^{20} floats in blocks of 256 threads — each step removes one cost (counted on the simulator)\nbut all six read the same 4 MiB, so the roofline gives them the same floor on an H100" font ',13'
    set xtics rotate by -20 offset -1,0 font ',10'

    set title 'SIMT efficiency (counted): version 1 runs its branch with scattered lanes'
    set ylabel 'active lanes / 32'
    set yrange [0:1.12]
    plot csv using 1:4:(0.8):xtic(label($1, strcol(2))) with boxes lc rgb '#1f77b4', \
         '' using 1:4:(sprintf('%.3f', $4)) with labels offset 0,0.8 font ',10'

    set title "Bank conflicts (counted): version 2's lanes read words 2s apart"
    set ylabel 'shared wavefronts per request'
    set yrange [0:4.2]
    plot csv using 1:5:(0.8):xtic(label($1, strcol(2))) with boxes lc rgb '#ff7f0e', \
         '' using 1:5:(sprintf('%.2f', $5)) with labels offset 0,0.8 font ',10', \
         '' using 1:5:($6 > 1 ? sprintf('worst request: %d-way', $6) : '') with labels offset 0,2 font ',10', \
         1 with lines dt 2 lc rgb '#555555'

    set title 'Barriers (counted): halved by add-on-load, cut again by the shuffle tail'
    set ylabel '__syncthreads() per 1000 elements' noenhanced offset 1,0
    set yrange [0:42]
    plot csv using 1:($7*1000):(0.8):xtic(label($1, strcol(2))) with boxes lc rgb '#2ca02c', \
         '' using 1:($7*1000):(sprintf('%.1f', $7*1000)) with labels offset 0,0.8 font ',10'

    set title "H100 SXM: roofline estimate from the counted bytes (not a measurement)\ndashed: one read of 4 MiB at 3350 GB/s, the floor; red: measured (BACKEND=cuda)" noenhanced
    set ylabel 'microseconds'
    set yrange [0:1.6]
    # The red points exist only when the lab ran on a real GPU.
    if (measured_points > 0) {
        set yrange [0:*]
        plot csv using 1:10:(0.8):xtic(label($1, strcol(2))) with boxes lc rgb '#9467bd', \
             '' using 1:10:(sprintf('%.3f', $10)) with labels offset 0,0.8 font ',10', \
             floor_us with lines dt 2 lw 2 lc rgb '#333333', \
             '' using 1:11 with points pt 7 ps 1.5 lc rgb '#d62728'
    } else {
        plot csv using 1:10:(0.8):xtic(label($1, strcol(2))) with boxes lc rgb '#9467bd', \
             '' using 1:10:(sprintf('%.3f', $10)) with labels offset 0,0.8 font ',10', \
             floor_us with lines dt 2 lw 2 lc rgb '#333333'
    }
    unset multiplot
} else {
    set terminal dumb size 110,36
    set multiplot layout 2,2
    set xtics ('1' 1, '2' 2, '3' 3, '4' 4, '5' 5, '6' 6)
    set title 'SIMT efficiency, counted'
    set yrange [0:1.1]
    plot csv using 1:4:(0.6) with boxes
    set title 'wavefronts / shared request, counted'
    set yrange [0:4]
    plot csv using 1:5:(0.6) with boxes
    set title '__syncthreads() / 1000 elements, counted'
    set yrange [0:40]
    plot csv using 1:($7*1000):(0.6) with boxes
    set title 'H100 us, roofline estimate'
    set yrange [0:1.6]
    plot csv using 1:10:(0.6) with boxes
    unset multiplot
}
