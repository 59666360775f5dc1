#!/usr/bin/env bash
# sim-bad-data.sh — the simulator reads its GPU from data/gpus.csv (lib/sim/gpu_table.c): a cell it needs
# that is empty, not a number, or out of its range (a GPU with 0 SMs, a NaN bandwidth) ends the program
# with the file, the GPU and the column named, instead of a division by zero or an occupancy of NaN.
# Prints "ok ..." per check and exits non-zero after the last check when one failed.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sim-bad-data.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failed=0
cat > "$tmp/occupancy.cu" <<'CU'
#include <cstdio>
__global__ void nothing() {}
int main()
{
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    nothing<<<1, 32>>>();
    printf("%d SMs, %s\n", p.multiProcessorCount, cudaGetErrorName(cudaDeviceSynchronize()));
    return 0;
}
CU
lib/sim/tools/simcc -o "$tmp/occupancy" "$tmp/occupancy.cu" > "$tmp/build.log" 2>&1 || { echo "FAILED: $(head -3 "$tmp/build.log")"; exit 1; }
LAB_DATA_DIR=$root/data SIM_GPU=h100-sxm "$tmp/occupancy" | grep -q '^132 SMs, cudaSuccess$' && echo "ok the program runs on the book's data" ||
    { echo "FAILED: the program does not run on the book's data"; failed=1; }
for case in "sms 0" "sms -132" "sms x" "registers_per_sm 0" "shared_memory_per_sm_kib nan" "memory_bandwidth_gb_per_s 0" \
            "max_threads_per_sm 12" "compute_capability inf"; do
    read -r column value <<< "$case"
    rm -rf "$tmp/data" && cp -r data "$tmp/data"
    python3 - "$tmp/data/gpus.csv" "$column" "$value" <<'PY'
import csv, sys
path, column, value = sys.argv[1:]
rows = list(csv.reader(open(path, newline="")))
col = rows[0].index(column)
for row in rows[1:]:
    if row[0] == "h100-sxm": row[col] = value
csv.writer(open(path, "w", newline=""), lineterminator="\n").writerows(rows)
PY
    LAB_DATA_DIR=$tmp/data SIM_GPU=h100-sxm SIM_REPORT=1 "$tmp/occupancy" > "$tmp/run.log" 2>&1
    status=$?
    if ((status != 0)) && grep -q "gpus.csv, the row of h100-sxm: column '$column' holds '$value'; the simulator needs a number from" "$tmp/run.log"; then
        echo "ok gpus.csv with $column = $value: the program stops, naming the file, the GPU and the column"
    else
        echo "FAILED: gpus.csv with $column = $value: exit $status, $(head -2 "$tmp/run.log" | tr '\n' ' ')"; failed=1
    fi
done
exit "$failed"
