#!/usr/bin/env bash
# Device call A of 2026-12-01 (one NVIDIA H200), issue 12 (trusted evaluation): the tracer /
# executor / reference path on the GPU. A smoke eval (the sandbox as this machine gives it),
# the six harness tasks at MEDIUM with CUPTI timing (against bench/results/2026-11-30-h200/
# harness_final), and the hostile and trust classes of the corpus (bench/adversarial_gpu.sh,
# relu_interpret_true.py the GPU-only case).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
export PALLASBENCH_PYTHON=python3 PYTHONUNBUFFERED=1
{ id; uname -r; python3 -c "import jax; print(jax.__version__, jax.devices())"; } > "$OUT/machine.txt" 2>&1
timeout 120 build/pallasbench eval --task relu --candidate tests/e2e/candidates/relu_good.py --size small \
  --device gpu --no-timing --json > "$OUT/smoke.json" 2> "$OUT/smoke.err"
echo "smoke: exit $?"
PB_TIME_LIMIT=170 bench/gpu_run.sh harness_trusted add layernorm matmul reduce_sum relu softmax --size medium \
  --timeout 100 --artifacts files --show-compiler >/dev/null 2>&1
tail -12 "$OUT/harness_trusted.log"
timeout 330 bench/adversarial_gpu.sh small > "$OUT/adversarial_gpu.txt" 2>&1
cat "$OUT/adversarial_gpu.txt"
exit 0
