"""HONEST nucleotide_onehot: uint8 DNA -> float32 (N, 4) one-hot, in Pallas.

Each program loads a block of bases, widens them to int32 inside the kernel and compares
against the 4 channel indices. A sparse output (three zeros per row): robustness filters
must not mistake it for a degenerate one.
Expected: correct and robust.
"""
import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

CHANNELS = 4
BLOCK_BASES = 512  # 2K outputs a program: 16 per thread at 4 warps


def _body(seq_ref, o_ref):
    bn = o_ref.shape[0]
    bases = seq_ref[...].astype(jnp.int32)
    channel = lax.broadcasted_iota(jnp.int32, (bn, CHANNELS), 1)
    o_ref[...] = (bases[:, None] == channel).astype(jnp.float32)


def kernel(seq):
    (n,) = seq.shape
    bn = min(BLOCK_BASES, 1 << max(n - 1, 0).bit_length())
    if n % bn:
        raise ValueError(f"sequence length {n} is not a multiple of the block {bn}")
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((n, CHANNELS), jnp.float32),
        grid=(n // bn,),
        in_specs=[pl.BlockSpec((bn,), lambda i: (i,))],
        out_specs=pl.BlockSpec((bn, CHANNELS), lambda i: (i, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(seq)
