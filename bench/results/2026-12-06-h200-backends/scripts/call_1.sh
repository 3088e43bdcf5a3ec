#!/usr/bin/env bash
# Call 1 (2026-12-06): the 36 tasks with a Mosaic GPU implementation, both backends side by side
# (--backend all), MEDIUM at float32 and bfloat16; then the backends candidate set
# (tests/candidates/backends, docs/writing_candidates.md) at MEDIUM.
# usage (device tool, from the repository root): OUT=$OUT bash bench/results/2026-12-06-h200-backends/scripts/call_1.sh
cd "$(dirname "$0")/../../../.."
. bench/device_lib.sh
machine
MOSAIC_TASKS="add batch_norm_1d clamp col_sum cross_entropy elu exp fused_bias_gelu_dropout fused_gelu_bias fused_layer_norm_relu fused_softmax_cross_entropy gelu hardswish huber_loss layernorm layernorm_residual leaky_relu log log_softmax maximum mish mse_loss multiply reduce_max reduce_mean reduce_sum relu rmsnorm rmsnorm_residual rsqrt sigmoid sigmoid_bce silu softmax softplus tanh"
timed_run medium_f32 240 run $MOSAIC_TASKS --backend all --size medium --dtype float32 --device gpu --jobs 8 --seed 11 --artifacts inline
timed_run medium_bf16 200 run $MOSAIC_TASKS --backend all --size medium --dtype bfloat16 --device gpu --jobs 8 --seed 11 --artifacts none
python3 - > /tmp/backends.jsonl <<'PY'
import json, pathlib
for p in sorted(pathlib.Path("tests/candidates/backends").glob("*.py")):
    task = "softmax" if "softmax" in p.name else "relu"
    print(json.dumps({"id": p.stem, "task": task, "size": "medium", "path": str(p.resolve())}))
PY
timed_run candidates 90 eval --batch /tmp/backends.jsonl --device gpu --jobs 4 --seed 11 --artifacts none
tail -3 $OUT/*.log
