#!/usr/bin/env bash
# Device call 1 (issue 38), from the repository root with OUT set; build/ carried.
# 1. The tasks with a new Mosaic GPU implementation, both backends side by side, MEDIUM, float32
#    and bfloat16, CUPTI-timed: the matmul family (tiled_matmul.backend_kernels), the attention
#    family, the index and pairwise tasks, cosine_sim, batch_norm_1d (its race fixed) and the
#    genomics family.
# 2. bench/yardsticks.py at MEDIUM, float32 and bfloat16: JAX's ops.gpu and Mosaic GPU kernels
#    beside both backends of ours and XLA.
set -uo pipefail
source bench/device_lib.sh
machine
MM="matmul batched_matmul matmul_relu matmul_gelu matmul_silu fused_relu_matmul fused_matmul_bias linear_bias_relu geglu swiglu gated_mlp mlp_block flash_attention multi_head_attention attention_forward qk_softmax batch_norm_1d cosine_sim one_hot embedding_lookup outer_product pairwise_distance gather scatter_add gc_content kmer_count nucleotide_onehot pwm_scan reverse_complement sequence_match conv1d_genomic hamming_distance triangle_update"
timed_run new_medium_f32 270 run --size medium --device gpu --backend all $MM
timed_run new_medium_bf16 230 run --size medium --dtype bfloat16 --device gpu --backend all $MM
start=$(date +%s.%N)
OUT=$OUT timeout -s INT 100 python3 bench/yardsticks.py --sizes medium --dtypes float32,bfloat16 --samples 50 \
  > "$OUT/yardsticks.log" 2>&1
_wall yardsticks $? "$start" | tee -a "$OUT/yardsticks.log"
tail -30 "$OUT/new_medium_f32.log"; tail -30 "$OUT/new_medium_bf16.log"; tail -14 "$OUT/yardsticks.log"
