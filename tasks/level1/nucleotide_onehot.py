"""nucleotide_onehot: one_hot(seq, 4) as float32 (N, 4) for uint8 DNA (A=0, C=1, G=2, T=3).

Write-bound: a 1-D grid of (512, 4) output blocks (2K floats, contiguous in memory); each is
built in registers by comparing the block's bases, widened to int32, against a channel iota.
A ragged last block is masked.

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics.py `nucleotide_onehot`):
CTAs of 128 bases; the bytes come in by TMA, each lane widens one base and compares it with the
channel iota, writing its 4 channels as one 16-byte vector; one TMA store a CTA.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import masked, mosaic_genomics
from pallasbench.task.families.genomics import INTEGER_OPS, ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "nucleotide_onehot"
LEVEL = 1
CATEGORY = "genomics"
INPUTS = (tl.Input("seq", tl.DISCRETE),)
SHAPES = tl.sizes(medium={"seq": (4096,)}, small={"seq": (1024,)}, large={"seq": (16384,)})
TOLERANCE = tl.EXACT

CHANNELS = 4
BLOCK_BASES = 512  # 2K outputs a program: 16 a thread at 4 warps


def make_inputs(rng, shapes):
    return (tl.dna(rng, shapes["seq"]),)


def reference(seq):
    return jax.nn.one_hot(seq, CHANNELS, dtype=jnp.float32)


def _body(seq_ref, o_ref, *, n):
    rows = masked.block_inside(0, o_ref.shape[0], n)
    base = masked.load(seq_ref, rows, 0).astype(jnp.int32)
    channel = lax.broadcasted_iota(jnp.int32, o_ref.shape, 1)
    mask = None if rows is None else rows[:, None]
    masked.store(o_ref, (base[:, None] == channel).astype(o_ref.dtype), mask)


def kernel(seq):
    n = seq.shape[0]
    bn = min(BLOCK_BASES, tl.next_pow2(n))
    return pl.pallas_call(
        functools.partial(_body, n=n),
        out_shape=jax.ShapeDtypeStruct((n, CHANNELS), jnp.float32),
        grid=(tl.cdiv(n, bn),),
        in_specs=[pl.BlockSpec((bn,), lambda i: (i,))],
        out_specs=pl.BlockSpec((bn, CHANNELS), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(seq)


BACKENDS = {"mosaic_gpu": mosaic_genomics.nucleotide_onehot, "triton": kernel}


def flops(shapes):
    return shapes["seq"][0] * CHANNELS  # one compare per output


def bytes_moved(shapes, itemsize=4):
    # uint8 bases read (1 byte), the float32 one-hot written (4 bytes). With no float input the
    # output stays float32 at every dtype (dtypes.output_at_dtype), so `itemsize` does not enter.
    n = shapes["seq"][0]
    base_bytes, out_bytes = 1, 4  # uint8 in, float32 out
    return base_bytes * n + out_bytes * n * CHANNELS
