#!/usr/bin/env bash
# Issue 16 on the H200, call B (a fresh machine), after call A showed timing dominating (every
# series ran its 2 s budget) and the median's exit was added:
#  1. the whole suite at MEDIUM with default flags (timing and artifacts on, default --jobs, no
#     compile cache): the "<= 4 min on a fresh machine" goal;
#  2. the same with --compile-cache results/cc (a cold cache: this run fills it);
#  3. the same again with the warm cache: the "<= 2 min with a warm --compile-cache" goal.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-throughput/scripts/call_b.sh
cd "$(dirname "$0")/../../../.."
P=build/pallasbench
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
{ nvidia-smi -L; nproc; free -g | head -2; python3 -c "import jax, jaxlib; print('jax', jax.__version__)"; } > $OUT/machine.txt 2>&1
suite() {  # NAME LIMIT [flags]
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  timeout -s INT $limit $P run --size medium --out /tmp/$name "$@" > $OUT/$name.log 2>&1
  local rc=$?
  python3 -c "import sys; print(f'$name rc $rc wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" $start $(date +%s.%N) \
    | tee -a $OUT/$name.log
  tail -3 $OUT/$name.log | head -2
  grep -E "^\[" $OUT/$name.log | grep -v " ok  robust yes" | head -10
}
rm -rf results/cc
suite medium_default 250
suite medium_cache_cold 170 --compile-cache results/cc
suite medium_cache_warm 150 --compile-cache results/cc
python3 - /tmp/medium_default /tmp/medium_cache_cold /tmp/medium_cache_warm <<'PY' | tee $OUT/summary.txt
import collections, json, sys
for folder in sys.argv[1:]:
    try:
        records = [json.loads(l) for l in open(folder + "/records.jsonl")]
    except FileNotFoundError:
        print(folder, "no records"); continue
    phases = collections.Counter()
    for r in records:
        for k, v in r.get("phases", {}).items():
            phases[k] += v
    status = collections.Counter((r["status"], r["result"].get("robustness_passed")) for r in records)
    wall = phases.pop("wall_s", 0.0)
    hits = collections.Counter(str(r.get("compile", {}).get("cache", {}).get("hit")) for r in records)
    stops = collections.Counter(r["timing"]["stopping"].split(":")[0] for r in records if "timing" in r)
    print(folder, len(records), "records;", dict(status), "cache hits", dict(hits), "stops", dict(stops))
    print("  phases (s):", {k: round(v, 1) for k, v in sorted(phases.items())}, "sum", round(sum(phases.values()), 1),
          "evaluations' wall", round(wall, 1))
    worst = max(abs(sum(v for k, v in r["phases"].items() if k != "wall_s") - r["phases"]["wall_s"]) / r["phases"]["wall_s"]
                for r in records)
    print("  largest |sum(phases) - wall| / wall:", round(worst, 4),
          " compile_s sum", round(sum(r.get("compile", {}).get("compile_s", 0) for r in records), 1))
PY
for n in medium_default medium_cache_cold medium_cache_warm; do
  [ -f /tmp/$n/records.jsonl ] && gzip -c /tmp/$n/records.jsonl > $OUT/$n.records.jsonl.gz
done
