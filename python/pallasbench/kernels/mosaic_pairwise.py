"""Pairwise Mosaic GPU kernels: an (M, N) output of one value for each pair (i, j) of two operands'
rows or elements (outer_product, pairwise_distance), one `plgpu.kernel` each, the Mosaic twins of
those task files' Triton kernels (plumbing in mosaic_stream).

CTA (i, j) owns the (bi, bj) output tile of rows i * bi... and columns j * bj...: it brings its
two operand slices into SMEM by TMA, computes the tile in registers (mosaic_stream.rows_layout,
`vec` columns a lane) from a per-row value (the layout reduced over columns) and a per-column
value (reduced over rows), both broadcast over the tile, and stores it by TMA. Tiles are at most
a TMA box (256) a side and few enough elements a thread that CTAs fill the GPU.

- outer_product: x[i] * y[j], formed in float32 (exact: one rounding, on store).
- pairwise_distance: sqrt(sum_d (x[i, d] - x[j, d])^2 + 1e-8), the explicit difference form of
  the Triton kernel (no cancellation where rows nearly coincide: the diagonal is sqrt(1e-8)),
  one feature at a time in float32, in the order d = 0, 1, ... A feature's values of the tile's
  rows must be a contiguous SMEM row to load them as per-row or per-column values (a strided
  column view fails Mosaic's transfer planner: "Failed to prove that vector transfers don't cross
  swizzle tile boundaries"), so each (rows, D) block is transposed in the kernel: loaded into
  registers and stored through the (D, rows) buffer's transposed view. The square root is a
  Newton-refined rsqrt (mosaic_stream.sqrt_refined: JAX 0.10.2 has no sqrt rule).

Tunable under the task's `name` (pallasbench.task.tuning): "mosaic_tile_rows", "mosaic_tile_cols".
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench.kernels import mosaic_stream as ms
from pallasbench.task import tuning

EPS = 1e-8  # pairwise_distance's epsilon (its task file's EPS)
# Output elements a CTA: 16 float32 a thread, so the tiles of a 1024 x 1024 output make 512 CTAs.
TILE_ELEMS = 2048


def _tiles(name, m: int, n: int, min_rows: int = 4):
    """(bi, bj, vec): the output tile and the columns a lane holds (rows_layout)."""
    bj = tuning.choice(name, "mosaic_tile_cols", min(n, 32 * ms.VEC))
    bi = tuning.choice(name, "mosaic_tile_rows", max(min_rows, min(ms.MAX_BOX, m, TILE_ELEMS // bj)))
    vec = bj // 32
    if n % bj or m % bi or bi % 4 or bj % 32 or vec not in (1, 2, 4) or bi > ms.MAX_BOX:
        ms.refuse(name, f"a ({m}, {n}) output in ({bi}, {bj}) tiles: tiles dividing it, rows a multiple of 4, "
                        f"columns 32, 64 or 128")
    return bi, bj, vec


def _launch(name, body, operands, out_shape, out_dtype, tiles, scratch, interpret):
    bi, bj, vec = tiles
    m, n = out_shape
    gpu = ms.plgpu()
    interpret = ms.interpret_for(interpret)
    body = functools.partial(body, tiles_j=n // bj, vec=vec, interpreting=interpret is not None)
    scratch = [*scratch, gpu.SMEM((bi, bj), out_dtype), gpu.Barrier(num_arrivals=2, num_barriers=1)]
    return ms.launch(body, operands, ms.struct(out_shape, out_dtype), ctas=(m // bi) * (n // bj),
                     scratch=scratch, name=name, interpret=interpret)


def _tile_index(tiles_j):
    cta = lax.axis_index("cta")
    return lax.div(cta, jnp.int32(tiles_j)), lax.rem(cta, jnp.int32(tiles_j))


def _store(out_smem, out_gmem, value, i, j):
    gpu = ms.plgpu()
    bi, bj = out_smem.shape
    out_smem[...] = value.astype(out_smem.dtype)
    gpu.commit_smem()
    gpu.copy_smem_to_gmem(out_smem, out_gmem.at[pl.ds(i * bi, bi), pl.ds(j * bj, bj)])
    gpu.wait_smem_to_gmem(0)


# ---- outer_product ------------------------------------------------------------------------

def outer_product(x, y, *, name="outer_product", interpret=ms.AUTO):
    """x[:, None] * y[None, :] at x's dtype, each product formed in float32."""
    if x.ndim != 1 or y.ndim != 1 or x.dtype != y.dtype:
        ms.refuse(name, f"x {x.shape} {x.dtype} and y {y.shape} {y.dtype}: vectors of one dtype are needed")
    # x's slice is a 1D copy: 128 bytes at least (32 rows at float32, 64 at 16-bit dtypes).
    tiles = _tiles(name, x.shape[0], y.shape[0], min_rows=ms.COPY_QUANTUM // x.dtype.itemsize)
    bi, bj, _ = tiles
    if min(bi, bj) * x.dtype.itemsize % ms.COPY_QUANTUM:
        ms.refuse(name, f"({bi}, {bj}) tiles: 1D copies of {ms.COPY_QUANTUM}-byte multiples are needed")
    gpu = ms.plgpu()
    scratch = [gpu.SMEM((bi,), x.dtype), gpu.SMEM((bj,), y.dtype)]
    return _launch(name, _outer_kernel, [x, y], (x.shape[0], y.shape[0]), x.dtype, tiles, scratch, interpret)


def _outer_kernel(x_gmem, y_gmem, out_gmem, x_smem, y_smem, out_smem, barrier, *, tiles_j, vec, interpreting):
    gpu = ms.plgpu()
    (bi,), (bj,) = x_smem.shape, y_smem.shape
    lay = ms.Layouts(ms.rows_layout(vec), interpreting)
    i, j = _tile_index(tiles_j)
    gpu.copy_gmem_to_smem(x_gmem.at[pl.ds(i * bi, bi)], x_smem, barrier.at[0])
    gpu.copy_gmem_to_smem(y_gmem.at[pl.ds(j * bj, bj)], y_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    a = lay.spread(lay.load_reduced(x_smem, 1), (bi, bj), 1)
    b = lay.spread(lay.load_reduced(y_smem, 0), (bi, bj), 0)
    _store(out_smem, out_gmem, a * b, i, j)


# ---- pairwise_distance --------------------------------------------------------------------

def pairwise_distance(x, *, name="pairwise_distance", interpret=ms.AUTO):
    """sqrt(sum_d (x[i, d] - x[j, d])^2 + 1e-8) for every pair of rows, (N, N) at x's dtype."""
    if x.ndim != 2:
        ms.refuse(name, f"x {x.shape}: a (rows, features) array is needed")
    n, features = x.shape
    if features * x.dtype.itemsize % 16 or features > ms.MAX_BOX:
        ms.refuse(name, f"{features} features: rows of a multiple of 16 bytes, at most {ms.MAX_BOX}")
    tiles = _tiles(name, n, n)
    bi, bj, _ = tiles
    gpu = ms.plgpu()
    # Blocks at least 32 features wide (the transposing layout's tile): TMA fills the columns
    # past the array with zeros, which add (0 - 0)^2 to nothing (the loop stops at `features`).
    width = max(32, features)
    scratch = [gpu.SMEM((bi, width), x.dtype), gpu.SMEM((bj, width), x.dtype),
               gpu.SMEM((width, bi), jnp.float32), gpu.SMEM((width, bj), jnp.float32)]
    return _launch(name, _distance_kernel, [x], (n, n), x.dtype, tiles, scratch, interpret)


def _distance_kernel(x_gmem, out_gmem, xi_smem, xj_smem, xi_t, xj_t, out_smem, barrier, *, tiles_j, vec,
                     interpreting):
    gpu = ms.plgpu()
    width, bi = xi_t.shape
    bj, features = xj_t.shape[1], x_gmem.shape[1]
    lay = ms.Layouts(ms.rows_layout(vec), interpreting)
    i, j = _tile_index(tiles_j)
    gpu.copy_gmem_to_smem(x_gmem.at[pl.ds(i * bi, bi), pl.ds(0, width)], xi_smem, barrier.at[0])
    gpu.copy_gmem_to_smem(x_gmem.at[pl.ds(j * bj, bj), pl.ds(0, width)], xj_smem, barrier.at[0])
    gpu.barrier_wait(barrier.at[0])
    # (rows, D) -> (D, rows), through registers in rows_layout with one column a lane (wider
    # vectors would be strided stores: "Tiled strides must be a multiple of the vector length").
    for block, t in ((xi_smem, xi_t), (xj_smem, xj_t)):
        t.transpose((1, 0))[...] = lay.cast(block[...], ms.rows_layout(1)).astype(jnp.float32)
    gpu.commit_smem()  # every warp's transposed stores before any warp's loads

    def feature(d, acc):
        a = lay.spread(lay.load_reduced(xi_t.at[d], 1), (bi, bj), 1)
        b = lay.spread(lay.load_reduced(xj_t.at[d], 0), (bi, bj), 0)
        diff = a - b
        return acc + diff * diff

    acc = lax.fori_loop(0, features, feature, lay.cast(jnp.zeros((bi, bj), jnp.float32)))
    _store(out_smem, out_gmem, ms.sqrt_refined(acc + EPS), i, j)


KERNELS = {
    "outer_product": lambda x, y, interpret=ms.AUTO: outer_product(x, y, interpret=interpret),
    "pairwise_distance": lambda x, interpret=ms.AUTO: pairwise_distance(x, interpret=interpret),
}
