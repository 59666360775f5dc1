# 17-softmax-norm.gp — Day 17's picture: what each softmax moves, and how far each is from the
# truth. Left, counted on the simulator: global bytes per row of 4096 floats, as row transfers
# (a read or a write of the whole row): 4 for three passes, 3 for two, 2 for one, which is the
# floor. Right: the largest relative error against a double-precision reference on ordinary
# rows and on hard rows (logits near +-1e4, all-equal rows, -inf masks), log scale; the naive
# version's hard-row outputs are NaN, marked instead of drawn.
#   gnuplot -e "csv='build/17-softmax-norm/results.csv'; png='out.png'" plots/17-softmax-norm.gp
# With png='' it draws the same two panels as text in the terminal.
set datafile separator ','
set datafile missing ''
set style fill solid 0.85 border -1
set key off
set grid ytics
set xrange [-0.6:4.6]
set xtics nomirror scale 0
set ytics nomirror
# Counted bytes exist only on the simulator; measured times only on a real GPU.
stats csv skip 1 using (valid(3) ? 1 : 0) nooutput
counted_points = STATS_sum
tolerance = 3e-5          # the relative error the checks allow
unit_roundoff = 2**-24    # float's rounding, 6e-8
# The hard-row error, read as text: an empty field (NaN outputs) then draws nothing, with no warning.
hard_error(column_number) = strcol(column_number) eq '' ? 1e-9 : real(strcol(column_number))

if (png ne '') {
    set terminal pngcairo size 1400,660 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 17: softmax and RMSNorm, one block per row of 4096 floats — fewer passes move fewer bytes; subtracting the max keeps every version finite" font ',13'
    set xtics rotate by -15 offset -1,0 font ',10'

    set title "Global traffic per row (counted on the simulator)\ndashed: one read and one write of the row, the least any softmax can move\n(0 naive, no max: two reads, like 2 two-pass, but NaN on large logits)"
    set ylabel 'row transfers (reads + writes of 16 KiB)'
    set yrange [0:5]
    if (counted_points > 0) {
        plot csv skip 1 using 1:4:(0.6):xtic(strcol(2)) with boxes lc rgb '#1f77b4', \
             '' skip 1 using 1:4:(sprintf('%.0f KiB', $3 / 1024)) with labels offset 0,0.8 font ',10', \
             2 with lines dt 2 lw 2 lc rgb '#333333'
    } else {
        set label 1 'counted only on the simulator (BACKEND=sim)' at 2,2.5 center
        plot csv skip 1 using 1:(0):xtic(strcol(2)) with points pt -1
        unset label 1
    }

    set title sprintf("Largest relative error against a double-precision reference\nblue: ordinary rows; red: hard rows (logits near ±1e4, all-equal, -inf masks)\ndashed: the checks allow %.0e; dotted: float's rounding, 6e-8", tolerance)
    set ylabel 'max |y - y_{ref}| / |y_{ref}|  (log scale)'
    set logscale y
    set yrange [1e-9:1e-2]
    set format y '10^{%L}'
    set style textbox opaque noborder
    plot csv skip 1 using ($1 - 0.2):5:(0.38):xtic(strcol(2)) with boxes lc rgb '#1f77b4', \
         '' skip 1 using ($1 + 0.2):(hard_error(6)):(0.38) with boxes lc rgb '#d62728', \
         '' skip 1 using ($1 + 0.2):(valid(6) ? NaN : 1e-2):(0.38) with boxes fs pattern 4 border lc rgb '#d62728' lc rgb '#d62728', \
         '' skip 1 using ($1 + 0.2):(valid(6) ? NaN : 1e-3):(sprintf("NaN or inf:\n%d outputs,\nexp overflowed", $7)) with labels textcolor rgb '#d62728' font ',10' boxed, \
         tolerance with lines dt 2 lw 2 lc rgb '#333333', \
         unit_roundoff with lines dt 3 lw 1 lc rgb '#777777'
    unset multiplot
} else {
    set terminal dumb size 110,30
    set multiplot layout 1,2
    set xtics ('0' 0, '1' 1, '2' 2, '3' 3, 'RMS' 4)
    set title 'row transfers per row, counted'
    set yrange [0:5]
    plot csv skip 1 using 1:4:(0.5) with boxes
    set title 'digits right (-log10 rel. error), ordinary rows'
    set yrange [0:9]
    plot csv skip 1 using 1:(-log10($5)):(0.5) with boxes
    unset multiplot
}
