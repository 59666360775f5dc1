# 28-speculative-decoding.gp — Day 28's picture: what speculative decoding buys. Left: the speedup
# over plain decoding against the number of draft tokens gamma, for four acceptance rates alpha and
# two draft costs c (a draft step's cost in target steps): your formula (lines) beside your
# verify_draft counted on rows of exactly that alpha (points). Right: the toy Llama with two drafts
# of its vocabulary, tokens per target call counted on the engine and the speedup they predict at
# each draft's byte ratio c.
#   gnuplot -e "csv='build/28-speculative-decoding/results.csv'; png='out.png'" plots/28-speculative-decoding.gp
# Columns: series, alpha, gamma, cost_ratio, tokens_per_call, speedup. png='' draws a text plot.
set datafile separator ','
set grid xtics ytics lc rgb '#dddddd'
pick(series, alpha, c) = (strcol(1) eq series && abs($2 - alpha) < 1e-9 && abs($4 - c) < 1e-9) ? $6 : NaN
engine(series) = strcol(1) eq series ? $6 : NaN
engine_tokens(series) = strcol(1) eq series ? $5 : NaN
stats csv using (strcol(1) eq 'counted-engine-int8' ? $2 : NaN) nooutput
alpha_int8 = STATS_mean
stats csv using (strcol(1) eq 'counted-engine-int8' ? $4 : NaN) nooutput
c_int8 = STATS_mean
stats csv using (strcol(1) eq 'counted-engine-layer-skip' ? $2 : NaN) nooutput
alpha_skip = STATS_mean
stats csv using (strcol(1) eq 'counted-engine-layer-skip' ? $4 : NaN) nooutput
c_skip = STATS_mean
if (png ne '') {
    set terminal pngcairo size 1500,760 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 28: speculative decoding — speedup = (1 - α^{γ+1}) / ((1 - α)(γc + 1))\n" . \
        "predicted by your formulas (lines); counted through your verify\\_draft (points); speedups are predicted from counts, not timed" font ',13'
    set title 'speedup against gamma: acceptance rate α, draft cost c (target steps)' font ',12'
    set xrange [0.5:10.5]
    set yrange [0:7]
    set xtics 1
    set xlabel 'γ: draft tokens per target call'
    set ylabel 'speedup over plain decoding (x)'
    set key top left box opaque spacing 1.15 font ',10' maxrows 9
    set arrow 1 from 0.5, 1 to 10.5, 1 nohead lw 1.5 dt 2 lc rgb '#cc0000'
    set label 1 'no gain' at 10.3, 0.85 right font ',10' tc rgb '#cc0000'
    plot for [a in "0.9 0.8 0.7 0.5"] csv using 3:(pick('predicted', a + 0, 0.05)) with lines lw 2.5 \
             lc rgb (a eq '0.9' ? '#08519c' : a eq '0.8' ? '#3182bd' : a eq '0.7' ? '#6baed6' : '#9ecae1') \
             title sprintf('α = %s, c = 0.05 (predicted)', a), \
         for [a in "0.9 0.8 0.7 0.5"] csv using 3:(pick('predicted', a + 0, 0.25)) with lines lw 2.5 dt 2 \
             lc rgb (a eq '0.9' ? '#a63603' : a eq '0.8' ? '#e6550d' : a eq '0.7' ? '#fd8d3c' : '#fdbe85') \
             title sprintf('α = %s, c = 0.25 (predicted)', a), \
         csv using 3:(pick('counted-montecarlo', 0.9, 0.05)) with points pt 7 ps 0.9 lc rgb '#333333' \
             title 'your verify\_draft, 20 000 calls per point (counted)', \
         for [a in "0.8 0.7 0.5"] csv using 3:(pick('counted-montecarlo', a + 0, 0.05)) with points pt 7 ps 0.9 lc rgb '#333333' notitle, \
         for [a in "0.9 0.8 0.7 0.5"] csv using 3:(pick('counted-montecarlo', a + 0, 0.25)) with points pt 7 ps 0.9 lc rgb '#333333' notitle
    unset arrow 1
    unset label 1
    set title "the toy Llama (tiny shape): two drafts of its vocabulary, temperature 1" font ',12'
    set xrange [0.5:8.5]
    set yrange [0:12.5]
    set ylabel 'tokens per target call (counted), speedup (predicted)'
    set key top left box opaque spacing 1.2 font ',10'
    set arrow 2 from 0.5, 1 to 8.5, 1 nohead lw 1.5 dt 2 lc rgb '#cc0000'
    plot csv using 3:(engine_tokens('counted-engine-int8')) with points pt 5 ps 1.3 lc rgb '#31a354' \
             title sprintf('INT8 draft: tokens per call (counted), α = %.3f', alpha_int8), \
         csv using 3:(engine_tokens('predicted-engine-int8')) with lines lw 1.5 dt 3 lc rgb '#31a354' \
             title 'INT8 draft: your formula at that α', \
         csv using 3:(engine('counted-engine-int8')) with linespoints lw 2.5 pt 7 lc rgb '#006d2c' \
             title sprintf('INT8 draft: speedup at c = %.2f (predicted from counts)', c_int8), \
         csv using 3:(engine_tokens('counted-engine-layer-skip')) with points pt 4 ps 1.3 lc rgb '#756bb1' \
             title sprintf('first layer alone: tokens per call (counted), α = %.3f', alpha_skip), \
         csv using 3:(engine('counted-engine-layer-skip')) with linespoints lw 2.5 pt 6 lc rgb '#54278f' \
             title sprintf('first layer alone: speedup at c = %.2f (predicted): a loss', c_skip)
    unset multiplot
} else {
    set terminal dumb size 110,28
    unset grid
    set key off
    set xrange [0.5:10.5]
    set yrange [0:5]
    set title "predicted speedup vs gamma, c = 0.05:  9 = alpha 0.9,  8 = 0.8,  7 = 0.7,  5 = 0.5  (your formulas)"
    plot csv using 3:(pick('predicted', 0.9, 0.05)) with points pt '9' notitle, \
         csv using 3:(pick('predicted', 0.8, 0.05)) with points pt '8' notitle, \
         csv using 3:(pick('predicted', 0.7, 0.05)) with points pt '7' notitle, \
         csv using 3:(pick('predicted', 0.5, 0.05)) with points pt '5' notitle
}
