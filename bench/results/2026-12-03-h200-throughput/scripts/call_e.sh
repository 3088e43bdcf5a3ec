#!/usr/bin/env bash
# Issue 16 and 18 on the H200, call E (a fresh machine), on the binary of call D plus the setup
# and teardown overlap:
#  1. the whole suite at MEDIUM with --compile-cache results/cc, cold (this run fills it);
#  2. the same again, warm, with --trace: the "<= 2 min with a warm --compile-cache" goal;
#  3. the whole suite at MEDIUM in float16, default flags (issue 18), for what time is left.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-throughput/scripts/call_e.sh
cd "$(dirname "$0")/../../../.."
P=build/pallasbench
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
{ nvidia-smi -L; nproc; free -g | head -2; python3 -c "import jax, jaxlib; print('jax', jax.__version__)"; } > /tmp/machine.txt 2>&1
timed() {  # NAME LIMIT command...
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  timeout -s INT $limit "$@" --out /tmp/$name > $OUT/$name.log 2>&1
  local rc=$?
  python3 -c "import sys; print(f'$name rc $rc wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" $start $(date +%s.%N) \
    | tee -a $OUT/$name.log
  tail -3 $OUT/$name.log | head -2
  [ -f /tmp/$name/records.jsonl ] && gzip -c /tmp/$name/records.jsonl > $OUT/$name.records.jsonl.gz
}
rm -rf results/cc
timed medium_cache_cold 200 $P run --size medium --compile-cache results/cc
timed medium_cache_warm 140 $P run --size medium --compile-cache results/cc --trace /tmp/warm.trace.json
[ -s /tmp/warm.trace.json ] && gzip -c /tmp/warm.trace.json > $OUT/medium_cache_warm.trace.json.gz
timed medium_f16 190 $P run --size medium --dtype float16
{ cat /tmp/machine.txt; python3 bench/run_summary.py /tmp/medium_cache_cold /tmp/medium_cache_warm /tmp/medium_f16; } | tee $OUT/summary.txt
