"""gc_content: fraction of G or C bases per uint8 DNA row, float32 (N,).

Memory-bound stream. Each program owns `br` rows and walks them in contiguous (br, bc) chunks,
counting G/C hits exactly in an int32 register accumulator (one cross-thread reduction at the
end, not per chunk); the division by the row length is the only float operation.

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics.py `gc_content`): CTAs of
4 rows stream (4, k, 256) uint8 boxes through a TMA ring, widen the bases in registers and add
(b ^ b >> 1) & 1 into an int32 register tile, reduced over its columns once at the end.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics
from pallasbench.task.families.genomics import INTEGER_OPS, ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "gc_content"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("seqs", tl.DISCRETE),)
SHAPES = tl.sizes(medium={"seqs": (1024, 16384)}, small={"seqs": (16, 1024)},
                  large={"seqs": (4096, 65536)})
TOLERANCE = tl.ELEMENTWISE

# Bases per chunk: 4 warps x 32 lanes x 32 bytes, i.e. two 16-byte loads per thread per step.
_CHUNK = 4096


def make_inputs(rng, shapes):
    return (tl.dna(rng, shapes["seqs"]),)


def reference(seqs):
    gc = (seqs == 1) | (seqs == 2)
    return jnp.mean(gc.astype(jnp.float32), axis=-1)


def _body(x_ref, o_ref, *, length, br, bc, ragged):
    r0 = pl.program_id(0) * br

    def step(i, acc):
        c0 = pl.multiple_of(i * bc, bc)
        view = x_ref.at[pl.ds(r0, br), pl.ds(c0, bc)]
        if ragged:  # never read past the row: the edge chunk's tail counts as "not GC"
            c = c0 + jax.lax.broadcasted_iota(jnp.int32, (br, bc), 1)
            x = pltriton.load(view, mask=c < length, other=0)
        else:
            x = view[...]
        return acc + ((x == 1) | (x == 2)).astype(jnp.int32)

    acc = jax.lax.fori_loop(0, tl.cdiv(length, bc), step, jnp.zeros((br, bc), jnp.int32))
    o_ref[...] = jnp.sum(acc, axis=1).astype(jnp.float32) / jnp.float32(length)


def kernel(seqs):
    rows, length = seqs.shape
    bc = min(tl.next_pow2(length), _CHUNK)
    br = min(rows & -rows, _CHUNK // bc)  # a power of two dividing rows: no ragged row block
    body = functools.partial(_body, length=length, br=br, bc=bc, ragged=length % bc != 0)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((rows,), jnp.float32),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY)],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(seqs)


BACKENDS = {"mosaic_gpu": mosaic_genomics.gc_content, "triton": kernel}


def flops(shapes):
    rows, length = shapes["seqs"]
    return 2 * rows * length + rows  # compare + count per base, one divide per row


def bytes_moved(shapes, itemsize=4):
    # uint8 bases read (1 byte), one float32 fraction a row written (4 bytes). With no float
    # input the output stays float32 at every dtype (dtypes.output_at_dtype), so `itemsize`
    # does not enter.
    rows, length = shapes["seqs"]
    base_bytes, out_bytes = 1, 4  # uint8 in, float32 out
    return base_bytes * rows * length + out_bytes * rows
