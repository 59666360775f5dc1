#!/usr/bin/env bash
# tools.sh — checks of the two commands, tools/llama and tools/perfmodel, as a reader uses
# them: their `name: value unit` output, a checkpoint written and read back through them,
# seeds that repeat, and a clear error (exit status 2) for every bad input.
# Prints "ok ..." per check; stops at the first failure with what was expected and seen.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
llama=build/tools/llama perfmodel=build/tools/perfmodel
export LAB_DATA_DIR=$root/data

ok() { echo "ok $*"; }
bad() { echo "FAILED: $*"; exit 1; }
expect() {   # description pattern command... : succeeds, and its output contains pattern
    local what=$1 pattern=$2; shift 2
    local output; output=$("$@" 2>&1) || bad "$what: exit status $? from $*:"$'\n'"$output"
    grep -q -- "$pattern" <<<"$output" || bad "$what: expected '$pattern' in:"$'\n'"$output"
    ok "$what"
}
refuse() {   # description pattern command... : exits with status 2 and says pattern
    local what=$1 pattern=$2; shift 2
    local output status
    output=$("$@" 2>&1); status=$?
    [[ $status == 2 ]] || bad "$what: exit status $status (expected 2) from $*:"$'\n'"$output"
    grep -q -- "$pattern" <<<"$output" || bad "$what: expected '$pattern' in:"$'\n'"$output"
    ok "$what"
}
tokens_of() { "$@" --print-tokens 2>/dev/null | grep '^generated_'; }

# ---- tools/llama
expect "llama --help names the options" "--prompt-tokens N" $llama --help
run=$($llama --shape 15M --prompt-tokens 8 --gen 4 2>&1) || bad "llama --shape 15M: $run"
for line in "ttft: [0-9.]* ms" "tpot: [0-9.]* ms" "tokens_per_s: [0-9.]* tokens/s" "parameters: 15191712" "weights_bytes: 60766848 bytes"; do
    grep -q "^$line\$" <<<"$run" || bad "llama output lacks '$line':"$'\n'"$run"
done
grep -qv '^[a-z_0-9]*: ' <<<"$run" && bad "llama output has a line that is not 'name: value':"$'\n'"$run"
ok "llama prints TTFT, TPOT and tokens/s as name: value unit lines"
expect "llama runs INT8 weights" "group_size: 16 values" $llama --shape tiny --weights int8 --prompt-tokens 4 --gen 4
run=$($llama --shape tiny --weights int4 --group-size 8 --prompt-tokens 4 --gen 4 2>&1) || bad "llama --weights int4: $run"
for line in "weights: int4" "group_size: 8 values" "weights_bytes: 61440 bytes"; do
    grep -q "^$line\$" <<<"$run" || bad "llama --weights int4 output lacks '$line':"$'\n'"$run"
done
ok "llama runs INT4 weights: 53 760 matrix weights at half a byte, a 4-byte scale and a 1-byte zero point per 8, 240 FP32 norms"
refuse "llama refuses an odd INT4 group size" "group size 7 is odd: INT4 packs two values a byte" \
    $llama --shape tiny --weights int4 --group-size 7
refuse "llama refuses an INT4 group size that does not divide the rows" "group size 32 does not divide dim 48" \
    $llama --shape tiny --weights int4 --group-size 32
refuse "llama refuses to write INT4 weights" "an INT4 model cannot be written: llama2.c's checkpoints" \
    $llama --shape tiny --weights int4 --write-checkpoint "$tmp/x.bin"
refuse "llama refuses INT8 activations on INT4 weights" "INT8 activations need INT8 weights" \
    $llama --shape tiny --weights int4 --activations int8 --prompt-tokens 4 --gen 4
expect "llama decodes a batch" "batch: 3 sequences" $llama --shape tiny --batch 3 --prompt-tokens 4 --gen 4

$llama --shape tiny --seed 5 --write-checkpoint "$tmp/tiny1.bin" > /dev/null || bad "writing a version-1 checkpoint"
$llama --shape tiny --seed 5 --write-checkpoint "$tmp/tiny0.bin" --write-version 0 > /dev/null || bad "writing a version-0 checkpoint"
generated=$(tokens_of $llama --shape tiny --seed 5 --batch 2 --prompt-tokens 6 --gen 12)
[[ -n $generated ]] || bad "no tokens printed"
[[ $(tokens_of $llama --checkpoint "$tmp/tiny1.bin" --seed 5 --batch 2 --prompt-tokens 6 --gen 12) == "$generated" ]] ||
    bad "the version-1 checkpoint generates other tokens than the weights it was written from"
[[ $(tokens_of $llama --checkpoint "$tmp/tiny0.bin" --seed 5 --batch 2 --prompt-tokens 6 --gen 12) == "$generated" ]] ||
    bad "the version-0 checkpoint generates other tokens than the weights it was written from"
ok "checkpoints written by llama (versions 0 and 1) generate the same tokens as the weights they hold"
[[ $(tokens_of $llama --shape tiny --seed 5 --batch 2 --prompt-tokens 6 --gen 12 --threads 2) == "$generated" ]] ||
    bad "two threads generate other tokens than one"
ok "two threads generate the same tokens as one"
a=$(tokens_of $llama --shape tiny --temperature 1 --sample-seed 9 --prompt-tokens 4 --gen 30)
[[ $a == "$(tokens_of $llama --shape tiny --temperature 1 --sample-seed 9 --prompt-tokens 4 --gen 30)" ]] || bad "the same sample seed gave other tokens"
[[ $a != "$(tokens_of $llama --shape tiny --temperature 1 --sample-seed 10 --prompt-tokens 4 --gen 30)" ]] || bad "another sample seed gave the same tokens"
ok "temperature sampling repeats with its seed and changes with another"
[[ $(tokens_of $llama --shape tiny --seed 5 --batch 2 --prompt-tokens 6 --gen 12 --repeat 3) == "$generated" ]] ||
    bad "--repeat 3 generates other tokens than one run"
ok "--repeat 3 generates the tokens of one run"
expect "llama --repeat reports how many runs its medians are of" "^repeats: 3 runs$" $llama --shape tiny --gen 4 --prompt-tokens 4 --repeat 3

refuse "llama without a model says how to give one" "give one model" $llama --gen 4
refuse "llama with an unknown shape lists the shapes" "the named shapes are: 260K, 15M, 42M, 110M" $llama --shape 7B
refuse "llama refuses a batch of 0" "--batch takes a whole number from 1" $llama --shape tiny --batch 0
refuse "llama refuses a batch that is not a number" "not 'eight'" $llama --shape tiny --batch eight
refuse "llama refuses an unknown weight format" "--weights is fp32, int8 or int4, not 'int2'" $llama --shape tiny --weights int2
refuse "llama refuses an unknown option" "unknown option '--steps'" $llama --shape tiny --steps 5
refuse "llama refuses a negative temperature" "--temperature takes a number >= 0" $llama --shape tiny --temperature -1
refuse "llama refuses a context longer than seq_len" "prompt 30 + gen 20 = 50 tokens does not fit the model's context (seq_len 40)" \
    $llama --shape tiny --prompt-tokens 30 --gen 20
refuse "llama refuses a batch whose KV cache does not fit in memory" "does not fit: its FP32 KV cache is" \
    $llama --shape 260K --batch 1000000 --prompt-tokens 256 --gen 256
head -c 1000 "$tmp/tiny1.bin" > "$tmp/short.bin"
refuse "llama refuses a truncated checkpoint" "is truncated: 1000 bytes" $llama --checkpoint "$tmp/short.bin"
printf 'GIF89a this is a picture, not a model, and it is long enough to read a header from.' > "$tmp/picture.gif"
refuse "llama refuses a foreign file" "is not a llama2.c checkpoint" $llama --checkpoint "$tmp/picture.gif"
refuse "llama refuses a missing file" "cannot open checkpoint" $llama --checkpoint "$tmp/none.bin"
# a legacy header (7 little-endian int32) with dim 48 and 5 heads: 48 is not a multiple of 5
printf '\x30\0\0\0\x70\0\0\0\x02\0\0\0\x05\0\0\0\x05\0\0\0\x60\0\0\0\x28\0\0\0' > "$tmp/five-heads.bin"
refuse "llama refuses impossible dimensions" "dim 48 is not a multiple of n_heads 5" $llama --checkpoint "$tmp/five-heads.bin"
refuse "llama refuses to write over a directory" "cannot create" $llama --shape tiny --write-checkpoint "$tmp"

refuse "llama names an unknown option given last as unknown" "unknown option '--turbo'" $llama --shape tiny --turbo
refuse "llama says a known option given last needs its value" "--batch needs a value" $llama --shape tiny --batch
refuse "llama refuses a group size that does not divide the rows, naming the dimension" \
    "group size 7 does not divide dim 48" $llama --shape tiny --weights int8 --group-size 7
refuse "llama refuses --group-size without INT8 or INT4 weights" "--group-size applies to INT8 and INT4 weights" \
    $llama --shape tiny --group-size 8
refuse "llama refuses an unknown activation format" "--activations is fp32 or int8, not 'int4'" $llama --shape tiny --activations int4
refuse "llama refuses INT8 activations on FP32 weights" "INT8 activations need INT8 weights" \
    $llama --shape tiny --activations int8 --prompt-tokens 4 --gen 4

# version 2: INT8 as llama2.c's runq.c reads it
out=$($llama --shape tiny --seed 5 --weights int8 --write-checkpoint "$tmp/tiny2.bin") || bad "writing a version-2 checkpoint: $out"
grep -q "version 2, INT8 in groups of 16" <<<"$out" || bad "--weights int8 --write-checkpoint should write version 2:"$'\n'"$out"
header=$(od -An -tu4 -N8 "$tmp/tiny2.bin" | xargs) group=$(od -An -tu4 -j37 -N4 "$tmp/tiny2.bin" | xargs)
[[ $header == "1634415666 2" && $group == 16 ]] || bad "version-2 header: magic and version '$header', group size at byte 37 '$group'"
weights_bytes=$($llama --shape tiny --weights int8 --prompt-tokens 4 --gen 2 | sed -n 's/^weights_bytes: \([0-9]*\) bytes$/\1/p')
[[ $(stat -c %s "$tmp/tiny2.bin") == $((256 + weights_bytes)) ]] || bad "version-2 file: $(stat -c %s "$tmp/tiny2.bin") bytes, not 256 + $weights_bytes"
ok "llama --weights int8 --write-checkpoint writes version 2: runq.c's header, group size and size"
for activations in fp32 int8; do
    generated=$(tokens_of $llama --shape tiny --seed 5 --weights int8 --activations $activations --batch 2 --prompt-tokens 6 --gen 12)
    [[ -n $generated && $(tokens_of $llama --checkpoint "$tmp/tiny2.bin" --seed 5 --activations $activations --batch 2 \
        --prompt-tokens 6 --gen 12) == "$generated" ]] || bad "$activations activations: the version-2 checkpoint generates other tokens"
done
ok "a version-2 checkpoint generates the tokens of the INT8 model it was written from (FP32 and INT8 activations)"
# runq.c's greedy tokens for this file and prompt, recorded from runq.c's forward pass (built with
# gcc -O3, no FMA) on the same version-2 file; FP32 activations leave them at token 26
$llama --shape 260K --seed 3 --weights int8 --write-checkpoint "$tmp/260K-q8.bin" > /dev/null || bad "writing 260K as version 2"
runq="generated_0: 235 13 510 510 510 326 343 235 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 28 430 31 31 31 31 31 31 31 31"
[[ $(tokens_of $llama --checkpoint "$tmp/260K-q8.bin" --sample-seed 7 --prompt-tokens 8 --gen 40 --activations int8) == "$runq" ]] ||
    bad "--activations int8 does not give runq.c's greedy tokens"
[[ $(tokens_of $llama --checkpoint "$tmp/260K-q8.bin" --sample-seed 7 --prompt-tokens 8 --gen 40 --activations int8 --threads 2 |
     head -1) == "$runq" ]] || bad "--activations int8 with two threads does not give runq.c's greedy tokens"
[[ $(tokens_of $llama --checkpoint "$tmp/260K-q8.bin" --sample-seed 7 --prompt-tokens 8 --gen 40) != "$runq" ]] ||
    bad "FP32 activations give runq.c's tokens too: this check cannot tell the two apart"
ok "--activations int8 gives runq.c's greedy tokens on a version-2 file"
expect "llama reports INT8 activations" "^activations: int8$" $llama --checkpoint "$tmp/tiny2.bin" --activations int8 --prompt-tokens 4 --gen 4
refuse "llama refuses to run a version-2 checkpoint as FP32" "holds INT8 weights (a version-2 checkpoint)" \
    $llama --checkpoint "$tmp/tiny2.bin" --weights fp32
refuse "llama refuses to run a version-2 checkpoint as INT4" "they cannot be run in another format" \
    $llama --checkpoint "$tmp/tiny2.bin" --weights int4 --prompt-tokens 4 --gen 4
refuse "llama refuses to regroup a version-2 checkpoint" "was quantized with group size 16; --group-size 8 cannot regroup" \
    $llama --checkpoint "$tmp/tiny2.bin" --group-size 8
refuse "llama refuses to write FP32 weights as version 2" "a version-2 checkpoint holds INT8 weights, and this model is FP32" \
    $llama --shape tiny --write-checkpoint "$tmp/x.bin" --write-version 2
refuse "llama refuses to write INT8 weights as version 1" "an INT8 model is written as version 2" \
    $llama --shape tiny --weights int8 --write-checkpoint "$tmp/x.bin" --write-version 1

# bad checkpoints: non-finite or huge weights, a header that disagrees with its tensors
cp "$tmp/tiny1.bin" "$tmp/nan.bin"
printf '\x00\x00\xc0\x7f' | dd of="$tmp/nan.bin" bs=1 seek=$((256 + 4 * 100)) conv=notrunc status=none   # a NaN in the second norm
refuse "llama refuses a NaN weight, naming the tensor" "ffn_norm of layer 0 holds NaN, not a number at index 4" \
    $llama --checkpoint "$tmp/nan.bin"
cp "$tmp/tiny1.bin" "$tmp/huge.bin"
printf '\xca\xf2\x49\x71' | dd of="$tmp/huge.bin" bs=1 seek=$((256 + 4 * 100)) conv=notrunc status=none  # 1e30
refuse "llama refuses a weight of 1e30, saying the bound" "ffn_norm of layer 0 holds 1e+30, beyond the bound |w| <= 10000" $llama --checkpoint "$tmp/huge.bin"
cp "$tmp/tiny1.bin" "$tmp/vocab.bin"
printf '\x61\0\0\0' | dd of="$tmp/vocab.bin" bs=1 seek=28 conv=notrunc status=none   # vocab_size 97 over 96 tokens
refuse "llama says a header's vocab_size disagrees with the file's size" \
    "which is exactly the size for vocab_size 96: the header's vocab_size 97 is wrong" $llama --checkpoint "$tmp/vocab.bin"

# a long prefill shows its progress (after 2 s): checked when the run takes long enough here
started=$(date +%s%N)
output=$($llama --shape tiny --batch 6000 --prompt-tokens 32 --gen 2 2>&1 >/dev/null)
elapsed_ms=$((($(date +%s%N) - started) / 1000000))
if ((elapsed_ms >= 3000)); then
    grep -q "^progress: [0-9]*/6000 prompts prefilled" <<<"$output" || bad "a prefill of ${elapsed_ms} ms showed no progress:"$'\n'"$output"
    ok "a long prefill shows its progress"
else
    ok "a long prefill shows its progress (not checked: the run took only ${elapsed_ms} ms here)"
fi

# ---- tools/perfmodel
expect "perfmodel --help names the options" "--hardware NAME" $perfmodel --help
out=$($perfmodel --model Llama-2-70B --hardware h100-sxm --weights fp16 2>&1) || bad "perfmodel 70B: $out"
grep -q '^fits: no$' <<<"$out" || bad "70B FP16 on one H100 should not fit:"$'\n'"$out"
grep -q '^decode_step_time: 41\.[0-9]* ms$' <<<"$out" || bad "70B FP16 on H100: the decode bound should be 41.x ms:"$'\n'"$out"
grep -q '^next_step: \[out of memory\] the weights alone' <<<"$out" || bad "70B: the first next step should be about the weights:"$'\n'"$out"
grep -qv '^[a-z_0-9]*: ' <<<"$out" && bad "perfmodel output has a line that is not 'name: value':"$'\n'"$out"
ok "perfmodel: Llama-2-70B FP16 on H100 does not fit and decodes in 41 ms a token at best"
keys=$($perfmodel --model Llama-2-7B --gpu a100-80gb --batch 8 --json | grep -o '"[a-z_]*":' | tr -d '":' | sort | tr '\n' ' ')
expected="decode_bound decode_step_bytes decode_step_time_s fits kv_bytes_per_token kv_bytes_total max_batch prefill_bound "
expected+="prefill_flops prefill_time_s ridge_flop_per_byte tokens_per_s tpot_s ttft_s weights_bytes "
[[ $keys == "$expected" ]] || bad "perfmodel --json fields: $keys"
ok "perfmodel --json prints exactly the fifteen fields"
expect "perfmodel reads a checkpoint's shape" "model: $tmp/tiny1.bin (2 layers, hidden 48, 6 heads, 2 kv heads" \
    $perfmodel --checkpoint "$tmp/tiny1.bin" --hardware h100-sxm --prompt 8 --gen 8
expect "perfmodel measures this CPU" "bandwidth measured over" $perfmodel --shape 15M --hardware cpu --prompt 64 --gen 64
refuse "perfmodel with an unknown model lists the models" "data/models.csv has: Llama-2-7B Llama-2-13B" $perfmodel --model GPT-5
refuse "perfmodel with an unknown GPU lists the GPUs" "use cpu (this machine, measured) or a GPU of data/gpus.csv: h100-sxm h100-pcie" \
    $perfmodel --model Llama-2-7B --hardware b200
refuse "perfmodel refuses an unknown data type" "--weights is one of fp32, fp16" $perfmodel --model Llama-2-7B --weights fp12
refuse "perfmodel refuses a batch that is not a number" "--batch takes a whole number >= 1, not '0'" $perfmodel --model Llama-2-7B --batch 0
refuse "perfmodel refuses a context longer than the shape's" "does not fit the model's context of 256 tokens" \
    $perfmodel --shape 15M --prompt 200 --gen 100
refuse "perfmodel refuses a truncated checkpoint" "is truncated" $perfmodel --checkpoint "$tmp/short.bin"
refuse "perfmodel refuses two models" "give one model" $perfmodel --model Llama-2-7B --shape 15M
refuse "perfmodel refuses a bandwidth outside a physical range, saying the range" "--bandwidth takes a number from 0.1 to 100000" \
    $perfmodel --model Llama-2-7B --bandwidth 1e-300
refuse "perfmodel refuses a peak outside a physical range" "--peak-tflops takes a number from 0.0001 to 100000" \
    $perfmodel --model Llama-2-7B --peak-tflops 1e9
refuse "perfmodel names an unknown option given last as unknown" "unknown option '--turbo'" $perfmodel --model Llama-2-7B --turbo

# Bad data: a copy of data/ with one cell changed, as LAB_DATA_DIR; each is refused with its row and column
bad_data() {   # FILE ROW COLUMN VALUE: a copy of data/ whose FILE has VALUE in ROW's COLUMN; prints its folder
    local dir=$tmp/data-$RANDOM$RANDOM
    cp -r "$root/data" "$dir"
    python3 - "$dir/$1" "$2" "$3" "$4" <<'PY'
import csv, sys
path, key, column, value = sys.argv[1:]
rows = list(csv.reader(open(path, newline="")))
col = rows[0].index(column)
for row in rows[1:]:
    if row[0] == key: row[col] = value
csv.writer(open(path, "w", newline=""), lineterminator="\n").writerows(rows)
PY
    echo "$dir"
}
for case in "attention_heads 0" "attention_heads -4" "hidden_size -4096" "hidden_size 1e30" "intermediate_size -11008" \
            "layers 0" "head_dim 128.5" "head_dim 0" "kv_heads 0" "kv_heads 5"; do
    read -r column value <<< "$case"
    dir=$(bad_data models.csv Llama-2-7B "$column" "$value")
    pattern="row [0-9]* (Llama-2-7B), column $column: '$value' is not a whole number"
    [[ $case == "kv_heads 5" ]] && pattern="row [0-9]* (Llama-2-7B): kv_heads must divide attention_heads"
    refuse "perfmodel refuses models.csv with $column = $value, naming the row and column" "$pattern" \
        env LAB_DATA_DIR="$dir" $perfmodel --model Llama-2-7B --hardware h100-sxm
done
for case in "memory_bandwidth_gb_per_s 0" "memory_bandwidth_gb_per_s nan" "memory_bandwidth_gb_per_s -3350" "fp32_tflops 0" \
            "memory_gib -80" "fp16_tensor_tflops inf"; do
    read -r column value <<< "$case"
    dir=$(bad_data gpus.csv h100-sxm "$column" "$value")
    refuse "perfmodel refuses gpus.csv with $column = $value, naming the row and column" "row [0-9]* (h100-sxm), column $column: '$value' is not a number" \
        env LAB_DATA_DIR="$dir" $perfmodel --model Llama-2-7B --hardware h100-sxm
done
