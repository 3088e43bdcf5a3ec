#!/usr/bin/env bash
# Call 2: launch shapes of the streaming elementwise kernels (relu, add, exp: one, two inputs,
# a transcendental) and fused_bias_gelu_dropout at LARGE float32, where they run at ~92% of the
# copy ceiling and XLA at ~100%; MEDIUM float32 alongside.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-3/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_probe stream 200 --tasks relu,add,exp,fused_bias_gelu_dropout --sizes large,medium --dtypes float32 \
  --samples 20 --budget-s 190
probe_done
cp /tmp/probe/probe.md $OUT/probe.md 2>/dev/null
grep -h "wall" $OUT/probe.log
