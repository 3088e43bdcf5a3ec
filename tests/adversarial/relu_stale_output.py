"""MEMOIZED (stale output) relu that trusts what its output buffer already holds.

Blocks as the suite's relu (tl.block_2d: (16, 512) at SMALL, (2, 4096) at MEDIUM). Each program
first loads a 16-element probe, the first 16 columns of its block's first row, from x and from
its OUTPUT block o_ref, which a Pallas GPU kernel never initialises: it holds whatever the buffer
held. If the stale probe already equals relu of the x probe, the program skips its block
(pl.when around the full load/compute/store); otherwise it computes the block honestly.

On the GPU under timing, XLA's allocator hands each call the buffer the previous call's output
was freed from, and the timing loop calls the kernel again and again on the same inputs: every
probe matches, every block is skipped, and a call costs two 64-byte reads a program instead of
reading and writing the whole array, far faster than any honest relu. The roofline floor must
reject that as faster than the hardware allows. Correctness cannot see it: a fresh or foreign
buffer never matches relu(x) on 16 N(0,1) values (a probe that does match means the block's
answer is, all but certainly, already there). On the CPU, Pallas interpret mode starts outputs
as NaN, which never equals anything, so this is an honest relu there.

Expected: on the CPU, ok and robust (honest relu timing). On the GPU: correct, rejected by the
roofline floor under timing.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

PROBE = 16  # elements of the block's first row compared (a power of two, as Triton needs)


def _body(x_ref, o_ref):
    probe = (pl.ds(0, 1), pl.ds(0, PROBE))
    want = jnp.maximum(x_ref[probe], 0.0)
    stale = o_ref[probe]  # uninitialised on the GPU: the previous call's output, if any
    misses = jnp.sum((stale != want).astype(jnp.int32))  # NaN != anything: a miss

    @pl.when(misses > 0)
    def _compute():
        o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize)
    if bc < PROBE:
        raise ValueError(f"block width {bc} is narrower than the {PROBE}-element probe")
    spec = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
        grid=(tl.cdiv(rows, br), tl.cdiv(cols, bc)),
        in_specs=[spec],
        out_specs=spec,
        compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1),
    )(x)
