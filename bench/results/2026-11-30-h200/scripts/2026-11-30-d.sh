#!/usr/bin/env bash
# Device call D of 2026-11-30 (second session; one NVIDIA H200): where the PTX and cubin can come
# from without XLA's emitter dump (issue 7's overhead), ncu fidelity on an empty kernel and on
# kernels over 50 us (issue 5), and the first of two identical LARGE runs (issue 5's repeat).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,temperature.gpu,power.draw --format=csv >"$OUT/device.txt" 2>&1
for t in relu softmax matmul; do timeout 90 python3 bench/results/2026-11-30-h200/scripts/ptx_paths.py $t medium; done >"$OUT/ptx_paths.jsonl" 2>"$OUT/ptx_paths.err"
timeout 300 bench/fidelity.sh >/dev/null 2>"$OUT/fidelity.err"
PB_TIME_LIMIT=170 bench/gpu_run.sh repeat_1 relu add softmax layernorm matmul --size large --artifacts none >/dev/null 2>&1
exit 0
