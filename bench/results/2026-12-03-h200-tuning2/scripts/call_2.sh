#!/usr/bin/env bash
# Issue 19 on the H200, call 2: call 1's winners shipped (the Mosaic GPU matmul for the float32
# matmul family; row-kernel, qk_softmax and transformer_block tables): the whole suite at MEDIUM
# then at LARGE, float32, default flags, CUPTI.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-tuning2/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_run medium_f32 200 run --size medium
timed_run large_f32 ${LARGE_LIMIT:-370} run --size large
python3 bench/run_summary.py /tmp/medium_f32 /tmp/large_f32 > $OUT/summary.txt 2>&1
tail -4 $OUT/summary.txt
