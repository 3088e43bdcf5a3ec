#!/usr/bin/env bash
# Issue 14: the H200 failure records of 2026-12-02-b.sh again (its evals lacked --resume, so only
# the first was recorded), plus the lock and --device gpu paths on a GPU machine.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-02-h200-schema/scripts/2026-12-02-c.sh
cd "$(dirname "$0")/../../../.."
C=tests/e2e/candidates
A=tests/adversarial
P=build/pallasbench
for c in $C/relu_raises.py $C/relu_nan.py $C/relu_aborts.py $C/relu_bad_bytes.py $A/relu_stale_output.py \
         $A/matmul_xla_dot.py $C/relu_wrong_shape.py; do
  t=relu; case $c in *matmul*) t=matmul;; esac
  timeout 120 $P eval --task $t --candidate $c --device gpu --artifacts files --out $OUT/fail --resume >> $OUT/fail.log 2>&1
  rc=$?; echo "$(basename $c) rc $rc"  # (as run on 2026-12-02 it echoed basename's status, 0)
done
timeout 120 $P eval --task relu --candidate $C/relu_hangs.py --timeout 5 --out $OUT/fail --resume >> $OUT/fail.log 2>&1
echo "hangs rc $?"
grep -E "^\[" $OUT/fail.log
rm -rf $OUT/fail/artifacts  # the record keeps each file's path and size
# Two writers on one records file on this machine: the second is refused, a queued one waits.
timeout 120 $P run relu add --device gpu --out $OUT/lock > $OUT/lock_a.log 2>&1 &
sleep 3
timeout 60 $P run relu --device gpu --out $OUT/lock --resume > $OUT/lock_b.log 2>&1; echo "second writer rc $?"
tail -1 $OUT/lock_b.log
timeout 120 $P run relu add exp --device gpu --out $OUT/lock --resume --wait-lock > $OUT/lock_c.log 2>&1; echo "queued rc $?"
wait
grep -E "waiting|recorded before|tasks:" $OUT/lock_c.log
wc -l $OUT/lock/records.jsonl; rm -rf $OUT/lock/artifacts
