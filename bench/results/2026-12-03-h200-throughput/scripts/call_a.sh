#!/usr/bin/env bash
# Issue 16 on the H200, call A (a fresh machine):
#  1. the whole suite at MEDIUM with default flags (timing and artifacts on, default --jobs: the
#     cores less one, no compile cache): the "<= 4 min on a fresh machine" goal;
#  2. 50 candidates of softmax at MEDIUM through one `eval --batch` (bench/batch_requests.py:
#     honest variants, every fifth one from the adversarial corpus), timing on: the "<= 5 s each,
#     end to end" goal.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-throughput/scripts/call_a.sh
cd "$(dirname "$0")/../../../.."
P=build/pallasbench
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
{ nvidia-smi -L; nproc; free -g | head -2; python3 -c "import jax, jaxlib; print('jax', jax.__version__)"; } > $OUT/machine.txt 2>&1
start=$(date +%s.%N)
timeout -s INT 330 $P run --size medium --out /tmp/medium_default > $OUT/medium_default.log 2>&1
echo "medium_default rc $? wall $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a $OUT/medium_default.log
tail -4 $OUT/medium_default.log
grep -E "^\[" $OUT/medium_default.log | grep -v " ok  robust yes" | head -20
python3 bench/batch_requests.py softmax 50 --size medium > /tmp/requests.jsonl
start=$(date +%s.%N)
timeout -s INT 230 $P eval --batch /tmp/requests.jsonl --out /tmp/batch50 > $OUT/batch50.log 2>&1
echo "batch50 rc $? wall $(echo "$(date +%s.%N) - $start" | bc) s" | tee -a $OUT/batch50.log
tail -3 $OUT/batch50.log
python3 - /tmp/medium_default/records.jsonl /tmp/batch50/records.jsonl <<'PY' | tee $OUT/summary.txt
import collections, json, sys
for path in sys.argv[1:]:
    records = [json.loads(l) for l in open(path)]
    phases = collections.Counter()
    for r in records:
        for k, v in r.get("phases", {}).items():
            phases[k] += v
    status = collections.Counter((r["status"], r["result"].get("robustness_passed")) for r in records)
    wall = phases.pop("wall_s", 0.0)
    print(path, len(records), "records;", dict(status))
    print("  phases (s):", {k: round(v, 1) for k, v in sorted(phases.items())}, "sum", round(sum(phases.values()), 1),
          "evaluations' wall", round(wall, 1))
    worst = max(abs(sum(v for k, v in r["phases"].items() if k != "wall_s") - r["phases"]["wall_s"]) / r["phases"]["wall_s"]
                for r in records)
    print("  largest |sum(phases) - wall| / wall:", round(worst, 4))
    timed = [r for r in records if "timing" in r]
    print("  timed:", len(timed), "timer", {r["timing"]["timer"] for r in timed},
          "lanes", {r["placement"]["lanes"] for r in records}, "gpus", {json.dumps(r["placement"].get("gpu")) for r in records})
PY
gzip -c /tmp/medium_default/records.jsonl > $OUT/medium_default.records.jsonl.gz
gzip -c /tmp/batch50/records.jsonl > $OUT/batch50.records.jsonl.gz
