#!/usr/bin/env bash
# The variants prepared on the CPU for issue 19 and never timed on a GPU, probed in one device
# call (~400 s on the H200 by the sizes of earlier probes; each probe has its own budget). Each
# was lowered for CUDA and checked in interpret mode by the tests (tests/python/test_*_variants.py,
# test_scatter_add.py); what is left is the speed, against the shipped kernel and XLA.
#   scatter_add       sorted*: no float atomics (kernels/sorted_scatter.py), against the atomic kernel
#   triangle_update   pass_*: the float32 operand split in a pass of its own
#   transformer_block mosaic_proj_views: the attention reads q, k, v as column blocks, no slices
#   qk_softmax        mosaic_s2, mosaic_rows_*: the Mosaic mode's pipeline depth and row pass
#   fused_bias_gelu_dropout b64k, sigmoid2_mul_b64k; relu, add, exp: 64 KB streaming blocks
# usage (device tool): OUT=$OUT bash bench/prepared_probes.sh
#        (here, SMALL in interpret mode, to check the script: OUT=/tmp/x bash bench/prepared_probes.sh --cpu-smoke)
set -u
cd "$(dirname "$0")/.."
. bench/device_lib.sh
[ "${1:-}" = "--cpu-smoke" ] && SMOKE=(--cpu-smoke) || SMOKE=()
mkdir -p "$OUT"
[ ${#SMOKE[@]} -eq 0 ] && machine
timed_probe scatter 110 "${SMOKE[@]}" --tasks scatter_add --sizes medium,large --dtypes float32 --samples 30 \
  --variants sorted --budget-s 100
timed_probe triangle 90 "${SMOKE[@]}" --tasks triangle_update --sizes medium,large --dtypes float32 --samples 30 \
  --variants pass_ --budget-s 80
timed_probe block 60 "${SMOKE[@]}" --tasks transformer_block --sizes large --dtypes float32 --samples 30 \
  --variants mosaic_proj_views --budget-s 50
timed_probe qk 80 "${SMOKE[@]}" --tasks qk_softmax --sizes medium,large --dtypes float32,bfloat16 --samples 30 \
  --variants mosaic_s2,mosaic_rows --budget-s 70
timed_probe stream 60 "${SMOKE[@]}" --tasks fused_bias_gelu_dropout,relu,add,exp --sizes large --dtypes float32 \
  --samples 30 --variants b64k,sigmoid2_mul_b64k --budget-s 50
probe_done
cp /tmp/probe/probe.md "$OUT/probe.md" 2>/dev/null
grep -h "wall" "$OUT/probe.log"
