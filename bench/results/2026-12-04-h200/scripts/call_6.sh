#!/usr/bin/env bash
# Call 6: LARGE bfloat16 again for fused_relu_matmul (now the Mosaic GPU kernel with its relu
# pass) and qk_softmax (float32's stored-scores split), resumed into call 5's bf16 family records
# with theirs removed; then bench/probe.py over qk_softmax's split8 variants at LARGE bfloat16
# (the evidence for its table entry).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200/scripts/call_6.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
rm -rf /tmp/large_bf16_families && mkdir -p /tmp/large_bf16_families
zcat bench/results/2026-12-04-h200/call_5/large_bf16_families.records.jsonl.gz \
  | grep -v '"kernel_name":"fused_relu_matmul"\|"kernel_name":"qk_softmax"' > /tmp/large_bf16_families/records.jsonl
echo "kept $(wc -l < /tmp/large_bf16_families/records.jsonl) records"
timed_run large_bf16_families 100 run --size large --dtype bfloat16 --resume fused_relu_matmul qk_softmax
timed_probe qk_softmax_bf16 80 --tasks qk_softmax --sizes large --dtypes bfloat16 --variants split8 --samples 30
probe_done
grep -A12 "qk_softmax" /tmp/probe/probe.md 2>/dev/null | head -20 > $OUT/probe_table.txt; cat $OUT/probe_table.txt
