"""matmul: a @ b, float32 (M, K) @ (K, N).

One pallas_call. Each program owns a (bm, bn) output tile (128x128, shrunk until the grid covers
the H200's 132 SMs) and walks K in 32-wide steps with an in-kernel fori_loop, loading (bm, 32) and
(32, bn) tiles straight from raw pl.ANY refs into a float32 accumulator. Programs run in grouped
order (8 row tiles per column sweep) so concurrent programs share tiles in L2. Dots run at
Triton's default f32 precision: TF32 tensor cores (USES_TF32).
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "matmul"
LEVEL = 1
CATEGORY = "matmul"
INPUTS = (tl.Input("a", tl.REAL), tl.Input("b", tl.REAL))
SHAPES = tl.sizes(medium={"a": (1024, 1024), "b": (1024, 1024)},
                  small={"a": (256, 256), "b": (256, 256)},
                  large={"a": (4096, 4096), "b": (4096, 4096)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False

NUM_SMS = 132  # H200: a grid smaller than this leaves SMs idle
GROUP_M = 8  # row tiles swept together so they reuse b's column tiles from L2
MIN_TILE = 32  # jnp.dot needs >= 16 per dim; 32 keeps the MMAs fed
BK = 32  # 128-byte rows per K step: four k8 TF32 MMA steps per load


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["a"]), tl.weight(rng, shapes["b"])


def reference(a, b):
    # No precision here: the harness runs the correctness reference at "highest" and the speed
    # baseline at XLA's default (TF32), through jax.default_matmul_precision.
    return jnp.matmul(a, b)


def _tile(dim, pref):
    """Largest power of two in [16, pref] dividing dim, else pref capped near dim (dim padded)."""
    t = pref
    while t >= 16:
        if dim % t == 0:
            return t
        t //= 2
    return max(16, min(pref, tl.next_pow2(dim)))


def _pad(x, axis, mult):
    """Zero-pad one axis up to a multiple of mult: layout only, zeros add nothing to a dot."""
    extra = -x.shape[axis] % mult
    if not extra:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return jnp.pad(x, widths)


def _tile_ids(pid, grid_m, grid_n):
    """Program id -> (row tile, column tile), GROUP_M row tiles per sweep over the columns."""
    width = GROUP_M * grid_n
    first_m = (pid // width) * GROUP_M
    rows = jnp.minimum(grid_m - first_m, GROUP_M)
    return first_m + (pid % width) % rows, (pid % width) // rows


def _body(a_ref, b_ref, o_ref, *, bm, bn, bk, k_steps, grid):
    pid_m, pid_n = _tile_ids(pl.program_id(0), *grid)
    rows = pl.ds(pl.multiple_of(pid_m * bm, bm), bm)
    cols = pl.ds(pl.multiple_of(pid_n * bn, bn), bn)

    def step(k, acc):
        ks = pl.ds(pl.multiple_of(k * bk, bk), bk)
        return acc + jnp.dot(a_ref[rows, ks], b_ref[ks, cols],
                             precision=lax.Precision.DEFAULT,  # TF32, whatever the config says
                             preferred_element_type=jnp.float32)

    acc = lax.fori_loop(0, k_steps, step, jnp.zeros((bm, bn), jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)


def kernel(a, b):
    (m, k), n = a.shape, b.shape[1]
    bk = _tile(k, BK)
    bm, bn = _tile(m, 128), _tile(n, 128)
    while tl.cdiv(m, bm) * tl.cdiv(n, bn) < NUM_SMS and max(bm, bn) > MIN_TILE:
        if bn >= bm:
            bn //= 2
        else:
            bm //= 2
    big = bm * bn >= 128 * 128
    ap = _pad(_pad(a, 0, bm), 1, bk)
    bp = _pad(_pad(b, 0, bk), 1, bn)
    (mp, kp), np_ = ap.shape, bp.shape[1]
    grid = (mp // bm, np_ // bn)
    any_spec = pl.BlockSpec(memory_space=pl.ANY)  # tiles are loaded by the K loop itself
    out = pl.pallas_call(
        functools.partial(_body, bm=bm, bn=bn, bk=bk, k_steps=kp // bk, grid=grid),
        out_shape=jax.ShapeDtypeStruct((mp, np_), a.dtype),
        grid=(grid[0] * grid[1],),
        in_specs=[any_spec, any_spec],
        out_specs=pl.BlockSpec((bm, bn), lambda p: _tile_ids(p, *grid)),
        # 128x128 f32 accumulator: 64 registers a thread at 8 warps; shared memory per stage is
        # 32 * (bm + bn) * 4 bytes <= 32 KiB, so 3-4 stages fit the H200's 227 KiB.
        compiler_params=tl.triton_params(num_warps=8 if big else 4,
                                         num_stages=3 if big else 4),
    )(ap, bp)
    return out if (mp, np_) == (m, n) else out[:m, :n]


def flops(shapes):
    (m, k), (_, n) = shapes["a"], shapes["b"]
    return 2 * m * n * k


def bytes_moved(shapes):
    (m, k), (_, n) = shapes["a"], shapes["b"]
    return 4 * (m * k + k * n + m * n)
