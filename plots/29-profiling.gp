# 29-profiling.gp — Day 29's picture: the toy Llama's 15M shape traced by your tracer on this CPU.
# Left: where each phase's time goes — each part's share of the phase's wall time (measured),
# prefill beside decode, with the share the shape predicts (prefill: of the FLOPs; decode: of the
# bytes; counted). Right: the timeline your trace holds, drawn as Perfetto draws it — the prefill
# step and the first three decode steps, one lane per nesting depth (step > layer > part).
#   gnuplot -e "csv='build/29-profiling/results.csv'; png='out.png'" plots/29-profiling.gp
# Columns: series (breakdown or timeline), phase, part, part_index, depth, step, start_ms, end_ms,
# total_ms, share_percent, predicted_share_percent. png='' draws a text plot.
set datafile separator ','
is(series, phase) = strcol(1) eq series && strcol(2) eq phase
parts = "embedding attention_norm qkv rope_and_cache attention output_projection ffn_norm ffn classifier other"
set xtics () 
do for [p = 1:10] { set xtics add (word(parts, p) p - 1) }
# a phase's wall time: its parts and the rest ("other"), summed
stats csv using (is('breakdown', 'prefill') ? $9 : NaN) nooutput
prefill_step_ms = STATS_sum
stats csv using (is('breakdown', 'decode') ? $9 : NaN) nooutput
decode_step_ms = STATS_sum / 32
stats csv using (strcol(1) eq 'timeline' ? $8 : NaN) nooutput
timeline_end = STATS_max
if (png ne '') {
    set terminal pngcairo size 1600,760 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 29: where the toy Llama's time goes — its 15M shape (seeded FP32 weights, one thread), traced by your tracer\n" . \
        "measured on this machine's CPU (one core) — not a GPU; predicted shares counted from the shape" font ',13' noenhanced
    # left: the breakdown
    set title 'share of each phase''s time, per part (measured: its fastest of 5 requests), and as predicted' font ',12'
    set xtics rotate by -35 left nomirror noenhanced
    set xrange [-0.6:9.6]
    set yrange [0:100]
    set ylabel 'share of the phase''s wall time (%)'
    set grid ytics lc rgb '#dddddd'
    set boxwidth 0.38
    set style fill solid 0.85 border -1
    set key top left box opaque spacing 1.3 noenhanced
    plot csv using (is('breakdown', 'prefill') ? $4 - 0.2 : NaN):10 with boxes lc rgb '#1f77b4' \
             title sprintf('prefill: 64 tokens in one step (%.1f ms), measured', prefill_step_ms), \
         csv using (is('breakdown', 'decode') ? $4 + 0.2 : NaN):10 with boxes lc rgb '#d62728' \
             title sprintf('decode: 32 steps of one token (%.2f ms a step), measured', decode_step_ms), \
         csv using (is('breakdown', 'prefill') && $4 < 9 ? $4 - 0.2 : NaN):11 with points pt 7 ps 1.3 lc rgb '#0b2e59' \
             title 'prefill predicted: the part''s share of the FLOPs (counted)', \
         csv using (is('breakdown', 'decode') && $4 < 9 ? $4 + 0.2 : NaN):11 with points pt 9 ps 1.6 lc rgb '#5c0a0a' \
             title 'decode predicted: the part''s share of the bytes (counted)', \
         csv using (is('breakdown', 'prefill') && $10 >= 1 ? $4 - 0.2 : NaN):($10 > $11 ? $10 : $11):(sprintf('%.0f', $10)) with labels offset 0,1.0 font ',9' notitle, \
         csv using (is('breakdown', 'decode') && $10 >= 1 ? $4 + 0.2 : NaN):($10 > $11 ? $10 : $11):(sprintf('%.0f', $10)) with labels offset 0,1.0 font ',9' notitle
    # right: the timeline
    set title 'one traced request as a timeline (measured): prefill, then 3 decode steps' font ',12'
    unset grid
    set grid xtics lc rgb '#dddddd'
    set xtics norotate autofreq
    set xrange [0:timeline_end * 1.02]
    set yrange [-2.7:1.2]
    set ytics ('step' 0, "embedding, layer,\nclassifier" -1, 'parts of a layer' -2) nomirror
    set xlabel 'time since the prefill began (ms)'
    unset ylabel
    set style fill solid 1.0 border rgb '#ffffff'
    colours = "#8c8c8c #c5b0d5 #1f77b4 #9edae5 #2ca02c #ff7f0e #dbdb8d #d62728 #9467bd #b0b0b0 #505050"
    do for [k = 1:11] { set linetype 100 + k lc rgb word(colours, k) }
    set bmargin 10
    set key at screen 0.77, screen 0.01 center bottom horizontal maxrows 3 width 1 box noenhanced samplen 1.5
    plot csv using (strcol(1) eq 'timeline' ? ($7 + $8) / 2 : NaN):(-$5):(($8 - $7) / 2):(0.42):(101 + $4) \
             with boxxyerror lc variable notitle, \
         csv using (strcol(1) eq 'timeline' && strcol(3) eq 'step' ? ($7 + $8) / 2 : NaN):(0.75):(strcol(2) eq 'prefill' ? 'prefill: 64 rows' : sprintf('decode %d', $6)) \
             with labels font ',9' notitle, \
         for [k = 1:9] keyentry with boxes fs solid lc rgb word(colours, k) title word(parts, k), \
         keyentry with boxes fs solid lc rgb word(colours, 10) title 'layer', \
         keyentry with boxes fs solid lc rgb word(colours, 11) title 'step'
    unset multiplot
} else {
    set terminal dumb size 110,26
    set xrange [-0.6:9.6]
    set yrange [0:100]
    set xtics ('emb' 0, 'a.norm' 1, 'qkv' 2, 'rope' 3, 'attn' 4, 'o.proj' 5, 'f.norm' 6, 'ffn' 7, 'cls' 8, 'other' 9)
    set key off
    set title 'share of the phase''s wall time per part (%), measured on this CPU:  p = prefill,  d = decode'
    plot csv using (is('breakdown', 'prefill') ? $4 - 0.15 : NaN):10 with points pt 'p' notitle, \
         csv using (is('breakdown', 'decode') ? $4 + 0.15 : NaN):10 with points pt 'd' notitle
}
