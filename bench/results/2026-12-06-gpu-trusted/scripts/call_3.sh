#!/usr/bin/env bash
# Device call 3 (issue 37): the containment batch once more, after the retry alone took a lane
# alone's device share (every lane's) instead of the lane's own.
set -uo pipefail
source bench/device_lib.sh
machine
start=$(date +%s.%N)
timeout -s INT 200 bash bench/containment_gpu.sh medium > "$OUT/containment.log" 2>&1
_wall containment $? "$start" | tee -a "$OUT/containment.log"
tar czf "$OUT/containment.tar.gz" -C "$OUT" containment 2>/dev/null && rm -rf "$OUT/containment"
head -10 "$OUT/containment.log"; tail -4 "$OUT/containment.log"
