"""hamming_distance: int32 (N, M) count of positions where rows a[i] and b[j] differ.

Pass 1 packs each row's bases 2 bits apiece into int32 words (16 bases per word), written
word-major (W, rows) so pass 2 reads contiguous word rows. Pass 2 tiles the (N, M) output;
per word pair it XORs a column of a-words against a row of b-words, folds each 2-bit lane
to one "differs" bit and popcounts two words' bits at once (32 bases per popcount).

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics_mma.py): Mosaic GPU has no
popcount lowering, so it counts matches on tensor cores, as the reference does: a first kernel
writes the uint8 one-hot rows of a and b (N, 4D), a second streams their K tiles by TMA into
8-bit wgmma (int32 accumulator: exact) and stores D - matches, one output tile a
one-warpgroup CTA.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics_mma
from pallasbench.task.families.genomics import INTEGER_OPS, ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "hamming_distance"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("a", tl.DISCRETE), tl.Input("b", tl.DISCRETE))
SHAPES = tl.sizes(medium={"a": (1024, 256), "b": (1024, 256)},
                  small={"a": (64, 32), "b": (64, 32)},
                  large={"a": (4096, 256), "b": (4096, 256)})
TOLERANCE = tl.EXACT

_BASES = 16  # bases per int32 word
_EVEN = 0x55555555  # the low bit of every 2-bit lane
_TILE = 64  # output tile (TILE, TILE); 32 int32 accumulators per thread at 4 warps


def make_inputs(rng, shapes):
    return tl.dna(rng, shapes["a"]), tl.dna(rng, shapes["b"])


def reference(a, b):
    # Matches counted as one-hot dot products: exact in f32 (integer sums of 0/1 below 2^24) and
    # what XLA runs well. The literal broadcast a[:, None, :] != b[None, :, :] builds an
    # N x M x L array (4.3e9 elements at LARGE) and did not finish within 200 s on the H200.
    length = a.shape[1]
    a_hot = jax.nn.one_hot(a, 4, dtype=jnp.float32).reshape(a.shape[0], length * 4)
    b_hot = jax.nn.one_hot(b, 4, dtype=jnp.float32).reshape(b.shape[0], length * 4)
    matches = jnp.dot(a_hot, b_hot.T, precision=jax.lax.Precision.HIGHEST)
    return length - matches.astype(jnp.int32)


def _pack_body(x_ref, o_ref):
    x = x_ref[...].astype(jnp.int32)  # (rows, W, 16)
    shift = 2 * jax.lax.broadcasted_iota(jnp.int32, x.shape, 2)
    words = jnp.sum(x << shift, axis=2)  # disjoint bit fields: the sum is an OR
    o_ref[...] = words.T


def _pack(x, words, rows):
    """(n, D) uint8 -> (words, rows) int32; rows and D are zero-padded (equal pads never differ)."""
    n, d = x.shape
    if (rows, words * _BASES) != (n, d):
        x = jnp.pad(x, ((0, rows - n), (0, words * _BASES - d)))
    x = x.reshape(rows, words, _BASES)
    return pl.pallas_call(
        _pack_body,
        out_shape=jax.ShapeDtypeStruct((words, rows), jnp.int32),
        grid=(rows // _TILE,),
        in_specs=[pl.BlockSpec((_TILE, words, _BASES), lambda i: (i, 0, 0))],
        out_specs=pl.BlockSpec((words, _TILE), lambda i: (0, i)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(x)


def _differs(x):
    """One bit per 2-bit lane of x = a ^ b: set where the bases differ (at the lane's low bit)."""
    return (x | jax.lax.shift_right_logical(x, 1)) & _EVEN


def _distance_body(a_ref, b_ref, o_ref, *, words):
    acc = jnp.zeros((_TILE, _TILE), jnp.int32)
    for w in range(0, words, 2):
        d0 = _differs(a_ref[w, :][:, None] ^ b_ref[w, :][None, :])
        d1 = _differs(a_ref[w + 1, :][:, None] ^ b_ref[w + 1, :][None, :])
        acc += jax.lax.population_count(d0 | (d1 << 1))  # d1 moves to the odd bits
    o_ref[...] = acc


def kernel(a, b):
    (n, d), (m, _) = a.shape, b.shape
    words = max(2, tl.next_pow2(tl.cdiv(d, _BASES)))  # even, and a power of two for the blocks
    rows_a, rows_b = (tl.cdiv(r, _TILE) * _TILE for r in (n, m))
    pa, pb = _pack(a, words, rows_a), _pack(b, words, rows_b)
    out = pl.pallas_call(
        functools.partial(_distance_body, words=words),
        out_shape=jax.ShapeDtypeStruct((rows_a, rows_b), jnp.int32),
        grid=(rows_a // _TILE, rows_b // _TILE),
        in_specs=[pl.BlockSpec((words, _TILE), lambda i, j: (0, i)),
                  pl.BlockSpec((words, _TILE), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((_TILE, _TILE), lambda i, j: (i, j)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(pa, pb)
    return out if (rows_a, rows_b) == (n, m) else out[:n, :m]


BACKENDS = {"mosaic_gpu": mosaic_genomics_mma.hamming_distance, "triton": kernel}


def flops(shapes):
    (n, d), (m, _) = shapes["a"], shapes["b"]
    return 2 * n * m * d  # compare + count per base pair


def bytes_moved(shapes, itemsize=4):
    # uint8 bases of a and b read (1 byte), the int32 distances written (4 bytes): no float
    # element, so `itemsize` does not enter.
    (n, d), (m, _) = shapes["a"], shapes["b"]
    base_bytes, count_bytes = 1, 4  # uint8 in, int32 out
    return base_bytes * (n * d + m * d) + count_bytes * n * m
