#!/usr/bin/env bash
# Device call B of 2026-11-30 (one NVIDIA H200): which XLA dump options give PTX (issue 7); the six
# harness tasks at MEDIUM with CUPTI timing and artifacts, again for repeatability, the ncu
# fidelity check (issue 5); level 2 at MEDIUM with filters and device timing (issues 4, 6).
# Everything lands in /tmp/callb and comes back as $OUT/callb.tar.gz, plus the log $OUT/callb.log.
cd "$(dirname "$0")/../../../.."
export OUT_FINAL=$OUT OUT=/tmp/callb
mkdir -p $OUT
six="relu add softmax layernorm matmul reduce_sum"
log=$OUT_FINAL/callb.log
run() { echo "== $*" >>$log; "$@" >>$log 2>&1; tail -${TAILN:-12} $OUT/$2.log >>$log 2>/dev/null; }
echo "== dump variants" >>$log
for case in ${DUMP_CASES:-relu:small matmul:medium}; do
  timeout 60 python3 bench/results/2026-11-30-h200/scripts/dump_variants.py ${case%:*} ${case#*:} 2>/dev/null | tee -a $OUT/dump_variants.jsonl >>$log
done
# The cheapest variant whose PTX holds the kernel's entry, for the capture compiles below.
export PALLASBENCH_XLA_DUMP_OPTIONS=$(python3 - <<'PY'
import json
rows = [json.loads(l) for l in open("/tmp/callb/dump_variants.jsonl")]
for variant in ("llvmir", "dump_only", "llvmir_emitter_triton", "llvmir_emitter_all"):
    ok = [r for r in rows if r["variant"] == variant]
    if ok and all(r["entries"] for r in ok):
        opts = {"dump_only": {"xla_gpu_dump_llvmir": False}, "llvmir": {},
                "llvmir_emitter_triton": {"xla_dump_emitter_re": "triton"},
                "llvmir_emitter_all": {"xla_dump_emitter_re": ".*"}}[variant]
        print(json.dumps(opts)); break
else:
    print("{}")
PY
)
echo "capture options: $PALLASBENCH_XLA_DUMP_OPTIONS" >>$log
PB_TIME_LIMIT=${A_LIMIT:-110} run bench/gpu_run.sh harness_cupti $six --size medium --timeout 100
cp -r /tmp/pb-harness_cupti/artifacts $OUT/harness_cupti_artifacts 2>/dev/null
echo "== fidelity" >>$log; timeout ${B_LIMIT:-100} bench/fidelity.sh >>$log 2>&1
PB_TIME_LIMIT=${C_LIMIT:-90} run bench/gpu_run.sh harness_cupti_repeat $six --size medium --timeout 100 --artifacts none
[ "${1:-}" = short ] || TAILN=30 PB_TIME_LIMIT=140 run bench/gpu_run.sh l2_medium --level 2 --size medium --timeout 100 --timing-budget 1 --artifacts inline
tar -C /tmp -czf $OUT_FINAL/callb.tar.gz callb
ls -la $OUT_FINAL
