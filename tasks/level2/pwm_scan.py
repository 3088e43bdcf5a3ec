"""pwm_scan: score[i] = sum_p sum_c seq[i+p, c] * pwm[c, p] over every full window, (N-M+1,).

The window of position i is the contiguous run seq_flat[4i : 4i + 4M], so each program gathers
its (positions, 4M) window tile directly from the flat one-hot buffer (reads spilling into the
next tile are plain loads; the buffer end is masked) and contracts it with the matching flat
weight row in exact fp32 FMAs. K = 4M is too small and N too short to gain from tensor cores.
bfloat16/float16 windows and weights are widened to fp32 first (a 16-bit product and sum would
round every term); the score is rounded once to pwm's dtype.

Tunable (tuning.choice): positions per program, warps, stages, and "weights" "inside": instead of
a separate XLA transpose-and-pad of pwm into window order (a second kernel launch that costs
about as much as the scan at MEDIUM), the kernel gathers pwm[k % 4, k // 4] itself from the
flat (4M,) view of pwm (a free reshape), masking k >= 4M to zero.

The Mosaic GPU kernel (the preferred backend, kernels/mosaic_genomics.py `pwm_scan`): a CTA 128
positions; their rows and the M - 1 after them come in by 1D TMA copies of the flat seq; each
lane holds one position's 4 channels as a vector, reads the window row of each tap from SMEM
(16-byte loads at float32) and accumulates products with pwm[:, p] in float32 FMAs; the channel
sum, rounded once to pwm's dtype, leaves by a TMA store clipped at N - M + 1.
"""

import functools

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl
from pallasbench.kernels import mosaic_genomics
from pallasbench.task import tuning

NAME = "pwm_scan"
LEVEL = 2
CATEGORY = "genomics"
INPUTS = (tl.Input("seq", tl.ONE_HOT_ROWS), tl.Input("pwm", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"seq": (1024, 4), "pwm": (4, 12)},
                  small={"seq": (256, 4), "pwm": (4, 8)},
                  large={"seq": (4096, 4), "pwm": (4, 16)})
TOLERANCE = tl.MATMUL
USES_TF32 = False
ORDER_DEPENDENT = False
# Stress: the matmul class's x1e3 (the score is a dot); seq stays one-hot.
STRESS = tl.stress_cases("tiny", "large", "degenerate", large_factor=1e3, offset=tl.NO_ROW_STATISTIC,
                         distinct="four bases: all-distinct is impossible")

_TILE = 128  # positions per program: (128, 4M <= 64) window tile, 64 floats per thread


def make_inputs(rng, shapes):
    return tl.one_hot_dna(rng, shapes["seq"]), tl.weight(rng, shapes["pwm"])


def reference(seq, pwm):
    width = pwm.shape[1]
    n_out = seq.shape[0] - width + 1
    windows = seq[jnp.arange(n_out)[:, None] + jnp.arange(width)[None, :]]  # (n_out, M, 4)
    return jnp.einsum("npc,cp->n", windows, pwm)


def _body(x_ref, w_ref, o_ref, *, n_out, channels, taps, bk, tile, width):
    pos = pl.program_id(0) * tile + jnp.arange(tile, dtype=jnp.int32)
    t = pos[:, None]
    k = jax.lax.broadcasted_iota(jnp.int32, (tile, bk), 1)  # k = channels * p + c
    window = pltriton.load(x_ref.at[channels * t + k], mask=(t < n_out) & (k < taps), other=0.0)
    if width is None:  # weights already in window order, padded to bk
        w = w_ref[...]
    else:  # gather pwm[c, p] (flat index c * M + p) for k = channels * p + c
        kk = jnp.arange(bk, dtype=jnp.int32)
        w = pltriton.load(w_ref.at[(kk % channels) * width + kk // channels], mask=kk < taps,
                          other=0.0)
    score = jnp.sum(window.astype(jnp.float32) * w.astype(jnp.float32)[None, :], axis=1)
    pltriton.store(o_ref.at[pl.ds(pl.program_id(0) * tile, tile)], score.astype(o_ref.dtype),
                   mask=pos < n_out)


# Chosen on the H200 by bench/probe.py (bench/results/2026-12-03-h200-kernels/).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-03-h200-kernels", configs={
    "medium": {"float32": {"weights": 'inside', "tile": 32, "num_warps": 1}, "bfloat16": {"weights": 'inside'}},
    "large": {"float32": {"weights": 'inside', "tile": 64, "num_warps": 2}, "bfloat16": {"weights": 'inside'}},
})


@tuning.tuned_kernel(NAME, SHAPES, INPUTS, TUNED)
def kernel(seq, pwm):
    n, channels = seq.shape
    width = pwm.shape[1]
    n_out = n - width + 1
    taps = width * channels
    bk = tl.next_pow2(taps)
    tile = min(tuning.choice(NAME, "tile", _TILE), tl.next_pow2(n_out))
    if tuning.choice(NAME, "weights", "outside") == "inside":
        w, w_spec, gather_width = pwm.reshape(taps), pl.BlockSpec(memory_space=pl.ANY), width
    else:
        # Layout only: weights in window order (channels * p + c), zero-padded to a power of two.
        w, w_spec, gather_width = jnp.pad(pwm.T.reshape(taps), (0, bk - taps)), pl.BlockSpec((bk,), lambda i: (0,)), None
    body = functools.partial(_body, n_out=n_out, channels=channels, taps=taps, bk=bk, tile=tile,
                             width=gather_width)
    return pl.pallas_call(
        body,
        out_shape=jax.ShapeDtypeStruct((n_out,), pwm.dtype),
        grid=(tl.cdiv(n_out, tile),),
        in_specs=[pl.BlockSpec(memory_space=pl.ANY), w_spec],
        out_specs=pl.BlockSpec(memory_space=pl.ANY),  # N-M+1 is ragged: masked stores
        compiler_params=tl.triton_params(num_warps=tuning.choice(NAME, "num_warps", 4),
                                         num_stages=tuning.choice(NAME, "num_stages", 1)),
    )(seq.reshape(n * channels), w)


BACKENDS = {"mosaic_gpu": mosaic_genomics.pwm_scan, "triton": kernel}


def flops(shapes):
    n, channels = shapes["seq"]
    width = shapes["pwm"][1]
    return 2 * (n - width + 1) * width * channels


def bytes_moved(shapes, itemsize=4):
    # The (float) one-hot seq and the pwm read once and one score a window written, floats at
    # `itemsize` bytes (4 at float32, 2 at bfloat16/float16).
    n, channels = shapes["seq"]
    width = shapes["pwm"][1]
    return itemsize * (n * channels + channels * width + (n - width + 1))
