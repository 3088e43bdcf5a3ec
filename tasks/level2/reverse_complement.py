"""reverse_complement: out[b, i] = 3 - seq[b, L-1-i] over uint8 DNA rows.

Memory-bound stream. Each program owns a contiguous (rows, cols) output block (vectorised
stores) and fetches its mirror-image input span with a descending index gather from the raw
row-major buffer (Triton has no in-register reverse; the gather is still warp-coalesced).
Bases stay uint8 in registers; ragged edges are masked.

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics_mma.py): Mosaic GPU cannot
reverse a register array (no `rev` lowering, monotonic layouts) and TMA keeps the order, so
each (64, 128) tile, loaded by TMA from the mirrored column tile, is reversed on tensor cores:
an 8-bit wgmma against the 128 x 128 anti-identity (a constant operand) into int32, exact;
3 - that goes back as uint8 by TMA. Rows past R (SMALL has 8) read zeros and are not stored.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics_mma
from pallasbench.task.families.genomics import INTEGER_OPS, ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "reverse_complement"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("seqs", tl.DISCRETE),)
SHAPES = tl.sizes(medium={"seqs": (64, 65536)}, small={"seqs": (8, 1024)},
                  large={"seqs": (256, 262144)})
TOLERANCE = tl.EXACT

# Elements per program: 8 warps x 32 lanes x 32 bytes keeps the gather offsets and the bytes
# in registers without spilling.
_BLOCK_ELEMS = 8192


def make_inputs(rng, shapes):
    return (tl.dna(rng, shapes["seqs"]),)


def reference(seqs):
    return 3 - seqs[:, ::-1]  # stays uint8


def _body(x_ref, o_ref, *, rows, length, br, bc, ragged):
    r0 = pl.multiple_of(pl.program_id(0) * br, br)
    c0 = pl.multiple_of(pl.program_id(1) * bc, bc)
    r = r0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 0)
    c = c0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 1)
    src = r * length + (length - 1 - c)  # flat offset of the mirrored base
    out = o_ref.at[pl.ds(r0, br), pl.ds(c0, bc)]
    if ragged:
        inside = (r < rows) & (c < length)
        x = pltriton.load(x_ref.at[src], mask=inside, other=0)
        pltriton.store(out, jnp.uint8(3) - x, mask=inside)
    else:
        out[...] = jnp.uint8(3) - x_ref[src]


def kernel(seqs):
    rows, length = seqs.shape
    bc = min(tl.next_pow2(length), _BLOCK_ELEMS)
    br = min(tl.next_pow2(rows), _BLOCK_ELEMS // bc)
    ragged = rows % br != 0 or length % bc != 0
    body = functools.partial(_body, rows=rows, length=length, br=br, bc=bc, ragged=ragged)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct(seqs.shape, seqs.dtype),
        grid=(tl.cdiv(rows, br), tl.cdiv(length, bc)),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),  # edge tiles, if any, store masked
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
    )(seqs.reshape(-1))


BACKENDS = {"mosaic_gpu": mosaic_genomics_mma.reverse_complement, "triton": kernel}


def flops(shapes):
    rows, length = shapes["seqs"]
    return rows * length


def bytes_moved(shapes, itemsize=4):
    # uint8 bases read and written (1 byte each): no float element, so `itemsize` does not
    # enter.
    rows, length = shapes["seqs"]
    base_bytes = 1  # uint8
    return 2 * rows * length * base_bytes
