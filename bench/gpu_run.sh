#!/usr/bin/env bash
# Runs `pallasbench run` on the GPU machine and leaves compressed records and logs in $OUT.
# usage: bench/gpu_run.sh NAME [run arguments...]   (build/pallasbench built beforehand)
set -uo pipefail
name=$1
shift
out=${OUT:-bench/results/tmp}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
build/pallasbench run "$@" --out "/tmp/pb-$name" 2>&1 | tee "$out/$name.log"
status=${PIPESTATUS[0]}
gzip -c "/tmp/pb-$name/records.jsonl" > "$out/$name.records.jsonl.gz"
echo "$name: exit $status" | tee -a "$out/$name.log"
