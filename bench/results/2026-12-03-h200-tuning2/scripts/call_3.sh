#!/usr/bin/env bash
# Issue 19 on the H200, call 3. Call 2's Mosaic GPU tasks failed to compile in the harness (the
# executor never imported jax.experimental.mosaic.gpu, which points the custom call at
# libmosaic_gpu_runtime.so), and LARGE at 15 lanes was killed by the host's OOM killer (128 GiB)
# before its first record. Now: the executor loads the runtime and decodes Mosaic GPU kernels for
# the precision policy; the whole suite at MEDIUM then at LARGE (6 lanes), float32, default flags.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-tuning2/scripts/call_3.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_run medium_f32 170 run --size medium
timed_run large_f32 ${LARGE_LIMIT:-380} run --size large -j ${LARGE_JOBS:-6}
python3 bench/run_summary.py /tmp/medium_f32 /tmp/large_f32 > $OUT/summary.txt 2>&1
tail -6 $OUT/summary.txt
