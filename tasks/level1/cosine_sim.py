"""cosine_sim: dot(x, y) / (|x| |y| + 1e-8) per row.

Memory-bound row reduction: each program loads whole rows of x and y (tl.row_block, 32 KB a block:
8K float32 elements, 8 warps) and forms the three row sums x.y, x.x, y.y in registers in one pass.
Ragged edge blocks (a row count or width the block does not tile) load and store through masks. Any
float dtype: computed and accumulated in float32 (kernels.reductions), rounded once on store.
Tunable launch shape: row_values' "block_bytes" and "num_warps" (pallasbench.task.tuning).

Shipped configuration: the TUNED table (chosen on the H200 by bench/probe.py,
bench/results/2026-12-03-h200-tuning2/) sets these choices at the task's MEDIUM and LARGE
shapes per dtype (float16 takes bfloat16's unless listed); any other shape takes the defaults
above. Each record's kernel_config says which values ran.
"""

import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.task import tuning
from pallasbench.kernels import reductions

NAME = "cosine_sim"
LEVEL = 1
CATEGORY = "loss"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (2048, 1024), "y": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset="not a loss over logits (the offset case is for those only)",
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

EPS = 1e-8
BLOCK_BYTES = 32 * 1024  # per input: 8K f32, 32 a thread at 8 warps


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"])


def reference(x, y):
    dot = jnp.sum(x * y, axis=-1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=-1)) * jnp.sqrt(jnp.sum(y * y, axis=-1))
    return dot / (norms + EPS)


def _cosine_rows(x, y):
    dot = jnp.sum(x * y, axis=1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=1)) * jnp.sqrt(jnp.sum(y * y, axis=1))
    return dot / (norms + EPS)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(
    gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2",
    configs={
        "medium": {"float32": {"block_bytes": 8192, "num_warps": 2}},
    })


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, y):
    # Masked lanes read 0: they add nothing to any of the three sums.
    return reductions.row_values(_cosine_rows, x, y, others=(0.0, 0.0), block_bytes=BLOCK_BYTES,
                                 num_warps=8, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    # three products and three adds per element; two sqrt, mul, add, divide per row
    return 6 * rows * cols + 5 * rows


def bytes_moved(shapes, itemsize=4):
    # x and y read once and one similarity a row written, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    rows, cols = shapes["x"]
    return itemsize * (2 * rows * cols + rows)
