"""DEGENERATE nucleotide_onehot: the kernel writes channel-major, XLA transposes to (N, 4).

The task's output is (N, 4) float32 one-hot rows: a write-bound task whose work is laying those
rows out. This kernel compares each base with the four channels into a channel-major (4, N)
array (four contiguous planes, the easy layout), and a transpose outside the kernels interleaves
them into the task's (N, 4): XLA writes every byte of the output. 0% outside work (a transpose
is no arithmetic), but 94% of the task's byte model moved outside the kernels.
Expected: correct (exact) but not robust: source_analysis refuses the moved share
(stablehlo.transpose).
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

CHANNELS = 4
BLOCK_BASES = 512


def _planes_body(seq_ref, o_ref):
    bases = seq_ref[...].astype(jnp.int32)
    channel = lax.broadcasted_iota(jnp.int32, (CHANNELS, bases.shape[0]), 0)
    o_ref[...] = (bases[None, :] == channel).astype(jnp.float32)


def kernel(seq):
    (n,) = seq.shape
    bn = min(BLOCK_BASES, n)
    planes = pl.pallas_call(
        _planes_body,
        out_shape=jax.ShapeDtypeStruct((CHANNELS, n), jnp.float32),
        grid=(n // bn,),
        in_specs=[pl.BlockSpec((bn,), lambda i: (i,))],
        out_specs=pl.BlockSpec((CHANNELS, bn), lambda i: (0, i)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(seq)
    return planes.T
