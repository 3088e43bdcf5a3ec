"""reduce_sum: sum over the last axis of a float matrix.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound row reduction. One program owns `br` whole rows (tl.row_block: 32 KB, 8K float32
elements, the row padded to a power of two) and reduces each row with in-register tree sums of an
exact head/tail split (reductions.split_for_sum: the sum carries little more than its final
rounding); rows wider than 8K elements are summed tile by tile in a fori_loop (reduce_rows). Ragged
edges are masked to 0 before summing. No dot, no TF32. Any float dtype: computed and accumulated in
float32 (kernels.reductions), rounded once on store.

Tunable (pallasbench.task.tuning): reduce_rows' launch keys (kernels.rowwise) and "sum", how a
tile is summed: "split" (the default above, the head rounded through int32), "add" (the same
exact split, the head rounded by two float adds: the int32 round trip's conversions run at a
quarter of the add rate, exposed once 16-bit loads halve the memory time), "floor" (the head
rounded by one floor instead of two conversions; reductions.split_for_sum), or "plain" (one f32
tree sum: for 16-bit dtypes only, whose output rounding, 2^-8 or 2^-11 relative, dwarfs a float32
sum's ~1e-5 error; at float32 that error is the size of the tolerance).
"""

import functools

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import reductions
from pallasbench.kernels import mosaic_reductions
from pallasbench.task import tuning
from pallasbench.task.families.rows import INPUTS, ORDER_DEPENDENT, USES_TF32, make_inputs
from pallasbench.task.families.rows import REDUCE_STRESS as STRESS, row_reduction_bytes as bytes_moved

NAME = "reduce_sum"
LEVEL = 1
CATEGORY = "reduce"
SHAPES = tl.sizes(medium={"x": (4096, 2048)}, small={"x": (512, 256)},
                  large={"x": (16384, 8192)})
TOLERANCE = tl.ELEMENTWISE


def reference(x):
    return jnp.sum(x, axis=-1)


def _tile_sums(x, form):
    if form == "plain":
        return jnp.sum(x, axis=1), jnp.zeros((x.shape[0],), jnp.float32)
    head, tail = reductions.split_for_sum(x, "int" if form == "split" else form)
    return jnp.sum(head, axis=1), jnp.sum(tail, axis=1)


def _add_sums(acc, sums):
    return tuple(a + s for a, s in zip(acc, sums))


def _zero_sums(br):
    zeros = jnp.zeros((br,), jnp.float32)
    return zeros, zeros


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {"bfloat16": {"sum": "plain", "block_bytes": 16384}, "float16": {}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    form = tuning.choice(NAME, "sum", "split")
    if form not in ("split", "add", "floor", "plain"):
        raise ValueError(f"{NAME}: sum form {form!r}")
    # Masked lanes read 0: they add nothing to either sum.
    return reductions.reduce_rows(x, functools.partial(_tile_sums, form=form), _add_sums, _zero_sums,
                                  lambda sums: sums[0] + sums[1], other=0.0, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_reductions.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_reductions.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols
