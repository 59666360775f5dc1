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
refuse "llama refuses an unknown weight format" "--weights is fp32 or int8, not 'int4'" $llama --shape tiny --weights int4
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

# ---- tools/perfmodel
expect "perfmodel --help names the options" "--hardware NAME" $perfmodel --help
out=$($perfmodel --model Llama-2-70B --hardware h100-sxm --weights fp16 2>&1) || bad "perfmodel 70B: $out"
grep -q '^fits: no$' <<<"$out" || bad "70B FP16 on one H100 should not fit:"$'\n'"$out"
grep -q '^decode_step_time: 41\.[0-9]* ms$' <<<"$out" || bad "70B FP16 on H100: the decode bound should be 41.x ms:"$'\n'"$out"
grep -q '^next_step: the weights alone' <<<"$out" || bad "70B: the first next step should be about the weights:"$'\n'"$out"
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
