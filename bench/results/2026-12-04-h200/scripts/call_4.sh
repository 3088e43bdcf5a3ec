#!/usr/bin/env bash
# Call 4: after fused_relu_matmul (Mosaic GPU, relu a pass of its own), gated_mlp (Mosaic GPU at
# LARGE), batched_matmul (batched Mosaic GPU at LARGE) and the launch check's Mosaic kernel names:
# the whole suite at MEDIUM float32; at MEDIUM bfloat16 the Mosaic tasks (mlp_block was
# timing_rejected in call 1); at LARGE float32 the changed tasks and two Mosaic ones, resumed
# into call 3's records with theirs removed, so the file again holds one record per task.
# usage (device tool): OUT=$OUT bash bench/results/2026-12-04-h200/scripts/call_4.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
timed_run medium_f32 190 run --size medium
timed_run medium_bf16_mosaic 120 run --size medium --dtype bfloat16 mlp_block matmul linear_bias_relu swiglu fused_relu_matmul
CHANGED="fused_relu_matmul gated_mlp batched_matmul matmul mlp_block"
rm -rf /tmp/large_f32 && mkdir -p /tmp/large_f32
python3 - "$CHANGED" <<'PY'
import json, sys
drop = set(sys.argv[1].split())
lines = open("bench/results/2026-12-04-h200/call_3/large_f32.records.jsonl").read().splitlines()
kept = [l for l in lines if json.loads(l)["kernel_name"] not in drop]
open("/tmp/large_f32/records.jsonl", "w").write("".join(l + "\n" for l in kept))
print(f"kept {len(kept)} of {len(lines)} LARGE records")
PY
timed_run large_f32 260 run --size large -j 5 --resume $CHANGED
python3 bench/run_summary.py /tmp/medium_f32 /tmp/medium_bf16_mosaic /tmp/large_f32 > $OUT/summary.txt 2>&1
tail -12 $OUT/summary.txt
