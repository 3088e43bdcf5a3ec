"""rmsnorm: x / sqrt(mean(x^2) + 1e-5) over the last axis, no affine.

Memory-bound: one read and one write per element. One program owns `br` whole rows (tl.row_block:
32 KB, 8K float32 elements, the row padded to a power of two) held in registers: the tree sum of
squares and the scaled write come from one read of x. Rows wider than 8K elements stream column
tiles twice (sum of squares, then the write). Masked lanes read as 0. No dot, no TF32. Any float
dtype: computed in float32 (kernels.rowwise), rounded once on store. Tunable launch shape:
map_rows' keys (kernels.rowwise, pallasbench.task.tuning).

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py,
bench/results/2026-12-03-h200-tuning2/) sets these choices at the task's MEDIUM and LARGE
shapes per dtype (float16 takes bfloat16's unless listed); any other shape takes the defaults
above. Each record's kernel_config says which values ran.
"""

import jax.numpy as jnp
from jax import lax

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import rowwise

NAME = "rmsnorm"
LEVEL = 1
CATEGORY = "normalization"
INPUTS = (tl.Input("x", tl.REAL),)
SHAPES = tl.sizes(medium={"x": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", "offset", offset_input="x",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-5


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]),)


def reference(x):
    return x / jnp.sqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + EPS)


def _rmsnorm_whole(x, block):
    ms = jnp.sum(x * x, axis=1, keepdims=True) / block.cols
    return x * lax.rsqrt(ms + EPS)


def _rmsnorm_tiled(block):
    ss = block.fold(lambda x, col0, acc: acc + jnp.sum(x * x, axis=1, keepdims=True),
                    jnp.zeros((block.br, 1), jnp.float32))
    scale = lax.rsqrt(ss / block.cols + EPS)
    block.write(lambda x: x * scale)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(
    gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2",
    configs={
        "medium": {
            "float32": {"block_bytes": 16384, "num_warps": 8},
            "bfloat16": {"block_bytes": 4096, "num_warps": 2},
        },
    })


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x):
    # Masked lanes read 0: they add nothing to the sum of squares.
    return rowwise.map_rows(x, _rmsnorm_whole, _rmsnorm_tiled, other=0.0, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return 3 * rows * cols + 2 * rows  # square-accumulate (2), scale; rsqrt per row


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return 2 * rows * cols * itemsize
