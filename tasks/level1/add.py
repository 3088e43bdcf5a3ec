"""add: x + y, elementwise over two float32 matrices.

Memory-bound: two reads and one write per element. The kernel streams row-major blocks of 8K
elements whose column extent covers whole rows (contiguous 16-byte loads); ragged edges are
masked by Pallas.
"""

import jax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "add"
LEVEL = 1
CATEGORY = "elementwise"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (4096, 4096), "y": (4096, 4096)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"]))


def reference(x, y):
    return x + y


def _add_body(x_ref, y_ref, o_ref):
    o_ref[...] = x_ref[...] + y_ref[...]


def kernel(x, y):
    rows, cols = x.shape
    # 8K-element blocks over 8 warps: 32 elements (eight 16-byte loads) per thread and input
    # keeps many bytes in flight per SM without spilling registers.
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize, budget_bytes=32 * 1024)
    spec = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        _add_body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br), tl.cdiv(cols, bc)),
        in_specs=[spec, spec],
        out_specs=spec,
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(x, y)


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols  # one add


def bytes_moved(shapes):
    rows, cols = shapes["x"]
    return 3 * rows * cols * 4
