#!/usr/bin/env bash
# Device call E of 2026-11-30 (second session; one NVIDIA H200): what the serialized executable
# holds (issue 7), the second of two identical LARGE runs (issue 5's repeat; the first is call D's
# repeat_1, on a machine started for call D), and levels 2 and 3 at MEDIUM with the filters, CUPTI
# timing and the background artifact capture (issues 4, 6, 7).
cd "$(dirname "$0")/../../../.."
mkdir -p "$OUT"
timeout 60 python3 bench/results/2026-11-30-h200/scripts/serialized_probe.py relu medium /tmp/relu_medium.executable >"$OUT/serialized_probe.jsonl" 2>&1
gzip -c /tmp/relu_medium.executable >"$OUT/relu_medium.executable.gz"
PB_TIME_LIMIT=150 bench/gpu_run.sh repeat_2 add layernorm matmul --size large --artifacts none >/dev/null 2>&1
PB_TIME_LIMIT=230 bench/gpu_run.sh medium_l2 --level 2 --size medium --timeout 120 --timing-budget 1 --artifacts inline >/dev/null 2>&1
PB_TIME_LIMIT=130 bench/gpu_run.sh medium_l3 --level 3 --size medium --timeout 120 --timing-budget 1 --artifacts inline >/dev/null 2>&1
exit 0
