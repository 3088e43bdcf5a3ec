"""Hostile (containment, GPU): relu whose Pallas kernel is also handed a 48 GiB operand (the input
tiled 768 times at MEDIUM, 4096 x 4096 float32, of which it reads one tile), which XLA must
materialise on the device before the kernel starts. Its lane's executor has a share of the GPU
(--device-share): the allocation fails there, is retried with the device to the lane alone, fails
again, and since the module needs more than the share it is this candidate's own failure, naming
the share. No other lane's evaluation may see it."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

COPIES = 768


def _body(x_ref, big_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0) + 0.0 * big_ref[...]


def kernel(x):
    rows, cols = x.shape
    big = jnp.tile(x, (COPIES, 1)) * 1.0001
    block = (min(16, rows), cols)
    spec = pl.BlockSpec(block, lambda i: (i, 0))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(rows // block[0],),
                          in_specs=[spec, pl.BlockSpec(block, lambda i: (0, 0))], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x, big)
