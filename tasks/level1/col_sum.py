"""col_sum: sum over axis 0 of a float matrix.

A rows-family task (pallasbench/task/families/rows.py: inputs, stress cases, byte model).
Memory-bound column reduction in two pallas_calls. Plain f32 tree sums of 16384 N(0,1) terms err by
~1e-5, the size of the tolerance near zero, so each element is split exactly into a head on a 2^-10
grid and a small tail: head sums are exact in f32 (while |partial| < 2^14) and tail sums are tiny,
so the result carries little more than its final rounding. The first call streams (64, 128) tiles
over a 2-D grid, writing head and tail column sums per tile; the second sums them per 32-column
strip. Ragged edges are masked to 0. No dot, no TF32. Any float dtype: summed in float32 (the
partials are float32 in memory), rounded once on store.

Tunable (pallasbench.task.tuning): "cols" (the first pass's tile width), "tile" (its elements a
program: taller tiles, fewer partial rows), "num_warps" (first pass), "split" ("int", the
default, "add" or "floor": reductions.split_for_sum's head rounded by float adds or one floor
instead of two int32 conversions an element, which run at a quarter of the add rate).
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import masked, reductions
from pallasbench.kernels import mosaic_columns
from pallasbench.task import tuning
from pallasbench.task.families.rows import INPUTS, ORDER_DEPENDENT, USES_TF32, make_inputs
from pallasbench.task.families.rows import REDUCE_STRESS as STRESS

NAME = "col_sum"
LEVEL = 1
CATEGORY = "reduce"
SHAPES = tl.sizes(medium={"x": (4096, 2048)})
TOLERANCE = tl.ELEMENTWISE

# Elements one program loads at once: the shared block budget (8K float32, 8 warps).
TILE = tl.DEFAULT_BLOCK_BYTES // 4
# Tile width of the first pass: 512-byte contiguous row segments.
PASS1_COLS = 128
# Strip width of the second pass: narrow, so its few rows still spread over many programs.
PASS2_COLS = 32


def reference(x):
    return jnp.sum(x, axis=0)


def _store_cols(ref, val, col0, cols):
    width = ref.shape[-1]
    if cols % width == 0:
        ref[...] = val
    else:
        c = col0 + lax.broadcasted_iota(jnp.int32, ref.shape, len(ref.shape) - 1)
        pltriton.store(ref, val, mask=c < cols)


def _partial_body(x_ref, head_ref, tail_ref, *, rows, cols, split):
    """Head and tail column sums of one (tr, bc) tile -> one row of each partial matrix."""
    tr, bc = x_ref.shape
    col0 = pl.program_id(1) * bc
    x = masked.load_tile(x_ref, pl.program_id(0) * tr, rows, col0, cols, bc, other=0.0)
    x = x.astype(jnp.float32)  # bfloat16/float16 columns are summed in float32 too
    head, tail = reductions.split_for_sum(x, split)
    _store_cols(head_ref, jnp.sum(head, axis=0, keepdims=True), col0, cols)
    _store_cols(tail_ref, jnp.sum(tail, axis=0, keepdims=True), col0, cols)


def _combine_body(head_ref, tail_ref, o_ref, *, parts, cols, chunk, chunks):
    """Sum the head and tail partial rows of one column strip, `chunk` rows at a time."""
    bc = head_ref.shape[1]
    col0 = pl.program_id(0) * bc

    def chunk_sum(ref, k):
        tile = ref if chunk == ref.shape[0] else ref.at[pl.ds(k * chunk, chunk), :]
        return jnp.sum(masked.load_tile(tile, k * chunk, parts, col0, cols, bc, other=0.0), axis=0)

    def total(ref):
        if chunks == 1:
            return chunk_sum(ref, 0)
        return lax.fori_loop(0, chunks, lambda k, acc: acc + chunk_sum(ref, k),
                             jnp.zeros((bc,), jnp.float32))

    _store_cols(o_ref, (total(head_ref) + total(tail_ref)).astype(o_ref.dtype), col0, cols)


def kernel(x):
    rows, cols = x.shape
    split = tuning.choice(NAME, "split", "int")
    if split not in ("int", "add", "floor"):
        raise ValueError(f"{NAME}: split {split!r}")
    bc = min(tl.next_pow2(cols), tuning.choice(NAME, "cols", PASS1_COLS))
    tile = tuning.choice(NAME, "tile", TILE)
    tr = min(tl.next_pow2(rows), max(1, tile // bc))
    parts = tl.cdiv(rows, tr)
    partial_spec = pl.BlockSpec((1, bc), lambda i, j: (i, j))
    heads, tails = pl.pallas_call(
        functools.partial(_partial_body, rows=rows, cols=cols, split=split),
        out_shape=[jax.ShapeDtypeStruct((parts, cols), jnp.float32)] * 2,
        grid=(parts, tl.cdiv(cols, bc)),
        in_specs=[pl.BlockSpec((tr, bc), lambda i, j: (i, j))],
        out_specs=[partial_spec, partial_spec],
        compiler_params=tl.triton_params(
            num_warps=tuning.choice(NAME, "num_warps", 8 if tr * bc >= TILE else 4), num_stages=1),
    )(x)

    bc2 = min(tl.next_pow2(cols), PASS2_COLS)
    chunk = min(tl.next_pow2(parts), TILE // bc2)
    return pl.pallas_call(
        functools.partial(_combine_body, parts=parts, cols=cols, chunk=chunk,
                          chunks=tl.cdiv(parts, chunk)),
        out_shape=jax.ShapeDtypeStruct((cols,), x.dtype),
        grid=(tl.cdiv(cols, bc2),),
        in_specs=[pl.BlockSpec((tl.next_pow2(parts), bc2), lambda j: (0, j))] * 2,
        out_specs=pl.BlockSpec((bc2,), lambda j: (j,)),
        compiler_params=tl.triton_params(num_warps=8 if chunk * bc2 >= TILE else 4,
                                         num_stages=1),
    )(heads, tails)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_columns.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_columns.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return rows * cols


def bytes_moved(shapes, itemsize=4):
    # x read once and one sum a column written, floats at `itemsize` bytes (4 at float32, 2 at
    # bfloat16/float16).
    rows, cols = shapes["x"]
    return (rows * cols + cols) * itemsize
