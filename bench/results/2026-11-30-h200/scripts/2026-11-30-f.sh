#!/usr/bin/env bash
# Device call F of 2026-11-30 (second session; one NVIDIA H200): the ten tasks on the reworked
# tiled matmul at LARGE (issue 6), then the six harness tasks at MEDIUM compiled without and with
# the background artifact capture, for the compile-time overhead (issue 7).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
PB_TIME_LIMIT=290 bench/gpu_run.sh large_matmuls fused_matmul_bias fused_relu_matmul geglu linear_bias_relu \
  matmul_gelu matmul_relu matmul_silu swiglu gated_mlp mlp_block --size large --timeout 200 --timing-budget 1 \
  --artifacts none >/dev/null 2>&1
for mode in none files; do
  PB_TIME_LIMIT=80 bench/gpu_run.sh compile_$mode add layernorm matmul reduce_sum relu softmax --size medium \
    --no-timing --artifacts $mode >/dev/null 2>&1
done
exit 0
