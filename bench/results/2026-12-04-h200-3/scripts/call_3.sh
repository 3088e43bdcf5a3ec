#!/usr/bin/env bash
# Call 3: the whole suite at LARGE float32 in one run (8 lanes under the host-memory budget, as
# 2026-12-04-h200-2's call 3), with this session's kernels: scatter_add's open sums, qk_softmax on
# the Mosaic GPU matmul, 128 KB streaming blocks for the elementwise kernels. Host memory sampled
# every 5 s.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-3/scripts/call_3.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
rm -rf /tmp/large_f32
( while sleep 5; do echo "$(date +%T) $(free -g | awk '/Mem:/{print $3" GiB used, "$7" available"}')"; done ) > $OUT/memory.log 2>&1 &
timed_run large_f32 ${LARGE_LIMIT:-585} run --size large -j ${LARGE_JOBS:-8}
kill %1
python3 bench/run_summary.py /tmp/large_f32 > $OUT/summary.txt 2>&1; tail -5 $OUT/summary.txt
