#!/usr/bin/env bash
# Issue 18 (and 16) on the H200, call 1 (a fresh machine):
#  1. the whole suite at MEDIUM in bfloat16, default flags (timing, artifacts, default --jobs);
#  2. the whole suite at MEDIUM in float32, default flags: issue 16's "<= 4 min on a fresh
#     machine", after the reference inputs left the device lease.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-dtypes/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
{ nvidia-smi -L; nproc; free -g | head -2; python3 -c "import jax, jaxlib; print('jax', jax.__version__)"; } > $OUT/machine.txt 2>&1
suite() {  # NAME LIMIT [flags]
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  timeout -s INT $limit build/pallasbench run --size medium --out /tmp/$name "$@" > $OUT/$name.log 2>&1
  local rc=$?
  python3 -c "import sys; print(f'$name rc $rc wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" $start $(date +%s.%N) \
    | tee -a $OUT/$name.log
  tail -3 $OUT/$name.log | head -2
  [ -f /tmp/$name/records.jsonl ] && gzip -c /tmp/$name/records.jsonl > $OUT/$name.records.jsonl.gz
}
suite medium_bf16 300 --dtype bfloat16
suite medium_f32 260
python3 bench/run_summary.py /tmp/medium_bf16 /tmp/medium_f32 | tee $OUT/summary.txt
