#!/usr/bin/env bash
# Device call 1 (issues 39, 38, 40): compare's GPU acceptance (bench/compare_gpu.sh: identical
# code, a 20% slowed kernel, two sets of suite runs); the whole suite at MEDIUM float32 with both
# backends side by side (--backend all), CUPTI-timed, 8 lanes, compiler artifacts inline; then, in
# what is left of the call's 600 s, the Mosaic GPU kernels at MEDIUM bfloat16 checked untimed.
# usage (device tool, from the repository root, build/ carried): OUT=$OUT bash <this file>
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
began=$(date +%s)
machine
compare_acceptance 200
timed_run medium_f32 $(( ${CALL_BUDGET:-580} < 470 ? ${CALL_BUDGET:-580} - 180 : 290 )) run --size medium --dtype float32 --device gpu --backend all --jobs 8 --seed 11 \
  --artifacts inline
left=$(( ${CALL_BUDGET:-580} - ($(date +%s) - began) ))
[ "$left" -gt 30 ] && timed_run medium_bf16_mosaic "$left" run --size medium --dtype bfloat16 --device gpu \
  --backend mosaic --no-timing --jobs 12 --seed 11 --artifacts none
for f in medium_f32 medium_bf16_mosaic; do
  [ -f "$OUT/$f.log" ] && { grep "^\[" "$OUT/$f.log" | grep -v " ok  robust yes" | head -40; tail -4 "$OUT/$f.log"; }
done
grep -E "^(PASS|FAIL)" "$OUT/compare_gpu.log"
