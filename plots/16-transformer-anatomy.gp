# 16-transformer-anatomy.gp — Day 16's picture: what one token costs, component by component,
# as the context grows. Left: Llama-2-7B's FLOPs per token stacked by component (MLP, QKV,
# O-projection, classifier, attention) against the context, with the rule of thumb of 2 FLOPs
# per parameter, which has no context in it. Right: attention's share of the FLOPs for the
# four models whose parameter counts the lab checks against their published totals.
#   gnuplot -e "csv='build/16-transformer-anatomy/results.csv'; png='out.png'" plots/16-transformer-anatomy.gp
# Columns: model, context, qkv_gflop, attention_gflop, o_proj_gflop, mlp_gflop, classifier_gflop,
# total_gflop, rule_gflop, attention_share_percent. With png='' it draws a text plot.
set datafile separator ','
set logscale x 2
set xrange [1:131072]
set grid xtics ytics lc rgb '#dddddd'
of(name, value) = strcol(1) eq name ? value : NaN
# the context at which attention's FLOPs equal all the others': the others over attention's per position
equal_at(name) = of(name, ($8 - $4) / ($4 / $2))
stats csv using (equal_at('Llama-2-7B')) nooutput
llama2_7b_equal = STATS_min
stats csv using (equal_at('Llama-2-70B')) nooutput
llama2_70b_equal = STATS_min
if (png ne '') {
    set terminal pngcairo size 1500,760 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 16: one token's forward FLOPs by component against the context it attends to\n" . \
        "computed from the shapes of data/models.csv by your counters (matrix products only; no GPU was used)" font ',13'
    set xtics ('1' 1, '16' 16, '256' 256, '1K' 1024, '4K' 4096, '16K' 16384, '128K' 131071)
    set xlabel 'context: positions the token attends to (log scale)'
    # left: Llama-2-7B stacked
    set title "Llama-2-7B: GFLOP per token, stacked" font ',12'
    set ylabel 'GFLOP per token (a multiply-add is 2 FLOPs)'
    set yrange [0:90]
    set key top left box opaque spacing 1.2
    l7(value) = of('Llama-2-7B', value)
    set arrow 1 from llama2_7b_equal, 0 to llama2_7b_equal, 90 nohead dt 3 lc rgb '#555555'
    set label 1 sprintf("attention's FLOPs equal\nall the other products'\nat %.0f positions", llama2_7b_equal) \
        at llama2_7b_equal / 1.3, 62 right font ',10'
    set label 3 "2 x parameters: no context in it" at 1.3, 16 left font ',10'
    plot csv using 2:(l7(0)):(l7($6)) with filledcurves lc rgb '#9ecae1' title 'MLP: gate, up, down', \
         csv using 2:(l7($6)):(l7($6 + $3)) with filledcurves lc rgb '#3182bd' title 'Q, K, V projections', \
         csv using 2:(l7($6 + $3)):(l7($6 + $3 + $5)) with filledcurves lc rgb '#31a354' title 'O-projection', \
         csv using 2:(l7($6 + $3 + $5)):(l7($6 + $3 + $5 + $7)) with filledcurves lc rgb '#fdae6b' \
             title 'classifier (logits)', \
         csv using 2:(l7($6 + $3 + $5 + $7)):(l7($8)) with filledcurves lc rgb '#e6550d' \
             title 'attention: scores Q K^T and values P V', \
         csv using 2:(l7($9)) with lines lw 2.5 dt 2 lc rgb '#000000' title 'rule of thumb: 2 x parameters'
    # right: attention's share, four models
    unset arrow 1
    unset label 1
    unset label 3
    set title "attention's share of one token's FLOPs" font ',12'
    set ylabel "attention's FLOPs / all FLOPs (%)"
    set yrange [0:100]
    set ytics 10
    set key top left box opaque spacing 1.2
    set arrow 2 from 1, 50 to 131072, 50 nohead dt 3 lc rgb '#555555'
    set label 2 sprintf('half: at %.0f positions for Llama-2-7B, %.0f for Llama-2-70B', llama2_7b_equal, \
        llama2_70b_equal) at 1.3, 52.5 left font ',10'
    plot csv using 2:(of('Llama-2-7B', $10)) with lines lw 2.5 lc rgb '#3182bd' title 'Llama-2-7B (32 heads of 128, 32 layers)', \
         csv using 2:(of('Llama-2-13B', $10)) with lines lw 2.5 lc rgb '#31a354' title 'Llama-2-13B (40 of 128, 40 layers)', \
         csv using 2:(of('Llama-2-70B', $10)) with lines lw 2.5 lc rgb '#e6550d' title 'Llama-2-70B (64 of 128, 80 layers, GQA)', \
         csv using 2:(of('Llama-3-8B', $10)) with lines lw 2.5 dt 4 lc rgb '#756bb1' title 'Llama-3-8B (32 of 128, GQA, 128K vocab)'
    unset multiplot
} else {
    set terminal dumb size 110,28
    set xtics (1, 16, 256, 4096, 32768, 131072)
    set yrange [0:100]
    set key off
    set title "attention's share of one token's FLOPs (%) vs context (log):  7 = Llama-2-7B,  0 = Llama-2-70B"
    plot csv using 2:(of('Llama-2-7B', $10)) with points pt '7' notitle, \
         csv using 2:(of('Llama-2-70B', $10)) with points pt '0' notitle
}
