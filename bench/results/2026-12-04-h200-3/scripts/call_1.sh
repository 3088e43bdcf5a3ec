#!/usr/bin/env bash
# Call 1 (third 2026-12-04 session): scatter_add's open-sum kernel (its variants at MEDIUM and
# LARGE float32, and its LARGE degenerate case over fresh seeds against the one-atomic-a-row
# chain, rows=1), and qk_softmax's Mosaic GPU mode at MEDIUM and LARGE, float32 and bfloat16.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-3/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_probe scatter 120 --tasks scatter_add --sizes medium,large --dtypes float32 --samples 30 --budget-s 110
start=$(date +%s.%N)
timeout 120 python3 bench/scatter_add_degenerate.py --size large --trials 6 --rows default,1 > $OUT/degenerate.md 2>&1
_wall degenerate $? "$start" | tee -a $OUT/degenerate.md
timed_probe qk 150 --tasks qk_softmax --sizes medium,large --dtypes float32,bfloat16 --samples 30 \
  --variants mosaic,split8_sbq64w8_stored_t32x128_w4_16 --budget-s 140
probe_done
cp /tmp/probe/probe.md $OUT/probe.md 2>/dev/null
grep -h "wall" $OUT/probe.log
cat $OUT/degenerate.md
