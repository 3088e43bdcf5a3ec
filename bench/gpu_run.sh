#!/usr/bin/env bash
# Runs `pallasbench run` on the GPU machine and leaves compressed records and logs in $OUT.
# usage: bench/gpu_run.sh NAME [run arguments...]   (build/pallasbench built beforehand)
# PB_TIME_LIMIT=SECONDS interrupts the run (SIGINT, as Ctrl-C) after that long: the records
# finished by then are kept and compressed, and a later `--resume` run can finish the rest.
set -uo pipefail
name=$1
shift
out=${OUT:-bench/results/tmp}
mkdir -p "$out"
export PYTHONUNBUFFERED=1
timeout -s INT "${PB_TIME_LIMIT:-0}" build/pallasbench run "$@" --out "/tmp/pb-$name" 2>&1 | tee "$out/$name.log"
status=${PIPESTATUS[0]}
gzip -c "/tmp/pb-$name/records.jsonl" > "$out/$name.records.jsonl.gz"
echo "$name: exit $status" | tee -a "$out/$name.log"
