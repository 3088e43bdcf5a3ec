#!/usr/bin/env bash
# Issue 16 on the H200, call C (the session's last 5 minutes of device time): the whole suite at
# MEDIUM with default flags for 130 s only, after reference inputs left the device lease (call B:
# 59 tasks in 223.5 s of run time, lanes waiting 2293 of 2787 lane-seconds). How many tasks are
# recorded in the time, and where the time went.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-throughput/scripts/call_c.sh
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
start=$(date +%s.%N)
timeout -s INT 130 build/pallasbench run --size medium --out /tmp/medium_split > $OUT/medium_split.log 2>&1
rc=$?
python3 -c "import sys; print(f'medium_split rc $rc wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" $start $(date +%s.%N) \
  | tee -a $OUT/medium_split.log
tail -4 $OUT/medium_split.log
gzip -c /tmp/medium_split/records.jsonl > $OUT/medium_split.records.jsonl.gz
