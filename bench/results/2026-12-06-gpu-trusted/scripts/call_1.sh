#!/usr/bin/env bash
# Device call 1 (issue 37): the whole suite at MEDIUM without timing on the new rules (the float64
# reference, the platform's bound, the data-movement rule), in the background at 8 lanes, while
# the adversarial corpus's cases this issue added or changed run one `eval` each at SMALL
# (bench/adversarial_gpu.sh). Run from the repository root with OUT set; build/ carried.
set -uo pipefail
source bench/device_lib.sh
machine
start=$(date +%s.%N)
timeout -s INT 520 $P run --size medium --device gpu --no-timing --jobs 8 --out /tmp/suite_medium \
  > "$OUT/suite_medium.log" 2>&1 &
suite=$!
timeout 540 bash bench/adversarial_gpu.sh small \
  matmul_f16_in_kernel.py matmul_f16_inline_asm.py matmul_bf16x3.py matmul_bf16_in_kernel.py \
  layernorm_naive_variance.py layernorm_two_pass.py layernorm_welford.py layernorm_jax_ops_gpu.py \
  layernorm_xla.py softmax_no_max.py reduce_sum_timing_differs.py \
  embedding_lookup_dynamic_slice.py reverse_complement_flip_outside.py nucleotide_onehot_transposed.py \
  matmul_weight_packing.py embedding_lookup_packed_table.py relu_padded.py matmul_split_k.py \
  > "$OUT/adversarial.log" 2>&1
wait $suite
_wall suite_medium $? "$start" | tee -a "$OUT/suite_medium.log"
[ -f /tmp/suite_medium/records.jsonl ] && gzip -c /tmp/suite_medium/records.jsonl > "$OUT/suite_medium.records.jsonl.gz"
tar czf "$OUT/adversarial.tar.gz" -C "$OUT" adversarial 2>/dev/null && rm -rf "$OUT/adversarial"
tail -3 "$OUT/suite_medium.log"; cat "$OUT/adversarial.log"
