#!/usr/bin/env bash
# Device call 1 (issue 38), from the repository root with OUT set; build/ carried. What is left of
# the session's device budget after failed starts: the tasks with a Mosaic GPU implementation new
# this session, their Mosaic GPU kernels only, at MEDIUM float32 and bfloat16, checked without
# timing (correctness, stress cases, robustness filters, launch check on the GPU).
set -uo pipefail
source bench/device_lib.sh
machine
NEW="matmul batched_matmul matmul_relu matmul_gelu matmul_silu fused_relu_matmul fused_matmul_bias linear_bias_relu geglu swiglu gated_mlp mlp_block flash_attention multi_head_attention attention_forward qk_softmax batch_norm_1d cosine_sim one_hot embedding_lookup outer_product pairwise_distance gather scatter_add gc_content kmer_count nucleotide_onehot pwm_scan reverse_complement sequence_match conv1d_genomic hamming_distance triangle_update"
timed_run new_medium_f32 110 run --size medium --device gpu --backend mosaic --no-timing $NEW
timed_run new_medium_bf16 100 run --size medium --dtype bfloat16 --device gpu --backend mosaic --no-timing $NEW
for f in new_medium_f32 new_medium_bf16; do grep -v " ok  robust yes" "$OUT/$f.log" | grep "^\[" | head -40; tail -4 "$OUT/$f.log"; done
