# diagram-sm.gp — a drawing of one streaming multiprocessor (SM) of a GPU of data/gpus.csv (default
# the H100 SXM): its four sub-partitions, each with a warp scheduler, a quarter of the registers and
# of the FP32 lanes and a Tensor Core, around the shared L1/shared memory; and what lies beyond it.
# Every number is read from the table, so the drawing is redone for another row:
#   gnuplot -e "png='plots/diagram-sm.png'" plots/diagram-sm.gp
#   gnuplot -e "png='/tmp/a100.png'; gpu='a100-80gb'" plots/diagram-sm.gp
if (!exists("gpu")) gpu = 'h100-sxm'
if (!exists("table")) table = 'data/gpus.csv'
cell(column) = system(sprintf("perl -ne 'my @f; push @f, defined $1 ? $1 =~ s/\"\"/\"/gr : $2 while /\\G(?:\"((?:[^\"]|\"\")*)\"|([^,\\n]*))(?:,|\\n|$)/g; if ($. == 1) { %%i = map { $f[$_] => $_ } 0..$#f } elsif ($f[0] eq q(%s)) { print $f[$i{q(%s)}] }' %s", gpu, column, table))

name = cell('name')
sms = cell('sms') + 0
quarters = cell('sm_subpartitions') + 0
lanes = (cell('fp32_cores') + 0) / sms
registers = cell('registers_per_sm') + 0
warps = cell('max_warps_per_sm') + 0
threads = cell('max_threads_per_sm') + 0
blocks = cell('max_blocks_per_sm') + 0
shared = cell('shared_memory_per_sm_kib') + 0
per_block = cell('shared_memory_per_block_kib') + 0
l2 = cell('l2_cache_mib')
memory = cell('memory_gib')
memory_type = cell('memory_type')
bandwidth = cell('memory_bandwidth_gb_per_s')
clock = cell('boost_clock_mhz')

set terminal pngcairo size 1200,860 font ',11'
set output png
unset border; unset tics; unset key
set xrange [0:120]; set yrange [0:86]
set title sprintf("One SM of the %s (it has %d): four sub-partitions, one warp scheduler each, sharing one L1 / shared memory\n(all figures from data/gpus.csv, row %s)", name, sms, gpu) font ',13'

# the SM's outline
set object 1 rect from 2,20 to 84,84 fc rgb '#f4f6fb' fs solid border lc rgb '#34495e' lw 2
set label 1 sprintf("SM: up to %d warps = %d threads resident, at most %d blocks", warps, threads, blocks) at 4,81.5 font ',12'

# the four sub-partitions
do for [q = 0:3] {
    x0 = 4 + (q % 2) * 40
    y0 = 55 - int(q / 2) * 25
    set object (10 + q) rect from x0,y0 to x0 + 38,y0 + 23 fc rgb '#dde8f7' fs solid border lc rgb '#2c6fbb'
    set label (10 + q) sprintf("sub-partition %d", q) at x0 + 1.5,y0 + 20.5 font ',11'
    set object (20 + q) rect from x0 + 1.5,y0 + 14 to x0 + 36.5,y0 + 18.5 fc rgb '#f9d7a6' fs solid border lc rgb '#b9770e'
    set label (20 + q) sprintf("warp scheduler: %d warps, 1 instruction a cycle", warps / quarters) at x0 + 2.5,y0 + 16.2 font ',9'
    set object (30 + q) rect from x0 + 1.5,y0 + 8.5 to x0 + 36.5,y0 + 13 fc rgb '#cdebd3' fs solid border lc rgb '#1e8449'
    set label (30 + q) sprintf("registers: %d x 32 bits (%d KiB)", registers / quarters, registers / quarters * 4 / 1024) at x0 + 2.5,y0 + 10.7 font ',9'
    set object (40 + q) rect from x0 + 1.5,y0 + 2 to x0 + 22,y0 + 7.5 fc rgb '#f5cba7' fs solid border lc rgb '#a04000'
    set label (40 + q) sprintf("%d FP32 lanes", lanes / quarters) at x0 + 2.5,y0 + 4.7 font ',9'
    set object (50 + q) rect from x0 + 23,y0 + 2 to x0 + 36.5,y0 + 7.5 fc rgb '#e8daef' fs solid border lc rgb '#6c3483'
    set label (50 + q) "Tensor Core" at x0 + 24,y0 + 4.7 font ',9'
}

# the L1 / shared memory the four share
set object 60 rect from 4,22 to 82,28.5 fc rgb '#fcf3cf' fs solid border lc rgb '#9a7d0a'
set label 60 sprintf("L1 data cache and shared memory: %d KiB of it may be shared memory, %d KiB for one block", shared, per_block) at 6,25 font ',11'

# beyond the SM
set object 70 rect from 88,58 to 118,82 fc rgb '#fdfefe' fs solid border lc rgb '#34495e'
set label 70 sprintf("x %d SMs", sms) at 92,76 font ',14'
set label 71 sprintf("%s MHz boost clock", clock) at 92,71 font ',11'
set label 72 "a warp = 32 threads," at 92,66 font ',11'
set label 73 "issued together" at 92,62.5 font ',11'
set object 74 rect from 2,10.5 to 118,17 fc rgb '#d6eaf8' fs solid border lc rgb '#21618c'
set label 74 sprintf("L2 cache: %s MiB, shared by all %d SMs", l2, sms) at 4,13.5 font ',12'
set object 75 rect from 2,1 to 118,7.5 fc rgb '#d5dbdb' fs solid border lc rgb '#283747'
set label 75 sprintf("%s: %s GiB of device memory at %s GB/s (HBM: what decode waits for, day 10)", memory_type, memory, bandwidth) at 4,4 font ',12'
set arrow 1 from 43,20 to 43,17 lw 2 lc rgb '#21618c'
set arrow 2 from 43,10.5 to 43,7.5 lw 2 lc rgb '#21618c'
set label 76 "Going down the picture:" at 88,50 font ',11' tc rgb '#555555'
set label 77 "registers, shared memory, L2, HBM" at 88,46 font ',10' tc rgb '#555555'
set label 78 "each level is larger, farther" at 88,42.5 font ',10' tc rgb '#555555'
set label 79 "and slower to reach than the one" at 88,39 font ',10' tc rgb '#555555'
set label 80 "above it (days 08-12)" at 88,35.5 font ',10' tc rgb '#555555'

plot NaN notitle
