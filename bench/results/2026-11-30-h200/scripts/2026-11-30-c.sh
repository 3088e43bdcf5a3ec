#!/usr/bin/env bash
# Device call C of 2026-11-30 (one NVIDIA H200): ncu fidelity with the write-then-read L2 flush
# (issue 5); level 2 at MEDIUM with the filters and the reworked tiled matmul, no timing (issues 4, 6);
# the harness matmul/softmax with artifacts captured by the background SASS job (issue 7).
cd "$(dirname "$0")/../../../.."
export OUT_FINAL=$OUT OUT=/tmp/callc
mkdir -p $OUT
log=$OUT_FINAL/callc.log
echo "== fidelity" >>$log; timeout 75 bench/fidelity.sh >>$log 2>&1
echo "== l2_medium_filters" >>$log
PB_TIME_LIMIT=100 bench/gpu_run.sh l2_medium_filters --level 2 --size medium --timeout 60 --no-timing --artifacts none >/dev/null 2>&1
tail -30 $OUT/l2_medium_filters.log >>$log
echo "== artifacts" >>$log
PB_TIME_LIMIT=40 bench/gpu_run.sh artifacts_check matmul softmax --size medium --timeout 60 --no-timing >/dev/null 2>&1
tail -5 $OUT/artifacts_check.log >>$log
tar -C /tmp -czf $OUT_FINAL/callc.tar.gz callc
