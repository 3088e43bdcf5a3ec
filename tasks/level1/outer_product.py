"""outer_product: x[:, None] * y[None, :] for float vectors x (M,), y (N,).

Write-bound: M*N outputs from M+N inputs. A 2-D grid of row-major (rows, cols) output blocks whose
column extent covers whole rows (tl.block_2d, which refuses ragged blocks), each a broadcast
multiply of an x slice by a y slice. No dot, so no TF32: each output is one exactly rounded
product (at bfloat16/float16 the product is formed in float32, exactly, and rounded on store).
Blocks are planned at 4 bytes an element whatever the dtype: 16K float32 products a block.

Mosaic GPU (the preferred backend, kernels/mosaic_pairwise.py): CTA (i, j) brings x[i block]
and y[j block] into SMEM by TMA, forms its (rows, 128) tile of float32 products in registers from
the per-row and per-column values and stores it by TMA (one rounding, on store).
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_pairwise
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS

NAME = "outer_product"
LEVEL = 1
CATEGORY = "matmul"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("y", tl.REAL))
SHAPES = tl.sizes(medium={"x": (1024,), "y": (1024,)})
TOLERANCE = tl.MATMUL
USES_TF32 = False


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["y"])


def reference(x, y):
    return x[:, None] * y[None, :]


def _body(x_ref, y_ref, o_ref):
    x, y = x_ref[...].astype(jnp.float32), y_ref[...].astype(jnp.float32)
    o_ref[...] = (x[:, None] * y[None, :]).astype(o_ref.dtype)


def kernel(x, y):
    m, n = x.shape[0], y.shape[0]
    br, bc = tl.block_2d((m, n), 4)
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((m, n), jnp.result_type(x, y)),
        grid=(tl.cdiv(m, br), tl.cdiv(n, bc)),
        in_specs=[pl.BlockSpec((br,), lambda i, j: (i,)), pl.BlockSpec((bc,), lambda i, j: (j,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        # 16K outputs a block: 8 warps keep it at 64 registers a thread.
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(x, y)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_pairwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_pairwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return shapes["x"][0] * shapes["y"][0]


def bytes_moved(shapes, itemsize=4):
    # x and y read once and the (M, N) output written, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    m, n = shapes["x"][0], shapes["y"][0]
    return itemsize * (m + n + m * n)
