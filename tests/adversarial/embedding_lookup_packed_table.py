"""HONEST embedding_lookup with its table packed outside the kernel, column tile by column tile.

The table, the task's weight input, is relaid outside the kernel as (D / 128, V, 128), flattened
to (D / 128 * V, 128): each 128-column tile of every row contiguous, so that a program's
gathered row segments come from one dense (V, 128) plane, rows j * V + id for column tile j
(what a deployment does once, offline). The transpose moves the whole table
(8 MB at SMALL, thirty times the task's byte model), but data derived from weights alone is
packing and is not counted (docs/filters.md, "Data movement"); the gather by ids, the task's
work, is the kernel's.
Expected: correct and robust.
"""
import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

COLS = 128  # a packed tile's width
IDS = 16  # ids a program


def _body(ids_ref, packed_ref, o_ref, *, vocab):
    ids = jnp.clip(ids_ref[...], 0, vocab - 1)
    rows = pl.program_id(1) * vocab + ids
    o_ref[...] = packed_ref[rows, pl.ds(0, o_ref.shape[1])]


def kernel(table, ids):
    vocab, dim = table.shape
    (n,) = ids.shape
    bc, bi = min(COLS, dim), min(IDS, n)
    packed = table.reshape(vocab, dim // bc, bc).transpose(1, 0, 2).reshape(dim // bc * vocab, bc)
    return pl.pallas_call(
        functools.partial(_body, vocab=vocab),
        out_shape=jax.ShapeDtypeStruct((n, dim), table.dtype),
        grid=(n // bi, dim // bc),
        in_specs=[pl.BlockSpec((bi,), lambda i, j: (i,)), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((bi, bc), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(ids, packed)
