"""The weight-packing pass of the float32 matmuls (TF32 wgmma reads a 32-bit operand from shared
memory K-major only) and rounding to TF32: shared by the Triton (tiled_matmul) and Mosaic GPU
(fused_matmul_mosaic) paths."""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl

# Pack pass block (K rows x N columns of a weight): 64x64 ran at copy bandwidth on the H200.
PACK_BLOCK = 64


def round_tf32(t):
    """float32 -> nearest TF32 value (ties away from zero, as cvt.rna.tf32.f32), kept in float32.

    Its 13 low mantissa bits are zero, so a lowering that truncates operands to TF32 sees it
    unchanged. Two integer ops per element.
    """
    bits = lax.bitcast_convert_type(t, jnp.int32)  # int32: a Python 0xFFFFE000 would not fit
    return lax.bitcast_convert_type((bits + 0x1000) & -0x2000, jnp.float32)


def _pack_body(*refs, n_w, rounded):
    w_refs, o_ref = refs[:n_w], refs[n_w]
    for i, w_ref in enumerate(w_refs):
        t = w_ref[...]
        o_ref[0, i] = (round_tf32(t) if rounded else t).T


def pack_weights(weights, bn: int, *, rounded: bool = False, name: str = "pack_weights"):
    """n_w weights (K, N) -> (n_w * N, K): K-major, interleaved per bn columns (and rounded to
    nearest TF32 when `rounded`).

    Row block j of the result (n_w * bn rows) is [w_1[:, j*bn:(j+1)*bn]^T; ...; w_n[...]^T].
    K and N must be multiples of 16 and N a multiple of bn (callers pad first).
    """
    k, n = weights[0].shape
    n_w = len(weights)
    bk_p, bn_p = tl.dividing_tile(k, PACK_BLOCK), tl.dividing_tile(bn, PACK_BLOCK)
    per = bn // bn_p
    packed = pl.pallas_call(
        functools.partial(_pack_body, n_w=n_w, rounded=rounded),
        out_shape=jax.ShapeDtypeStruct((n // bn, n_w, bn, k), weights[0].dtype),
        grid=(k // bk_p, n // bn_p),
        in_specs=[pl.BlockSpec((bk_p, bn_p), lambda i, j: (i, j))] * n_w,
        out_specs=pl.BlockSpec((1, n_w, bn_p, bk_p), lambda i, j: (j // per, 0, j % per, i)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
        name=name,
    )(*weights)
    return packed.reshape(n_w * n, k)  # row-major: a free reshape


def _side_by_side_body(*refs, n_w, rounded):
    w_refs, o_ref = refs[:n_w], refs[n_w]

    def store(w_ref):  # only the program's own weight is read
        def write():
            t = w_ref[...]
            o_ref[...] = (round_tf32(t) if rounded else t).T
        return write

    which = pl.program_id(2)
    for i, w_ref in enumerate(w_refs):
        lax.cond(which == i, store(w_ref), lambda: None)


def pack_side_by_side(weights, *, rounded: bool = False, name: str = "pack_side_by_side"):
    """n_w weights (K, N) -> (n_w * N, K) = [w_1^T; ...; w_n^T]: the K-major form of the weights
    side by side, [w_1 | ... | w_n], as one operand (rounded to nearest TF32 when `rounded`).

    pack_weights(weights, N) means the same, but its blocks span all n_w weights, a block
    dimension Triton takes only at a power of two; here each program transposes one weight's
    tile (a third grid axis picks the weight), so any n_w works. K and N multiples of 16.
    """
    k, n = weights[0].shape
    n_w = len(weights)
    bk_p, bn_p = tl.dividing_tile(k, PACK_BLOCK), tl.dividing_tile(n, PACK_BLOCK)
    tiles_n = n // bn_p
    return pl.pallas_call(
        functools.partial(_side_by_side_body, n_w=n_w, rounded=rounded),
        out_shape=jax.ShapeDtypeStruct((n_w * n, k), weights[0].dtype),
        grid=(k // bk_p, tiles_n, n_w),
        in_specs=[pl.BlockSpec((bk_p, bn_p), lambda i, j, w: (i, j))] * n_w,
        out_specs=pl.BlockSpec((bn_p, bk_p), lambda i, j, w: (w * tiles_n + j, i)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
        name=name,
    )(*weights)
