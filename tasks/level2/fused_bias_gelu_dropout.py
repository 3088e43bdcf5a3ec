"""fused_bias_gelu_dropout: gelu(x + b) * keep / 0.9, keep a uint8 Bernoulli(0.9) mask.

Memory-bound: x (any float dtype) and keep (u8) are read once, the result written once; bias,
gelu and the dropout scale all happen in registers. Row-major blocks span whole rows
(contiguous loads), the bias slice rides along as a 1-D block. Ragged shapes are zero-padded
outside to whole blocks. Computed in float32 at every dtype, rounded once on store.

Tunable (pallasbench.task.tuning): map_blocks' launch keys (kernels.elementwise); "gelu": "tanh"
(the default, jax.nn.gelu's form) or "sigmoid" (the same function as y / (1 + exp(-2u)): one
exp and a divide where tanh is a longer libdevice routine; "sigmoid_exp2" takes the exp as
exp2(-2u * log2(e)), a multiply and ex2 for libdevice's expf; at bfloat16, 5 bytes an element, the
kernel runs at ~2.2 TB/s, so arithmetic, not memory, bounds it); "scale": "div" (the default,
/ 0.9 as the reference) or "mul" (* (1 / 0.9): a multiply for a full divide, within an ulp).
"""

import functools

import jax
import jax.numpy as jnp

from pallasbench import task as tl
from pallasbench.kernels import elementwise
from pallasbench.kernels import mosaic_elementwise
from pallasbench.task import tuning

NAME = "fused_bias_gelu_dropout"
LEVEL = 2
CATEGORY = "activation"
INPUTS = (tl.Input("x", tl.REAL), tl.Input("b", tl.REAL, weight=True), tl.Input("keep", tl.DISCRETE))
SHAPES = tl.sizes(medium={"x": (4096, 4096), "b": (4096,), "keep": (4096, 4096)})
TOLERANCE = tl.TRANSCENDENTAL
USES_TF32 = False
ORDER_DEPENDENT = False
STRESS = tl.stress_cases("tiny", "large", "degenerate", offset=tl.NO_ROW_STATISTIC,
                         distinct="keep is a 0/1 mask: all-distinct is impossible")

KEEP_PROB = 0.9
# add, gelu (x^3: 2, *0.044715, +x, *sqrt(2/pi), tanh, +1, *0.5, *x), *keep, /0.9
FLOPS_PER_ELEMENT = 12


def make_inputs(rng, shapes):
    return (tl.normal(rng, shapes["x"]), tl.normal(rng, shapes["b"]),
            tl.bernoulli(rng, shapes["keep"], KEEP_PROB))


def reference(x, b, keep):
    return jax.nn.gelu(x + b, approximate=True) * keep.astype(jnp.float32) / KEEP_PROB


def _gelu_sigmoid(y, exp2=False):
    """0.5 y (1 + tanh(u)) = y * sigmoid(2u); exp overflows to inf for very negative y: -0."""
    u = 0.7978845608028654 * (y + 0.044715 * (y * y * y))  # sqrt(2/pi)
    e = jnp.exp2(u * (-2.0 * 1.4426950408889634)) if exp2 else jnp.exp(-2.0 * u)  # log2(e)
    return y / (1.0 + e)


def _body(x_ref, b_ref, keep_ref, o_ref, *, gelu, scale):
    y = x_ref[...].astype(jnp.float32) + b_ref[...].astype(jnp.float32)[None, :]
    if gelu == "tanh":
        g = jax.nn.gelu(y, approximate=True)
    else:
        g = _gelu_sigmoid(y, exp2=gelu == "sigmoid_exp2")
    kept = g * keep_ref[...].astype(jnp.float32)
    out = kept * (1.0 / KEEP_PROB) if scale == "mul" else kept / KEEP_PROB
    o_ref[...] = out.astype(o_ref.dtype)


# Chosen on the H200 by bench/probe.py over bench/variants/rows.py
# (bench/results/2026-12-03-h200-tuning2/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-tuning2", configs={
    "medium": {
        "float32": {"gelu": "sigmoid_exp2", "scale": "mul", "block_bytes": 16384},
        "bfloat16": {"gelu": "sigmoid_exp2", "scale": "mul", "block_bytes": 16384},
    },
    "large": {"float32": {"gelu": "sigmoid_exp2", "scale": "mul", "block_bytes": 16384}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(x, b, keep):
    gelu, scale = tuning.choice(NAME, "gelu", "tanh"), tuning.choice(NAME, "scale", "div")
    if gelu not in ("tanh", "sigmoid", "sigmoid_exp2") or scale not in ("div", "mul"):
        raise ValueError(f"{NAME}: gelu {gelu!r}, scale {scale!r}")
    return elementwise.map_blocks(functools.partial(_body, gelu=gelu, scale=scale), x, b, keep,
                                  pad_edges=True, name=NAME)


# The Mosaic GPU implementation (plgpu.kernel, kernels/mosaic_elementwise.py): the preferred backend.
BACKENDS = {"mosaic_gpu": mosaic_elementwise.KERNELS[NAME], "triton": kernel}


def flops(shapes):
    rows, cols = shapes["x"]
    return FLOPS_PER_ELEMENT * rows * cols


def bytes_moved(shapes, itemsize=4):
    # x read and the output written once, b read once, floats at `itemsize` bytes (4 at
    # float32, 2 at bfloat16/float16); the uint8 keep mask read at 1 byte whatever the float size.
    rows, cols = shapes["x"]
    keep_bytes = 1  # uint8
    return rows * cols * (itemsize + keep_bytes + itemsize) + cols * itemsize
