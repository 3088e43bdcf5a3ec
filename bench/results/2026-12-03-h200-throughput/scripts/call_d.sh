#!/usr/bin/env bash
# Issue 16 on the H200, call D (a fresh machine), after the timing's untimed first call under a
# shared lease, the recheck on batches 1, 2, 4, 8, ..., and the correctness reference compiled
# outside the device lease (commits e87ed30..):
#  1. the whole suite at MEDIUM with default flags, with --trace: the "<= 4 min on a fresh
#     machine" goal, and the timeline of where the time went;
#  2. 50 candidates of softmax at MEDIUM through one `eval --batch` (bench/batch_requests.py),
#     with --trace: the "<= 5 s each, end to end" goal.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-03-h200-throughput/scripts/call_d.sh
cd "$(dirname "$0")/../../../.."
P=build/pallasbench
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3
{ nvidia-smi -L; nproc; free -g | head -2; python3 -c "import jax, jaxlib; print('jax', jax.__version__)"; } > $OUT/machine.txt 2>&1
timed() {  # NAME LIMIT command...
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  timeout -s INT $limit "$@" --out /tmp/$name --trace /tmp/$name.trace.json > $OUT/$name.log 2>&1
  local rc=$?
  python3 -c "import sys; print(f'$name rc $rc wall {float(sys.argv[2]) - float(sys.argv[1]):.1f} s')" $start $(date +%s.%N) \
    | tee -a $OUT/$name.log
  tail -3 $OUT/$name.log | head -2
  [ -f /tmp/$name/records.jsonl ] && gzip -c /tmp/$name/records.jsonl > $OUT/$name.records.jsonl.gz
  [ -s /tmp/$name.trace.json ] && gzip -c /tmp/$name.trace.json > $OUT/$name.trace.json.gz
}
timed medium_default 250 $P run --size medium
python3 bench/batch_requests.py softmax 50 --size medium > /tmp/requests.jsonl
timed batch50 270 $P eval --batch /tmp/requests.jsonl --size medium
python3 bench/run_summary.py /tmp/medium_default /tmp/batch50 | tee $OUT/summary.txt
