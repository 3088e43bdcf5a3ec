"""rsqrt: 1 / sqrt(x) of a positive float matrix, log-uniform in [1e-3, 1e3].

Memory-bound: one read and one write per element. The kernel streams row-major blocks of 32 KB
(8K float32 elements) whose column extent covers whole rows (contiguous 16-byte loads);
blocks divide the array (the block rule refuses ragged ones: Pallas's Triton lowering does not
mask edge blocks).
lax.rsqrt is one hardware reciprocal square root (within 2 ulp), not a sqrt and a divide.
Computed in float32 at every dtype: bfloat16/float16 inputs are upcast on load and the result
is rounded once on store.
"""

import jax.numpy as jnp
from jax import lax

from pallasbench import task as tl
from pallasbench.kernels import elementwise

NAME = "rsqrt"
LEVEL = 1
CATEGORY = "elementwise"
INPUTS = (tl.Input("x", tl.POSITIVE),)
SHAPES = tl.sizes(medium={"x": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                         degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.log_uniform(rng, shapes["x"], 1e-3, 1e3),)


def reference(x):
    return 1.0 / jnp.sqrt(x)


def _rsqrt_body(x_ref, o_ref):
    o_ref[...] = lax.rsqrt(x_ref[...].astype(jnp.float32)).astype(o_ref.dtype)


def kernel(x):
    return elementwise.map_blocks(_rsqrt_body, x, stream=True, name=NAME)


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols  # one rsqrt


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return 2 * rows * cols * itemsize
