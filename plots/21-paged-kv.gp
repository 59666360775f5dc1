# 21-paged-kv.gp — Day 21's picture: what paging buys a serving engine, by block size. Left: the
# share of KV-cache memory reserved or allocated that holds no token, for contiguous max-length
# allocation (2048 tokens a request), paged allocation and paged allocation with each prompt
# shared by 4 samples, with the range Kwon et al. (SOSP 2023) report for systems before and
# after paging. Right: how many sequences fit in the memory an A100-80GB leaves beside
# Llama-2-7B's FP16 weights. Counted by the lab's driver from a seeded trace run through the
# learner's allocator; no GPU was used.
#   gnuplot -e "csv='build/21-paged-kv/results.csv'; png='out.png'" plots/21-paged-kv.gp
# Columns: block_size, contiguous_waste_percent, paged_waste_percent, shared_waste_percent,
# contiguous_sequences, paged_sequences, shared_sequences, shared_copies. With png='' it draws a
# text plot.
set datafile separator ','
set logscale x 2
set xrange [0.8:320]
set grid xtics ytics lc rgb '#dddddd'
stats csv using ($1 == 16 ? $3 : NaN) nooutput
paged_16 = STATS_max
stats csv using ($1 == 16 ? $6 : NaN) nooutput
paged_seqs_16 = STATS_max
stats csv using ($1 == 16 ? $7 : NaN) nooutput
shared_seqs_16 = STATS_max
stats csv using 5 nooutput
contiguous_seqs = STATS_max
stats csv using 2 nooutput
contiguous_waste = STATS_max
if (png ne '') {
    set terminal pngcairo size 1500,760 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 21: paged against contiguous KV-cache allocation, by block size\n" . \
        "Llama-2-7B FP16 on an A100-80GB's memory; a seeded trace of requests run through your allocator (counted: no GPU was used)" font ',13'
    set xtics ('1' 1, '2' 2, '4' 4, '8' 8, '16' 16, '32' 32, '64' 64, '128' 128, '256' 256)
    set xlabel 'block size (tokens per block, log scale)'
    # left: waste
    set title 'KV memory reserved or allocated that holds no token' font ',12'
    set ylabel 'wasted KV memory (% of the slots reserved or allocated)'
    set yrange [0:100]
    set ytics 10
    set key at graph 0.98, graph 0.62 right box opaque spacing 1.2
    set object 1 rect from graph 0, first 60 to graph 1, first 80 fc rgb '#fdd0a2' fs solid 0.5 noborder behind
    set label 1 'Kwon et al. 2023: 60-80 % wasted before paging' at 1, 77 left font ',10' front
    set arrow 1 from graph 0, first 4 to graph 1, first 4 nohead dt 2 lw 1.5 lc rgb '#31a354' front
    set label 2 'Kwon et al.: under 4 % with paging' at 1, 6.5 left font ',10' textcolor rgb '#31a354' front
    set label 3 sprintf('block size 16 (vLLM default): %.1f %%', paged_16) at 16, paged_16 + 16 center font ',10' front
    set arrow 3 from 16, paged_16 + 14 to 16, paged_16 + 1.5 lw 1 lc rgb '#3182bd' front
    plot csv using 1:2 with linespoints lw 2.5 pt 5 lc rgb '#e6550d' title 'contiguous: 2048 tokens reserved a request', \
         csv using 1:3 with linespoints lw 2.5 pt 7 lc rgb '#3182bd' title 'paged: blocks taken as tokens arrive', \
         csv using 1:4 with linespoints lw 2.5 pt 9 dt 4 lc rgb '#756bb1' title 'paged, each prompt shared by 4 samples'
    # right: sequences held at once
    unset object 1
    unset label 1
    unset label 2
    unset label 3
    unset arrow 1
    unset arrow 3
    set title 'sequences held at once in the KV memory the budget leaves (weights, activations, reserve)' font ',12'
    set ylabel 'sequences held at once (counted)'
    set yrange [0:*]
    set ytics auto
    set key at graph 0.03, graph 0.42 left box opaque spacing 1.2
    set label 4 sprintf('block size 16: %.0f paged, %.0f shared, %.0f contiguous (%.1fx, %.1fx)', paged_seqs_16, \
        shared_seqs_16, contiguous_seqs, paged_seqs_16 / contiguous_seqs, shared_seqs_16 / contiguous_seqs) \
        at graph 0.03, graph 0.06 left font ',10'
    plot csv using 1:7 with linespoints lw 2.5 pt 9 dt 4 lc rgb '#756bb1' title 'paged, each prompt shared by 4 samples', \
         csv using 1:6 with linespoints lw 2.5 pt 7 lc rgb '#3182bd' title 'paged', \
         csv using 1:5 with linespoints lw 2.5 pt 5 lc rgb '#e6550d' title 'contiguous (2048 tokens a request)'
    unset multiplot
} else {
    set terminal dumb size 110,28
    set xtics (1, 2, 4, 8, 16, 32, 64, 128, 256)
    set yrange [0:100]
    set key off
    set title sprintf("wasted KV memory (%%) vs block size (log):  c = contiguous (%.0f %%),  p = paged,  s = shared prompts", \
        contiguous_waste)
    plot csv using 1:2 with points pt 'c' notitle, \
         csv using 1:3 with points pt 'p' notitle, \
         csv using 1:4 with points pt 's' notitle
}
