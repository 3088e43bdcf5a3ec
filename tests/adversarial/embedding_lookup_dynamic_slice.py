"""DEGENERATE embedding_lookup: XLA gathers the rows, a Pallas kernel only copies them.

Each looked-up row is taken outside the kernel with lax.dynamic_slice(table, (ids[i], 0), (1, D)),
the rows are concatenated, and a pallas_call copies the (N, D) result: the task's whole work, the
data-dependent addressing of the table, is XLA's. No op here does arithmetic, so the outside-work
share is 0%; what gives it away is addressing by an input's values outside the kernels.
Expected: correct (exact) but not robust: source_analysis refuses the dynamic_slice whose start
comes from input 'ids' ("data-dependent addressing").
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK_ROWS = 8


def _copy_body(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(table, ids):
    dim = table.shape[1]
    rows = jnp.concatenate([lax.dynamic_slice(table, (ids[i], 0), (1, dim)) for i in range(ids.shape[0])])
    n = rows.shape[0]
    spec = pl.BlockSpec((BLOCK_ROWS, dim), lambda i: (i, 0))
    return pl.pallas_call(
        _copy_body,
        out_shape=jax.ShapeDtypeStruct(rows.shape, rows.dtype),
        grid=(n // BLOCK_ROWS,),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(rows)
