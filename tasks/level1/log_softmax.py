"""log_softmax over the last axis of a float matrix.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound: one read and one write per element. One program owns `br` whole rows (tl.row_block:
32 KB, 8K float32 elements, the row padded to a power of two) and keeps them in registers: row max,
exp-sum, log and the shifted write are fused, so x is read once. Rows wider than 8K elements take
two passes over column tiles (online max/sum, then the write). Masked lanes read as -inf (exp gives
0). No dot, no TF32. Any float dtype: computed in float32 (kernels.rowwise), rounded once on store.

Tunable (pallasbench.task.tuning): map_rows' launch keys (kernels.rowwise) and "exp" for rows
held in registers: "exp" (the default; Pallas lowers it to libdevice's __nv_expf, a range
reduction around ex2) or "exp2" (exp2(x * log2(e)), a multiply and ex2: the rounding of the
product costs |x| * 2^-24 relative, and the terms that carry the sum have small |x|).
"""

import functools

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import rowwise
from pallasbench.kernels import mosaic_rows
from pallasbench.task import tuning
from pallasbench.task.families.rows import INPUTS, ORDER_DEPENDENT, STRESS, USES_TF32, bytes_moved, make_inputs

LOG2_E = 1.4426950408889634

NAME = "log_softmax"
LEVEL = 1
CATEGORY = "softmax"
SHAPES = tl.sizes(medium={"x": (2048, 2048)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jax.nn.log_softmax(x, axis=-1)


def _log_softmax_whole(x, block, exp2=False):
    shifted = x - jnp.max(x, axis=1, keepdims=True)
    e = jnp.exp2(shifted * LOG2_E) if exp2 else jnp.exp(shifted)
    lse = jnp.log(jnp.sum(e, axis=1, keepdims=True))
    return shifted - lse


def _log_softmax_tiled(block):
    m, s = rowwise.online_max_sum(block)
    lse = jnp.log(s)
    block.write(lambda x: (x - m) - lse)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {
        "float32": {"exp": "exp2", "block_bytes": 16384, "num_warps": 8},
        "bfloat16": {"block_bytes": 8192, "num_warps": 4},
    },
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    # Masked lanes read -inf: they never win the max and exp gives 0.
    form = tuning.choice(NAME, "exp", "exp")
    if form not in ("exp", "exp2"):
        raise ValueError(f"{NAME}: exp {form!r}")
    whole = functools.partial(_log_softmax_whole, exp2=form == "exp2")
    return rowwise.map_rows(x, whole, _log_softmax_tiled, other=-jnp.inf, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_rows.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_rows.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return 5 * rows * cols + rows  # max, subtract, exp, sum, subtract; one log per row
