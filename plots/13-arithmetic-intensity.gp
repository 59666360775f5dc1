# 13-arithmetic-intensity.gp — Day 13's picture: the arithmetic intensity of Llama-2-7B's FP16
# GEMMs against the number of tokens M multiplied at once, with each GPU's FP16 ridge point
# (data/gpus.csv) as a horizontal line, four of them named on the line. Decode (M = 1) sits
# near 1 FLOP/B, far below every ridge; prefill (M = 2048) sits above all of them.
#   gnuplot -e "csv='build/13-arithmetic-intensity/results.csv'; png='out.png'" plots/13-arithmetic-intensity.gp
# Columns: m, the attention projections' intensity, the MLP projections', the lowest ridge point
# of the table, then one column per GPU holding its ridge point (named after the GPU and the
# value). With png='' it draws a text plot.
set datafile separator ','
set logscale xy
set xrange [0.8:20000]
set yrange [0.5:4000]
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
at(m, value) = $1 == m ? value : NaN
stats csv using 4 nooutput
lowest_ridge = STATS_min
if (png ne '') {
    set terminal pngcairo size 1200,860 font ',11'
    set output png
    set title "Day 13: arithmetic intensity of Llama-2-7B's FP16 GEMMs against M, the tokens multiplied at once\n" . \
              "predicted: FLOPs and compulsory bytes from your cost functions (no GPU was used)\n" . \
              "horizontal lines: each GPU's FP16 ridge point, fp16\\_tensor\\_tflops / memory\\_bandwidth\\_gb\\_per\\_s " . \
              "of data/gpus.csv" font ',13'
    set xlabel 'M, tokens per GEMM (decode: the batch; prefill: the prompt length), log scale'
    set ylabel 'arithmetic intensity, FLOP per byte of DRAM traffic (log scale)'
    set format x '%g'
    set xtics ('1' 1, '4' 4, '16' 16, '64' 64, '256' 256, '1024' 1024, '2048' 2048, '8192' 8192, '16384' 16384)
    set format y '%g'
    set ytics ('0.5' 0.5, '1' 1, '2' 2, '5' 5, '10' 10, '20' 20, '50' 50, '100' 100, '200' 200, '500' 500, \
               '1000' 1000, '2000' 2000)
    # Ten ridge lines, bunched too close to tell apart by colour (139-164, 201-206, 378-419): four
    # are drawn in colour and named on the line, the chapter's GPUs and the table's highest; the
    # others are thin grey lines, named in section 3 of the lab's output.
    columns = int(system(sprintf("head -1 '%s' | tr -cd , | wc -c", csv))) + 1
    array ridge_name[columns]
    array ridge_value[columns]
    array ridge_colour[columns]
    named = 0
    set style textbox opaque noborder margins 2, 1
    do for [i=5:columns] {
        ridge_name[i] = system(sprintf("head -1 '%s' | cut -d, -f%d | tr -d '\\r'", csv, i))
        stats csv skip 1 using i nooutput
        ridge_value[i] = STATS_min
        ridge_colour[i] = strstrt(ridge_name[i], 'H100 SXM ') == 1 ? '#d62728' : \
                          strstrt(ridge_name[i], 'H200 SXM ') == 1 ? '#8e44ad' : \
                          strstrt(ridge_name[i], 'A100 SXM 80GB ') == 1 ? '#2ca02c' : \
                          strstrt(ridge_name[i], 'L40S ') == 1 ? '#e67e22' : '#b8b8b8'
        if (ridge_colour[i] ne '#b8b8b8') {
            named = named + 1
            set label 10 + i ridge_name[i] at 15000, ridge_value[i] right font ',11' tc rgb ridge_colour[i] boxed front
        }
    }
    others = columns - 4 - named
    set key inside right bottom box opaque noenhanced spacing 1.2 width 1
    set object 1 rect from 0.8, 0.5 to 20000, lowest_ridge fc rgb '#fbeaea' fs solid 0.5 noborder behind
    set label 1 'memory-bound on every GPU of the table:' at 1.1, lowest_ridge / 1.8 left font ',11' tc rgb '#a03030'
    set label 2 sprintf('below the lowest ridge point, %.0f FLOP/B', lowest_ridge) at 1.1, lowest_ridge / 2.6 left \
        font ',11' tc rgb '#a03030'
    set arrow 1 from 1, 0.5 to 1, 4000 nohead dt 3 lc rgb '#555555'
    set arrow 2 from 2048, 0.5 to 2048, 4000 nohead dt 3 lc rgb '#555555'
    set label 5 "above a GPU's ridge line: compute-bound on that GPU" at 1.1, 700 left font ',11' tc rgb '#206020'
    set label 3 'decode, M = 1' at 1.08, 2500 left font ',11'
    set label 4 'prefill, M = 2048' at 2200, 2.5 left font ',11'
    grey(i) = ridge_colour[i] eq '#b8b8b8'
    plot for [i=5:columns] csv using 1:(grey(i) ? column(i) : NaN) with lines lw 1 dt 3 lc rgb '#b8b8b8' notitle, \
         for [i=5:columns] csv using 1:(grey(i) ? NaN : column(i)) with lines lw 2 dt 2 lc rgb ridge_colour[i] notitle, \
         NaN with lines lw 1 dt 3 lc rgb '#b8b8b8' \
             title sprintf('ridge points of the %d other GPUs of data/gpus.csv (section 3 names each)', others), \
         csv using 1:2 with lines lw 3 lc rgb '#000000' title 'attention projections Q, K, V, O (N = K = 4096)', \
         csv using 1:3 with lines lw 3 lc rgb '#3060c0' title 'MLP gate, up, down (N, K = 11008, 4096)', \
         csv using 1:(at(1, $2)):(sprintf('%.4f FLOP/B', $2)) with labels point pt 7 ps 1.5 lc rgb '#000000' \
             offset 1.2, 1.1 left notitle, \
         csv using 1:(at(2048, $2)):(sprintf('%.0f FLOP/B', $2)) with labels point pt 7 ps 1.5 lc rgb '#000000' \
             offset 1.2, -1.0 left notitle, \
         csv using 1:(at(2048, $3)):(sprintf('%.0f FLOP/B', $3)) with labels point pt 7 ps 1.5 lc rgb '#3060c0' \
             offset -1.2, 1.0 right tc rgb '#3060c0' notitle
} else {
    set terminal dumb size 110,30
    set format x '%g'
    set xtics (1, 16, 256, 2048, 16384)
    set format y '%g'
    set ytics (1, 10, 100, 1000)
    set key off
    set title 'FP16 GEMM intensity vs M (log-log):  A = attention projections,  M = MLP,  - = H100 SXM ridge'
    plot csv using 1:5 with lines lt 1 notitle, \
         '' using 1:2 with points pt 'A' notitle, \
         '' using 1:3 with points pt 'M' notitle
}
