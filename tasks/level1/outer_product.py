"""outer_product: x[:, None] * y[None, :] for float32 vectors x (M,), y (N,).

Write-bound: M*N outputs from M+N inputs. A 2-D grid of row-major (rows, cols) output blocks whose
column extent covers whole rows (tl.block_2d), each a broadcast multiply of an x slice by a y
slice, ragged edge blocks masked. No dot, so no TF32: each output is one exactly rounded product.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import tasklib as tl

NAME = "outer_product"
LEVEL = 1
CATEGORY = "matmul"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (1024,), "y": (1024,)})
TOLERANCE = tl.MATMUL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"])


def reference(x, y):
    return x[:, None] * y[None, :]


def _load(ref, mask, fill):
    """The block; `fill` where mask is False (past the array's edge), memory left untouched."""
    return ref[...] if mask is None else pltriton.load(ref, mask=mask, other=fill)


def _store(ref, value, mask):
    """Writes the block except where mask is False (past the array's edge)."""
    if mask is None:
        ref[...] = value
    else:
        pltriton.store(ref, value, mask=mask)


def _inside(axis, block, extent):
    """Which of this program's `block` positions along grid axis `axis` fall inside `extent`;
    None when the grid tiles it exactly. Triton does not clip edge blocks: mask them."""
    if extent % block == 0:
        return None
    return pl.program_id(axis) * block + lax.broadcasted_iota(jnp.int32, (block,), 0) < extent


def _both(rows, cols):
    """The 2-D mask of a row mask and a column mask (either may be None: all inside)."""
    if rows is None and cols is None:
        return None
    if rows is None:
        return cols[None, :]
    if cols is None:
        return rows[:, None]
    return rows[:, None] & cols[None, :]


def _body(x_ref, y_ref, o_ref, *, m, n):
    br, bc = o_ref.shape
    rows, cols = _inside(0, br, m), _inside(1, bc, n)
    x, y = _load(x_ref, rows, 0.0), _load(y_ref, cols, 0.0)
    _store(o_ref, x[:, None] * y[None, :], _both(rows, cols))


def kernel(x, y):
    m, n = x.shape[0], y.shape[0]
    br, bc = tl.block_2d((m, n), 4)
    return pl.pallas_call(
        functools.partial(_body, m=m, n=n),
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.result_type(x, y)),
        grid=(tl.cdiv(m, br), tl.cdiv(n, bc)),
        in_specs=[pl.BlockSpec((br,), lambda i, j: (i,)), pl.BlockSpec((bc,), lambda i, j: (j,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        # 16K outputs a block: 8 warps keep it at 64 registers a thread.
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(x, y)


def flops(shapes):
    return shapes["x"][0] * shapes["y"][0]


def bytes_moved(shapes):
    m, n = shapes["x"][0], shapes["y"][0]
    return 4 * (m + n + m * n)
