#!/usr/bin/env bash
# The session's last device minutes (a fresh machine), on the final binary: four tasks at MEDIUM
# in float16 (the large case's factor now in the record), and a two-request batch whose requests
# name their dtypes.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-dtypes/scripts/call_f.sh
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
timeout -s INT 70 build/pallasbench run mlp_block matmul softmax add --size medium --dtype float16 --jobs 4 \
  --out /tmp/f16 > $OUT/final_f16.log 2>&1
echo "rc $?" >> $OUT/final_f16.log
src=$(python3 -c 'import json; print(json.dumps(open("tasks/level1/relu.py").read()))')
printf '{"id": "bf16", "task": "relu", "size": "medium", "dtype": "bfloat16", "source": %s}\n{"id": "f32", "task": "relu", "size": "medium", "source": %s}\n' "$src" "$src" > /tmp/req.jsonl
timeout -s INT 50 build/pallasbench eval --batch /tmp/req.jsonl --jobs 2 --out /tmp/batch > $OUT/final_batch.log 2>&1
echo "rc $?" >> $OUT/final_batch.log
python3 - <<'PY' | tee $OUT/final_summary.txt
import json
for path in ("/tmp/f16/records.jsonl", "/tmp/batch/records.jsonl"):
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        print(path, e); continue
    for r in map(json.loads, lines):
        t = r.get("timing") or {}
        print(r.get("request_id") or "", r["kernel_name"], r["dtype"], r["status"], (r.get("result") or {}).get("robustness_passed"),
              [(s["case"], s.get("large_factor")) for s in (r.get("correctness") or {}).get("stress", [])],
              round(t.get("speedup") or 0, 2))
PY
