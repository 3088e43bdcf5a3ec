"""sequence_match: int32 (N, L-P+1) number of pattern positions matching at each offset.

Each program owns an output tile (rows, offsets). For every pattern position p (unrolled) it
loads the tile's bases shifted by p straight from the raw uint8 buffer (the window past the
tile's right edge is read from memory, L1-resident; reads past the row end are masked), compares
them with pattern[p] as uint8 and accumulates matches in int32 registers.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

NAME = "sequence_match"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("seqs", tl.DISCRETE), tl.Input("pattern", tl.DISCRETE))
SHAPES = tl.sizes(medium={"seqs": (256, 4096), "pattern": (16,)},
                  small={"seqs": (16, 256), "pattern": (8,)},
                  large={"seqs": (1024, 16384), "pattern": (32,)})
TOLERANCE = tl.EXACT
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("degenerate", tiny=tl.NO_FLOAT_INPUT, large=tl.NO_FLOAT_INPUT, offset=tl.NO_ROW_STATISTIC,
                         distinct="four bases: all-distinct is impossible")
# Its "flops" are integer operations (compares, counts, index arithmetic): no float ceiling applies.
INTEGER_OPS = True

# Offsets per program: 4 warps x 32 lanes x 32 int32 accumulators.
_TILE = 4096
_MAX_COLS = 1024


def make_inputs(rng, shapes):
    return tl.dna(rng, shapes["seqs"]), tl.dna(rng, shapes["pattern"])


def reference(seqs, pattern):
    (p_len,) = pattern.shape
    n_off = seqs.shape[1] - p_len + 1
    hits = [(seqs[:, p:p + n_off] == pattern[p]).astype(jnp.int32) for p in range(p_len)]
    return sum(hits)


def _body(x_ref, pat_ref, o_ref, *, rows, length, p_len, br, bc):
    r0 = pl.multiple_of(pl.program_id(0) * br, br)
    c0 = pl.multiple_of(pl.program_id(1) * bc, bc)  # lets aligned shifts load 16 bytes at once
    r = r0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 0)
    c = c0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 1)
    room = length - c  # bases left in the row from each offset
    if rows % br:
        room = jnp.where(r < rows, room, 0)
    acc = jnp.zeros((br, bc), jnp.int32)
    for p in range(p_len):
        x = pltriton.load(x_ref.at[pl.ds(r0, br), pl.ds(c0 + p, bc)], mask=p < room, other=0)
        acc += (x == pat_ref[p]).astype(jnp.int32)
    # Only offsets where the whole pattern fits exist in the (rows, L-P+1) output.
    pltriton.store(o_ref.at[pl.ds(r0, br), pl.ds(c0, bc)], acc, mask=p_len <= room)


def kernel(seqs, pattern):
    rows, length = seqs.shape
    (p_len,) = pattern.shape
    n_off = length - p_len + 1
    bc = min(tl.next_pow2(n_off), _MAX_COLS)
    br = min(tl.next_pow2(rows), _TILE // bc)
    body = functools.partial(_body, rows=rows, length=length, p_len=p_len, br=br, bc=bc)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows, n_off), jnp.int32),
        grid=(tl.cdiv(rows, br), tl.cdiv(n_off, bc)),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),  # L-P+1 is ragged: masked stores
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(seqs, pattern)


def flops(shapes):
    rows, length = shapes["seqs"]
    (p_len,) = shapes["pattern"]
    return 2 * rows * (length - p_len + 1) * p_len  # compare + count per base


def bytes_moved(shapes, itemsize=4):
    # uint8 seqs and pattern read (1 byte), one int32 count a window written (4 bytes): no float
    # element, so `itemsize` does not enter.
    rows, length = shapes["seqs"]
    (p_len,) = shapes["pattern"]
    base_bytes, count_bytes = 1, 4  # uint8 in, int32 out
    return base_bytes * (rows * length + p_len) + count_bytes * rows * (length - p_len + 1)
