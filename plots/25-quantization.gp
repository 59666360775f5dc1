# 25-quantization.gp — Day 25's picture: what fewer bytes a weight buy. Left: the decode step's
# lower bound at batch 1 for Llama-2-7B, 13B and 70B on every GPU of data/gpus.csv, with FP16, INT8
# and INT4 weights (predicted by lib/perfmodel; absent where the book's memory budget, nine tenths of the capacity, does not hold them). Right:
# your GEMVs on this CPU, FP32 (the driver's), INT8 and INT4 (yours), against the size of the matrix
# (measured).
#   gnuplot -e "csv='build/25-quantization/results.csv'; png='out.png'" plots/25-quantization.gp
# Columns: series, model, gpu, format, size, time_ms, fits.
# With png='' it draws a text plot (the right panel).
set datafile separator ','
set grid ytics mytics lc rgb '#dddddd'
gpus = 'h100-sxm h100-pcie h200 a100-80gb a100-40gb l4 l40s rtx-4090 v100 t4'
gpu_index(key, i) = i > words(gpus) ? NaN : word(gpus, i) eq key ? i : gpu_index(key, i + 1)
model_offset(name) = name eq 'Llama-2-7B' ? -0.25 : name eq 'Llama-2-13B' ? 0 : 0.25
predicted(name, format) = strcol(1) eq 'predicted-decode' && strcol(2) eq name && strcol(4) eq format && $7 == 1 ? $6 : NaN
measured(format) = strcol(1) eq 'measured-gemv' && strcol(4) eq format ? $6 : NaN
if (png ne '') {
    set terminal pngcairo size 1600,760 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 25: decode reads every weight once a token, so its time falls with the bytes of a weight\n" . \
        "left: predicted by lib/perfmodel (roofline lower bounds, batch 1); right: measured on this CPU with your GEMVs" font ',13'
    # left: predicted decode bound
    set title "one decode step's lower bound, by weight format (predicted; no point where the memory budget is not met)" font ',12'
    set logscale y
    set yrange [0.5:100]
    set xrange [0.4:10.6]
    set xtics ('H100 SXM' 1, 'H100 PCIe' 2, 'H200' 3, 'A100 80GB' 4, 'A100 40GB' 5, 'L4' 6, 'L40S' 7, 'RTX 4090' 8, \
               'V100' 9, 'T4' 10) rotate by -30 font ',10'
    set ytics ('0.5' 0.5, '1' 1, '2' 2, '5' 5, '10' 10, '20' 20, '50' 50, '100' 100)
    set xlabel 'GPU (data/gpus.csv)'
    set ylabel 'milliseconds per decode step, batch 1 (log scale)'
    set key top left box opaque spacing 1.1 font ',10' maxrows 3
    set label 5 "colour: the weight format; shape: the model.\nEach step down is about half the bytes, so about\nhalf the time; 70B in FP16 fits none of them\n(nine tenths of the H200's 141 GiB: 136.3 GB)." at 3.6, 0.75 left font ',10'
    plot for [f in 'fp16 int8 int4'] csv using (gpu_index(strcol(3), 1) + model_offset('Llama-2-7B')):(predicted('Llama-2-7B', f)) \
             with points pt 7 ps 1.4 lc rgb (f eq 'fp16' ? '#e6550d' : f eq 'int8' ? '#3182bd' : '#31a354') \
             title sprintf('Llama-2-7B, %s', f eq 'fp16' ? 'FP16' : f eq 'int8' ? 'INT8' : 'INT4'), \
         for [f in 'fp16 int8 int4'] csv using (gpu_index(strcol(3), 1) + model_offset('Llama-2-13B')):(predicted('Llama-2-13B', f)) \
             with points pt 5 ps 1.3 lc rgb (f eq 'fp16' ? '#e6550d' : f eq 'int8' ? '#3182bd' : '#31a354') \
             title sprintf('Llama-2-13B, %s', f eq 'fp16' ? 'FP16' : f eq 'int8' ? 'INT8' : 'INT4'), \
         for [f in 'fp16 int8 int4'] csv using (gpu_index(strcol(3), 1) + model_offset('Llama-2-70B')):(predicted('Llama-2-70B', f)) \
             with points pt 9 ps 1.6 lc rgb (f eq 'fp16' ? '#e6550d' : f eq 'int8' ? '#3182bd' : '#31a354') \
             title sprintf('Llama-2-70B, %s', f eq 'fp16' ? 'FP16' : f eq 'int8' ? 'INT8' : 'INT4')
    unset label 5
    # right: measured GEMV
    set title "y = W x for an n x n matrix on this CPU, one thread (measured, best of 5)" font ',12'
    set logscale xy
    set xrange [800:10000]
    set yrange [0.03:500]
    set xtics ('1024' 1024, '2048' 2048, '4096' 4096, '8192' 8192) norotate font ',11'
    set ytics ('0.1' 0.1, '1' 1, '10' 10, '100' 100)
    set grid xtics ytics
    set xlabel 'n (log scale); the FP32 matrix is 4 n^2 bytes: 4, 16, 64, 256 MiB'
    set ylabel 'milliseconds per GEMV (log scale)'
    set key top left box opaque spacing 1.3 font ',10' maxrows 4
    set arrow 1 from 2896, 0.03 to 2896, 500 nohead dt 3 lc rgb '#777777'
    set label 1 "FP32 matrix larger than a\n32 MiB last-level cache" at 3000, 0.06 left font ',10'
    plot csv using 5:(measured('fp32')) with linespoints lw 2.5 pt 7 ps 1.2 lc rgb '#e6550d' \
             title "FP32 (the driver's gemv\\_fp32): 4 bytes a weight", \
         csv using 5:(measured('int8')) with linespoints lw 2.5 pt 5 ps 1.2 lc rgb '#3182bd' \
             title 'INT8 per channel (your gemv\_int8): 1 byte a weight', \
         csv using 5:(measured('int4')) with linespoints lw 2.5 pt 9 ps 1.4 lc rgb '#31a354' \
             title 'INT4, groups of 64 (your gemv\_int4): 0.5 byte, but 2 conversions a byte'
    unset multiplot
} else {
    set terminal dumb size 110,28
    unset grid
    set logscale xy
    set xrange [800:10000]
    set key off
    set title "ms per GEMV vs n (log-log, measured on this CPU):  f = FP32,  8 = your INT8,  4 = your INT4"
    plot csv using 5:(measured('fp32')) with points pt 'f' notitle, \
         csv using 5:(measured('int8')) with points pt '8' notitle, \
         csv using 5:(measured('int4')) with points pt '4' notitle
}
