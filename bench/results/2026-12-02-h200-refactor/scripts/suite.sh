#!/usr/bin/env bash
# Issue 15 on the H200: the restructured harness (stages, typed protocol, the warm-up rule in C++)
# and the task files rewritten over the kernel families (python/pallasbench/kernels/) must give
# the same verdicts on the GPU as on the CPU.
#  1. the whole suite at SMALL, no timing: every kernel compiles with Triton and is correct and
#     robust (--seed 7, as the CPU runs of bench/results/2026-12-02-cpu/);
#  2. six tasks at MEDIUM with CUPTI timing and inline artifacts: the timing protocol (exact
#     warm-up and sample counts, warmup_us) and the compiler capture on the device;
#  3. three adversarial candidates whose verdict needs the GPU.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-02-h200-refactor/scripts/suite.sh
cd "$(dirname "$0")/../../../.."
P=build/pallasbench
export PYTHONUNBUFFERED=1
start=$(date +%s)
timeout 330 $P run --size small --device gpu --no-timing --artifacts none --seed 7 --out $OUT/small \
  > $OUT/small.log 2>&1; echo "small rc $? after $(( $(date +%s) - start )) s"
tail -4 $OUT/small.log
grep -v " ok " $OUT/small.log | grep -E "^\[" | head -20
timeout 150 $P run relu softmax layernorm matmul reduce_sum flash_attention --size medium --device gpu \
  --artifacts inline --seed 7 --out $OUT/medium > $OUT/medium.log 2>&1; echo "medium rc $? after $(( $(date +%s) - start )) s"
tail -10 $OUT/medium.log
for c in tests/adversarial/relu_stale_output.py tests/adversarial/softmax_xla.py tests/adversarial/relu_replay_cache.py; do
  t=$(basename $c .py); t=${t%%_*}
  timeout 60 $P eval --task $t --candidate $c --device gpu --artifacts none --out $OUT/adversarial --resume \
    >> $OUT/adversarial.log 2>&1
  echo "eval $(basename $c) rc $?"
done
grep -E "^\[" $OUT/adversarial.log
python3 - "$OUT" <<'PY'
import json, sys
from pathlib import Path
for f in sorted(Path(sys.argv[1]).glob("*/records.jsonl")):
    for line in f.read_text().splitlines():
        r = json.loads(line)
        t = r.get("timing") or {}
        print(f.parent.name, r["kernel_name"], r["status"], r["result"]["robustness_passed"],
              t.get("timer"), t.get("median_us"), t.get("reference_median_us"), t.get("speedup"),
              (t.get("stopping") or "")[:40])
PY
for f in $OUT/*/records.jsonl; do gzip -f "$f"; done
echo "total $(( $(date +%s) - start )) s"
