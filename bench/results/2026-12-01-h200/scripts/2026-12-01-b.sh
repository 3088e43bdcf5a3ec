#!/usr/bin/env bash
# Device call B of 2026-12-01 (one NVIDIA H200), issue 12: the whole suite at MEDIUM through the
# tracer/executor path (correctness and the five filters; --no-timing: the six harness tasks'
# timing is call A's), then how long one evaluation takes through the new path and through the
# harness before it (.oldtree: commit 414a6be's python/, tasks/ and binary; eval_latency.sh).
cd "$(dirname "$0")/../../../.."
S=bench/results/2026-12-01-h200/scripts
mkdir -p "$OUT"
export PALLASBENCH_PYTHON=python3 PYTHONUNBUFFERED=1
PB_TIME_LIMIT=330 bench/gpu_run.sh medium_trusted --size medium --timeout 100 --no-timing --artifacts none \
  >/dev/null 2>&1
tail -8 "$OUT/medium_trusted.log"
timeout 230 $S/eval_latency.sh .oldtree medium gpu 2 > "$OUT/eval_latency_gpu.txt" 2>&1
cat "$OUT/eval_latency_gpu.txt"
exit 0
