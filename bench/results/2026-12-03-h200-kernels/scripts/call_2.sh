#!/usr/bin/env bash
# Issue 19 on the H200, call 2: every task's variants in bench/variants/ (tiled matmul,
# attention, genomics), float32 at MEDIUM and LARGE, then bfloat16, for as long as the budget lasts.
# (Call 1's variant rows were void: jit reused the default's trace for every variant.)
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-kernels/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1
{ nvidia-smi -L; python3 -c "import jax; print('jax', jax.__version__)"; } > $OUT/machine.txt 2>&1
start=$(date +%s)
OUT=$OUT timeout -s INT 560 python3 bench/probe.py --sizes medium,large --dtypes float32,bfloat16 \
  --samples 30 --budget-s ${BUDGET:-500} > $OUT/probe.log 2>&1
echo "probe rc $? wall $(( $(date +%s) - start )) s" | tee -a $OUT/probe.log
grep -c '"variant"' $OUT/probe.jsonl
