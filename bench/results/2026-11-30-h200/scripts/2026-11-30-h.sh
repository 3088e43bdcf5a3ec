#!/usr/bin/env bash
# Device call H of 2026-11-30 (second session; one NVIDIA H200): the multi-module artifact capture
# on functions of several pallas_calls (issue 7), summary printed with --show-compiler.
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
PB_TIME_LIMIT=120 bench/gpu_run.sh multi_kernel_artifacts matmul_relu mlp_block transformer_block matmul --size medium \
  --no-timing --artifacts files --show-compiler >/dev/null 2>&1
exit 0
