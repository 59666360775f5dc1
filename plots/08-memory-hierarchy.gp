# 08-memory-hierarchy.gp — Day 08's picture: this CPU's memory mountain. Top: the latency of one
# dependent load (the pointer chase, measured) against the working set, with the cache sizes the
# OS reports (dashed), the knees predict_knee_bytes predicted from those sizes before measuring
# (open squares) and the knees find_knees read off the measured curve (triangles); in grey, the
# same chase over one line on each 4 KiB page, against the span of the pages (the cost of the
# pages alone, measured). Bottom: one core reading the same working sets in order (measured).
# Both axes log.
#   gnuplot -e "csv='build/08-memory-hierarchy/results.csv'; png='out.png'" plots/08-memory-hierarchy.gp
# With png='' it draws a text plot of the latency in the terminal instead.
set datafile separator ','
set datafile missing ''
set datafile columnheaders
cpu = system(sprintf("awk -F, '$1 == \"machine\" { print $2; exit }' '%s'", csv))
is(kind) = (strcol(1) eq kind)
set logscale x 2
set xrange [2048:536870912]
set xtics ('4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304, \
           '16 MiB' 16777216, '64 MiB' 67108864, '256 MiB' 268435456)
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
if (png ne '') {
    set terminal pngcairo size 1200,900 font ',11' noenhanced
    set output png
    set multiplot
    # ---- latency
    set size 1, 0.62
    set origin 0, 0.38
    set lmargin 11
    set rmargin 4
    set title sprintf("Day 08: the memory mountain of one core of %s (measured on this CPU)\nlatency of one dependent load over a random cycle: each cache level is a plateau, each knee the end of one", cpu)
    set logscale y
    set yrange [0.15:2000]
    set ylabel 'latency of one load, ns (log scale)'
    set format x ''
    set key bottom right opaque box font ',10' spacing 0.9
    plot csv using (is('sweep') ? $3 : NaN):4 with linespoints pt 7 ps 0.8 lw 2 lc rgb '#1f77b4' \
             title 'pointer chase: ns per dependent load (measured, best of 7 runs)', \
         '' using (is('translation') ? $3 : NaN):4 with linespoints pt 6 ps 0.6 lw 1 dt 3 lc rgb '#7f7f7f' \
             title 'one line on each 4 KiB page, x = the span of the pages (measured)', \
         '' using (is('os_cache') ? $3 : NaN):(0.15):(0):(1999.85) with vectors nohead dt 2 lw 1.5 lc rgb '#d62728' \
             title 'cache size the OS reports (sysfs)', \
         '' using (is('os_cache') ? $3 : NaN):(1100):2 with labels rotate by 90 right offset -0.9,0 \
             textcolor rgb '#d62728' notitle, \
         '' using (is('predicted_knee') ? $3 : NaN):4 with points pt 4 ps 2.6 lw 2 lc rgb '#ff7f0e' \
             title 'knee predicted from the OS size (predict_knee_bytes)', \
         '' using (is('knee') ? $3 : NaN):4 with points pt 9 ps 2.2 lc rgb '#2ca02c' \
             title 'knee found by find_knees in the measured curve', \
         '' using (is('knee') ? $3 : NaN):4:2 with labels offset 0,-1.4 textcolor rgb '#2ca02c' notitle
    # ---- bandwidth
    set size 1, 0.38
    set origin 0, 0
    set title 'one core reading the same working set in order: every address known ahead, many loads in flight'
    set yrange [1:300]
    set ylabel 'read bandwidth, GB/s (log scale)'
    set xlabel 'working set (log scale)'
    set format x '%g'
    set xtics ('4 KiB' 4096, '16 KiB' 16384, '64 KiB' 65536, '256 KiB' 262144, '1 MiB' 1048576, '4 MiB' 4194304, \
               '16 MiB' 16777216, '64 MiB' 67108864, '256 MiB' 268435456)
    set key bottom left opaque box
    plot csv using (is('sweep') ? $3 : NaN):5 with linespoints pt 5 ps 0.7 lw 2 lc rgb '#9467bd' \
             title 'sequential read, one core (measured, best of 5 runs)', \
         '' using (is('os_cache') ? $3 : NaN):(1):(0):(299) with vectors nohead dt 2 lw 1.5 lc rgb '#d62728' \
             title 'cache size the OS reports'
    unset multiplot
} else {
    set terminal dumb size 110,30
    unset grid
    set title sprintf('latency of one dependent load (ns, log) vs working set (log), %s.  * measured  | OS cache size  K knee  P predicted', cpu)
    set logscale y
    set yrange [0.5:1000]
    set key off
    set xtics ('4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216, '256M' 268435456)
    plot csv using (is('sweep') ? $3 : NaN):4 with points pt '*', \
         '' using (is('os_cache') ? $3 : NaN):(0.5):(0):(999.5) with vectors nohead, \
         '' using (is('predicted_knee') ? $3 : NaN):($4 * 1.6):('P') with labels, \
         '' using (is('knee') ? $3 : NaN):4:('K') with labels
}
