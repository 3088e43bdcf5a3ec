#!/usr/bin/env bash
# Device call 1 (issue 38), from the repository root with OUT set; build/ carried.
# 1. The matmul family on both backends (tiled_matmul.backend_kernels), MEDIUM, float32 and
#    bfloat16, CUPTI-timed: 12 tasks x 2 implementations each.
# 2. bench/yardsticks.py at MEDIUM, float32 and bfloat16: JAX's ops.gpu and Mosaic GPU kernels
#    beside both backends of ours and XLA.
set -uo pipefail
source bench/device_lib.sh
machine
MM="matmul batched_matmul matmul_relu matmul_gelu matmul_silu fused_relu_matmul fused_matmul_bias linear_bias_relu geglu swiglu gated_mlp mlp_block"
timed_run matmul_medium_f32 200 run --size medium --device gpu --backend all $MM
timed_run matmul_medium_bf16 200 run --size medium --dtype bfloat16 --device gpu --backend all $MM
start=$(date +%s.%N)
OUT=$OUT timeout -s INT 240 python3 bench/yardsticks.py --sizes medium --dtypes float32,bfloat16 --samples 100 \
  > "$OUT/yardsticks.log" 2>&1
_wall yardsticks $? "$start" | tee -a "$OUT/yardsticks.log"
tail -22 "$OUT/matmul_medium_f32.log"; tail -22 "$OUT/matmul_medium_bf16.log"; tail -14 "$OUT/yardsticks.log"
