"""one_hot: jax.nn.one_hot(ids, 1024) as float32 (N, 1024).

Write-bound: a 2-D grid of row-major output blocks covering whole rows (tl.block_2d, 4K elements,
4 warps); each block is built in registers by comparing its ids against a column iota, so the
only memory traffic is the ids read and the output write. Blocks divide the output (the block
rule refuses ragged ones).

Mosaic GPU (the preferred backend, kernels/mosaic_index.py): CTA (32 ids, column part) brings
its ids into SMEM by TMA, compares them with a column iota in registers tile by tile and stores
each (32, 128) float32 tile through rotating SMEM buffers by TMA.
"""

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import mosaic_index
from pallasbench.task import stress

NAME = "one_hot"
LEVEL = 1
CATEGORY = "index"
INPUTS = (tl.Input("ids", tl.DISCRETE),)
# The class count (1024) is fixed; only the number of ids scales.
SHAPES = tl.sizes(medium={"ids": (512,)}, small={"ids": (128,)}, large={"ids": (2048,)})
TOLERANCE = tl.EXACT
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("degenerate", "distinct", tiny=tl.NO_FLOAT_INPUT, large=tl.NO_FLOAT_INPUT,
                         offset=tl.NO_ROW_STATISTIC)

NUM_CLASSES = 1024
BLOCK_BYTES = 16 * 1024  # 4K outputs a program: 128 programs at MEDIUM


def make_inputs(rng, shapes):
    return (tl.ids(rng, shapes["ids"], NUM_CLASSES),)


def stress_inputs(case, rng, shapes, inputs):
    if case == "distinct":  # every class at most once (LARGE's 2048 ids: each class twice)
        return (stress.distinct_ids(rng, inputs[0].shape, NUM_CLASSES),)
    return None


def reference(ids):
    return jax.nn.one_hot(ids, NUM_CLASSES, dtype=jnp.float32)


def _body(ids_ref, o_ref):
    br, bc = o_ref.shape
    cls = pl.program_id(1) * bc + lax.broadcasted_iota(jnp.int32, (br, bc), 1)
    o_ref[...] = (ids_ref[...][:, None] == cls).astype(o_ref.dtype)


def kernel(ids):
    n = ids.shape[0]
    br, bc = tl.block_2d((n, NUM_CLASSES), 4, BLOCK_BYTES)
    return pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((n, NUM_CLASSES), jnp.float32),
        grid=(tl.cdiv(n, br), tl.cdiv(NUM_CLASSES, bc)),
        in_specs=[pl.BlockSpec((br,), lambda i, j: (i,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(ids)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_index.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_index.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    return shapes["ids"][0] * NUM_CLASSES  # one compare per output


def bytes_moved(shapes, itemsize=4):
    # int32 ids read (4 bytes), the float32 one-hot written (4 bytes). With no float input the
    # output stays float32 at every dtype (dtypes.output_at_dtype), so `itemsize` does not enter.
    n = shapes["ids"][0]
    id_bytes, out_bytes = 4, 4  # int32 in, float32 out
    return id_bytes * n + out_bytes * n * NUM_CLASSES
