"""sigmoid_bce: elementwise binary cross-entropy on logits, max(z,0) - z*t + log(1+exp(-|z|)).

Memory-bound: logits and targets are read once, the loss written once. Row-major blocks span
whole rows (contiguous 16-byte loads); log1p keeps the softplus tail exact for large |z|.
Ragged shapes are zero-padded outside to whole blocks.
"""

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl

from pallasbench import tasklib as tl

NAME = "sigmoid_bce"
LEVEL = 2
CATEGORY = "loss_fusion"
INPUTS = (tl.Input("logits", tl.REAL), tl.Input("targets", tl.UNIT))
SHAPES = tl.sizes(medium={"logits": (2048, 1024), "targets": (2048, 1024)})
TOLERANCE = tl.ELEMENTWISE
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress("tiny", "large", "offset", offset_input="logits",
                   degenerate=tl.NO_DISCRETE_INPUT, distinct=tl.NO_DISCRETE_INPUT)

# max, z*t, -, |z|, neg, exp, log1p, +
FLOPS_PER_ELEMENT = 8


def make_inputs(rng, shapes):
    return tl.normal(rng, shapes["logits"]), tl.uniform(rng, shapes["targets"])


def _bce(z, t):
    return jnp.maximum(z, 0.0) - z * t + jnp.log1p(jnp.exp(-jnp.abs(z)))


def reference(logits, targets):
    return _bce(logits, targets)


def _body(z_ref, t_ref, o_ref):
    o_ref[...] = _bce(z_ref[...], t_ref[...])


def kernel(logits, targets):
    rows, cols = logits.shape
    br, bc = tl.block_2d(logits.shape, logits.dtype.itemsize, allow_ragged=True)  # padded below
    prows, pcols = tl.cdiv(rows, br) * br, tl.cdiv(cols, bc) * bc
    if (prows, pcols) != (rows, cols):  # whole blocks only: the GPU does not mask edge stores
        pad = ((0, prows - rows), (0, pcols - cols))
        logits, targets = jnp.pad(logits, pad), jnp.pad(targets, pad)
    tile = pl.BlockSpec((br, bc), lambda i, j: (i, j))
    out = pl.pallas_call(
        _body,
        out_shape=jax.ShapeDtypeStruct((prows, pcols), logits.dtype),
        grid=(prows // br, pcols // bc),
        in_specs=[tile, tile],
        out_specs=tile,
        # tl.block_2d's 8K-element blocks over 8 warps: 32 values per thread, no spills.
        compiler_params=tl.triton_params(num_warps=8, num_stages=1),
        name=NAME,
    )(logits, targets)
    return out[:rows, :cols]


def flops(shapes):
    rows, cols = shapes["logits"]
    return FLOPS_PER_ELEMENT * rows * cols


def bytes_moved(shapes):
    rows, cols = shapes["logits"]
    return 3 * rows * cols * 4
