"""NARROW COUNTER (stress: degenerate) kmer_count whose per-bin counts live in uint8: they wrap
at 256 and are cast to int32 only at the end.

The suite's two-pass kernel (tasks/level2/kmer_count.py) with one change, the counter width:
pass 1 adds each step's exact one-hot dot (f32 integers <= 1024, through int32) into a uint8
accumulator and writes uint8 per-program histograms; pass 2 sums them in uint8 and casts the
final counts to int32. Everything else (window codes from four shifted masked loads, the
16x16 one-hot f16 dot, the nibble split, grid and blocks) is unchanged. Integer adds in uint8
are exact modulo 256, so the answer is exact whenever no bin ever reaches 256.

Random DNA at SMALL (4096 bases, 4093 windows) gives ~16 windows a bin (the fullest bin ~35),
so every seed is exact and the robustness filters see an honest counter; the 'distinct' case
(a de Bruijn sequence cycled: 16 of every 4-mer) is exact too. 'degenerate' (poly-A) puts all
4093 windows in bin AAAA, which wraps to 4093 mod 256 = 253. Expected at SMALL: incorrect,
failing only the stress case 'degenerate'. (At MEDIUM, ~16K windows a bin, even random seeds
wrap: the attack is sized for SMALL.)
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

K = 4
_BINS = 4**K
_NIB = 16
_STEP = 1024
_PROGRAMS = 1024
_MAX_STEPS = 64
_ROWS = 64
COUNT = jnp.uint8  # the change: the suite counts in f32 (exact below 2^24) and int32


def _histogram_body(x_ref, h_ref, *, n, steps):
    n_win = n - K + 1
    start = pl.program_id(0) * (steps * _STEP)
    nib = jnp.arange(_NIB, dtype=jnp.int32)

    def step(s, acc):
        pos = start + s * _STEP + jnp.arange(_STEP, dtype=jnp.int32)
        b = [pltriton.load(x_ref.at[pl.ds(start + s * _STEP + p, _STEP)], mask=pos + p < n,
                           other=0).astype(jnp.int32) for p in range(K)]
        hi = jnp.where(pos < n_win, b[0] * 4 + b[1], _NIB)
        lo = b[2] * 4 + b[3]
        one_hi = (nib[:, None] == hi[None, :]).astype(jnp.float16)
        one_lo = (lo[:, None] == nib[None, :]).astype(jnp.float16)
        part = jnp.dot(one_hi, one_lo, preferred_element_type=jnp.float32)
        return acc + part.astype(jnp.int32).astype(COUNT)  # wraps modulo 256

    acc = jax.lax.fori_loop(0, steps, step, jnp.zeros((_NIB, _NIB), COUNT))
    h_ref[...] = acc


def _sum_body(h_ref, o_ref, *, programs):
    hi = pl.program_id(0)

    def step(i, acc):
        r = i * _ROWS + jnp.arange(_ROWS, dtype=jnp.int32)
        inside = jnp.broadcast_to((r < programs)[:, None], (_ROWS, _NIB))
        part = pltriton.load(h_ref.at[pl.ds(i * _ROWS, _ROWS), hi, :], mask=inside, other=0)
        return acc + part

    acc = jax.lax.fori_loop(0, tl.cdiv(programs, _ROWS), step, jnp.zeros((_ROWS, _NIB), COUNT))
    o_ref[...] = jnp.sum(acc, axis=0, dtype=COUNT).astype(jnp.int32)  # widened only at the end


def kernel(seq):
    (n,) = seq.shape
    steps = min(_MAX_STEPS, tl.next_pow2(tl.cdiv(n, _STEP * _PROGRAMS)))
    programs = tl.cdiv(n, steps * _STEP)
    hist = pl.pallas_call(
        functools.partial(_histogram_body, n=n, steps=steps),
        out_shape=jax.ShapeDtypeStruct((programs, _NIB, _NIB), COUNT),
        grid=(programs,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((None, _NIB, _NIB), lambda i: (i, 0, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1),
    )(seq)
    counts = pl.pallas_call(
        functools.partial(_sum_body, programs=programs),
        out_shape=jax.ShapeDtypeStruct((_NIB, _NIB), jnp.int32),
        grid=(_NIB,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((None, _NIB), lambda i: (i, 0)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(hist)
    return counts.reshape(_BINS)
