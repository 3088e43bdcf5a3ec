#!/usr/bin/env bash
# Device call 1 (issue 38), from the repository root with OUT set; build/ carried.
# 1. At MEDIUM float32 and bfloat16, the tasks with a Mosaic GPU implementation new this session,
#    `--backend all` (both implementations side by side), CUPTI-timed, one lane.
# 3. bench/yardsticks.py at MEDIUM, float32 and bfloat16 (as long as the call allows).
set -uo pipefail
source bench/device_lib.sh
machine
NEW="matmul batched_matmul matmul_relu matmul_gelu matmul_silu fused_relu_matmul fused_matmul_bias linear_bias_relu geglu swiglu gated_mlp mlp_block flash_attention multi_head_attention attention_forward qk_softmax batch_norm_1d cosine_sim one_hot embedding_lookup outer_product pairwise_distance gather scatter_add gc_content kmer_count nucleotide_onehot pwm_scan reverse_complement sequence_match conv1d_genomic hamming_distance triangle_update"
timed_run new_medium_f32 120 run --size medium --device gpu --backend all $NEW
timed_run new_medium_bf16 110 run --size medium --dtype bfloat16 --device gpu --backend all $NEW
start=$(date +%s.%N)
OUT=$OUT timeout -s INT 30 python3 bench/yardsticks.py --sizes medium --dtypes float32,bfloat16 --samples 30 \
  > "$OUT/yardsticks.log" 2>&1
_wall yardsticks $? "$start" | tee -a "$OUT/yardsticks.log"
for f in new_medium_f32 new_medium_bf16; do grep -v " ok  robust yes" "$OUT/$f.log" | grep "^\[" | head -40; tail -4 "$OUT/$f.log"; done
tail -3 "$OUT/yardsticks.log"
