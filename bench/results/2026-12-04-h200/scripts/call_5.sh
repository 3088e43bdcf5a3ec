#!/usr/bin/env bash
# Call 5: batched_matmul again at MEDIUM and LARGE float32 (call 4's records were not robust:
# its task file imported the harness's worker module), resumed into call 4's records with its
# own removed; mlp_block at MEDIUM bfloat16 (its biases now widen in the kernel); the bf16 tier
# at LARGE for the matmul and attention families.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200/scripts/call_5.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
for size in medium large; do
  rm -rf /tmp/${size}_f32 && mkdir -p /tmp/${size}_f32
  zcat bench/results/2026-12-04-h200/call_4/${size}_f32.records.jsonl.gz \
    | grep -v '"kernel_name": *"batched_matmul"' > /tmp/${size}_f32/records.jsonl
  echo "$size: $(wc -l < /tmp/${size}_f32/records.jsonl) records kept"
  timed_run ${size}_f32 120 run --size $size --resume batched_matmul
done
timed_run medium_bf16_mlp 60 run --size medium --dtype bfloat16 mlp_block
FAMILIES="batched_matmul matmul fused_matmul_bias fused_relu_matmul linear_bias_relu matmul_gelu matmul_relu matmul_silu gated_mlp mlp_block geglu swiglu attention_forward flash_attention multi_head_attention qk_softmax"
timed_run large_bf16_families ${LARGE_LIMIT:-300} run --size large --dtype bfloat16 -j 5 $FAMILIES
python3 bench/run_summary.py /tmp/medium_f32 /tmp/large_f32 /tmp/medium_bf16_mlp /tmp/large_bf16_families > $OUT/summary.txt 2>&1
tail -14 $OUT/summary.txt
