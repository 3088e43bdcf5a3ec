#!/usr/bin/env bash
# Device call 2 (issue 38), from the repository root with OUT set; build/ carried.
# The whole suite at LARGE, float32 then bfloat16, `--backend all`, CUPTI-timed, one lane.
set -uo pipefail
source bench/device_lib.sh
machine
timed_run suite_large_f32 290 run --size large --device gpu --backend all
timed_run suite_large_bf16 290 run --size large --dtype bfloat16 --device gpu --backend all
for f in suite_large_f32 suite_large_bf16; do grep -v " ok  robust yes" "$OUT/$f.log" | grep "^\[" | head -40; tail -4 "$OUT/$f.log"; done
