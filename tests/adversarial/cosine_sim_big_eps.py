"""UNSTABLE (stress: tiny) cosine_sim with a large epsilon: dot(x, y) / (|x| |y| + 5e-4)
instead of the task's 1e-8.

The suite's kernel otherwise (whole rows of x and y per program, tl.row_block, the three row
sums x.y, x.x, y.y in one pass). At N(0,1) scale |x| |y| ~ cols = 128 at SMALL, so the larger
epsilon shrinks every output by a relative ~5e-4/128 ~ 4e-6: inside the 1e-5 elementwise and
relative-norm tolerances, so every seed passes and the robustness filters see an honest kernel.
'large' (x30) only makes the epsilon smaller still in relative terms and passes.

'tiny' (x1e-3) gives |x| |y| ~ 1.3e-4, and the output is divided by ~6.3e-4 instead of
~1.3e-4: about 5x too small. Expected: incorrect, failing only the stress case 'tiny'.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

from pallasbench.kernels import masked

EPS = 5e-4  # the task's is 1e-8
BLOCK_BYTES = 32 * 1024


def _body(x_ref, y_ref, o_ref, *, rows, cols):
    row0 = pl.program_id(0) * x_ref.shape[0]
    x, y = (masked.load_tile(r, row0, rows, 0, cols, r.shape[1], other=0.0) for r in (x_ref, y_ref))
    dot = jnp.sum(x * y, axis=1)
    norms = jnp.sqrt(jnp.sum(x * x, axis=1)) * jnp.sqrt(jnp.sum(y * y, axis=1))
    masked.store_rows(o_ref, dot / (norms + EPS), row0, rows)


def kernel(x, y):
    rows, cols = x.shape
    br, bc = tl.row_block(rows, cols, 4, BLOCK_BYTES)
    spec = pl.BlockSpec((br, bc), lambda i: (i, 0))
    return pl.pallas_call(
        functools.partial(_body, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(tl.cdiv(rows, br),),
        in_specs=[spec, spec],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1),
    )(x, y)
