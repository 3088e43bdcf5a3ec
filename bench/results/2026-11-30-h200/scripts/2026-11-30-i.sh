#!/usr/bin/env bash
# Device call I of 2026-11-30 (second session; one NVIDIA H200): qk_softmax at LARGE, the one
# level-2 task never run at LARGE (issue 6; the first LARGE run of level 2 was cut before it), and
# the six harness tasks at MEDIUM with CUPTI timing, roofline percentages and the TF32 matmul
# baseline as fixed since harness_cupti (issue 5 (a)).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
PB_TIME_LIMIT=70 bench/gpu_run.sh qk_softmax_large qk_softmax --size large --timeout 60 --timing-budget 1 \
  --artifacts none >/dev/null 2>&1
PB_TIME_LIMIT=120 bench/gpu_run.sh harness_final add layernorm matmul reduce_sum relu softmax --size medium \
  --timeout 100 --artifacts files --show-compiler >/dev/null 2>&1
exit 0
