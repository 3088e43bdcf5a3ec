#!/usr/bin/env bash
# Device call D of 2026-12-01 (one NVIDIA H200), issue 13 (trusted evaluation, 2 of 2): the six
# harness tasks at MEDIUM with CUPTI timing on their own timing inputs, every batch rechecked,
# the launch check and the roofline floor (against bench/results/2026-11-30-h200/harness_final),
# then the corpus's hostile, trust, timing and stress classes (bench/adversarial_gpu.sh).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
export PALLASBENCH_PYTHON=python3 PYTHONUNBUFFERED=1
{ id; uname -r; python3 -c "import jax; print(jax.__version__, jax.devices())"; } > "$OUT/machine.txt" 2>&1
PB_TIME_LIMIT=230 bench/gpu_run.sh harness_stress add layernorm matmul reduce_sum relu softmax --size medium \
  --timeout 100 --artifacts files --show-compiler >/dev/null 2>&1
tail -12 "$OUT/harness_stress.log"
timeout 340 bench/adversarial_gpu.sh small > "$OUT/adversarial_gpu.txt" 2>&1
cat "$OUT/adversarial_gpu.txt"
exit 0
