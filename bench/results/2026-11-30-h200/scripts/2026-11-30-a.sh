#!/usr/bin/env bash
# Device call A of 2026-11-30 (one NVIDIA H200): environment probes, CUPTI probe, compiler
# fixtures (issue 7), ncu probe, the LARGE tasks owed by issue 6, level 1 at MEDIUM with filters.
cd "$(dirname "$0")/../../../.."
(nvidia-smi; nvidia-smi -q -d CLOCK,PERFORMANCE; which ncu ptxas cuobjdump nvdisasm; ncu --version
 ldconfig -p | grep -i "nvidia-ml\|libcuda.so") > $OUT/probe.log 2>&1
timeout 60 python3 bench/results/2026-11-30-h200/scripts/probe_cupti.py >> $OUT/probe.log 2>&1; tail -25 $OUT/probe.log
timeout 150 bench/capture_compiler_fixtures.sh medium matmul softmax relu > $OUT/capture.log 2>&1; tail -20 $OUT/capture.log
timeout 60 ncu --csv --clock-control none --metrics gpu__time_duration.sum -c 6 python3 -c "
import jax, jax.numpy as jnp
x = jnp.ones((4096,4096)); f = jax.jit(lambda a: a@a)
for _ in range(3): f(x).block_until_ready()
" >> $OUT/probe.log 2>&1; tail -8 $OUT/probe.log
PB_TIME_LIMIT=200 bench/results/2026-11-30-h200/scripts/h200_pending.sh large-rest > /dev/null 2>&1; tail -12 $OUT/large_rest.log
PB_TIME_LIMIT=150 bench/gpu_run.sh l1_medium_filters --level 1 --size medium --timeout 100 --no-timing > /dev/null 2>&1
tail -6 $OUT/l1_medium_filters.log
