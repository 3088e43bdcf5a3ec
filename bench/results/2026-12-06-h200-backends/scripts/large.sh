#!/usr/bin/env bash
# LARGE, both backends side by side, for half of the 36 tasks with a Mosaic GPU implementation (one
# device call holds half: the whole suite's LARGE run took 516-541 s at 8 lanes, most of it the
# float64 references).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-06-h200-backends/scripts/large.sh DTYPE 1|2
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
dtype=$1 half=$2
read -r -a all <<< "$(sed -n 's/^MOSAIC_TASKS="\(.*\)"$/\1/p' bench/results/2026-12-06-h200-backends/scripts/call_1.sh)"
if [ "$half" = 1 ]; then tasks=("${all[@]:0:18}"); else tasks=("${all[@]:18}"); fi
timed_run "large_${dtype}_${half}" 540 run "${tasks[@]}" --backend all --size large --dtype "$dtype" --device gpu \
  --jobs 8 --seed 11 --artifacts none
