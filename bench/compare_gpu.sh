#!/usr/bin/env bash
# compare's GPU acceptance (issue 39): on the GPU machine, with build/pallasbench built.
#  1. identical code: relu_rows.py against itself, REPS evaluations each, alternating in one run
#     (compare --task): no change (SAME or AMBIGUOUS), exit 0;
#  2. a 20% slower kernel: relu_rows.py against relu_rows_slowed.py (the same kernel plus a loop
#     over a fifth of the rows again): SLOWER with p < 0.01, exit 1;
#  3. two sets of runs of the suite's own kernels (softmax, layernorm: the issue's noisy pair),
#     RUNS `run`s a side, alternating, compared as repetitions: no FASTER/SLOWER, exit 0.
# Prints one PASS/FAIL line per check and the tables; leaves records and JSON in $OUT/compare_gpu.
# usage: bench/compare_gpu.sh [SIZE]   (default medium; REPS=7, RUNS=3 in the environment)
# On the GPU machine, after `make build`: OUT=bench/results/DATE-compare bench/compare_gpu.sh
# (14 compare --task evaluations and 6 runs of two tasks at MEDIUM: about 5 minutes).
set -uo pipefail
size=${1:-medium}
reps=${REPS:-7}
runs=${RUNS:-3}
device=${DEVICE:-gpu}  # DEVICE=cpu: a smoke test of the script (wall-clock rows are never compared)
out=${OUT:-/tmp}/compare_gpu
cand=tests/candidates/compare
rm -rf "$out" && mkdir -p "$out"
pb=build/pallasbench

$pb compare --task relu "$cand/relu_rows.py" "$cand/relu_rows.py" --size "$size" --device "$device" \
  --repetitions "$reps" --out "$out/identical" --json >"$out/identical.json" 2>"$out/identical.log"
identical_rc=$?
$pb compare --task relu "$cand/relu_rows.py" "$cand/relu_rows_slowed.py" --size "$size" --device "$device" \
  --repetitions "$reps" --out "$out/slowed" --json >"$out/slowed.json" 2>"$out/slowed.log"
slowed_rc=$?
base=() new=()
for i in $(seq 1 "$runs"); do  # A B B A ...: a drift of the machine falls on both sides
  first=a second=b
  [ $((i % 2)) -eq 0 ] && first=b second=a
  for side in $first $second; do
    $pb run softmax layernorm --size "$size" --device "$device" --out "$out/runs/$side$i" >>"$out/runs.log" 2>&1
  done
  base+=("$out/runs/a$i") new+=("$out/runs/b$i")
done
$pb compare "$(IFS=,; echo "${base[*]}")" "$(IFS=,; echo "${new[*]}")" --json >"$out/suite.json" 2>>"$out/runs.log"
suite_rc=$?

python3 - "$out" "$identical_rc" "$slowed_rc" "$suite_rc" <<'PY'
import json, sys
out, rcs = sys.argv[1], dict(zip(("identical", "slowed", "suite"), map(int, sys.argv[2:])))
fails = 0
def check(name, ok, what):
    global fails
    fails += not ok
    print(f"{'PASS' if ok else 'FAIL'} {name}: {what} (exit {rcs[name]})")
def rows(name):
    try:
        return json.load(open(f"{out}/{name}.json"))["rows"]
    except Exception as e:
        return [{"verdict": f"no result ({e})"}]
for name in ("identical", "slowed", "suite"):
    for r in rows(name):
        change = r.get("change")
        print(f"  {name}: {r.get('task')} {r.get('size')} {r['verdict']} change "
              f"{'-' if change is None else f'{100 * change:+.2f}%'} p {r.get('p_value')} {r.get('note', '')}")
(r,) = rows("identical")[:1]
check("identical", rcs["identical"] == 0 and r["verdict"] in ("SAME", "AMBIGUOUS"), f"{r['verdict']}, want no change")
(r,) = rows("slowed")[:1]
p = r.get("p_value")
check("slowed", rcs["slowed"] == 1 and r["verdict"] == "SLOWER" and p is not None and p < 0.01,
      f"{r['verdict']} p={p}, want SLOWER with p < 0.01")
verdicts = [r["verdict"] for r in rows("suite")]
check("suite", rcs["suite"] == 0 and not {"FASTER", "SLOWER"} & set(verdicts), f"{verdicts}, want no FASTER/SLOWER")
sys.exit(1 if fails else 0)
PY
