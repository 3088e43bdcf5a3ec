#!/usr/bin/env bash
# Device call E of 2026-12-01 (one NVIDIA H200), issue 13: the whole suite at MEDIUM with its
# stress cases (no timing), through the tracer / executor / reference path.
cd "$(dirname "$0")/../.."
mkdir -p "$OUT"
export PALLASBENCH_PYTHON=python3 PYTHONUNBUFFERED=1
PB_TIME_LIMIT=${PB_TIME_LIMIT:-570} bench/gpu_run.sh medium_stress --size medium --timeout 100 --no-timing \
  --artifacts none "$@" >/dev/null 2>&1
tail -8 "$OUT/medium_stress.log"
exit 0
