#!/usr/bin/env bash
# Captures real compiler output of suite kernels on the GPU machine: XLA's dump (HLO, thunk
# sequence, Triton pass trail, PTX), ptxas's resource report and cuobjdump's SASS of each PTX
# module, plus compile time with and without the dump flags (issue 7's overhead budget).
# usage (device tool): bench/capture_compiler_fixtures.sh SIZE TASK...   -> $OUT/compiler_<SIZE>.tar.gz
set -uo pipefail
cd "$(dirname "$0")/.."
size=$1
shift
out=${OUT:-/tmp/pb-out}
work=/tmp/pb-compiler
rm -rf "$work" && mkdir -p "$work" "$out"
log="$work/compile_times.jsonl"
for task in "$@"; do
  for rep in 1 2; do
    XLA_FLAGS= python3 bench/compile_task.py "$task" "$size" 2>/dev/null | sed 's/}$/, "dump": false}/' >>"$log"
    dump="$work/$task/xla_dump"
    rm -rf "$dump"
    XLA_FLAGS="--xla_dump_to=$dump --xla_dump_hlo_as_text --xla_gpu_dump_llvmir=true --xla_dump_emitter_re=.*" \
      python3 bench/compile_task.py "$task" "$size" 2>/dev/null | sed 's/}$/, "dump": true}/' >>"$log"
  done
  for ptx in "$work/$task"/xla_dump/*.ptx; do
    [ -e "$ptx" ] || continue
    base=${ptx%.ptx}
    start=$(date +%s.%N)
    ptxas -arch=sm_90a -O3 -v "$ptx" -o "$base.cubin" 2>"$base.ptxas.txt"
    cuobjdump -sass "$base.cubin" >"$base.sass" 2>&1
    end=$(date +%s.%N)
    echo "{\"task\": \"$task\", \"ptx\": \"$(basename "$ptx")\", \"ptxas_cuobjdump_s\": $(echo "$end - $start" | bc)}" >>"$log"
    rm -f "$base.cubin"
  done
done
cat "$log"
ls -la "$work"/*/xla_dump | head -100
tar -C "$work" -czf "$out/compiler_$size.tar.gz" .
