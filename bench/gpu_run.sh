#!/usr/bin/env bash
# Runs `pallasbench run` on the GPU machine and leaves compressed records, logs and (with
# --artifacts files) the artifact files in $OUT.
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
# --artifacts files writes PTX/SASS beside the records: bring them back with the records.
if [ -d "/tmp/pb-$name/artifacts" ]; then tar -C "/tmp/pb-$name" -czf "$out/$name.artifacts.tar.gz" artifacts; fi
echo "$name: exit $status" | tee -a "$out/$name.log"
