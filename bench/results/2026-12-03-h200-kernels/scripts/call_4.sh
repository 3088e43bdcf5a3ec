#!/usr/bin/env bash
# Issue 19 on the H200, call 4: (1) attention_forward at LARGE float32 with the heuristic's tiles
# (call 3's tuned tiles failed its large stress case); (2) the whole suite at MEDIUM in float16:
# the shipped tables' float16 entries fall back to bfloat16's, never run at float16 before;
# (3) transformer_block's float16 variants (split TF32 dots) in the probe, for the record.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-kernels/scripts/call_4.sh
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
timed large_attention_forward 60 $P run --size large attention_forward
timed medium_f16 180 $P run --size medium --dtype float16
OUT=$OUT timeout -s INT 45 python3 bench/probe.py --tasks transformer_block --sizes medium --dtypes float16 \
  --samples 30 --budget-s 40 > $OUT/probe.log 2>&1
python3 bench/run_summary.py /tmp/large_attention_forward /tmp/medium_f16 > $OUT/summary.txt 2>&1
tail -4 $OUT/summary.txt
