#!/usr/bin/env bash
# Call 4: the whole suite at MEDIUM float32 in one run; then LARGE float32's map_blocks tasks
# again, resumed into call 3's records with theirs removed: call 3 ran every elementwise body on
# 128 KB blocks and the longer ones lost (gelu 0.75x, elu 0.74x, fused_gelu_bias 0.68x...); now
# only the streaming bodies (stream=True) take them.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200-3/scripts/call_4.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
rm -rf /tmp/medium_f32
timed_run medium_f32 ${MEDIUM_LIMIT:-210} run --size medium
AGAIN="relu add clamp exp maximum multiply hardswish leaky_relu rsqrt elu gelu log mish sigmoid silu softplus tanh fused_gelu_bias"
rm -rf /tmp/large_f32 && mkdir -p /tmp/large_f32
pattern=$(echo $AGAIN | sed 's/ /|/g')
zcat bench/results/2026-12-04-h200-3/call_3/large_f32.records.jsonl.gz \
  | grep -Ev "\"kernel_name\": *\"($pattern)\"" > /tmp/large_f32/records.jsonl
echo "large: $(wc -l < /tmp/large_f32/records.jsonl) records kept" | tee $OUT/large_kept.txt
timed_run large_f32 ${LARGE_LIMIT:-330} run --size large -j 8 --resume $AGAIN
python3 bench/run_summary.py /tmp/medium_f32 /tmp/large_f32 > $OUT/summary.txt 2>&1
tail -12 $OUT/summary.txt
