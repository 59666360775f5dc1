#!/usr/bin/env bash
# gpu-report.sh — checks of `make gpu-report` (tools/gpu/report, tools/gpu/compare.c) on a machine
# without a GPU: the ncu CSV parser and the simulator-report parser against fixtures written from the
# documented formats (tests/tools/gpu-report/); the comparison against a recorded simulator report;
# the refusals (no nvidia-smi, no GPU, no nvcc); the whole report on day 09 with stand-ins for
# nvidia-smi and ncu (the GPU's side built for the simulator, GPU_REPORT_BACKEND=sim), with ncu and
# without; and that every metric the report collects is one a chapter's ncu box prints.
# Prints "ok ..." per check and exits non-zero on the first failure.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-report-test.XXXXXX")
trap 'kill $(jobs -p) 2> /dev/null; wait; rm -rf "$tmp"' EXIT
fixtures=tests/tools/gpu-report metrics=tools/gpu/metrics.list compare=build/tools/gpu-compare
ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }
same() {   # EXPECTED ACTUAL WHAT
    diff -u "$1" "$2" > "$tmp/diff" || bad "$3 differs from $1:"$'\n'"$(head -30 "$tmp/diff")"
}

# What the two reports below build first, built here once (two makes at once would race on it).
make -s build/tools/gpu-compare libs build/tools/lab-policy build/lib/libperfmodel.a build/lib/libllama.a ||
    bad "build/tools/gpu-compare or the book's libraries do not build"

# -- the whole report on day 09, started first (it takes the longest), with ncu's stand-in and without --
stand_ins=$tmp/stand-ins
mkdir -p "$stand_ins" && cp "$fixtures/nvidia-smi" "$fixtures/ncu" "$stand_ins/"
unknown=sm__sass_thread_inst_executed_op_fmul_pred_on.sum
( PATH=$stand_ins:$PATH GPU_REPORT_BACKEND=sim STUB_NCU_PLANT=2 STUB_NCU_LOG=$tmp/ncu-command STUB_NCU_UNKNOWN=$unknown NCU=$stand_ins/ncu \
      tools/gpu/report --days 09 --out "$tmp/with-ncu" --budget 300 > "$tmp/with-ncu.out" 2>&1; echo $? > "$tmp/with-ncu.status" ) &
( PATH=$stand_ins:$PATH GPU_REPORT_BACKEND=sim NCU=none \
      tools/gpu/report --days 09 --out "$tmp/without-ncu" --budget 300 > "$tmp/without-ncu.out" 2>&1; echo $? > "$tmp/without-ncu.status" ) &

# -- the parsers ------------------------------------------------------------------------------------
"$compare" --ncu "$metrics" "$fixtures/ncu.csv" > "$tmp/ncu.out" 2>&1 || bad "gpu-compare --ncu failed: $(cat "$tmp/ncu.out")"
same "$fixtures/ncu.expected" "$tmp/ncu.out" "the launches read from ncu's CSV"
ok "ncu's CSV: ==PROF== lines skipped, quoted fields with commas, \"1,024\", n/a, usecond and Kbyte scaled, 'void k<4>(...)' named k"
"$compare" --sim "$fixtures/sim-report.txt" > "$tmp/sim.out" 2>&1 || bad "gpu-compare --sim failed: $(cat "$tmp/sim.out")"
same "$fixtures/sim-report.expected" "$tmp/sim.out" "the launches read from the simulator's report"
ok "the simulator's SIM_REPORT=1 blocks: counts, declared FLOPs and the roofline estimate, other lines skipped"

sed 's/,"Metric Value"$/,"Value"/' "$fixtures/ncu.csv" > "$tmp/no-value-column.csv"
"$compare" --ncu "$metrics" "$tmp/no-value-column.csv" > "$tmp/bad.out" 2>&1
status=$?
((status == 2)) && grep -q 'lacks one of .*"Metric Value"' "$tmp/bad.out" ||
    bad "a CSV without a \"Metric Value\" column: status $status, $(cat "$tmp/bad.out")"
sed '8s/,"byte","0"$/,"byte"/' "$fixtures/ncu.csv" > "$tmp/short-row.csv"
"$compare" --ncu "$metrics" "$tmp/short-row.csv" > "$tmp/bad.out" 2>&1
status=$?
((status == 2)) && grep -q 'a row of 14 fields under a header of 15' "$tmp/bad.out" ||
    bad "a CSV row one field short: status $status, $(cat "$tmp/bad.out")"
ok "a CSV without the columns it needs, or with a row short of a field, is refused with a message (status 2)"

# -- the comparison ---------------------------------------------------------------------------------
"$compare" "$metrics" 09-coalescing "$fixtures/sim-report.txt" "$fixtures/ncu.csv" "$tmp/comparison.csv" "$tmp/kernels.md" ||
    bad "gpu-compare failed on the fixtures"
same "$fixtures/comparison.expected" "$tmp/comparison.csv" "the comparison"
same "$fixtures/kernels.expected" "$tmp/kernels.md" "the table's kernel rows"
grep -q '^09-coalescing,2,strided_copy,32x1x1,256x1x1,global_load_sectors,2048,2080,exact,differs$' "$tmp/comparison.csv" ||
    bad "the planted difference (2048 sectors counted, 2080 measured) is not reported as one"
ok "the comparison: equal counts equal, 2048 against 2080 sectors differs, FLOPs within 5 %, a launch ncu never saw is named"
"$compare" "$metrics" 09-coalescing "$fixtures/sim-report.txt" - "$tmp/alone.csv" "$tmp/alone.md" || bad "gpu-compare without ncu failed"
same "$fixtures/kernels-without-ncu.expected" "$tmp/alone.md" "the kernel rows without ncu"
ok "without ncu: the simulator's counts and estimates alone, marked 'ncu not run'"

# -- the timings: the lab's measured columns, from its results CSV ----------------------------------------
source <(sed -n '/^timings_of() {/,/^}/p' tools/gpu/report)   # the report's own function, alone
timings_of 09 "$fixtures/results.csv" > "$tmp/timings.csv"
same "$fixtures/timings.expected" "$tmp/timings.csv" "the timings taken from a results CSV"
ok "timings: the measured_gpu_* columns of each row, a quoted field with a comma kept whole, empty cells left out"

# -- the refusals -----------------------------------------------------------------------------------
# A folder of the few programs the script runs before it refuses, and nothing of CUDA's.
plain=$tmp/plain
mkdir -p "$plain"
for program in bash dirname cat date grep head; do ln -s "$(command -v "$program")" "$plain/$program"; done
refusal() {   # WHAT EXPECTED [VAR=VALUE ...]: one line on stderr with EXPECTED, status 2, nothing written
    local what=$1 expected=$2; shift 2
    env "$@" "$plain/bash" tools/gpu/report --days 09 --out "$tmp/refused" > "$tmp/refusal.out" 2> "$tmp/refusal.err"
    local status=$?
    ((status == 2)) || bad "$what: exit status $status, not 2 ($(cat "$tmp/refusal.err"))"
    [[ $(grep -c '' "$tmp/refusal.err") == 1 && ! -s $tmp/refusal.out ]] ||
        bad "$what: not one line: $(cat "$tmp/refusal.out" "$tmp/refusal.err")"
    grep -q "$expected" "$tmp/refusal.err" || bad "$what: the line does not say '$expected': $(cat "$tmp/refusal.err")"
    [[ ! -e $tmp/refused ]] || bad "$what: it wrote $tmp/refused"
}
refusal "no nvidia-smi" "no NVIDIA GPU here: nvidia-smi is not installed — nothing was run" PATH="$plain"
ln -s "$root/$fixtures/nvidia-smi" "$plain/nvidia-smi"
refusal "no GPU" "nvidia-smi finds none (No devices were found)" PATH="$plain" STUB_NO_GPU=1
refusal "no nvcc" "nvcc is not installed" PATH="$plain"
ok "no nvidia-smi, no GPU, no nvcc: one line saying why, exit status 2, nothing written"

# -- every metric the report collects is printed by a chapter's ncu box ---------------------------------
# The metrics named in the fenced blocks of chapters/*/README.md that run ncu, with the chapter.
boxes_metrics() {
    awk '/^ *>? *```/ { if (inside && box ~ /ncu /) print FILENAME "\t" box; inside = !inside; box = ""; next }
         inside { box = box " " $0 }' chapters/*/README.md |
        while IFS=$'\t' read -r chapter box; do
            grep -oE '[a-z0-9]+__[a-z0-9_]+(\.[a-z0-9_]+)+' <<< "$box" | sed "s|^|$chapter |"
        done | sort -u
}
boxes_metrics > "$tmp/box-metrics"
[[ -s $tmp/box-metrics ]] || bad "no ncu metric found in any chapter's box (has the boxes' layout changed?)"
metrics_missing_from_boxes() {   # METRICS.list: the metrics no chapter box prints
    awk '!/^#/ && NF == 4 { print $2 }' "$1" | sort -u | while read -r metric; do
        grep -q " $metric\$" "$tmp/box-metrics" || echo "$metric"
    done
}
missing=$(metrics_missing_from_boxes "$metrics")
[[ -z $missing ]] || bad "tools/gpu/metrics.list collects metrics that no chapter's \"Measure it on a real GPU\" box prints: $missing"
{ cat "$metrics"; echo "global_load_sectors l1tex__t_sectors_pipe_lsu_mem_global_op_ldx.sum 1 exact"; } > "$tmp/planted.list"
[[ $(metrics_missing_from_boxes "$tmp/planted.list") == l1tex__t_sectors_pipe_lsu_mem_global_op_ldx.sum ]] ||
    bad "a misspelt metric planted in metrics.list is not found missing from the chapters' boxes"
ok "each of the $(awk '!/^#/ && NF == 4' "$metrics" | wc -l) metrics the report collects appears in a chapter's ncu box (and a misspelt one is caught)"

# -- the whole report (started above) -----------------------------------------------------------------
wait
[[ $(cat "$tmp/with-ncu.status") == 0 ]] || bad "tools/gpu/report with ncu's stand-in failed:"$'\n'"$(tail -20 "$tmp/with-ncu.out")"
table=$tmp/with-ncu/table.md
for file in table.md comparison.csv timings.csv nvidia-smi-q.txt days/09-coalescing/sim-report.txt days/09-coalescing/ncu.csv; do
    [[ -s $tmp/with-ncu/$file ]] || bad "tools/gpu/report wrote no $file"
done
grep -Eq '^\| 09 \| passed \(([0-9]+) of \1\) \| ' "$table" || bad "table.md does not say day 09's tests passed: $(grep '^| 09' "$table")"
grep -q '^| 09 | `strided_copy` | 30 / 30 | 179 | 1 | global_load_sectors: 2048 vs 2049 (launch 2) |' "$table" ||
    bad "table.md does not show the planted difference in strided_copy: $(grep strided_copy "$table")"
grep -q '^| 09 | `update_particles_soa` | 1 / 1 | 6 | 0 | none |' "$table" || bad "table.md: update_particles_soa is not all equal"
grep -q 'Product Name *: NVIDIA H100 80GB HBM3' "$tmp/with-ncu/nvidia-smi-q.txt" || bad "nvidia-smi-q.txt is not nvidia-smi -q's"
[[ $(head -1 "$tmp/with-ncu/comparison.csv") == day,launch,kernel,grid,block,quantity,simulator,ncu,rule,verdict &&
   $(grep -c '^day,' "$tmp/with-ncu/comparison.csv") == 1 ]] || bad "comparison.csv does not have one header"
ok "with ncu: table.md says the tests passed, finds the one planted difference, and the files are all there"
all_metrics=$(awk '!/^#/ && NF == 4 { print $2 }' "$metrics" | awk '!seen[$0]++' | paste -sd, -)
[[ $(grep -c '' "$tmp/ncu-command") == 2 ]] || bad "ncu was not run twice (all metrics, then without the unknown one): $(cat "$tmp/ncu-command")"
[[ $(sed -n 1p "$tmp/ncu-command" | grep -o -- '--metrics [^ ]*' | cut -d' ' -f2) == "$all_metrics" ]] ||
    bad "ncu was not asked for the metrics of metrics.list first: $(sed -n 1p "$tmp/ncu-command")"
[[ $(sed -n 2p "$tmp/ncu-command" | grep -o -- '--metrics [^ ]*' | cut -d' ' -f2) == "$(tr ',' '\n' <<< "$all_metrics" | grep -v -x "$unknown" | paste -sd, -)" ]] ||
    bad "ncu was not asked again without the metric it refused: $(sed -n 2p "$tmp/ncu-command")"
grep -q "without $unknown (unknown to this ncu" "$table" || bad "table.md does not say which metric ncu refused: $(grep '^| 09 |' "$table")"
grep -q -- "--kernel-name regex:^(strided_copy|update_particles_aos|update_particles_soa)\$ --filter-mode per-launch-config --launch-count 30 " \
    "$tmp/ncu-command" || bad "ncu's filter is not the simulator's kernels, 30 launches a configuration: $(cat "$tmp/ncu-command")"
ok "ncu is run with metrics.list's metrics, on the kernels the simulator saw, the first launches of each configuration; once more without a metric it refuses"
[[ $(cat "$tmp/without-ncu.status") == 0 ]] || bad "tools/gpu/report without ncu failed:"$'\n'"$(tail -20 "$tmp/without-ncu.out")"
grep -q 'Nsight Compute: left out (NCU=none), so this report has the timings only' "$tmp/without-ncu/table.md" &&
    grep -Eq '^\| 09 \| passed \(([0-9]+) of \1\) \| 0 figures \| ncu not run \(no ncu\) \| – \|' "$tmp/without-ncu/table.md" &&
    grep -q '^| 09 | `strided_copy` | 0 / 30 | – | – | ncu not run |' "$tmp/without-ncu/table.md" ||
    bad "without ncu, table.md does not say it has the timings only:"$'\n'"$(grep -e Nsight -e '^| 09' "$tmp/without-ncu/table.md")"
ok "without ncu: the tests and timings, and table.md says that ncu was not run"
