"""DEGENERATE reverse_complement: jnp.flip outside, the kernel only complements.

out[b, i] = 3 - seq[b, L-1-i]: the reversal, the task's data movement, is XLA's (jnp.flip before
the call); the pallas_call maps each base b -> 3 - b in place, an elementwise map any kernel
could do. The flip does no arithmetic (0% outside work) but moves every base to another index:
half of the task's byte model (uint8 read and written once).
Expected: correct (exact) but not robust: source_analysis refuses the share of the task's bytes
moved outside the kernels (stablehlo.reverse).
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = (8, 1024)


def _complement_body(x_ref, o_ref):
    o_ref[...] = jnp.uint8(3) - x_ref[...]


def kernel(seqs):
    flipped = jnp.flip(seqs, axis=1)
    rows, length = flipped.shape
    br, bc = min(BLOCK[0], rows), min(BLOCK[1], length)
    spec = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        _complement_body,
        out_shape=jax.ShapeDtypeStruct(flipped.shape, flipped.dtype),
        grid=(rows // br, length // bc),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(flipped)
