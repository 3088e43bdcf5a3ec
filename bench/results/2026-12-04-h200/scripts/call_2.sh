#!/usr/bin/env bash
# Call 2: the whole suite at LARGE, float32, 7 lanes (15 lanes ran out of the host's 128 GiB on
# 2026-12-03), as far as one call's time allows; call 3 resumes the same records (--resume).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_run large_f32 ${LARGE_LIMIT:-550} run --size large -j ${LARGE_JOBS:-7}
cp /tmp/large_f32/records.jsonl $OUT/large_f32.records.jsonl 2>/dev/null
