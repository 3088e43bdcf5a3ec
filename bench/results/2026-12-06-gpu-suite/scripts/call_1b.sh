#!/usr/bin/env bash
# Device call 1b (issues 39, 38): what the device budget left after failed starts holds:
# compare's GPU acceptance (bench/compare_gpu.sh), then every task's Mosaic GPU kernel at MEDIUM
# float32, checked untimed (correctness, stress cases, robustness filters) in 12 lanes.
# usage (device tool, from the repository root, build/ carried): OUT=$OUT bash <this file>
set -uo pipefail
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
compare_acceptance 200
timed_run medium_f32_mosaic ${MOSAIC_LIMIT:-150} run --size medium --dtype float32 --device gpu --backend mosaic --no-timing \
  --jobs 12 --seed 11 --artifacts none
grep "^\[" "$OUT/medium_f32_mosaic.log" | grep -v " ok  robust yes" | head -40
tail -4 "$OUT/medium_f32_mosaic.log"
grep -E "^(PASS|FAIL)" "$OUT/compare_gpu.log"
