#!/usr/bin/env bash
# Device call 1 (issue 38), from the repository root with OUT set; build/ carried.
# 1. The whole suite at MEDIUM, float32 then bfloat16, `--backend all` (every task's Mosaic GPU
#    and Triton implementations side by side), CUPTI-timed, one lane.
# 2. bench/yardsticks.py at MEDIUM, float32 and bfloat16: JAX's ops.gpu and Mosaic GPU kernels
#    beside both backends of ours and XLA.
set -uo pipefail
source bench/device_lib.sh
machine
timed_run suite_medium_f32 210 run --size medium --device gpu --backend all
timed_run suite_medium_bf16 190 run --size medium --dtype bfloat16 --device gpu --backend all
start=$(date +%s.%N)
OUT=$OUT timeout -s INT 70 python3 bench/yardsticks.py --sizes medium --dtypes float32,bfloat16 --samples 50 \
  > "$OUT/yardsticks.log" 2>&1
_wall yardsticks $? "$start" | tee -a "$OUT/yardsticks.log"
for f in suite_medium_f32 suite_medium_bf16; do grep -v " ok  robust yes" "$OUT/$f.log" | grep "^\[" | head -40; tail -4 "$OUT/$f.log"; done
tail -3 "$OUT/yardsticks.log"
