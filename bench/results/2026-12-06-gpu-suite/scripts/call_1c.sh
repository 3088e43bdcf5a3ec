#!/usr/bin/env bash
# Device call 1c (issue 39): compare's GPU acceptance alone (bench/compare_gpu.sh at MEDIUM), for
# the last of the session's device budget.
# usage (device tool, from the repository root, build/ carried): OUT=$OUT bash <this file>
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
start=$(date +%s.%N)
REPS=7 RUNS=3 OUT=/tmp/cmp timeout -s INT 200 bash bench/compare_gpu.sh medium > "$OUT/compare_gpu.log" 2>&1
_wall compare_gpu $? "$start" | tee -a "$OUT/compare_gpu.log"
tar czf "$OUT/compare_gpu.tgz" -C /tmp/cmp compare_gpu
tail -25 "$OUT/compare_gpu.log"
