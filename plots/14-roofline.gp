# 14-roofline.gp — Day 14's picture, the book's signature plot: log-log rooflines of this CPU
# (one core, measured) and of the H100 SXM, A100 80GB and H200 (datasheet ceilings from
# data/gpus.csv), with the week's kernels placed on each at their intensity.
#   gnuplot -e "csv='build/14-roofline/results.csv'; png='out.png'" plots/14-roofline.gp
# Columns: kind,series,machine,ceiling,kernel_index,kernel,day,intensity_flop_per_byte,
# gflop_per_s,peak_gflop_per_s,bandwidth_gb_per_s,ridge_flop_per_byte,predicted_us,bound,bytes.
# Series 0 is the CPU; 1/2 the H100's FP16 Tensor/FP32 ceilings, 3/4 the A100's, 5/6 the H200's.
# With png='' it draws the rooflines and the kernels as a text plot in the terminal.
set datafile separator ','
set datafile missing ''
set logscale xy
set xrange [1.0/128:4096]
set yrange [0.05:8e6]
set format x '10^{%L}'
set format y '10^{%L}'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
is_roof(s) = strcol(1) eq 'roof' && $2 == s
is_kernel(s) = strcol(1) eq 'kernel' && $2 == s
# The H100 SXM's FP16 Tensor ridge shades the two regions; the CPU's ridge and peak go in the title.
stats csv using ((strcol(1) eq 'roof' && $2 == 1) ? $12 : NaN) nooutput
h100_ridge = STATS_max
stats csv using ((strcol(1) eq 'roof' && $2 == 0) ? $10 : NaN) nooutput
cpu_peak = STATS_max
stats csv using ((strcol(1) eq 'roof' && $2 == 0) ? $11 : NaN) nooutput
cpu_bandwidth = STATS_max
colour(s) = s == 0 ? 0x000000 : s <= 2 ? 0x1f77b4 : s <= 4 ? 0x2ca02c : 0xd62728
kernel_label(name, day) = sprintf('%s (day %02d)', name, day)

if (png ne '') {
    set terminal pngcairo size 1400,950 font ',11'
    set output png
    set title sprintf("Day 14: the roofline — attainable FLOP/s = min(peak, intensity x bandwidth); kernels placed at their intensity (FLOPs / bytes)\nthis CPU: one core, measured (%.1f GFLOP/s FP32 with FMA chains, %.1f GB/s STREAM triad); GPUs: datasheet ceilings from data/gpus.csv — predicted, never measured", cpu_peak, cpu_bandwidth) font ',12' noenhanced
    set xlabel 'arithmetic intensity (FLOP/byte; bytes counted on the simulator for days 09-12, from the formula for Llama-2-7B)' noenhanced
    set ylabel 'attainable performance (GFLOP/s)'
    set object 1 rectangle from graph 0, graph 0 to first h100_ridge, graph 1 behind fc rgb '#e8f0fb' fs solid noborder
    set object 2 rectangle from first h100_ridge, graph 0 to graph 1, graph 1 behind fc rgb '#fdf0e0' fs solid noborder
    set label 1 "memory-bound on an H100\n(left of its FP16 Tensor ridge)" at graph 0.66, graph 0.2 center font ',11' textcolor rgb '#1f4e99'
    set label 2 sprintf("compute-bound\non an H100\n(right of %.0f FLOP/byte)", h100_ridge) at graph 0.985, graph 0.97 right font ',11' textcolor rgb '#a05a00'
    set key at graph 0.99, graph 0.42 right bottom box opaque font ',10' spacing 1.1 noenhanced
    plot csv using (is_roof(0) ? $8 : NaN):9 with lines lw 3 lc rgb '#000000' title 'this CPU, 1 core (measured), FP32', \
         '' using (is_roof(1) ? $8 : NaN):9 with lines lw 2.5 lc rgb '#1f77b4' title 'H100 SXM, FP16 Tensor', \
         '' using (is_roof(2) ? $8 : NaN):9 with lines lw 2 dt 2 lc rgb '#1f77b4' title 'H100 SXM, FP32', \
         '' using (is_roof(3) ? $8 : NaN):9 with lines lw 2.5 lc rgb '#2ca02c' title 'A100 SXM 80GB, FP16 Tensor', \
         '' using (is_roof(4) ? $8 : NaN):9 with lines lw 2 dt 2 lc rgb '#2ca02c' title 'A100 SXM 80GB, FP32', \
         '' using (is_roof(5) ? $8 : NaN):9 with lines lw 2.5 lc rgb '#d62728' title 'H200 SXM, FP16 Tensor', \
         '' using (is_roof(6) ? $8 : NaN):9 with lines lw 2 dt 2 lc rgb '#d62728' title 'H200 SXM, FP32', \
         '' using ((strcol(1) eq 'roof' && $8 == $12) ? $8 : NaN):9:(colour($2)) with points pt 9 ps 1.6 lc rgb variable title 'ridge point (where slope meets roof)', \
         '' using ((strcol(1) eq 'roof' && $8 == $12 && (int($2) == 0 || int($2) % 2 == 1)) ? $8 : NaN):9:(sprintf('%.3g', $12)) with labels offset 0,0.9 font ',9' notitle, \
         '' using (is_kernel(0) ? $8 : NaN):(0.05):(0):(8e6 - 0.05) with vectors nohead dt 3 lc rgb '#888888' notitle, \
         '' using (strcol(1) eq 'kernel' ? $8 : NaN):9:(colour($2)) with points pt 7 ps 1.3 lc rgb variable title 'kernel on that roof (predicted bound)', \
         '' using (is_kernel(0) ? $8 : NaN):(5e6):(kernel_label(strcol(6), $7)) with labels rotate by 90 right offset 0.6,0 font ',9' notitle
} else {
    set terminal dumb size 110,34
    set title 'Day 14: rooflines, GFLOP/s vs FLOP/byte (CPU measured; GPUs from data/gpus.csv); o = kernels'
    set format x '%g'
    set format y '%.0e'
    unset grid
    set key off
    plot csv using (is_roof(0) ? $8 : NaN):9 with lines, \
         '' using (is_roof(1) ? $8 : NaN):9 with lines, \
         '' using (is_roof(2) ? $8 : NaN):9 with lines, \
         '' using (is_roof(3) ? $8 : NaN):9 with lines, \
         '' using (is_roof(4) ? $8 : NaN):9 with lines, \
         '' using (is_roof(5) ? $8 : NaN):9 with lines, \
         '' using (is_roof(6) ? $8 : NaN):9 with lines, \
         '' using (strcol(1) eq 'kernel' ? $8 : NaN):9 with points pt 'o'
}
