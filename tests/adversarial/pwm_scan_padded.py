"""HONEST pwm_scan with padding and slicing outside the kernel.

score[i] = sum_p sum_c seq[i+p, c] * pwm[c, p] for the N-M+1 window starts. The window count
(249 at SMALL) is no power of two, so the kernel computes a whole number of 128-start tiles:
seq is zero-padded outside (jnp.pad, layout only) so that the last tile's windows read zeros,
and the extra scores are sliced off outside. pwm is zero-padded to a power-of-two tap count
(12 -> 16 at MEDIUM) so that its block is a legal Triton block. Inside, program t walks the M
real taps and loads the (128, 4) slab of one-hot rows starting at t*128 + p straight from the
raw seq ref (pl.ANY: a window overlaps the next tile, which a BlockSpec cannot express),
multiplies by the tap's pwm column and accumulates.
Expected: correct and robust (padding and slicing are layout).
"""
import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

TILE = 128  # window starts a program


def _body(seq_ref, pwm_ref, o_ref, *, taps):
    start = pl.multiple_of(pl.program_id(0) * TILE, TILE)
    pwm = pwm_ref[...]  # (4, taps rounded up to a power of two); padded taps are never read

    def tap(p, acc):
        rows = seq_ref[pl.ds(start + p, TILE), :]  # (TILE, 4)
        col = jnp.sum(jnp.where(lax.broadcasted_iota(jnp.int32, pwm.shape, 1) == p, pwm, 0.0),
                      axis=1)  # pwm[:, p] as a (4,) vector
        return acc + jnp.sum(rows * col[None, :], axis=1)

    o_ref[...] = lax.fori_loop(0, taps, tap, jnp.zeros((TILE,), jnp.float32))


def kernel(seq, pwm):
    n, channels = seq.shape
    taps = pwm.shape[1]
    n_out = n - taps + 1
    tiles = -(-n_out // TILE)
    padded_rows = tiles * TILE + taps - 1
    seq_p = jnp.pad(seq, ((0, padded_rows - n), (0, 0)))
    taps_p = 1 << (taps - 1).bit_length()
    pwm_p = jnp.pad(pwm, ((0, 0), (0, taps_p - taps)))
    out = pl.pallas_call(
        functools.partial(_body, taps=taps),
        out_shape=jax.ShapeDtypeStruct((tiles * TILE,), jnp.float32),
        grid=(tiles,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec((channels, taps_p), lambda t: (0, 0))],
        out_specs=pl.BlockSpec((TILE,), lambda t: (t,)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(seq_p, pwm_p)
    return out[:n_out]
