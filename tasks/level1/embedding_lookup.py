"""embedding_lookup: table[ids], rows of a float (V, D) table gathered by int32 ids (N,).

The table stays a raw pl.ANY ref (the LARGE one, 128000x1024, cannot be a block): each program
takes a block of ids and a column tile (the largest power of two up to 1024 dividing D) and loads
table[ids, cols] in one indexed load, each id's row segment contiguous, straight into its
(ids, cols) output block; a ragged last block of ids is masked. Pure data movement.

Mosaic GPU (the preferred backend, kernels/mosaic_index.py): data-dependent TMA. CTA (8 ids,
column tile) reads its ids from SMEM as scalars and issues one TMA copy a row, table[id, cols]
(its start the id), into an SMEM block, then stores the block by TMA. Hopper's TMA has no
gather mode, so one copy a row.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_index
from pallasbench.kernels import masked
from pallasbench.task import stress

NAME = "embedding_lookup"
LEVEL = 1
CATEGORY = "index"
INPUTS = (tl.Input("table", tl.REAL, weight=True), tl.Input("ids", tl.DISCRETE))
SHAPES = tl.sizes(medium={"table": (32000, 768), "ids": (512,)},
                  small={"table": (8000, 256), "ids": (128,)},
                  large={"table": (128000, 1024), "ids": (2048,)})
TOLERANCE = tl.EXACT
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", "degenerate", "distinct", offset=tl.NO_ROW_STATISTIC)

BLOCK_ELEMS = 2048  # 8 KiB of output a program: 192+ programs at MEDIUM, 16 a thread
MAX_COLS = 1024


def make_inputs(rng, shapes):
    table = tl.normal(rng, shapes["table"])
    return table, tl.ids(rng, shapes["ids"], shapes["table"][0])


def stress_inputs(case, rng, shapes, inputs):
    if case == "distinct":  # every row of the table looked up at most once
        table, ids = inputs
        return table, stress.distinct_ids(rng, ids.shape, table.shape[0])
    return None


def reference(table, ids):
    return table[ids]


def _body(ids_ref, table_ref, o_ref, *, n, vocab):
    bi, bc = o_ref.shape
    rows = masked.block_inside(0, bi, n)
    # Ids are in range by the task's domain; the clamp only keeps a bad id inside the table
    # (jnp's gather clamps too).
    ids = jnp.clip(masked.load(ids_ref, rows, 0), 0, vocab - 1)
    cols = pl.ds(pl.multiple_of(pl.program_id(1) * bc, bc), bc)
    masked.store(o_ref, table_ref[ids, cols], None if rows is None else rows[:, None])


def kernel(table, ids):
    vocab, dim = table.shape
    n = ids.shape[0]
    bc = min(MAX_COLS, dim & -dim)  # exact column tiles: no column edge to mask
    bi = min(tl.next_pow2(n), max(1, BLOCK_ELEMS // bc))
    return pl.pallas_call(
        functools.partial(_body, n=n, vocab=vocab),
        out_shape=jax.ShapeDtypeStruct((n, dim), table.dtype),
        grid=(tl.cdiv(n, bi), dim // bc),
        in_specs=[pl.BlockSpec((bi,), lambda i, j: (i,)), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bi, bc), lambda i, j: (i, j)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(ids, table)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_index.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_index.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return 0  # pure data movement


def bytes_moved(shapes, itemsize=4):
    # The int32 ids (4 bytes), then the gathered table rows read once and the output written,
    # floats at `itemsize` bytes (4 at float32, 2 at bfloat16/float16).
    n, dim = shapes["ids"][0], shapes["table"][1]
    id_bytes = 4  # int32
    return id_bytes * n + itemsize * 2 * n * dim
