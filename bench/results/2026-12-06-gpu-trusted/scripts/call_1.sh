#!/usr/bin/env bash
# Device call 1 (issue 37), from the repository root with OUT set; build/ carried.
# 1. bench/containment_gpu.sh at MEDIUM: the 15-lane batch of host and GPU memory hogs, tmpfs
#    fillers and 20 honest task files, then the honest relu with (128, 4096) blocks, timed. Alone.
# 2. Then, side by side: the corpus's flagless GPU cases at SMALL as one `eval --batch`
#    (bench/adversarial_batch.py), and the whole suite at MEDIUM without timing at 8 lanes (the
#    float64 reference, the platform's bound and the data-movement rule on every suite kernel).
set -uo pipefail
source bench/device_lib.sh
machine
start=$(date +%s.%N)
timeout -s INT 300 bash bench/containment_gpu.sh medium > "$OUT/containment.log" 2>&1
_wall containment $? "$start" | tee -a "$OUT/containment.log"
tar czf "$OUT/containment.tar.gz" -C "$OUT" containment 2>/dev/null && rm -rf "$OUT/containment"
start=$(date +%s.%N)
timeout -s INT 240 $P run --size medium --device gpu --no-timing --jobs 8 --out /tmp/suite_medium \
  > "$OUT/suite_medium.log" 2>&1 &
suite=$!
timeout -s INT 240 python3 bench/adversarial_batch.py small /tmp/adversarial > "$OUT/adversarial.log" 2>&1
_wall adversarial $? "$start" | tee -a "$OUT/adversarial.log"
wait $suite
_wall suite_medium $? "$start" | tee -a "$OUT/suite_medium.log"
[ -f /tmp/suite_medium/records.jsonl ] && gzip -c /tmp/suite_medium/records.jsonl > "$OUT/suite_medium.records.jsonl.gz"
[ -f /tmp/adversarial/out/records.jsonl ] && gzip -c /tmp/adversarial/out/records.jsonl > "$OUT/adversarial.records.jsonl.gz"
tail -4 "$OUT/containment.log"; tail -3 "$OUT/suite_medium.log"; tail -2 "$OUT/adversarial.log"
