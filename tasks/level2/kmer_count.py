"""kmer_count: exact int32 histogram of the 256 4-mers over every window of a uint8 sequence.

Pass 1: each program owns a span; window codes come in int32 from four shifted loads of the raw
buffer (windows straddling spans read the next span's head; the tail is masked). Its histogram
counts[hi, lo] = sum_t [hi_t == a][lo_t == b] (hi/lo: code nibbles) is the one-hot compare + sum
as a 16x16 f16 dot: 0/1 operands, f32 accumulation of integers < 2^24, hence exact. Pass 2 sums
the per-program histograms in int32.

The Mosaic GPU kernel (kernels/mosaic_genomics_mma.py `kmer_count`): Mosaic GPU has no scatter
("NotImplementedError: Resource estimation does not support scatter-add", jax 0.10.2) and no
indexed atomics, so it counts on tensor cores too, with the operands it can build: per 256
windows, A (64, 256) = one-hot of the first three bases, built in registers (float16), and B^T
= one-hot of 4 x parity + last base, stored to a swizzled SMEM tile (a register tile stores
there in the WGMMA layout only, 64 rows: 128 compares a window, 4x this kernel's 32), into a
(64, 8) float32 accumulator a CTA; XLA adds the CTAs' partials (512 a CTA, under 2.5% of the
task's operations). Expected slower than this kernel; the GPU run decides the preferred one.
"""

import functools

import jax
import numpy as np
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics_mma
from pallasbench.task import stress
from pallasbench.task.families.genomics import INTEGER_OPS, ORDER_DEPENDENT, USES_TF32

NAME = "kmer_count"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("seq", tl.DISCRETE),)
SHAPES = tl.sizes(medium={"seq": (4194304,)}, small={"seq": (4096,)},
                  large={"seq": (67108864,)})
TOLERANCE = tl.EXACT
STRESS = tl.stress_cases("degenerate", "distinct", tiny=tl.NO_FLOAT_INPUT, large=tl.NO_FLOAT_INPUT,
                         offset=tl.NO_ROW_STATISTIC)

K = 4  # fixed by the task: the hi/lo nibble split below is two bases each
_BINS = 4**K  # 256 = 16 (first two bases) x 16 (last two bases)
_NIB = 16
_STEP = 1024  # windows per dot: K dimension of the (16, STEP) x (STEP, 16) product
_PROGRAMS = 1024  # pass-1 programs aimed at: ~8 per SM keeps the H200's 132 SMs busy
_MAX_STEPS = 64  # steps per program; beyond that the sequence gets more programs
_ROWS = 64  # per-program histograms summed per pass-2 step


def make_inputs(rng, shapes):
    return (tl.dna(rng, shapes["seq"]),)


def stress_inputs(case, rng, shapes, inputs):
    if case == "distinct":  # a de Bruijn sequence, cycled: every 4-mer equally often
        n = inputs[0].shape[0]
        return (np.resize(np.roll(stress.de_bruijn(4, K), rng.integers(0, 4**K)), n),)
    return None


def reference(seq):
    n_win = seq.shape[0] - K + 1
    code = sum(seq[p:p + n_win].astype(jnp.int32) * 4**(K - 1 - p) for p in range(K))
    return jnp.bincount(code, length=_BINS).astype(jnp.int32)


def _histogram_body(x_ref, h_ref, *, n, steps):
    n_win = n - K + 1
    start = pl.program_id(0) * (steps * _STEP)
    nib = jnp.arange(_NIB, dtype=jnp.int32)

    def step(s, acc):
        pos = start + s * _STEP + jnp.arange(_STEP, dtype=jnp.int32)
        # Base p of every window; masked loads never touch memory past the sequence.
        b = [pltriton.load(x_ref.at[pl.ds(start + s * _STEP + p, _STEP)], mask=pos + p < n,
                           other=0).astype(jnp.int32) for p in range(K)]
        hi = jnp.where(pos < n_win, b[0] * 4 + b[1], _NIB)  # 16 = no bin: drops partial windows
        lo = b[2] * 4 + b[3]
        one_hi = (nib[:, None] == hi[None, :]).astype(jnp.float16)  # (16, STEP)
        one_lo = (lo[:, None] == nib[None, :]).astype(jnp.float16)  # (STEP, 16)
        return acc + jnp.dot(one_hi, one_lo, preferred_element_type=jnp.float32)

    acc = jax.lax.fori_loop(0, steps, step, jnp.zeros((_NIB, _NIB), jnp.float32))
    h_ref[...] = acc.astype(jnp.int32)


def _sum_body(h_ref, o_ref, *, programs):
    hi = pl.program_id(0)

    def step(i, acc):
        r = i * _ROWS + jnp.arange(_ROWS, dtype=jnp.int32)
        inside = jnp.broadcast_to((r < programs)[:, None], (_ROWS, _NIB))
        part = pltriton.load(h_ref.at[pl.ds(i * _ROWS, _ROWS), hi, :], mask=inside, other=0)
        return acc + part

    acc = jax.lax.fori_loop(0, tl.cdiv(programs, _ROWS), step, jnp.zeros((_ROWS, _NIB), jnp.int32))
    o_ref[...] = jnp.sum(acc, axis=0)


def kernel(seq):
    (n,) = seq.shape
    steps = min(_MAX_STEPS, tl.next_pow2(tl.cdiv(n, _STEP * _PROGRAMS)))
    programs = tl.cdiv(n, steps * _STEP)
    hist = pl.pallas_call(
        functools.partial(_histogram_body, n=n, steps=steps),
        out_shape=jax.ShapeDtypeStruct((programs, _NIB, _NIB), jnp.int32),
        grid=(programs,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((None, _NIB, _NIB), lambda i: (i, 0, 0)),
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(seq)
    counts = pl.pallas_call(
        functools.partial(_sum_body, programs=programs),
        out_shape=jax.ShapeDtypeStruct((_NIB, _NIB), jnp.int32),
        grid=(_NIB,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((None, _NIB), lambda i: (i, 0)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(hist)
    return counts.reshape(_BINS)


BACKENDS = {"mosaic_gpu": mosaic_genomics_mma.kmer_count, "triton": kernel}


def flops(shapes):
    (n,) = shapes["seq"]
    return 2 * K * (n - K + 1)  # the window code: K multiply-adds per window


def bytes_moved(shapes, itemsize=4):
    # uint8 bases read (1 byte), the int32 counts written (4 bytes): no float element, so
    # `itemsize` does not enter.
    (n,) = shapes["seq"]
    base_bytes, count_bytes = 1, 4  # uint8 in, int32 out
    return base_bytes * n + count_bytes * _BINS
