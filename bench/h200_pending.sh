#!/usr/bin/env bash
# The H200 runs still owed after 2026-11-29, in calls that fit the device tool's 10 minutes.
# usage (through the device tool, carrying build/pallasbench): bench/h200_pending.sh PART
#   medium-filters  all 69 tasks at MEDIUM with the robustness filters (issue 4: no false
#                   positives; also reruns the six harness tasks of issue 2 with the final code;
#                   a 1 s timing budget per series keeps 69 tasks inside one call)
#   large-rest      the level 2/3 tasks not yet run at LARGE (issue 6)
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
  medium-filters) exec bench/gpu_run.sh medium_filters --size medium --timeout 240 --timing-budget 1 ;;
  large-rest) exec bench/gpu_run.sh large_rest hamming_distance reverse_complement rmsnorm_residual \
      sequence_match sigmoid_bce swiglu transformer_block triangle_update --size large --timeout 300 ;;
  *) echo "usage: $0 medium-filters|large-rest" >&2; exit 2 ;;
esac
