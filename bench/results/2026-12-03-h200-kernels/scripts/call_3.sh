#!/usr/bin/env bash
# Issue 19 on the H200, call 3, with the configurations chosen from call 2 shipped in the task
# files (tuning.Tuned tables): the whole suite at MEDIUM in float32 and in bfloat16, default
# flags; then LARGE float32 for the tasks whose tables or kernels changed, for what time is left.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-kernels/scripts/call_3.sh
cd "$(dirname "$0")/../../../.."
P=build/pallasbench
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
timed() {  # NAME LIMIT command...
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  timeout -s INT $limit "$@" --out /tmp/$name > $OUT/$name.log 2>&1
  local rc=$?
  python3 -c "import sys; print(f'$name rc $rc wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" $start $(date +%s.%N) \
    | tee -a $OUT/$name.log
  [ -f /tmp/$name/records.jsonl ] && gzip -c /tmp/$name/records.jsonl > $OUT/$name.records.jsonl.gz
}
timed medium_f32 200 $P run --size medium
timed medium_bf16 200 $P run --size medium --dtype bfloat16
timed large_f32 ${LARGE_LIMIT:-140} $P run --size large flash_attention qk_softmax multi_head_attention \
  attention_forward transformer_block pairwise_distance sequence_match pwm_scan gather
python3 bench/run_summary.py /tmp/medium_f32 /tmp/medium_bf16 /tmp/large_f32 > $OUT/summary.txt 2>&1
tail -5 $OUT/summary.txt
