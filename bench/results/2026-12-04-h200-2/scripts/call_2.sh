#!/usr/bin/env bash
# Call 2: transformer_block's projections on the Mosaic GPU matmul (rmsnorm pass, side-by-side
# packing pass, TMA + wgmma kernel; the ffn's residual a pass of its own) against the shipped
# Triton kernels and call 1's best Triton tiles, float32 at LARGE and MEDIUM.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-2/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_probe transformer 150 --tasks transformer_block --sizes large,medium --dtypes float32 --samples 50 \
  --variants mosaic_proj,ffn64x64_bk32 --budget-s 140
probe_done
grep -h "wall" $OUT/probe.log
