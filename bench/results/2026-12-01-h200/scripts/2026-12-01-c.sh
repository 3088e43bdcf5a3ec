#!/usr/bin/env bash
# Device call C of 2026-12-01 (one NVIDIA H200), issue 12: eval_latency.sh at MEDIUM with the
# final build (the suite's tasks share one tracer per run; `eval` of several user candidates with
# one executor), against .oldtree (commit 414a6be).
cd "$(dirname "$0")/../../../.."
S=bench/results/2026-12-01-h200/scripts
mkdir -p "$OUT"
export PALLASBENCH_PYTHON=python3 PYTHONUNBUFFERED=1
timeout 400 $S/eval_latency.sh .oldtree medium gpu 2 > "$OUT/eval_latency_gpu_final.txt" 2>&1
cat "$OUT/eval_latency_gpu_final.txt"
exit 0
