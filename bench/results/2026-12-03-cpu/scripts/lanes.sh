#!/usr/bin/env bash
# Issue 16 on the 2-core CPU machine: level 1 at SMALL in interpret mode (timing on: the wall
# clock, 0.5 s budget per series), one lane against two, same seed; the run's own phase totals.
# usage: bash bench/results/2026-12-03-cpu/scripts/lanes.sh > bench/results/2026-12-03-cpu/lanes.txt
cd "$(dirname "$0")/../../../.."
for jobs in 1 2; do
  rm -rf /tmp/pb-lanes-$jobs
  start=$(date +%s.%N)
  build/pallasbench run --level 1 --size small --device cpu --seed 7 --jobs $jobs --out /tmp/pb-lanes-$jobs \
    > /tmp/pb-lanes-$jobs.log 2>&1
  rc=$?
  end=$(date +%s.%N)
  echo "== run --level 1 --size small --device cpu --seed 7 --jobs $jobs: exit $rc, $(python3 -c "print(f'{$end - $start:.1f}')") s of wall time"
  grep -E "^[0-9]+ tasks:|^where the time went|^run:" /tmp/pb-lanes-$jobs.log
done
python3 - <<'PY'
import json
import sys
sys.path.insert(0, "python")
from pallasbench import records_compare
one = [json.loads(l) for l in open("/tmp/pb-lanes-1/records.jsonl")]
two = [json.loads(l) for l in open("/tmp/pb-lanes-2/records.jsonl")]
same_order = [r["kernel_name"] for r in one] == [r["kernel_name"] for r in two]
judged = sum(len(records_compare.differences(a, b)[0]) for a, b in zip(one, two))
print(f"records: {len(one)} and {len(two)}, same order {same_order}, judged differences {judged} "
      "(timing samples are wall-clock and differ by nature: records_compare ignores `timing`)")
PY
