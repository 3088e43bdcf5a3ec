# Shell functions for the device call scripts under bench/results/<date>-h200-*/scripts/: one copy
# of the timing and record keeping each call needs. Source it from the repository root with OUT
# set (the device tool's output folder).
P=build/pallasbench
export PYTHONUNBUFFERED=1 PALLASBENCH_PYTHON=python3

machine() {  # the GPU and jax version the call ran on
  { nvidia-smi -L; python3 -c "import jax; print('jax', jax.__version__)"; } > "$OUT/machine.txt" 2>&1
}

_wall() {  # NAME RC START: one line "NAME rc RC wall S s"
  python3 -c "import sys; print(f'{sys.argv[1]} rc {sys.argv[2]} wall {float(sys.argv[4]) - float(sys.argv[3]):.1f} s')" \
    "$1" "$2" "$3" "$(date +%s.%N)"
}

timed_run() {  # NAME LIMIT pallasbench-args...: a harness run, its log and gzipped records in OUT
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  timeout -s INT "$limit" $P "$@" --out "/tmp/$name" > "$OUT/$name.log" 2>&1
  _wall "$name" $? "$start" | tee -a "$OUT/$name.log"
  [ -f "/tmp/$name/records.jsonl" ] && gzip -c "/tmp/$name/records.jsonl" > "$OUT/$name.records.jsonl.gz"
}

timed_probe() {  # NAME LIMIT probe-args...: bench/probe.py, rows appended to /tmp/probe/probe.jsonl
  local name=$1 limit=$2; shift 2
  local start=$(date +%s.%N)
  mkdir -p /tmp/probe
  echo "== $name: $*" >> "$OUT/probe.log"
  OUT=/tmp/probe timeout -s INT "$limit" python3 bench/probe.py "$@" >> "$OUT/probe.log" 2>&1
  _wall "probe $name" $? "$start" | tee -a "$OUT/probe.log"
}

probe_done() {  # the probe rows, gzipped into OUT
  [ -f /tmp/probe/probe.jsonl ] && gzip -c /tmp/probe/probe.jsonl > "$OUT/probe.jsonl.gz"
}

compare_acceptance() {  # LIMIT: bench/compare_gpu.sh at MEDIUM (issue 39), its log and a tarball in OUT
  local start=$(date +%s.%N)
  REPS=7 RUNS=3 OUT=/tmp/cmp timeout -s INT "$1" bash bench/compare_gpu.sh medium > "$OUT/compare_gpu.log" 2>&1
  _wall compare_gpu $? "$start" | tee -a "$OUT/compare_gpu.log"
  tar czf "$OUT/compare_gpu.tgz" -C /tmp/cmp compare_gpu
}
