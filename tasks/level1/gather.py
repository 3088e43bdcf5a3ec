"""gather: take_along_axis(x, idx, axis=1), x float (R, C), idx int32 (R, J) -> (R, J).

x stays a raw pl.ANY ref; idx and the output stream in row-major (rows, cols) blocks
(tl.block_2d, 4K elements, 4 warps). Each program loads its idx block and issues one indexed
load x[row, idx] with both coordinates as (rows, cols) arrays; Triton turns it into a
per-element pointer gather. Blocks divide the arrays (the block rule refuses ragged ones).
Pure data movement.

Mosaic GPU (the preferred backend, kernels/mosaic_index.py; GPU only): rows stream through SMEM by
TMA (x's (rows, C) block and idx's block, plgpu.emit_pipeline), each thread loads its own outputs
from the x block at the addresses its indices give, and the (rows, J) block leaves by TMA. Pallas
cannot index a ref by an array (`x_smem[rows, idx]` fails to lower for CUDA, jax 0.10.2, Lane
semantics: "NotImplementedError: int_indexer_shape non-empty", pallas/mosaic_gpu/lowering.py
_handle_transforms), and TMA's gathering copies (tile::gather4) are sm_100's, so the per-thread
SMEM loads are inline Mosaic GPU (plgpu.inline_mgpu), which the CPU interpreters cannot run.
"""

import functools

import jax
import numpy as np
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_index
from pallasbench.task import tuning

NAME = "gather"
LEVEL = 1
CATEGORY = "index"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("idx", tl.DISCRETE))
SHAPES = tl.sizes(medium={"x": (4096, 1024), "idx": (4096, 128)})
TOLERANCE = tl.EXACT
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", "degenerate", "distinct", offset=tl.NO_ROW_STATISTIC)

BLOCK_BYTES = 16 * 1024  # 4K gathered elements a program: 32 a thread at 4 warps


def make_inputs(rng, shapes):
    x = tl.normal(rng, shapes["x"])
    return x, tl.ids(rng, shapes["idx"], shapes["x"][1])


def stress_inputs(case, rng, shapes, inputs):
    if case == "distinct":  # each row gathers distinct columns (128 of 1024 at MEDIUM)
        x, idx = inputs
        cols = np.argsort(rng.random((x.shape[0], x.shape[1])), axis=1)[:, :idx.shape[1]]
        return x, cols.astype(np.int32)
    return None


def reference(x, idx):
    return jnp.take_along_axis(x, idx, axis=1)


def _body(x_ref, idx_ref, o_ref, *, rows, cols):
    br, bj = o_ref.shape
    row = pl.program_id(0) * br + lax.broadcasted_iota(jnp.int32, (br, bj), 0)
    # Indices are in range by the task's domain, and blocks divide the arrays (tl.block_2d): the
    # clamps only keep a bad index inside x.
    row = jnp.minimum(row, rows - 1)
    col = jnp.clip(idx_ref[...], 0, cols - 1)
    o_ref[...] = x_ref[row, col]


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"block_bytes": 4096, "num_warps": 2}, "bfloat16": {"block_bytes": 4096, "num_warps": 2}},
    "large": {"bfloat16": {"block_bytes": 8192}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, idx):
    rows, cols = x.shape
    # Tunable (tuning.choice): smaller blocks give more programs (MEDIUM's 128 is under one
    # per SM on an H200's 132), with warps to match.
    br, bj = tl.block_2d(idx.shape, 4, tuning.choice(NAME, "block_bytes", BLOCK_BYTES))
    spec = pl.BlockSpec((br, bj), lambda i, j: (i, j))
    return pl.pallas_call(
        functools.partial(_body, rows=rows, cols=cols),
        out_shape=jax.ShapeDtypeStruct(idx.shape, x.dtype),
        grid=(tl.cdiv(idx.shape[0], br), tl.cdiv(idx.shape[1], bj)),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), spec],
        out_specs=spec,
        compiler_params=tl.triton_params(num_warps=tuning.choice(NAME, "num_warps", 4),
                                         num_stages=tuning.choice(NAME, "num_stages", 1)),
    )(x, idx)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_index.py): the preferred backend on
# a GPU; its SMEM gather is inline Mosaic GPU, which neither CPU interpreter runs (tl.gpu_only).
BACKENDS = {"mosaic_gpu": tl.gpu_only(mosaic_index.KERNELS[NAME]), "triton": kernel}


def flops(shapes):
    return 0  # pure data movement


def bytes_moved(shapes, itemsize=4):
    # The int32 idx (4 bytes), then the gathered elements of x (each read once) and the output,
    # floats at `itemsize` bytes (4 at float32, 2 at bfloat16/float16).
    rows, j = shapes["idx"]
    id_bytes = 4  # int32
    return id_bytes * rows * j + itemsize * 2 * rows * j
