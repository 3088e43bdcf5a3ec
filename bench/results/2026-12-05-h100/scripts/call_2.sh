#!/usr/bin/env bash
# Call 2 (2026-12-05, an H100 host: 128 GiB): the host-memory live limit under the load that was
# OOM-killed on 2026-12-04 (LARGE float32 at 8 lanes): level 1 at LARGE, 8 lanes, timed, with the
# host's memory logged every 2 s and the run's timeline (--trace: which lanes overlapped).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-05-h100/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
( while sleep 2; do echo "$(date +%T) $(free -g | awk '/Mem:/{print $3" GiB used, "$7" available"}')"; done ) > $OUT/memory.log 2>&1 &
logger=$!
timed_run large_l1 470 run --level 1 --size large --device gpu --jobs 8 --seed 11 --trace $OUT/large_l1.trace.json
kill $logger
gzip -f $OUT/large_l1.trace.json 2>/dev/null
tail -5 $OUT/large_l1.log
sort -k2 -n $OUT/memory.log | awk '{print $2}' | tail -1 | sed 's/^/peak used GiB: /'
