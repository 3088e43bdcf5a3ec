#!/usr/bin/env bash
# Device call G of 2026-11-30 (second session; one NVIDIA H200): level 1 at MEDIUM with the final
# filter code (SIMD passes, std fix), no timing (issue 4: no false positives on the H200).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
PB_TIME_LIMIT=300 bench/gpu_run.sh l1_medium_final_filters --level 1 --size medium --timeout 100 --no-timing \
  --artifacts none >/dev/null 2>&1
exit 0
