"""Tiled Pallas matmul with a fused prologue and epilogue, shared by the matmul-class tasks.

Not a task (the leading underscore keeps the registry away). One program computes one (bm, bn)
output tile for each weight it is given: it walks K in bk steps with lax.fori_loop, loading
(bm, bk) tiles of x and (bk, bn) tiles of every weight straight from global memory (raw pl.ANY
refs), and keeps one float32 accumulator per weight. The prologue maps each loaded x tile (relu
before a matmul), the epilogue maps the accumulators and the bias tile to the output tile (bias,
activation, gate), so nothing is written to memory but the final result. Dots run at Triton's
default f32 precision, TF32 tensor cores, on operands rounded to nearest TF32 in the kernel.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

# Streaming multiprocessors of an H200: a grid smaller than this leaves SMs idle.
NUM_SMS = 132
# Row tiles launched together (Triton's grouped ordering) so they share w's column tiles in L2.
GROUP_M = 8
# Smallest M/N tile the occupancy rule may shrink to; jnp.dot needs >= 16, 32 keeps MMAs fed.
MIN_TILE = 32
# K step: 32 f32 columns = 128 bytes per row, four k8 TF32 MMA steps per load.
BK = 32

# Per-element FLOPs of the epilogue activations, for the tasks' flops() models.
RELU_FLOPS = 1  # max
SILU_FLOPS = 5  # y * 1/(1+exp(-y)): neg, exp, add, divide, multiply (exp counted as 1)
GELU_FLOPS = 9  # y^3 (2), *0.044715, +y, *sqrt(2/pi), tanh, +1, *y, *0.5 (tanh as 1)


def relu(y):
    return jnp.maximum(y, 0.0)


def silu(y):
    return y * lax.logistic(y)


def gelu(y):
    """jax.nn.gelu's tanh approximation, written out so the kernel holds only tanh and mul/add."""
    c = 0.7978845608028654  # sqrt(2/pi)
    return 0.5 * y * (1.0 + jnp.tanh(c * (y + 0.044715 * (y * y * y))))


def round_tf32(t):
    """float32 -> nearest TF32 value (ties away from zero, as cvt.rna.tf32.f32), kept in float32.

    Triton feeds float32 operands to the TF32 tensor cores as they are, and the hardware drops
    their 13 low mantissa bits: truncation shrinks every product toward zero, a coherent ~1e-3
    relative bias per matmul that two chained matmuls push past the 2e-3 tolerance. Rounding
    first leaves only unbiased TF32 error (~3e-4). Two integer ops per loaded element.
    """
    bits = lax.bitcast_convert_type(t, jnp.int32)  # int32: a Python 0xFFFFE000 would not fit
    return lax.bitcast_convert_type((bits + 0x1000) & -0x2000, jnp.float32)


def _tile(dim: int, pref: int) -> int:
    """Largest power of two in [16, pref] dividing dim; else pref capped near dim (then padded)."""
    t = pref
    while t >= 16:
        if dim % t == 0:
            return t
        t //= 2
    return max(16, min(pref, tl.next_pow2(dim)))


def _plan(m: int, n: int, k: int, n_acc: int):
    """Tiles (bm, bn, bk), warps and stages for an (m, k) @ (k, n) problem with n_acc weights."""
    bk = _tile(k, BK)
    # 128x128 f32 accumulator elements per program in all: 64 registers a thread at 8 warps.
    bm = _tile(m, 128)
    bn = _tile(n, 128 // n_acc)
    # Small problems: shrink the larger tile until every SM has a program.
    while tl.cdiv(m, bm) * tl.cdiv(n, bn) < NUM_SMS and max(bm, bn) > MIN_TILE:
        if bn >= bm:
            bn //= 2
        else:
            bm //= 2
    acc_elems = bm * bn * n_acc
    num_warps = 8 if acc_elems >= 128 * 128 else 4
    # Shared memory per stage is bk * (bm + n_acc * bn) * 4 bytes: at most 32 KiB here, so three
    # stages of the big tiles and four of the small ones stay far below the H200's 227 KiB.
    num_stages = 3 if acc_elems >= 128 * 128 else 4
    return bm, bn, bk, num_warps, num_stages


def _pad(a, axis: int, mult: int):
    """Zero-pad one axis up to a multiple of mult (layout only; zeros add nothing to a dot)."""
    extra = -a.shape[axis] % mult
    if not extra:
        return a
    widths = [(0, 0)] * a.ndim
    widths[axis] = (0, extra)
    return jnp.pad(a, widths)


def _tile_ids(pid, grid_m: int, grid_n: int):
    """Program id -> (row tile, column tile), grouped: GROUP_M row tiles per sweep of columns."""
    # lax.div/rem: C semantics, which is all a non-negative id needs (// adds sign fix-ups).
    width = GROUP_M * grid_n
    first_m = lax.div(pid, width) * GROUP_M
    rows = jnp.minimum(grid_m - first_m, GROUP_M)
    in_group = lax.rem(pid, width)
    return first_m + lax.rem(in_group, rows), lax.div(in_group, rows)


def _body(x_ref, *refs, n_w, has_bias, prologue, epilogue, bm, bn, bk, k_steps, grid):
    w_refs, o_ref = refs[:n_w], refs[-1]
    pid_m, pid_n = _tile_ids(pl.program_id(0), *grid)
    rows = pl.ds(pl.multiple_of(pid_m * bm, bm), bm)
    cols = pl.ds(pl.multiple_of(pid_n * bn, bn), bn)

    def step(k, accs):
        ks = pl.ds(pl.multiple_of(k * bk, bk), bk)
        xt = round_tf32(prologue(x_ref[rows, ks]))
        return tuple(acc + jnp.dot(xt, round_tf32(w_ref[ks, cols]),
                                   preferred_element_type=jnp.float32)
                     for acc, w_ref in zip(accs, w_refs))

    accs = lax.fori_loop(0, k_steps, step,
                         tuple(jnp.zeros((bm, bn), jnp.float32) for _ in w_refs))
    extra = (refs[n_w][...],) if has_bias else ()
    o_ref[...] = epilogue(*accs, *extra).astype(o_ref.dtype)


def fused_matmul(x, weights, epilogue, *, bias=None, prologue=None, name="fused_matmul"):
    """epilogue(x' @ w_1, ..., x' @ w_n[, bias]) with x' = prologue(x), in one pallas_call.

    x is (M, K), every weight (K, N), bias (N,) or None. epilogue maps float32 (bm, bn) tiles
    (and a (1, bn) bias tile) to the output tile; prologue maps float32 (bm, bk) tiles of x and
    must send 0 to 0 (padding). Ragged M, N, K are zero-padded outside the kernel.
    """
    (m, k), n = x.shape, weights[0].shape[1]
    bm, bn, bk, num_warps, num_stages = _plan(m, n, k, len(weights))
    xp = _pad(_pad(x, 0, bm), 1, bk)
    wps = [_pad(_pad(w, 0, bk), 1, bn) for w in weights]
    mp, kp = xp.shape
    np_ = wps[0].shape[1]
    grid = (mp // bm, np_ // bn)

    any_spec = pl.BlockSpec(memory_space=pl.ANY)  # tiles are loaded by the K loop itself
    in_specs = [any_spec] * (1 + len(weights))
    operands = [xp, *wps]
    if bias is not None:
        in_specs.append(pl.BlockSpec((1, bn), lambda p: (0, _tile_ids(p, *grid)[1])))
        operands.append(_pad(bias.reshape(1, n), 1, bn))

    body = functools.partial(
        _body, n_w=len(weights), has_bias=bias is not None,
        prologue=prologue or (lambda t: t), epilogue=epilogue,
        bm=bm, bn=bn, bk=bk, k_steps=kp // bk, grid=grid)
    out = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((mp, np_), x.dtype),
        grid=(grid[0] * grid[1],),
        in_specs=in_specs,
        out_specs=pl.BlockSpec((bm, bn), lambda p: _tile_ids(p, *grid)),
        compiler_params=tl.triton_params(num_warps=num_warps, num_stages=num_stages),
        name=name,
    )(*operands)
    return out if (mp, np_) == (m, n) else out[:m, :n]
