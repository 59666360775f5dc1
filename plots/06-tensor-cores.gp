# 06-tensor-cores.gp — Day 06's picture: a dot product of n FP16 products, the running sum
# kept in FP32, FP16 or BF16. Left: relative error against the exact sum. Right: the sums
# themselves, where the FP16 and BF16 sums stop growing at 2048 and 256.
#   gnuplot -e "csv='build/06-tensor-cores/results.csv'; png='out.png'" plots/06-tensor-cores.gp
# With png='' it draws the left panel as a text plot in the terminal.
set datafile separator ','
set logscale xy
set xrange [12:1.4e6]
set grid xtics ytics
positive(v) = v > 0 ? v : NaN
u32 = 2.0**-24; u16 = 2.0**-11; u_bf16 = 2.0**-8
if (png ne '') {
    set terminal pngcairo size 1500,640 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 06: one dot product of n FP16 products in [0, 1), the running sum kept in FP32, FP16 or BF16\nKept in FP16 or BF16 the sum stops growing (error → 1); kept in FP32 it stays close to exact" font ',13'
    set xlabel 'n, the number of products summed (log scale)'
    set format x '%g'
    set xtics ('16' 16, '64' 64, '256' 256, '1k' 1024, '4k' 4096, '16k' 16384, '64k' 65536, '256k' 262144, '1M' 1048576)
    set ylabel 'relative error |sum - exact| / exact (log scale)'
    set format y '10^{%L}'
    set yrange [1e-9:3]
    set key bottom right opaque box
    set title 'Relative error of the sum'
    set label 1 'u = 2^{-24}: one FP32 rounding' at 1.2e6, u32*1.7 right tc rgb '#1f77b4' font ',9'
    set label 2 'u = 2^{-11}: one FP16 rounding' at 1.2e6, u16*1.7 right tc rgb '#d62728' font ',9'
    set label 3 'u = 2^{-8}: one BF16 rounding' at 1.2e6, u_bf16/1.8 right tc rgb '#ff7f0e' font ',9'
    plot csv using 1:(positive($6)) with linespoints pt 7 ps 0.6 lw 2 lc rgb '#1f77b4' title 'sum kept in FP32', \
         '' using 1:(positive($7)) with linespoints pt 5 ps 0.6 lw 2 lc rgb '#d62728' title 'sum kept in FP16', \
         '' using 1:(positive($8)) with linespoints pt 9 ps 0.7 lw 2 lc rgb '#ff7f0e' title 'sum kept in BF16', \
         '' using 1:(($1 - 1) * u32) with lines dt 2 lw 1.5 lc rgb '#1f77b4' title 'FP32 worst case, (n - 1) u', \
         u32 with lines dt 3 lc rgb '#1f77b4' notitle, u16 with lines dt 3 lc rgb '#d62728' notitle, \
         u_bf16 with lines dt 3 lc rgb '#ff7f0e' notitle
    unset label
    set title 'The sums themselves'
    set ylabel 'sum of the first n products (log scale)'
    set yrange [1:1e6]
    set format y '%g'
    set ytics ('1' 1, '10' 10, '100' 100, '256' 256, '2048' 2048, '10^4' 1e4, '10^5' 1e5, '10^6' 1e6)
    set key top left opaque box
    set label 1 "FP16 stops at 2048 = 2^{11}: its step there\nis 2, and every product is below 1" at 1.2e6, 2048/1.9 right tc rgb '#d62728' font ',9'
    set label 2 "BF16 stops at 256 = 2^8: 8 significant\nbits, so its step there is 2 as well" at 1.2e6, 256/1.9 right tc rgb '#ff7f0e' font ',9'
    plot csv using 1:2 with lines lw 5 lc rgb '#bbbbbb' title 'exact', \
         '' using 1:3 with lines lw 2 dt 2 lc rgb '#1f77b4' title 'kept in FP32', \
         '' using 1:4 with linespoints pt 5 ps 0.6 lw 2 lc rgb '#d62728' title 'kept in FP16', \
         '' using 1:5 with linespoints pt 9 ps 0.7 lw 2 lc rgb '#ff7f0e' title 'kept in BF16'
    unset multiplot
} else {
    set terminal dumb size 110,32
    set format x '%g'
    set xtics (16, 256, 4096, 65536, 1048576)
    set format y '%.0e'
    set yrange [1e-9:3]
    set key top left
    set title 'relative error of the sum vs n (log-log):  F = kept in FP32,  H = kept in FP16,  B = kept in BF16'
    plot csv using 1:(positive($6)) with points pt 'F' notitle, \
         '' using 1:(positive($7)) with points pt 'H' notitle, \
         '' using 1:(positive($8)) with points pt 'B' notitle
}
