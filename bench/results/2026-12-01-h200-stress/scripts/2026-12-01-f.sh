#!/usr/bin/env bash
# Device call F of 2026-12-01 (one NVIDIA H200), issue 13: layernorm's kernel before (A) and after
# (B) its pivot shift, A/B with kernel_ab.py (the old one fails the offset stress case, so
# the harness no longer times it).
cd "$(dirname "$0")/../../../.."
S=bench/results/2026-12-01-h200-stress/scripts
mkdir -p "$OUT"
timeout 200 python3 $S/kernel_ab.py layernorm medium $S/layernorm_before_pivot.py \
  tasks/level1/layernorm.py 30 > "$OUT/layernorm_ab.txt" 2>&1
cat "$OUT/layernorm_ab.txt" | tail -4
exit 0
