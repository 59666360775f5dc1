# 10-bandwidth.gp — Day 10's picture: STREAM's four kernels and memcpy on one CPU core, from
# working sets that fit the L1 cache to ones four times the last level (measured), the cache
# sizes the OS reports marked; and, at the largest working set, each kernel's bandwidth as
# STREAM counts it (measured) beside the same time over the bytes a write-allocate cache moves
# (derived from the measurement by the byte counts, not measured itself).
#   gnuplot -e "csv='build/10-bandwidth/results.csv'; png='out.png'" plots/10-bandwidth.gp
# With png='' it draws the left panel as text in the terminal.
set datafile separator ','
set datafile missing ''
set datafile missing NaN   # a row of another kernel does not break a kernel's line
kernels = 'copy scale add triad memcpy'
colours = '#1f77b4 #ff7f0e #2ca02c #d62728 #000000'
is(source) = strcol(1) eq source
measured(k) = (is('cpu-measured') && strcol(3) eq word(kernels, k) ? $7 : NaN)

# What the file holds: the measured rows (none until the C kernels and bytes.c are right).
stats csv using (is('cpu-measured') ? 1 : 0) nooutput
points = STATS_sum
machine = 'this CPU'
largest = 1
if (points > 0) {
    stats csv using (is('cpu-measured') ? (machine = strcol(2), $4) : NaN) nooutput
    largest = STATS_max
}
# At the largest working set: bandwidth as STREAM counts it, and the write-allocate and the
# simulator's counts for each kernel (column 6), read into variables for the bar panel.
array stream_gb[5]
array moved_gb[5]
array counted_bytes[5]
array stream_bytes[5]
array moved_bytes[5]
do for [k=1:5] {
    stream_gb[k] = NaN; moved_gb[k] = NaN; counted_bytes[k] = NaN; stream_bytes[k] = NaN; moved_bytes[k] = NaN
    if (points > 0) {
        stats csv using (is('cpu-measured') && strcol(3) eq word(kernels, k) && $4 == largest ? $7 : NaN) nooutput
        stream_gb[k] = STATS_max
        stats csv using (is('cpu-measured') && strcol(3) eq word(kernels, k) && $4 == largest ? $6 : NaN) nooutput
        counted = STATS_max
        wa = NaN   # memcpy: its store instructions decide, not a formula
        if (k < 5) {
            stats csv using (is('write-allocate') && strcol(3) eq word(kernels, k) ? $6 : NaN) nooutput
            wa = STATS_max
        }
        moved_gb[k] = stream_gb[k] * wa / counted
        stream_bytes[k] = counted; moved_bytes[k] = wa
    }
    if (k < 5) {
        stats csv using (is('gpu-counted') && strcol(3) eq word(kernels, k) ? 1 : 0) nooutput
        if (STATS_sum > 0) {
            stats csv using (is('gpu-counted') && strcol(3) eq word(kernels, k) ? $6 : NaN) nooutput
            counted_bytes[k] = STATS_max
        }
    }
}
# The cache sizes, for the vertical lines.
array cache_bytes[4]
cache_count = 0
do for [level=1:4] {
    cache_bytes[level] = NaN
    stats csv using (is('cache') && strcol(3) eq sprintf('L%d', level) ? 1 : 0) nooutput
    if (STATS_sum > 0) {
        stats csv using (is('cache') && strcol(3) eq sprintf('L%d', level) ? $4 : NaN) nooutput
        cache_bytes[level] = STATS_max; cache_count = level
    }
}
size_label(b) = b >= 2**20 ? sprintf('%.0f MiB', b / 2**20) : sprintf('%.0f KiB', b / 2**10)

set logscale x 2
set xrange [6e3:7e8]
set xtics ('8 KiB' 8192, '32 KiB' 32768, '128 KiB' 131072, '512 KiB' 524288, '2 MiB' 2097152, \
           '8 MiB' 8388608, '32 MiB' 33554432, '128 MiB' 134217728, '512 MiB' 536870912)
set grid xtics ytics
set yrange [0:*]

if (png ne '') {
    set terminal pngcairo size 1500,720 font ',11'
    set output png
    set multiplot layout 1,2 title sprintf("Day 10: STREAM on one core of %s (measured, best of 5 rounds side by side): bandwidth falls off a cliff each time\nthe working set outgrows a cache (left); in DRAM, STREAM's byte count leaves out the read a write-allocate cache makes before each store (right)", machine) font ',13'
    set origin 0, 0
    set size 0.6, 0.92
    set title 'GB/s as STREAM counts bytes (16 per element for copy and scale, 24 for add and triad), vs working set'
    set xlabel 'working set: the bytes of all the arrays a kernel touches (log scale)'
    set ylabel 'GB/s (10^9 bytes a second), measured, log scale'
    set logscale y
    set yrange [*:*]
    set ytics (1, 2, 5, 10, 20, 50, 100, 200, 500)
    set key bottom left opaque box title 'measured on this CPU'
    do for [level=1:cache_count] {
        set arrow level from cache_bytes[level], graph 0 to cache_bytes[level], graph 1 nohead dt 2 lw 1.5 lc rgb '#777777'
        set label level sprintf('L%d %s', level, size_label(cache_bytes[level])) at cache_bytes[level], graph 0.97 \
            left offset 0.5,0 textcolor rgb '#555555'
    }
    if (points > 0) {
        plot for [k=1:4] csv using 4:(measured(k)) with linespoints lw 2 pt 7 ps 0.6 lc rgb word(colours, k) \
                 title word(kernels, k), \
             csv using 4:(measured(5)) with linespoints lw 3 dt 2 pt 6 ps 0.8 lc rgb '#000000' \
                 title 'memcpy (the yardstick)'
    } else {
        set label 20 'no measurements yet: the C kernels and bytes.c must be right first (make check DAY=10)' at graph 0.05, graph 0.5
        set yrange [1:10]
        plot 0.1 notitle
    }
    unset arrow
    unset label

    set origin 0.6, 0
    set size 0.4, 0.92
    unset logscale x
    unset logscale y
    set ytics auto
    set xrange [0.4:5.6]
    set title sprintf("At %s (DRAM): STREAM's bandwidth (solid, measured), and the\nwrite-allocate bytes over the same time (hatched, derived)", points > 0 ? size_label(largest) : 'the largest working set')
    set xlabel "bytes per element, under each kernel: STREAM's count ·\na write-allocate CPU's · your CUDA kernel's (simulator-counted)"
    set ylabel 'GB/s: solid measured, hatched derived'
    set xtics ('' 1) scale 0
    set grid noxtics ytics
    set key top left opaque box title ''
    set style fill solid 0.85 border -1
    known(x) = x == x ? sprintf('%.0f', x) : '–'
    tic(k) = k == 5 ? sprintf("memcpy\n%s B", known(stream_bytes[k])) : \
        sprintf("%s\n%s·%s·%s B", word(kernels, k), known(stream_bytes[k]), known(moved_bytes[k]), known(counted_bytes[k]))
    set xtics () font ',9'
    do for [k=1:5] { set xtics add (tic(k) k) }
    top = 0
    do for [k=1:5] { if (moved_gb[k] == moved_gb[k] && moved_gb[k] > top) { top = moved_gb[k] } }
    set yrange [0:(top > 0 ? top * 1.45 : 1)]
    set print $bars
    do for [k=1:5] { print sprintf('%d,%g,%g', k, stream_gb[k], moved_gb[k]) }
    unset print
    if (points > 0) {
        plot $bars using ($1 - 0.2):2:(0.38) with boxes lc rgb '#1f77b4' title 'measured: STREAM bytes / time', \
             '' using ($1 + 0.2):3:(0.38) with boxes fs pattern 4 lc rgb '#d62728' \
                 title 'derived: × write-allocate bytes / STREAM bytes', \
             '' using ($1 - 0.2):2:(sprintf('%.1f', $2)) with labels offset 0,0.7 font ',9' notitle, \
             '' using ($1 + 0.2):3:(sprintf('%.1f', $3)) with labels offset 0,0.7 font ',9' notitle, \
             stream_gb[5] with lines dt 2 lw 2 lc rgb '#000000' title 'memcpy, measured (STREAM bytes)'
    } else {
        set yrange [0:1]
        plot -1 notitle
    }
    unset multiplot
} else {
    set terminal dumb size 110,32
    set title 'GB/s (STREAM bytes) vs working set, measured on this CPU.  c copy  s scale  a add  t triad  m memcpy  | caches'
    set key off
    set xtics ('8K' 8192, '32K' 32768, '128K' 131072, '512K' 524288, '2M' 2097152, '8M' 8388608, '32M' 33554432, '128M' 134217728, '512M' 536870912)
    letters = 'csatm'
    do for [level=1:cache_count] {
        set arrow level from cache_bytes[level], graph 0 to cache_bytes[level], graph 1 nohead
    }
    if (points > 0) {
        plot for [k=1:5] csv using 4:(measured(k)):(substr(letters, k, k)) with labels
    } else {
        set title 'no measurements yet: the C kernels and bytes.c must be right first (make check DAY=10)'
        set yrange [0:1]
        plot -1 notitle
    }
}
