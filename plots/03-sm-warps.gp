# 03-sm-warps.gp — Day 03's picture: how many of an SM's 64 warp slots a kernel fills, as
# its block size, registers per thread and shared memory per block change.
#   gnuplot -e "csv='build/03-sm-warps/results.csv'; png='out.png'" plots/03-sm-warps.gp
# Top: H100 SXM, occupancy vs threads per block, one curve per registers-per-thread count,
# each point marked by the resource that stops the next block. Bottom: occupancy vs shared
# memory per block on an H100 SXM and an A100 80GB (256 threads, 32 registers).
# With png='' it draws the top panel as a text plot in the terminal.
set datafile separator ','
set key autotitle columnhead
registers = '32 64 96 128 168 255'
colours = '#1f77b4 #2ca02c #ff7f0e #d62728 #9467bd #8c564b'
# Each point is marked by what stops the next block; a tie goes to the SM's fixed slots
# (with 32 registers per thread, registers always allow exactly as many warps as the slots).
marker(s) = strstrt(s, 'warps') ? 4 : strstrt(s, 'blocks') ? 9 : strstrt(s, 'registers') ? 7 : strstrt(s, 'shared') ? 13 : 1
in_panel(name) = strcol(1) eq name
if (png ne '') {
    set terminal pngcairo size 1200,1300 font ',11'
    set output png
    set multiplot title "Day 03: occupancy = resident warps / 64 warp slots — what block size, registers and shared memory leave room for" font ',13'

    # ---- top: registers and block size, H100 SXM: one small panel per registers-per-thread count,
    # the 32-register curve in grey behind each for comparison; a cross at 0 % where the launch fails
    set xrange [0:1056]
    set yrange [-6:108]
    set xtics 0,256,1024 font ',9'
    set mxtics 2
    set ytics 0,25,100 font ',9'
    set format y '%.0f'
    set grid xtics ytics lc rgb '#dddddd'
    set key off
    set lmargin 7; set rmargin 2; set tmargin 2.5; set bmargin 3
    do for [i=1:words(registers)] {
        set origin ((i - 1) % 3) / 3.0, 0.655 - int((i - 1) / 3) * 0.295
        set size 1 / 3.0, 0.29
        set title sprintf("%s registers per thread (H100 SXM)", word(registers, i)) font ',11'
        set xlabel (i > 3 ? 'threads per block' : '') font ',10'
        set ylabel ((i - 1) % 3 == 0 ? 'occupancy (%)' : '') font ',10'
        if (i == 3) {
            set key at graph 0.98, 0.5 right center font ',8' box opaque samplen 1 spacing 0.9
        } else { unset key }
        plot csv using (in_panel('registers') && $4 == 32 ? $3 : NaN):8 with lines lw 1.5 lc rgb '#cccccc' \
                 title '32 registers (for comparison)', \
             csv using (in_panel('registers') && $4 == word(registers, i) + 0 && $8 > 0 ? $3 : NaN):8 \
                 with lines lw 2 lc rgb word(colours, i) notitle, \
             csv using (in_panel('registers') && $4 == word(registers, i) + 0 && $8 > 0 ? $3 : NaN):8:(marker(strcol(9))) \
                 with points pt variable ps 1.1 lc rgb word(colours, i) notitle, \
             csv using (in_panel('registers') && $4 == word(registers, i) + 0 && $8 == 0 ? $3 : NaN):(0) \
                 with points pt 2 ps 0.9 lc rgb '#b03a2e' notitle, \
             NaN with points pt 7 lc rgb '#444444' title 'limited by registers', \
             NaN with points pt 4 lc rgb '#444444' title 'by warp slots', \
             NaN with points pt 9 lc rgb '#444444' title 'by block slots', \
             NaN with points pt 2 lc rgb '#b03a2e' title 'launch fails: too few registers for one block'
    }
    unset key
    set origin 0, 0
    set size 1, 0.335
    set lmargin 10; set rmargin 10
    set xtics font ',11'; set ytics font ',11'; set format y '%.1f'

    # ---- bottom: shared memory, H100 SXM and A100 80GB
    set title "256 threads, 32 registers per thread: occupancy vs shared memory per block (each block also takes 1 KiB reserved by the driver)\nevery step down is one block fewer per SM: 57 KiB leaves 3 blocks on an H100, not 4, because 4 × 58 KiB > 228 KiB"
    set xlabel 'shared memory requested per block (KiB)'
    set ylabel 'occupancy (% of 64 warp slots)'
    set y2label 'resident blocks per SM'
    set xrange [0:232]
    set xtics 0,16,224
    set mxtics 2
    set yrange [-4:108]
    set y2range [-4/12.5:108/12.5]
    set y2tics 0,1,8
    set ytics nomirror
    set key at graph 0.98, 0.97 right top vertical box opaque title '' font ',11' spacing 1.2
    set arrow 1 from 48, -4 to 48, 108 nohead dt 2 lc rgb '#777777'
    set label 1 "above 48 KiB a kernel\nmust opt in (cudaFunc-\nSetAttribute)" at 50, 100 left font ',10'
    set arrow 2 from 163, -4 to 163, 108 nohead dt 3 lc rgb '#d62728'
    set label 2 "A100: at most\n163 KiB a block" at 161, 36 right font ',10' tc rgb '#d62728'
    set arrow 3 from 227, -4 to 227, 108 nohead dt 3 lc rgb '#1f77b4'
    set label 3 "H100: at most\n227 KiB a block" at 225, 36 right font ',10' tc rgb '#1f77b4'
    set label 4 '57 KiB: 3 blocks' at 58, 42 left font ',10' tc rgb '#1f77b4'
    set arrow 4 from 62, 40.5 to 57.2, 37.9 head size 2,20 lc rgb '#1f77b4'
    plot csv using (in_panel('shared') && strcol(2) eq 'h100-sxm' ? $5 : NaN):8 with steps lw 2.5 lc rgb '#1f77b4' \
             title 'H100 SXM (228 KiB per SM)', \
         csv using (in_panel('shared') && strcol(2) eq 'a100-80gb' ? $5 : NaN):8 with steps lw 2.5 dt 2 lc rgb '#d62728' \
             title 'A100 80GB (164 KiB per SM)'
    unset multiplot
} else {
    set terminal dumb size 110,35
    set title 'H100 SXM: occupancy (%) vs threads per block; A=32 B=64 C=96 D=128 E=168 F=255 registers per thread'
    set xlabel 'threads per block   (at 0 % a block cannot get its registers: the launch fails)'
    set ylabel '%'
    set xrange [0:1056]
    set yrange [-6:106]
    set xtics 0,128,1024
    set ytics 0,25,100
    set key off
    letters = 'ABCDEF'
    plot for [i=1:words(registers)] csv using (in_panel('registers') && $4 == word(registers, i) + 0 ? $3 : NaN):8:(letters[i:i]) \
             with labels notitle
}
