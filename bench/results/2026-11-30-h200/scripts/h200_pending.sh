#!/usr/bin/env bash
# The H200 runs still owed after 2026-11-29, in calls that fit the device tool's 10 minutes.
# usage (through the device tool, carrying build/pallasbench):
#   bench/results/2026-11-30-h200/scripts/h200_pending.sh PART
#   medium-filters  all 69 tasks at MEDIUM with the robustness filters (issue 4: no false
#                   positives; also reruns the six harness tasks of issue 2 with the final code;
#                   a 1 s timing budget per series keeps 69 tasks inside one call)
#   large-rest      the level 2/3 tasks not yet run at LARGE (issue 6)  [done 2026-11-30]
#   medium-23       levels 2 and 3 at MEDIUM with filters, CUPTI timing and artifacts inline
#                   (issues 4, 6: the MEDIUM table with device times; ~5 min)
#   large-matmuls   the 10 tasks on the reworked tiled matmul at LARGE (issue 6)
#   fidelity-long   ncu fidelity on kernels over 50 us, and a repeat run of LARGE kernels (issue 5)
#   ptx-paths       XLA dump vs jaxlib's Triton handler for the PTX (issue 7's overhead)
set -uo pipefail
cd "$(dirname "$0")/../../../.."
case "${1:-}" in
  medium-filters) exec bench/gpu_run.sh medium_filters --size medium --timeout 240 --timing-budget 1 ;;
  large-rest) exec bench/gpu_run.sh large_rest hamming_distance reverse_complement rmsnorm_residual \
      sequence_match sigmoid_bce swiglu transformer_block triangle_update --size large --timeout 300 ;;
  medium-23) PB_TIME_LIMIT=${PB_TIME_LIMIT:-330} bench/gpu_run.sh medium_l2 --level 2 --size medium --timeout 120 \
      --timing-budget 1 --artifacts inline
    exec env PB_TIME_LIMIT=${PB_TIME_LIMIT:-200} bench/gpu_run.sh medium_l3 --level 3 --size medium --timeout 120 \
      --timing-budget 1 --artifacts inline ;;
  large-matmuls) exec bench/gpu_run.sh large_matmuls fused_matmul_bias fused_relu_matmul geglu linear_bias_relu \
      matmul_gelu matmul_relu matmul_silu swiglu gated_mlp mlp_block --size large --timeout 200 --timing-budget 1 ;;
  fidelity-long) bench/fidelity.sh relu:large add:large softmax:large layernorm:large matmul:large
    bench/gpu_run.sh repeat_1 relu add softmax layernorm --size large --artifacts none
    exec bench/gpu_run.sh repeat_2 relu add softmax layernorm --size large --artifacts none ;;
  ptx-paths) for t in relu softmax matmul; do python3 bench/results/2026-11-30-h200/scripts/ptx_paths.py $t medium; done | tee "${OUT:-/tmp}/ptx_paths.jsonl" ;;
  *) echo "usage: $0 medium-filters|large-rest|medium-23|large-matmuls|fidelity-long|ptx-paths" >&2; exit 2 ;;
esac
