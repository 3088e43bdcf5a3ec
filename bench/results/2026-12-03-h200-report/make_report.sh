#!/usr/bin/env bash
# The HTML report of the H200 run of 2026-12-03 (bench/results/2026-12-03-h200-throughput: call B's
# MEDIUM suite run and call A's batch of 34 candidates) and its screenshot in headless Chromium.
# Runs on the CPU machine: the records were measured on the H200; drawing them needs no GPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
run="$root/bench/results/2026-12-03-h200-throughput"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zcat "$run/call_b.medium_default.records.jsonl.gz" > "$tmp/suite_medium.jsonl"
zcat "$run/call_a.batch50.records.jsonl.gz" > "$tmp/batch_candidates.jsonl"
"$root/build/pallasbench" report "$tmp/suite_medium.jsonl" "$tmp/batch_candidates.jsonl" --html "$here/report.html"
# The page names the files it read: name them as committed, not as the temporary copies.
sed -i "s|$tmp/suite_medium.jsonl|call_b.medium_default.records.jsonl.gz|g; s|$tmp/batch_candidates.jsonl|call_a.batch50.records.jsonl.gz|g" "$here/report.html"
chromium-headless-shell --no-sandbox --disable-gpu --hide-scrollbars --window-size=1300,4200 \
  --screenshot="$here/report.png" "file://$here/report.html" 2>/dev/null
