# 09-coalescing.gp — Day 09's picture: what one warp-wide load costs. Sectors per request and
# load efficiency of the strided copy against the stride, the misaligned start against the
# offset, and the particle update's two layouts, all counted on the simulator; with the H100
# SXM copy bandwidth the counted sectors predict (data/gpus.csv, 3350 GB/s of sectors).
#   gnuplot -e "csv='build/09-coalescing/results.csv'; png='out.png'" plots/09-coalescing.gp
# With png='' it draws the same four panels as text in the terminal.
set datafile separator ','
set datafile missing ''
set grid
set key top left
is(name) = strcol(1) eq name
# Measured bandwidths exist only when the lab ran on a real GPU (BACKEND=cuda).
stats csv using (valid(9) ? 1 : 0) nooutput
measured_points = STATS_sum
# A run that is not right yet writes no row; its panel says so instead of plotting nothing.
stats csv using (is('stride') ? 1 : 0) nooutput
stride_rows = STATS_sum
stats csv using (is('offset') ? 1 : 0) nooutput
offset_rows = STATS_sum
stats csv using (is('aos') || is('soa') ? 1 : 0) nooutput
layout_rows = STATS_sum
not_yet = 'no rows yet: make check DAY=09 says which check fails'

if (png ne '') {
    set terminal pngcairo size 1400,1000 font ',11'
    set output png
    set multiplot layout 2,2 title "Day 09: what one warp-wide load of 32 floats costs — counted on the simulator; the H100 bandwidth is predicted from the counts, not measured" font ',13'

    set title 'Sectors per warp load request vs stride (counted)'
    set logscale x 2
    set xrange [0.8:80]
    set yrange [0:36]
    set xlabel 'stride (floats between neighbouring lanes)'
    set ylabel '32-byte sectors per request'
    set ytics 4
    set key right center
    if (stride_rows == 0) { set label 1 not_yet at graph 0.5, 0.5 center; plot NaN notitle; unset label 1 } else {
    plot csv using (is('stride') ? $2 : NaN):7 with lines lw 6 lc rgb '#bbbbbb' title 'your model (sector\_model.c)', \
         '' using (is('stride') ? $2 : NaN):4 with linespoints pt 7 ps 1.4 lw 2 lc rgb '#1f77b4' title 'loads, counted', \
         '' using (is('stride') ? $2 : NaN):5 with linespoints pt 5 ps 1 lc rgb '#2ca02c' title 'stores, counted (out[i]: coalesced)', \
         '' using (is('stride') && ($2 <= 2 || $2 == 8) ? $2 : NaN):4:(sprintf('%d', $4)) with labels offset 0,1.1 notitle
    }

    set title "Load efficiency (counted) and the copy bandwidth it predicts for an H100 SXM\n(h100-sxm row of data/gpus.csv: 3350 GB/s of sectors moved)" 
    set ylabel 'load efficiency: bytes used / bytes moved'
    set yrange [0:1.1]
    set ytics 0.125 nomirror
    set y2label 'copy GB/s (read + written), predicted'
    set y2range [0:3685]
    set y2tics 500
    set key top right
    if (stride_rows == 0) {
        set label 1 not_yet at graph 0.5, 0.5 center
        plot NaN axes x1y1 notitle, NaN axes x1y2 notitle
        unset label 1
    } else { if (measured_points > 0) {
        plot csv using (is('stride') ? $2 : NaN):6 axes x1y1 with linespoints pt 7 ps 1.4 lw 2 lc rgb '#1f77b4' title 'load efficiency, counted', \
             '' using (is('stride') ? $2 : NaN):8 axes x1y2 with linespoints pt 9 ps 1.4 lw 2 lc rgb '#d62728' title 'H100 SXM GB/s, predicted', \
             '' using (is('stride') ? $2 : NaN):8:(sprintf('%.0f', $8)) axes x1y2 with labels offset 2.2,0.8 font ',9' notitle, \
             '' using (is('stride') ? $2 : NaN):9 axes x1y2 with points pt 6 ps 1.6 lc rgb '#000000' title 'this GPU, measured'
    } else {
        plot csv using (is('stride') ? $2 : NaN):6 axes x1y1 with linespoints pt 7 ps 1.4 lw 2 lc rgb '#1f77b4' title 'load efficiency, counted', \
             '' using (is('stride') ? $2 : NaN):8 axes x1y2 with linespoints pt 9 ps 1.4 lw 2 lc rgb '#d62728' title 'H100 SXM GB/s, predicted', \
             '' using (is('stride') && ($2 <= 4 || $2 == 8) ? $2 : NaN):8:(sprintf('%.0f', $8)) axes x1y2 with labels offset 2.2,0.8 font ',9' notitle
    } }
    unset y2label
    unset y2tics
    set ytics mirror

    set title 'Misaligned start: sectors per load request vs offset, stride 1 (counted)'
    unset logscale x
    set xrange [-0.7:16.7]
    set xtics 1
    set yrange [0:6.2]
    set ytics 1
    set xlabel 'offset (floats from the start of the array; 8 floats = one sector)'
    set ylabel '32-byte sectors per request'
    set style fill solid 0.8 border -1
    set boxwidth 0.7
    set key top right
    if (offset_rows == 0) { set label 1 not_yet at graph 0.5, 0.5 center; plot NaN notitle; unset label 1 } else {
    plot csv using (is('offset') ? $3 : NaN):4 with boxes lc rgb '#ff7f0e' title 'loads, counted', \
         '' using (is('offset') ? $3 : NaN):4:(sprintf('%.0f', $4)) with labels offset 0,0.7 notitle, \
         4 with lines dt 2 lw 2 lc rgb '#333333' title 'aligned: 4 sectors = 128 bytes'
    }

    set title "Particle update: array of structs vs struct of arrays (counted)\nbars: sectors per load request; labels: load efficiency"
    set xrange [-0.6:1.6]
    set xtics ("AoS: particle[i].vx\n(32-byte structs)" 0, "SoA: vx[i]\n(one array per field)" 1)
    set yrange [0:38]
    set ytics 4
    set xlabel ''
    set bmargin 4.5
    set ylabel '32-byte sectors per request'
    if (layout_rows == 0) { set label 1 not_yet at graph 0.5, 0.5 center; plot NaN notitle; unset label 1 } else {
    plot csv using (is('aos') ? 0 : is('soa') ? 1 : NaN):4 with boxes lc rgb '#9467bd' notitle, \
         '' using (is('aos') ? 0 : is('soa') ? 1 : NaN):4:(sprintf('%.0f sectors, efficiency %.3f', $4, $6)) with labels offset 0,1 notitle
    }
    unset multiplot
} else {
    set terminal dumb size 110,40
    set multiplot layout 2,2
    set logscale x 2
    set xrange [0.8:80]
    set key off
    set title 'load sectors/request vs stride, counted'
    set yrange [0:36]
    if (stride_rows == 0) { plot NaN notitle } else { plot csv using (is('stride') ? $2 : NaN):4 with linespoints }
    set title 'H100 copy GB/s vs stride, predicted'
    set yrange [0:3700]
    if (stride_rows == 0) { plot NaN notitle } else { plot csv using (is('stride') ? $2 : NaN):8 with linespoints }
    unset logscale x
    set title 'load sectors/request vs offset, counted'
    set xrange [-0.5:16.5]
    set yrange [0:6]
    if (offset_rows == 0) { plot NaN notitle } else { plot csv using (is('offset') ? $3 : NaN):4 with impulses }
    set title 'AoS (0) vs SoA (1): sectors/request'
    set xrange [-0.5:1.5]
    set yrange [0:36]
    if (layout_rows == 0) { plot NaN notitle } else { plot csv using (is('aos') ? 0 : is('soa') ? 1 : NaN):4 with impulses }
    unset multiplot
}
