"""Fidelity of the CUPTI timer against Nsight Compute, on the GPU machine.

usage:
  python3 bench/fidelity.py ours TASK SIZE        -> JSON: our median device time (L2 flushed)
  python3 bench/fidelity.py target TASK SIZE N    -> N plain calls, for `ncu` to profile
  bash bench/fidelity.sh                          -> both for five kernels, table in $OUT
The suite's own kernel of TASK at SIZE, with the task's inputs (seed 0). "ours" uses the harness's
DeviceTimer (libpallasbench_timer.so, the worker's code path): 60 samples, L2 flushed before each.
TASK "empty" is a Pallas kernel that copies one 8x128 block: its time is mostly launch and
teardown, so ours vs ncu on it shows the two tools' fixed offset.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import jax  # noqa: E402

from pallasbench.task import registry  # noqa: E402



def empty_kernel(x):
    from jax.experimental import pallas as pl

    from pallasbench import task as tl

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          compiler_params=tl.triton_params(num_warps=1, num_stages=1))(x)


mode, name, size = sys.argv[1], sys.argv[2], sys.argv[3]
if name == "empty":
    kernel, inputs = empty_kernel, [jax.device_put(np.ones((8, 128), np.float32))]
else:
    module = registry.load(name)
    kernel = module.kernel
    inputs = [jax.device_put(x) for x in module.make_inputs(np.random.default_rng(0), module.SHAPES[size])]
fn = jax.jit(kernel).lower(*inputs).compile()
for _ in range(5):
    jax.block_until_ready(fn(*inputs))
if mode == "ours":
    from pallasbench.worker.device_timer import DeviceTimer

    reply = DeviceTimer().sample(fn, inputs, 60, 30.0)
    kernels = {k: v["count"] for k, v in reply["kernels"].items()}
    print(json.dumps({"task": name, "size": size, "median_us": float(np.median(reply["samples_us"])),
                      "samples": len(reply["samples_us"]), "kernels": kernels}))
else:
    for _ in range(int(sys.argv[4])):
        jax.block_until_ready(fn(*inputs))
