#!/usr/bin/env bash
# Call 5: call 4's LARGE float32 re-run was OOM-killed (rc 137, 8 lanes all on 1 GiB elementwise
# tasks: the host-memory budget let them in together) after 10 of its 18 tasks; the other 8 again,
# resumed into call 4's records, at 4 lanes. Host memory sampled every 5 s.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-3/scripts/call_5.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
rm -rf /tmp/large_f32 && mkdir -p /tmp/large_f32
zcat bench/results/2026-12-04-h200-3/call_4/large_f32.records.jsonl.gz > /tmp/large_f32/records.jsonl
( while sleep 5; do echo "$(date +%T) $(free -g | awk '/Mem:/{print $3" GiB used, "$7" available"}')"; done ) > $OUT/memory.log 2>&1 &
timed_run large_f32 ${LARGE_LIMIT:-285} run --size large -j 4 --resume relu multiply rsqrt sigmoid silu softplus tanh fused_gelu_bias
kill %1
python3 bench/run_summary.py /tmp/large_f32 > $OUT/summary.txt 2>&1
tail -6 $OUT/summary.txt
