#!/usr/bin/env bash
# Call 3: LARGE float32 resumed from call 2's 29 records (call 2's run, at 7 lanes, was killed at
# 293 s, most likely by the host's OOM killer: rc 137 and no error of its own), at 5 lanes.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200/scripts/call_3.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
rm -rf /tmp/large_f32 && mkdir -p /tmp/large_f32
cp bench/results/2026-12-04-h200/call_2/large_f32.records.jsonl /tmp/large_f32/records.jsonl
( while sleep 5; do echo "$(date +%T) $(free -g | awk '/Mem:/{print $3" GiB used, "$7" available"}')"; done ) > $OUT/memory.log 2>&1 &
timed_run large_f32 ${LARGE_LIMIT:-540} run --size large -j ${LARGE_JOBS:-5} --resume
kill %1
cp /tmp/large_f32/records.jsonl $OUT/large_f32.records.jsonl 2>/dev/null
python3 bench/run_summary.py /tmp/large_f32 > $OUT/summary.txt 2>&1; tail -5 $OUT/summary.txt
