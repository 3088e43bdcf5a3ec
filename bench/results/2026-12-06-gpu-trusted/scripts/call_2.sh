#!/usr/bin/env bash
# Device call 2 (issue 37), after call 1's one miss (the GPU hog that fails while compiling was
# blamed on the harness): the containment batch again with the out-of-memory-at-compile blame,
# then the timed corpus case whose recheck goes through the platform rule.
set -uo pipefail
source bench/device_lib.sh
machine
start=$(date +%s.%N)
timeout -s INT 300 bash bench/containment_gpu.sh medium > "$OUT/containment.log" 2>&1
_wall containment $? "$start" | tee -a "$OUT/containment.log"
tar czf "$OUT/containment.tar.gz" -C "$OUT" containment 2>/dev/null && rm -rf "$OUT/containment"
start=$(date +%s.%N)
timeout -s INT 120 bash bench/adversarial_gpu.sh small reduce_sum_timing_differs.py > "$OUT/adversarial_timed.log" 2>&1
_wall adversarial_timed $? "$start" | tee -a "$OUT/adversarial_timed.log"
tar czf "$OUT/adversarial_timed.tar.gz" -C "$OUT" adversarial 2>/dev/null && rm -rf "$OUT/adversarial"
tail -5 "$OUT/containment.log"; cat "$OUT/adversarial_timed.log"
