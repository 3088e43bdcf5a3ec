"""Elementwise kernels: one pallas_call mapping a task's body over row-major blocks.

Memory-bound: each element is read once per input and written once. Blocks come from
tl.block_2d: the column extent covers whole rows (contiguous 16-byte loads) and a block holds 32
KB, 8K float32 elements, so 8 warps give each thread 32 elements (eight 16-byte loads) per input:
many bytes in flight per SM without spilling registers. At bfloat16/float16 the same bytes are
16K elements (64 a thread).

Bodies of a few instructions an element (`stream=True`: relu, add, exp...) take STREAM_BLOCK_BYTES
blocks instead for arrays of at least STREAM_MIN_BYTES (the LARGE shapes): fewer, longer
programs, 32 16-byte loads a thread at 8 warps. On the H200 at LARGE float32 (bench/results/
2026-12-04-h200-3, call 2) 128 KB blocks moved relu 0.92 -> 0.96x XLA, add 0.96 -> 0.99x, exp
0.93 -> 0.96x (XLA's loop fusions run at the copy ceiling; 32 KB blocks at ~92% of it). Longer
bodies lose with them (call 3, every elementwise task on 128 KB blocks: gelu 0.93 -> 0.75x, elu
0.97 -> 0.74x, softplus 1.00 -> 0.78x, fused_gelu_bias 0.97 -> 0.68x): ~155 registers a thread,
one 8-warp program an SM, too few warps to hide their arithmetic's latency.

Tunable under the task's `name` (pallasbench.task.tuning): "block_bytes" (the budget above),
"max_cols" (a narrower column extent: more, shorter blocks), "num_warps". At 16-bit dtypes the
32 KB blocks halve the programs (a MEDIUM 2048 x 1024 array: 128, under one per H200 SM).

Bodies compute in float32 at every dtype (`x_ref[...].astype(jnp.float32)`, then
`.astype(o_ref.dtype)` on store): Pallas's Triton lowering refuses a 16-bit divide, 16-bit math
would round every step, and one rounding on store matches the reference's; for float32 both
casts are no-ops. map_float32 writes that body around a task's formula; map_exact, the body of
a selection (relu, maximum, clip), which is exact in the input's dtype and runs in it.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.task import tuning

# Streaming blocks for big arrays (see above): 128 KB once the array holds 2048 of them.
STREAM_BLOCK_BYTES = 128 * 1024
STREAM_MIN_BYTES = 2048 * STREAM_BLOCK_BYTES


def block_bytes(x, stream: bool = False) -> int:
    """The default block budget for x: STREAM_BLOCK_BYTES for a streaming body (`stream`) over an
    array of at least STREAM_MIN_BYTES, else the suite's shared tl.DEFAULT_BLOCK_BYTES."""
    big = x.size * x.dtype.itemsize >= STREAM_MIN_BYTES
    return STREAM_BLOCK_BYTES if stream and big else tl.DEFAULT_BLOCK_BYTES


def map_blocks(body, *operands, pad_edges: bool = False, num_warps: int = 8, out_dtype=None,
               stream: bool = False, name=None):
    """body(*in_refs, o_ref) over (br, bc) blocks of the first operand; the output has its shape
    and dtype (out_dtype when given).

    Operands are (rows, cols) matrices, blocked alike, or (cols,) vectors broadcast down the rows
    (a bias), of which each program gets its (bc,) slice. The Triton lowering does not mask edge
    blocks, so a block that does not divide the array is refused (tl.block_2d) unless pad_edges:
    then the operands are zero-padded to whole blocks and the result sliced back. `stream`: the
    body is a few instructions an element (see STREAM_BLOCK_BYTES).
    """
    x = operands[0]
    rows, cols = x.shape
    br, bc = tl.block_2d(x.shape, x.dtype.itemsize,
                         tuning.choice(name, "block_bytes", block_bytes(x, stream)),
                         max_cols=tuning.choice(name, "max_cols", None), allow_ragged=pad_edges)
    prows, pcols = tl.cdiv(rows, br) * br, tl.cdiv(cols, bc) * bc
    if (prows, pcols) != (rows, cols):  # only with pad_edges: block_2d refuses it otherwise
        operands = [jnp.pad(a, ((0, prows - rows), (0, pcols - cols)) if a.ndim == 2 else (0, pcols - cols))
                    for a in operands]
    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    column = pl.BlockSpec((bc,), lambda i, j: (j,))
    out = pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((prows, pcols), out_dtype or x.dtype),
        grid=(prows // br, pcols // bc),
        in_specs=[tile if a.ndim == 2 else column for a in operands],
        out_specs=tile,
        compiler_params=tl.triton_params(num_warps=tuning.choice(name, "num_warps", num_warps),
                                         num_stages=1),
        name=name,
    )(*operands)
    return out[:rows, :cols]  # a no-op slice when nothing was padded


def map_float32(fn, *operands, **options):
    """map_blocks over fn(*values): each operand's block loaded as float32, fn's result rounded
    once to the output's dtype on store. options: map_blocks'."""

    def body(*refs):
        *in_refs, o_ref = refs
        o_ref[...] = fn(*(ref[...].astype(jnp.float32) for ref in in_refs)).astype(o_ref.dtype)

    return map_blocks(body, *operands, **options)


def map_exact(fn, *operands, **options):
    """map_blocks over fn(*values) in the operands' own dtype: for selections, exact at every
    dtype. options: map_blocks'."""

    def body(*refs):
        *in_refs, o_ref = refs
        o_ref[...] = fn(*(ref[...] for ref in in_refs))

    return map_blocks(body, *operands, **options)
