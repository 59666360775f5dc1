# 23-kernel-fusion.gp — Day 23's picture: what fusing the chain bias add -> SiLU -> residual add ->
# RMSNorm saves, hidden size by hidden size. Left, counted on the simulator: global bytes per row
# (token), unfused (four kernels, 12 row transfers) and fused (one kernel, 6), log-log. Right,
# predicted: the launches' roofline estimates on an H100 SXM (data/gpus.csv) for a 4096-token
# prompt, from those counted bytes; on a real GPU the measured medians are drawn over them.
#   gnuplot -e "csv='build/23-kernel-fusion/results.csv'; png='out.png'" plots/23-kernel-fusion.gp
# With png='' it draws the same two panels as text in the terminal.
set datafile separator ','
set datafile missing ''
set key top left box opaque
set grid xtics ytics
set logscale xy 2
set xrange [181:11585]
set xtics (256, 512, 1024, 2048, 4096, 8192) nomirror
set ytics nomirror
set xlabel 'hidden size n (floats per row)'
# Counted bytes exist only on the simulator; measured times only on a real GPU. A lab with no
# hidden size right yet writes the header alone (counted here as one record), and nothing is drawn.
counted_points = 0
measured_points = 0
stats csv using (1) nooutput
if (STATS_records > 1) {
    stats csv skip 1 using (valid(4) ? 1 : 0) nooutput
    counted_points = STATS_sum
    stats csv skip 1 using (valid(10) ? 1 : 0) nooutput
    measured_points = STATS_sum
}

if (png ne '') {
    set terminal pngcairo size 1400,660 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 23: fusing bias + SiLU + residual add + RMSNorm into one kernel — half the bytes, one launch instead of four" font ',13'

    set title "Global traffic per row (token), counted on the simulator\nunfused: 12 row transfers of 4n bytes (3 + 2 + 3 + 4, four kernels)\nfused: 6, each input read once and each output written once"
    set ylabel 'KiB per row (loads + stores, 32-byte sectors)'
    set format y '%g'
    set yrange [4:768]
    if (counted_points > 0) {
        plot csv skip 1 using 1:($4 / 1024) with linespoints lw 2 pt 7 ps 1.2 lc rgb '#d62728' title 'unfused chain (4 launches)', \
             '' skip 1 using 1:($5 / 1024) with linespoints lw 2 pt 5 ps 1.2 lc rgb '#1f77b4' title 'fused kernel (1 launch)', \
             '' skip 1 using 1:(sqrt($4 * $5) / 1024):(sprintf('%.2fx fewer', $6)) with labels offset 4.5,0 font ',10' notitle
    } else {
        set label 1 (measured_points > 0 ? 'counted only on the simulator (BACKEND=sim)' : 'no hidden size right yet: make check DAY=23 says which check fails') at 1448,40 center
        unset key
        plot 1e-9 notitle
        unset label 1
        set key
    }

    set title "Time for a 4096-token prompt (FP32) on an H100 SXM\nlines: predicted, the counted bytes at its 3350 GB/s (roofline;\nlaunch gaps not included: day 24); points: measured, where there is a GPU"
    set ylabel 'microseconds (log scale)'
    set format y '%g'
    set yrange [4:1024]
    if (counted_points > 0 && measured_points > 0) {
        plot csv skip 1 using 1:8 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'unfused, predicted', \
             '' skip 1 using 1:9 with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'fused, predicted', \
             '' skip 1 using 1:10 with points pt 6 ps 2 lc rgb '#d62728' title 'unfused, measured', \
             '' skip 1 using 1:11 with points pt 4 ps 2 lc rgb '#1f77b4' title 'fused, measured'
    }
    if (counted_points > 0 && measured_points == 0) {
        plot csv skip 1 using 1:8 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'unfused, predicted (roofline)', \
             '' skip 1 using 1:9 with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'fused, predicted (roofline)'
    }
    if (counted_points == 0 && measured_points > 0) {
        plot csv skip 1 using 1:10 with linespoints lw 2 pt 7 lc rgb '#d62728' title 'unfused, measured on this GPU', \
             '' skip 1 using 1:11 with linespoints lw 2 pt 5 lc rgb '#1f77b4' title 'fused, measured on this GPU'
    }
    if (counted_points == 0 && measured_points == 0) {
        set label 2 'no hidden size right yet' at 1448,64 center
        unset key
        plot 1e-9 notitle
        unset label 2
    }
    unset multiplot
} else {
    set terminal dumb size 110,30
    set multiplot layout 1,2
    unset xlabel
    set key top left nobox
    set title 'KiB per row, counted: U unfused, F fused'
    set format y '%g'
    if (counted_points > 0) {
        plot csv skip 1 using 1:($4 / 1024) with linespoints pt 'U' title 'unfused', \
             '' skip 1 using 1:($5 / 1024) with linespoints pt 'F' title 'fused'
        set title 'us, predicted H100, 4096 rows'
        plot csv skip 1 using 1:8 with linespoints pt 'U' title 'unfused', \
             '' skip 1 using 1:9 with linespoints pt 'F' title 'fused'
    }
    if (counted_points == 0 && measured_points > 0) {
        plot csv skip 1 using 1:10 with linespoints pt 'U' title 'unfused, measured us', \
             '' skip 1 using 1:11 with linespoints pt 'F' title 'fused, measured us'
    }
    if (counted_points == 0 && measured_points == 0) {
        set title 'no hidden size right yet'
        set yrange [1:2]
        plot 1e-9 notitle
    }
    unset multiplot
}
