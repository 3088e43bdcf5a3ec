#!/usr/bin/env bash
# Device call E of 2026-12-01 (one NVIDIA H200), issue 13: layernorm's kernel before and after
# its pivot shift, timed A/B in one eval (one executor), then the whole suite at MEDIUM with its
# stress cases (no timing), through the tracer / executor / reference path.
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
export PALLASBENCH_PYTHON=python3 PYTHONUNBUFFERED=1
timeout 100 build/pallasbench eval --task layernorm \
  --candidate bench/results/2026-12-01-h200-stress/scripts/layernorm_before_pivot.py --candidate tasks/level1/layernorm.py \
  --size medium --device gpu --artifacts none --json \
  > "$OUT/layernorm_ab.jsonl" 2> "$OUT/layernorm_ab.log"
tail -4 "$OUT/layernorm_ab.log"
PB_TIME_LIMIT=${PB_TIME_LIMIT:-470} bench/gpu_run.sh medium_stress --size medium --timeout 100 --no-timing \
  --artifacts none "$@" >/dev/null 2>&1
tail -8 "$OUT/medium_stress.log"
exit 0
