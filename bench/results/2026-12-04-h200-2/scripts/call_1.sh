#!/usr/bin/env bash
# Call 1 (second 2026-12-04 session): probes of the candidates for issue 19's remaining misses:
# triangle_update's 128 x 128 output tiles with narrower K steps (float32 and bfloat16, MEDIUM
# and LARGE), transformer_block's qkv and ffn tiles at LARGE float32, batched_matmul's Mosaic
# tiles at LARGE float32, and at LARGE bfloat16 fused_relu_matmul on Mosaic and qk_softmax with
# stored scores.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-2/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_probe triangle 170 --tasks triangle_update --sizes medium,large --dtypes float32,bfloat16 --samples 30 --budget-s 150
timed_probe transformer 110 --tasks transformer_block --sizes large --dtypes float32 --samples 30 \
  --variants qkv_,ffn,bm16_kv4_out4_ffn64x64 --budget-s 95
timed_probe batched 60 --tasks batched_matmul --sizes large --dtypes float32 --samples 30 --budget-s 50
timed_probe bf16 100 --tasks fused_relu_matmul,qk_softmax --sizes large --dtypes bfloat16 --samples 30 \
  --variants mosaic,split8_sbq64w8_stored --budget-s 85
probe_done
cp /tmp/probe/probe.md $OUT/probe.md 2>/dev/null
grep -h "wall" $OUT/probe.log
