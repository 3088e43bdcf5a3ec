"""embedding_lookup: table[ids], rows of a float32 (V, D) table gathered by int32 ids (N,).

The table stays a raw pl.ANY ref (the LARGE one, 128000x1024, cannot be a block): each program
takes a block of ids and a column tile (the largest power of two up to 1024 dividing D) and loads
table[ids, cols] in one indexed load, each id's row segment contiguous, straight into its
(ids, cols) output block; a ragged last block of ids is masked. Pure data movement.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import stress
from pallasbench import tasklib as tl

NAME = "embedding_lookup"
LEVEL = 1
CATEGORY = "index"
INPUTS = (tl.Input("table", tl.REAL), tl.Input("ids", tl.DISCRETE))
SHAPES = tl.sizes(medium={"table": (32000, 768), "ids": (512,)},
                  small={"table": (8000, 256), "ids": (128,)},
                  large={"table": (128000, 1024), "ids": (2048,)})
TOLERANCE = tl.EXACT
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", "degenerate", "distinct", offset=tl.NO_ROW_STATISTIC)

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


def _load(ref, mask, fill):
    """The block; `fill` where mask is False (past the array's edge), memory left untouched."""
    return ref[...] if mask is None else pltriton.load(ref, mask=mask, other=fill)


def _store(ref, value, mask):
    """Writes the block except where mask is False (past the array's edge)."""
    if mask is None:
        ref[...] = value
    else:
        pltriton.store(ref, value, mask=mask)


def _inside(axis, block, extent):
    """Which of this program's `block` positions along grid axis `axis` fall inside `extent`;
    None when the grid tiles it exactly. Triton does not clip edge blocks: mask them."""
    if extent % block == 0:
        return None
    return pl.program_id(axis) * block + lax.broadcasted_iota(jnp.int32, (block,), 0) < extent


def _body(ids_ref, table_ref, o_ref, *, n, vocab):
    bi, bc = o_ref.shape
    rows = _inside(0, bi, n)
    # Ids are in range by the task's domain; the clamp only keeps a bad id inside the table
    # (jnp's gather clamps too).
    ids = jnp.clip(_load(ids_ref, rows, 0), 0, vocab - 1)
    cols = pl.ds(pl.multiple_of(pl.program_id(1) * bc, bc), bc)
    _store(o_ref, table_ref[ids, cols], None if rows is None else rows[:, None])


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


def flops(shapes):
    return 0  # pure data movement


def bytes_moved(shapes):
    n, dim = shapes["ids"][0], shapes["table"][1]
    return 4 * (n + 2 * n * dim)  # ids, the gathered rows once, the output
