#!/usr/bin/env bash
# Call 2 (2026-12-06): the backends candidate set at SMALL (the size the CPU verdicts are given at),
# and call 1's two Mosaic GPU failures alone: batch_norm_1d at bfloat16 (not bit-identical across
# two runs) and fused_softmax_cross_entropy at float32 (timed samples attributed to reduce_sum's
# kernel name).
# usage (device tool): OUT=$OUT bash bench/results/2026-12-06-h200-backends/scripts/call_2.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
python3 - > /tmp/backends.jsonl <<'PY'
import json, pathlib
for p in sorted(pathlib.Path("tests/candidates/backends").glob("*.py")):
    task = "softmax" if "softmax" in p.name else "relu"
    print(json.dumps({"id": p.stem, "task": task, "size": "small", "path": str(p.resolve())}))
PY
timed_run candidates_small 90 eval --batch /tmp/backends.jsonl --device gpu --jobs 4 --seed 11 --artifacts none
timed_run bn_bf16 120 run batch_norm_1d --backend mosaic --size medium --dtype bfloat16 --device gpu --seed 12 --artifacts none
timed_run fsce_f32 120 run fused_softmax_cross_entropy --backend mosaic --size medium --device gpu --seed 11 --artifacts none
grep -hE "tasks:|passed" $OUT/*.log
