# 24-cuda-graphs.gp — Day 24's picture: where the GPU waits for the host. Left, predicted by your
# timeline model for the toy decode step at stories110M's widths (185 kernels) on an H100 SXM,
# each kernel's time its bytes over the bandwidth, 5 us a launch, a graph's node at least the
# model's node floor: a Gantt chart of the host's launches and the GPU's kernels, eager (one
# launch per kernel) and as one CUDA graph. Right, the
# idle share of that many equal kernels against the kernel time: closed forms (lines) and the
# event simulation (points), synchronous and asynchronous eager launches and a graph.
#   gnuplot -e "csv='build/24-cuda-graphs/results.csv'; png='out.png'" plots/24-cuda-graphs.gp
# With png='' it draws the same two panels as text in the terminal.
set datafile separator ','
set datafile missing ''
lane(mode, host) = (mode eq 'eager' ? 3 : 1) + (host ? 0.5 : 0)
is_gemv(name) = strstrt(name, 'projection') > 0 || name eq 'logits'
gantt(col) = strcol(1) eq 'gantt' ? column(col) : NaN
sweep(col) = strcol(1) eq 'sweep' && strcol(col) ne '' ? column(col) : NaN
eager_end = 0
graph_end = 0
busy = 0
stats csv skip 1 using (strcol(1) eq 'gantt' ? (strcol(2) eq 'eager' ? (eager_end = $8 > eager_end ? $8 : eager_end) : (graph_end = $8 > graph_end ? $8 : graph_end, busy = busy + $9)) : 0) nooutput
set grid xtics ytics

if (png ne '') {
    set terminal pngcairo size 1800,640 font ',11'
    set output png
    set multiplot layout 1,2 title "Day 24: launch gaps in a decode step, eager vs one CUDA graph (predicted by the timeline model; launch costs and node floor are the model's parameters)" font ',13' noenhanced

    set title sprintf("One decode step, stories110M widths on an H100 SXM, 5 us a launch (predicted): eager %.0f us, graph %.0f us", eager_end, graph_end) noenhanced
    set xlabel 'time from the first launch (microseconds)'
    set ytics ('graph: GPU kernels' 1, 'graph: host launch' 1.5, 'eager: GPU kernels' 3, 'eager: host launches' 3.5)
    set yrange [0.4:4.4]
    set xrange [0:(eager_end > 0 ? 1.06 * eager_end : 1000)]
    set style fill solid 1.0 noborder
    set key top right box opaque
    if (eager_end > 0 && graph_end > 0) {
        set label 2 sprintf('GPU idle %.1f%% of the step', 100 * (1 - busy / eager_end)) at eager_end, 2.55 right
        set label 3 sprintf('GPU idle %.1f%% of the step', 100 * (1 - busy / graph_end)) at graph_end + 10, 1.25 left
    }
    plot csv skip 1 using ((gantt(5) + gantt(6)) / 2):(lane(strcol(2), 1)):((gantt(6) - gantt(5)) / 2):(0.18) with boxxyerror lc rgb '#7f7f7f' title 'host: one launch call', \
         '' skip 1 using ((gantt(7) + gantt(8)) / 2):(is_gemv(strcol(4)) ? lane(strcol(2), 0) : NaN):((gantt(8) - gantt(7)) / 2):(0.3) with boxxyerror lc rgb '#1f77b4' title 'GPU: GEMV (projections, logits)', \
         '' skip 1 using ((gantt(7) + gantt(8)) / 2):(is_gemv(strcol(4)) ? NaN : lane(strcol(2), 0)):((gantt(8) - gantt(7)) / 2):(0.3) with boxxyerror lc rgb '#ff7f0e' title 'GPU: small kernels (norms, RoPE, attention, adds)'

    set title 'Idle share of the GPU vs kernel time: 185 equal kernels, 5 us a launch, a floor per graph node (predicted)'
    set xlabel 'time of each kernel K (microseconds, log scale)'
    set ylabel 'share of the step the GPU runs no kernel'
    set logscale x
    set xrange [0.08:125]
    unset label 2
    unset label 3
    set yrange [0:1.5]
    set ytics 0, 0.2, 1
    set format y '%.1f'
    set arrow 1 from 5, 0 to 5, 1.02 nohead dt 2 lc rgb '#555555'
    set label 1 'K = L = 5 us' at 5.5, 1.0 tc rgb '#555555'
    set key top right box opaque
    plot csv skip 1 using 9:(sweep(12)) with lines lw 2 lc rgb '#d62728' title 'eager, synchronous (depth 1): L / (L + K)', \
         '' skip 1 using 9:(sweep(13)) with points pt 7 ps 1.2 lc rgb '#d62728' title 'eager, synchronous: event simulation', \
         '' skip 1 using 9:(sweep(10)) with lines lw 2 lc rgb '#9467bd' title 'eager, asynchronous: 1 - nK / max(L + nK, nL + K)', \
         '' skip 1 using 9:(sweep(11)) with points pt 5 ps 1.2 lc rgb '#9467bd' title 'eager, asynchronous: event simulation', \
         '' skip 1 using 9:(sweep(14)) with lines lw 2 lc rgb '#2ca02c' title 'one graph, node floor F: 1 - nK / (G + n max(K, F))', \
         '' skip 1 using 9:(sweep(15)) with points pt 9 ps 1.4 lc rgb '#2ca02c' title 'one graph: event simulation'
    unset multiplot
} else {
    set terminal dumb size 150,30
    set multiplot layout 1,2
    set key off
    set title 'step timeline (us): H=host launch, E=eager GPU, G=graph GPU'
    set ytics ('graph' 1, 'eager' 3)
    set yrange [0.4:4.4]
    set xrange [0:(eager_end > 0 ? 1.06 * eager_end : 1000)]
    plot csv skip 1 using (gantt(5)):(lane(strcol(2), 1)) with points pt 'H', \
         '' skip 1 using (gantt(7)):(strcol(2) eq 'eager' ? 3 : NaN) with points pt 'E', \
         '' skip 1 using (gantt(7)):(strcol(2) eq 'graph' ? 1 : NaN) with points pt 'G'
    set title 'idle share vs kernel us: S=sync A=async G=graph'
    set logscale x
    set xrange [0.08:125]
    set yrange [0:1.05]
    set ytics auto
    plot csv skip 1 using 9:(sweep(13)) with points pt 'S', '' skip 1 using 9:(sweep(11)) with points pt 'A', \
         '' skip 1 using 9:(sweep(15)) with points pt 'G'
    unset multiplot
}
