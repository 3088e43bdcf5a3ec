#!/usr/bin/env bash
# Our CUPTI median vs Nsight Compute's gpu__time_duration.sum (boost clocks left alone:
# --clock-control none; caches flushed by ncu before each kernel, as we flush the L2) for five
# suite kernels from under 10 us to over 1 ms. Output: $OUT/fidelity.txt (one JSON line per kernel
# for ours, the ncu CSV rows for theirs), summarised by bench/fidelity_table.py.
# usage: bench/fidelity.sh [TASK:SIZE ...]   (default: an empty kernel, then seven from ~2 us to ~1.8 ms)
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp}/fidelity.txt
: >"$out"
cases=${*:-empty:- relu:small softmax:medium layernorm:large softmax:large relu:large add:large matmul:large}
for case in $cases; do
  set -- ${case%:*} ${case#*:}
  python3 bench/fidelity.py ours "$1" "$2" 2>/dev/null | sed 's/^/ours /' >>"$out"
  ncu --csv --clock-control none --cache-control all --metrics gpu__time_duration.sum \
      --launch-count 60 python3 bench/fidelity.py target "$1" "$2" 40 2>/dev/null |
    grep '^"[0-9]' | sed "s/^/ncu $1 $2 /" >>"$out"
done
cat "$out" | cut -c1-300
