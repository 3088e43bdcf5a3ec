#!/usr/bin/env bash
# Issue 14: GPU records at HEAD for the record-schema survey (every field's type across kernels,
# failures, timeouts, inline and file artifacts).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-02-h200-schema/scripts/2026-12-02-a.sh
cd "$(dirname "$0")/../../../.."
set -x
C=tests/e2e/candidates
A=tests/adversarial
timeout 400 build/pallasbench run --size small --out $OUT/suite > $OUT/suite.log 2>&1; echo "suite rc $?"
tail -5 $OUT/suite.log
for c in $C/relu_raises.py $C/relu_nan.py $C/relu_wrong_shape.py $C/relu_aborts.py; do
  timeout 120 build/pallasbench eval --task relu --candidate $c --out $OUT/fail_$(basename $c .py) > /dev/null 2>&1; echo "$c rc $?"
done
timeout 120 build/pallasbench eval --task relu --candidate $C/relu_hangs.py --timeout 5 --out $OUT/fail_hangs > /dev/null 2>&1; echo "hangs rc $?"
timeout 120 build/pallasbench eval --task relu --candidate $C/relu_good.py --artifacts inline --out $OUT/inline > /dev/null 2>&1; echo "inline rc $?"
timeout 120 build/pallasbench eval --task relu --candidate $A/relu_stale_output.py --out $OUT/stale > /dev/null 2>&1; echo "stale rc $?"
du -sh $OUT/*
