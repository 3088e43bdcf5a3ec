"""conv1d_genomic: relu(valid conv1d(x, w) + b), x (B, L, 4) one-hot, w (15, 4, 64): (B, L-14, 64).

Direct convolution: the receptive field of output t is the contiguous run x_flat[4t : 4t + 60],
so each program gathers its (T, 64) patch tile straight from the input into registers (no
im2col array in memory; the halo past the tile is read in place, the sequence end is masked) and
multiplies it by the flattened (64, 64) filter on tensor cores at TF32 (the one-hot operand is
exact in TF32), then adds the bias and applies relu before one masked store. At bfloat16/float16
the one-hot x is exact too and the dot takes the 16-bit operands (float32 accumulator); bias and
relu are float32, the output is rounded once to w's dtype.

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics_mma.py): x viewed as rows
of 4 positions (B, L/4, 16), an output tile of 64 such rows (256 positions) is 5 accumulating
wgmmas (64, 16) x (16, 256) against the filter packed per position shift (layout work on the
weights outside the kernel), persistent CTAs of one warpgroup with the next tile's TMA boxes
loading during the current one's wgmmas, bias and relu on the accumulator, one TMA store a tile.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics_mma

NAME = "conv1d_genomic"
LEVEL = 3
CATEGORY = "genomics"
INPUTS = (tl.Input("x", tl.ONE_HOT_ROWS), tl.Input("w", tl.REAL, weight=True), tl.Input("b", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"x": (16, 4096, 4), "w": (15, 4, 64), "b": (64,)},
                  small={"x": (2, 256, 4), "w": (15, 4, 64), "b": (64,)},
                  large={"x": (64, 16384, 4), "w": (15, 4, 64), "b": (64,)})
TOLERANCE = tl.MATMUL
USES_TF32 = True
ORDER_DEPENDENT = False
# Stress: the matmul class's x1e3 (a dot per window); x stays one-hot.
STRESS = tl.stress_cases("tiny", "large", "degenerate", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         distinct="four bases: all-distinct is impossible")

_TILE = 128  # output positions per program: a (128, 64) x (64, 64) dot


def make_inputs(rng, shapes):
    return (tl.one_hot_dna(rng, shapes["x"]), tl.weight(rng, shapes["w"]),
            tl.normal(rng, shapes["b"]))


def reference(x, w, b):
    y = jax.lax.conv_general_dilated(x, w, window_strides=(1,), padding="VALID",
                                     dimension_numbers=("NWC", "WIO", "NWC"))
    return jnp.maximum(y + b, 0.0)


def _body(x_ref, w_ref, b_ref, o_ref, *, length, n_out, channels, taps, bk):
    item, t0 = pl.program_id(0), pl.program_id(1) * _TILE
    pos = t0 + jnp.arange(_TILE, dtype=jnp.int32)
    t = pos[:, None]
    k = jax.lax.broadcasted_iota(jnp.int32, (_TILE, bk), 1)  # k = channels * tap + channel
    src = (item * length + t) * channels + k
    patch = pltriton.load(x_ref.at[src], mask=(t < n_out) & (k < taps), other=0.0)
    y = jnp.dot(patch, w_ref[...], preferred_element_type=jnp.float32)
    y = y + b_ref[...].astype(jnp.float32)[None, :]
    pltriton.store(o_ref.at[item, pl.ds(t0, _TILE), :], jnp.maximum(y, 0.0).astype(o_ref.dtype),
                   mask=jnp.broadcast_to(t < n_out, y.shape))


def kernel(x, w, b):
    batch, length, channels = x.shape
    width, _, c_out = w.shape
    n_out = length - width + 1
    taps = width * channels
    bk = tl.next_pow2(taps)
    # Layout only: filter rows in patch order (channels * tap + channel), zero rows up to bk.
    w_flat = jnp.pad(w.reshape(taps, c_out), ((0, bk - taps), (0, 0)))
    body = functools.partial(_body, length=length, n_out=n_out, channels=channels, taps=taps,
                             bk=bk)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((batch, n_out, c_out), w.dtype),
        grid=(batch, tl.cdiv(n_out, _TILE)),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY),
                  pl.BlockSpec((bk, c_out), lambda i, j: (0, 0)),
                  pl.BlockSpec((c_out,), lambda i, j: (0,))],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),  # L-14 is ragged: masked stores
        compiler_params=tl.triton_params(num_warps=4, num_stages=1),
    )(x.reshape(batch * length * channels), w_flat, b)


BACKENDS = {"mosaic_gpu": mosaic_genomics_mma.conv1d_genomic, "triton": kernel}


def flops(shapes):
    batch, length, channels = shapes["x"]
    width, _, c_out = shapes["w"]
    n_out = length - width + 1
    return 2 * batch * n_out * c_out * (width * channels + 1)  # MACs, bias add and relu


def bytes_moved(shapes, itemsize=4):
    # x, w and b read once and the output written once, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16).
    batch, length, channels = shapes["x"]
    width, _, c_out = shapes["w"]
    n_out = length - width + 1
    return itemsize * (batch * length * channels + width * channels * c_out + c_out
                       + batch * n_out * c_out)
