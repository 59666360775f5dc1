# grade-histogram.gp — the class's scores per day, drawn by tools/grader/grade: for each day, how many
# submissions scored in each tenth of that day's points (scores.dat: one row per tenth, one
# column per day).
#   gnuplot -e "dat='OUT/scores.dat'; png='OUT/histogram.png'; days=2" tools/grader/grade-histogram.gp
set terminal pngcairo size 900,500 font ",11"
set output png
set title "The class's scores per day: how many submissions fell in each tenth of the day's points"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set xlabel "score, as a percentage of the day's points"
set ylabel "submissions"
set yrange [0:*]
set offsets 0, 0, 1, 0
set format y "%g"
set key outside top center horizontal
set grid ytics
plot for [i = 2:days + 1] dat using i:xtic(1) title columnheader(i)
