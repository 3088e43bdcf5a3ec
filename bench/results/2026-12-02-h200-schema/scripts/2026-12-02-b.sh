#!/usr/bin/env bash
# Issue 14: schema-2 records on the H200 for the fixture and the schema (timing, inline and file
# artifacts, failures, a timeout, a timing rejection), each checked against docs/record_schema.json;
# the reliability paths that differ on a GPU machine (--device gpu works, lock, resume).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-02-h200-schema/scripts/2026-12-02-b.sh
cd "$(dirname "$0")/../../../.."
C=tests/e2e/candidates
A=tests/adversarial
P=build/pallasbench
timeout 300 $P run relu matmul softmax layernorm flash_attention kmer_count embedding_lookup reduce_sum \
  cross_entropy conv1d_genomic fused_matmul_bias one_hot --size small --device gpu --artifacts inline \
  --out $OUT/suite > $OUT/suite.log 2>&1; echo "suite rc $?"; tail -16 $OUT/suite.log
timeout 60 $P run relu --size small --device gpu --out $OUT/suite --resume > $OUT/resume.log 2>&1; echo "resume rc $?"
grep -c "recorded before" $OUT/resume.log
for c in $C/relu_raises.py $C/relu_nan.py $C/relu_aborts.py $C/relu_bad_bytes.py $A/relu_stale_output.py \
         $A/matmul_xla_dot.py; do
  t=relu; case $c in *matmul*) t=matmul;; esac
  timeout 120 $P eval --task $t --candidate $c --device gpu --artifacts files --out $OUT/fail --resume >> $OUT/fail.log 2>&1 \
    || [ $? -lt 4 ] || echo "eval $c rc $?"
done
timeout 120 $P eval --task relu --candidate $C/relu_hangs.py --timeout 5 --out $OUT/fail --resume >> $OUT/fail.log 2>&1
grep -E "^\[" $OUT/fail.log
rm -rf $OUT/fail/artifacts  # the record keeps each file's path and size
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
sys.path.insert(0, "python")
from pallasbench import record_schema
schema = record_schema.load()
for f in sorted(Path(sys.argv[1]).glob("*/records.jsonl")):
    for line in f.read_text().splitlines():
        r = json.loads(line)
        problems = record_schema.check(r, schema)
        print(f.parent.name, r["kernel_name"], r["status"], len(line), "bytes;", len(problems), "schema problems",
              problems[:8])
PY
