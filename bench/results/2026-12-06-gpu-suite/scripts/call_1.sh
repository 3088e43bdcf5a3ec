#!/usr/bin/env bash
# Device call 1 (issues 38, 39, 40): compare's GPU acceptance (bench/compare_gpu.sh: identical
# code, a 20% slowed kernel, two sets of suite runs), then the whole suite at MEDIUM float32 with
# both backends side by side (--backend all), CUPTI-timed, 8 lanes, compiler artifacts inline.
# usage (device tool, from the repository root, build/ carried): OUT=$OUT bash <this file>
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
start=$(date +%s.%N)
REPS=7 RUNS=3 OUT=/tmp/cmp timeout -s INT 240 bash bench/compare_gpu.sh medium > "$OUT/compare_gpu.log" 2>&1
_wall compare_gpu $? "$start" | tee -a "$OUT/compare_gpu.log"
tar czf "$OUT/compare_gpu.tgz" -C /tmp/cmp compare_gpu
timed_run medium_f32 330 run --size medium --dtype float32 --device gpu --backend all --jobs 8 --seed 11 \
  --artifacts inline
grep "^\[" "$OUT/medium_f32.log" | grep -v " ok  robust yes" | head -60
tail -4 "$OUT/medium_f32.log"
grep -E "^(PASS|FAIL)" "$OUT/compare_gpu.log"
