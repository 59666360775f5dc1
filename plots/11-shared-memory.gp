# 11-shared-memory.gp — Day 11's picture: what banks cost a transpose. Three panels, all counted
# on the simulator except the model's line: (1) the bank model against the simulator's count for
# a warp reading words k x stride; (2) shared wavefronts per request of each transpose, column
# reads and row writes of the tile; (3) global load and store efficiency of each transpose.
# With measured GPU times in the CSV (BACKEND=cuda) a fourth panel shows them.
#   gnuplot -e "csv='build/11-shared-memory/results.csv'; png='out.png'" plots/11-shared-memory.gp
# With png='' it draws the same panels as text in the terminal.
set datafile separator ','
set datafile missing ''
set key top left box opaque
set grid ytics
set ytics nomirror
set xtics nomirror
stride(col) = strcol(1) eq 'stride' ? column(col) : NaN
version(col) = strcol(1) eq 'version' ? column(col) : NaN
# Measured times exist only when the lab ran on a real GPU (BACKEND=cuda).
stats csv using (strcol(1) eq 'version' && valid(11) ? 1 : 0) nooutput
measured_points = STATS_sum

if (png ne '') {
    set terminal pngcairo size 1800,600 font ',11'
    set output png
    if (measured_points > 0) { set terminal pngcairo size 1300,950 font ',11'; set output png; set multiplot layout 2,2 \
        title "Day 11: shared-memory banks and the matrix transpose (counted on the simulator; times measured on a GPU)" font ',13' }
    if (measured_points == 0) { set multiplot layout 1,3 \
        title "Day 11: shared-memory banks and the matrix transpose — counted on the simulator, every warp and every access (no GPU was timed)" font ',13' }

    set title "The bank model: lane k of a warp reads word k x stride\nwavefronts = gcd(stride, 32); stride 0 is a broadcast: 1" noenhanced
    set xlabel 'word stride between neighbouring lanes (4-byte words)'
    set ylabel 'wavefronts per request (log scale)'
    set logscale y 2
    set yrange [0.45:160]
    set xrange [-1:67]
    set key top left
    set xtics 0,8,64
    set ytics ('1' 1, '2' 2, '4' 4, '8' 8, '16' 16, '32' 32)
    plot csv using (stride(2)):(stride(4)) with lines lw 2 lc rgb '#1f77b4' title 'predicted (your bank\_conflict\_ways)', \
         '' using (stride(2)):(stride(5)) with points pt 6 ps 1.2 lc rgb '#d62728' title 'counted (simulator)', \
         '' using (stride(2) == 32 ? 32 : NaN):(stride(5)):('stride 32: a column of an unpadded 32 x 32 tile') \
            with labels offset 0,1 font ',10' notitle, \
         '' using (stride(2) == 33 ? 33 : NaN):(stride(5)):('stride 33: a column of the padded tile') \
            with labels left offset 0,-1.2 font ',10' notitle
    unset logscale y
    set key top right
    set xtics ('1 naive' 1, '2 tile' 2, '3 padded' 3, '4 swizzled' 4)
    set xrange [0.4:4.6]
    set xlabel 'transpose version (512 x 384 floats, 32 x 32 tiles)'
    set style fill solid 0.85 border -1
    set boxwidth 0.36

    set title "Bank conflicts: shared wavefronts per request\nthe plain tile's column reads are 32-way; padded or swizzled: 1" noenhanced
    set ylabel 'wavefronts per shared request (1 = no conflict)'
    set yrange [0:44]
    set ytics auto
    plot csv using (version(2) - 0.19):(version(6)) with boxes lc rgb '#ff7f0e' title 'loads: the tile read by column', \
         '' using (version(2) + 0.19):(version(7)) with boxes lc rgb '#2ca02c' title 'stores: the tile written by row', \
         '' using (version(2) - 0.19):(version(6)):(version(6) > 0 ? sprintf('%.0f', version(6)) : 'no shared') with labels offset 0,0.8 font ',10' notitle, \
         '' using (version(2) + 0.19):(version(7)):(version(7) > 0 ? sprintf('%.0f', version(7)) : '') with labels offset 0,0.8 font ',10' notitle

    set title "Global efficiency: bytes asked for / bytes of the sectors moved\nthe naive version's column writes use 4 of every 32 bytes" noenhanced
    set ylabel 'global efficiency (%)'
    set yrange [0:135]
    plot csv using (version(2) - 0.19):(100 * version(9)) with boxes lc rgb '#1f77b4' title 'loads (reading in)', \
         '' using (version(2) + 0.19):(100 * version(10)) with boxes lc rgb '#9467bd' title 'stores (writing out)', \
         '' using (version(2) - 0.19):(100 * version(9)):(sprintf('%.1f', 100 * version(9))) with labels offset 0,0.8 font ',10' notitle, \
         '' using (version(2) + 0.19):(100 * version(10)):(sprintf('%.1f', 100 * version(10))) with labels offset 0,0.8 font ',10' notitle

    if (measured_points > 0) {
        set title "Measured on this GPU (BACKEND=cuda): an 8192 x 8192 transpose, median of 20 runs" noenhanced
        set ylabel 'GB/s read + written'
        set yrange [0:*]
        plot csv using (version(2)):(version(12)) with boxes lc rgb '#8c564b' notitle, \
             '' using (version(2)):(version(12)):(sprintf('%.0f GB/s', version(12))) with labels offset 0,0.8 font ',10' notitle
    }
    unset multiplot
} else {
    set terminal dumb size 120,30
    set multiplot layout 1,3
    set key off
    set title 'ways vs stride (o counted)'
    set xrange [-1:65]
    set yrange [0:33]
    plot csv using (stride(2)):(stride(4)) with lines, '' using (stride(2)):(stride(5)) with points pt 'o'
    set title 'shared wavefronts/load'
    set xrange [0.5:4.5]
    set xtics ('1' 1, '2' 2, '3' 3, '4' 4)
    plot csv using (version(2)):(version(6)) with impulses lw 3
    set title 'global store eff. %'
    set yrange [0:110]
    plot csv using (version(2)):(100 * version(10)) with impulses lw 3
    unset multiplot
}
