#!/usr/bin/env bash
# Issue 19 on the H200, 2026-12-04, call 1. The tracer now exports at the running jax's IR
# versions, so the executor can read the Mosaic GPU kernels' wgmma types on jax 0.11.2 (call 3 of
# 2026-12-03: 9 Mosaic tasks ok but not robust). The whole suite at MEDIUM, float32 then
# bfloat16, default flags; then the inline-PTX adversarial candidate, never run on a GPU before.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_run medium_f32 190 run --size medium
timed_run medium_bf16 190 run --size medium --dtype bfloat16
start=$(date +%s.%N)
timeout 90 bash bench/adversarial_gpu.sh small matmul_f16_in_kernel.py matmul_f16_inline_asm.py > $OUT/adversarial.txt 2>&1
_wall adversarial $? "$start" | tee -a $OUT/adversarial.txt
python3 bench/run_summary.py /tmp/medium_f32 /tmp/medium_bf16 > $OUT/summary.txt 2>&1
tail -8 $OUT/summary.txt; cat $OUT/adversarial.txt
