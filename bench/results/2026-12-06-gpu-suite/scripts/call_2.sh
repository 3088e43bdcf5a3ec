#!/usr/bin/env bash
# Device call 2 (issues 38, 40): the whole suite at MEDIUM bfloat16, --backend all, CUPTI-timed,
# 8 lanes, compiler artifacts inline; then the yardsticks (bench/yardsticks.py) at MEDIUM.
# usage (device tool, from the repository root, build/ carried): OUT=$OUT bash <this file>
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_run medium_bf16 330 run --size medium --dtype bfloat16 --device gpu --backend all --jobs 8 --seed 11 \
  --artifacts inline
start=$(date +%s.%N)
timeout -s INT 230 python3 bench/yardsticks.py --sizes medium --dtypes float32,bfloat16 --samples 100 \
  > "$OUT/yardsticks.log" 2>&1
_wall yardsticks $? "$start" | tee -a "$OUT/yardsticks.log"
grep "^\[" "$OUT/medium_bf16.log" | grep -v " ok  robust yes" | head -60
tail -4 "$OUT/medium_bf16.log"
tail -40 "$OUT/yardsticks.log"
