#!/usr/bin/env bash
# Issue 19 on the H200, call 1: the tiled-matmul variants (bench/variants/matmul.py) at MEDIUM and
# LARGE, float32 and bfloat16, then JAX's ops.gpu yardsticks (bench/yardsticks.py).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-kernels/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1
{ nvidia-smi -L; python3 -c "import jax; print('jax', jax.__version__)"; } > $OUT/machine.txt 2>&1
start=$(date +%s)
OUT=$OUT timeout -s INT 380 python3 bench/probe.py --tasks matmul,linear_bias_relu,swiglu,mlp_block \
  --sizes medium,large --dtypes float32,bfloat16 --samples 30 --budget-s 340 > $OUT/probe.log 2>&1
echo "probe rc $? wall $(( $(date +%s) - start )) s" | tee -a $OUT/probe.log
start=$(date +%s)
OUT=$OUT timeout -s INT 150 python3 bench/yardsticks.py --samples 50 > $OUT/yardsticks.log 2>&1
echo "yardsticks rc $? wall $(( $(date +%s) - start )) s" | tee -a $OUT/yardsticks.log
tail -40 $OUT/probe.md 2>/dev/null
