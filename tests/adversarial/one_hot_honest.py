"""HONEST one_hot: a sparse output (one 1.0 per row of 1024 classes) computed in Pallas.

Each program compares a block of ids against its block of class indices (an iota) and writes
the 0/1 tile. ids are padded outside the kernel to a whole number of row blocks with -1 (a
class that never matches) and the padded rows are sliced off: layout only.
Expected: correct, and every robustness filter passes (axes_variation only looks at the
slices where the reference varies, so the sparse rows are legitimate).
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

NUM_CLASSES = 1024
BLOCK_ROWS = 16  # (16, 256) float32 tile: 4K outputs, 32 per thread at 4 warps
BLOCK_COLS = 256


def _body(ids_ref, o_ref):
    br, bc = o_ref.shape
    classes = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
    o_ref[...] = (ids_ref[...][:, None] == classes).astype(jnp.float32)


def kernel(ids):
    (n,) = ids.shape
    br = min(BLOCK_ROWS, 1 << max(n - 1, 0).bit_length())
    padded = -(-n // br) * br
    if padded != n:
        ids = jnp.pad(ids, (0, padded - n), constant_values=-1)
    out = pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((padded, NUM_CLASSES), jnp.float32),
        grid=(padded // br, NUM_CLASSES // BLOCK_COLS),
        in_specs=[pl.BlockSpec((br,), lambda i, j: (i,))],
        out_specs=pl.BlockSpec((br, BLOCK_COLS), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(ids)
    return out if padded == n else out[:n]
