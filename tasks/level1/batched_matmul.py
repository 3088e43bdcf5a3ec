"""batched_matmul: a[i] @ b[i] for float (B, M, K) @ (B, K, N).

One pallas_call over a (batch, row tile, column tile) grid. Each program owns a (bm, bn) output
tile of one batch (128x128, shrunk until the grid covers the H200's 132 SMs) and walks K in
32-wide steps with an in-kernel fori_loop, loading tiles straight from raw pl.ANY refs into a
float32 accumulator. Dots run at Triton's default f32 precision: TF32 tensor cores (USES_TF32);
bfloat16/float16 tiles go to the 16-bit tensor cores as they are (64-wide K steps: the same 128
bytes a row), the accumulator float32 and the tile rounded once on store.

The Mosaic GPU implementation (BACKENDS; GPU only, preferred there): the batches' rows stacked,
(B * M, K), through the persistent warp-specialised Mosaic GPU kernel (kernels/mosaic_matmul.py:
TMA, wgmma, an SMEM ring), each row tile against its own batch's weights. TF32 wgmma reads
32-bit operands K-major only, so a packing pass first writes each b[i] transposed and rounded to
nearest TF32 (tiled_matmul.pack_weights, batched by vmap); 16-bit b is packed too (the kernel's
batched form reads packed weights). M must be a multiple of the kernel's 128-row tiles.

Shipped configuration: the Mosaic kernel's TUNED table sets 128 x 256 tiles at LARGE float32 (128
CTAs, one wave; the plan's 128 x 128 gives 256 tiles over 132 SMs), where the Triton kernel above
ran at 0.31x of XLA (N-major TF32 tiles; 2026-12-04); the Triton kernel takes its heuristic. Each
record's kernel_config says which values ran.
"""

import functools

import jax
import jax.numpy as jnp
from jax import lax
from jax.experimental import pallas as pl

from pallasbench import task as tl
from pallasbench.kernels import fused_matmul_mosaic, masked, mosaic_matmul
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task import tuning
from pallasbench.task.families.matmul import ORDER_DEPENDENT, STRESS, USES_TF32

NAME = "batched_matmul"
LEVEL = 1
CATEGORY = "matmul"
INPUTS = (tl.Input("a", tl.REAL), tl.Input("b", tl.REAL, weight=True))
SHAPES = tl.sizes(medium={"a": (8, 256, 256), "b": (8, 256, 256)},
                  small={"a": (4, 64, 64), "b": (4, 64, 64)},
                  large={"a": (16, 512, 512), "b": (16, 512, 512)})
TOLERANCE = tl.MATMUL

NUM_SMS = 132  # H200: a grid smaller than this leaves SMs idle
MIN_TILE = 32  # jnp.dot needs >= 16 per dim; 32 keeps the MMAs fed
BK_BYTES = 128  # per row and K step: 32 f32 columns (four k8 TF32 MMA steps), 64 of bf16/f16


def make_inputs(rng, shapes):
    # b is the weight: scaled by 1/sqrt(K), its per-batch fan-in (tl.weight would use B*K).
    k = shapes["b"][-2]
    return tl.normal(rng, shapes["a"]), tl.normal(rng, shapes["b"], k ** -0.5)


def reference(a, b):
    # No precision here: the harness runs the correctness reference at "highest" and the speed
    # baseline at XLA's default (TF32), through jax.default_matmul_precision.
    return jnp.matmul(a, b)


def _body(a_ref, b_ref, o_ref, *, bm, bn, bk, k_steps):
    batch = pl.program_id(0)
    rows = pl.ds(pl.multiple_of(pl.program_id(1) * bm, bm), bm)
    cols = pl.ds(pl.multiple_of(pl.program_id(2) * bn, bn), bn)

    def step(k, acc):
        ks = pl.ds(pl.multiple_of(k * bk, bk), bk)
        return acc + jnp.dot(a_ref[batch, rows, ks], b_ref[batch, ks, cols],
                             precision=lax.Precision.DEFAULT,  # TF32, whatever the config says
                             preferred_element_type=jnp.float32)

    acc = lax.fori_loop(0, k_steps, step, jnp.zeros((bm, bn), jnp.float32))
    o_ref[...] = acc.astype(o_ref.dtype)


# Not probed: the Mosaic GPU kernel's own plan (the probes of matmul, swiglu and mlp_block chose
# the Mosaic kernel at float32 wherever it was measured).
# LARGE float32: 128 x 256 tiles, 128 CTAs in one wave (the plan's 128 x 128: 256 tiles, two
# waves over 132 SMs): 27.1 -> 23.8 us, XLA 21.8 (bench/results/2026-12-04-h200-2/call_1).
TUNED = tuning.Tuned(gpu="NVIDIA H200", source="bench/results/2026-12-04-h200-2", configs={
    "large": {"float32": {"backend": "mosaic", "mosaic_bm": 128, "mosaic_width": 256, "mosaic_stages": 3}},
})


def _mosaic(a, b):
    mosaic_matmul.refuse_interpret_mode(NAME)
    (nb, m, k), n = a.shape, b.shape[2]
    pick = functools.partial(tuning.choice, NAME)
    cfg = fused_matmul_mosaic.mosaic_config(nb * m, n, 1, a.dtype.itemsize, pick)
    if m % cfg.bm or n % cfg.width or k % cfg.bk:
        raise ValueError(f"{NAME}: ({m}, {n}, {k}) a batch is not a multiple of the Mosaic tiles "
                         f"({cfg.bm}, {cfg.width}, {cfg.bk})")
    f32 = a.dtype.itemsize == 4
    pack = jax.vmap(lambda w: mm.pack_weights([w], cfg.width, rounded=f32, name=NAME + "_pack"))
    out = mosaic_matmul.matmul(a.reshape(nb * m, k), pack(b).reshape(nb * n, k), lambda acc: acc,
                               packed=True, config=cfg, out_dtype=a.dtype, name=NAME, batches=nb)
    return out.reshape(nb, m, n)


def _batched_matmul(a, b):
    backend = tuning.choice(NAME, "backend", "triton")
    if backend == "mosaic":
        return _mosaic(a, b)
    if backend != "triton":
        raise ValueError(f"{NAME}: backend {backend!r} is not 'triton' or 'mosaic'")
    (nb, m, k), n = a.shape, b.shape[2]
    bk = tl.dividing_tile(k, BK_BYTES // a.dtype.itemsize)
    bm, bn = tl.dividing_tile(m, 128), tl.dividing_tile(n, 128)
    while nb * tl.cdiv(m, bm) * tl.cdiv(n, bn) < NUM_SMS and max(bm, bn) > MIN_TILE:
        if bn >= bm:
            bn //= 2
        else:
            bm //= 2
    big = bm * bn >= 128 * 128
    ap = masked.pad_to_multiple(masked.pad_to_multiple(a, 1, bm), 2, bk)
    bp = masked.pad_to_multiple(masked.pad_to_multiple(b, 1, bk), 2, bn)
    (_, mp, kp), np_ = ap.shape, bp.shape[2]
    any_spec = pl.BlockSpec(memory_space=pl.ANY)  # tiles are loaded by the K loop itself
    out = pl.pallas_call(
        functools.partial(_body, bm=bm, bn=bn, bk=bk, k_steps=kp // bk),
        out_shape=jax.ShapeDtypeStruct((nb, mp, np_), a.dtype),
        grid=(nb, mp // bm, np_ // bn),
        in_specs=[any_spec, any_spec],
        out_specs=pl.BlockSpec((None, bm, bn), lambda i, j, l: (i, j, l)),
        # Shared memory per stage is (bm + bn) * 128 bytes <= 32 KiB: 3-4 stages fit easily.
        compiler_params=tl.triton_params(num_warps=8 if big else 4,
                                         num_stages=3 if big else 4),
    )(ap, bp)
    return out if (mp, np_) == (m, n) else out[:, :m, :n]


# Two implementations of the one function, each with its own table (the Triton kernel's is empty:
# its heuristic everywhere) and its backend pinned; the Mosaic GPU one runs on the GPU only.
kernel, mosaic_kernel = mm.backend_kernels(
    NAME, SHAPES, INPUTS, {"triton": tuning.Tuned(gpu=TUNED.gpu, source=TUNED.source, configs={}), "mosaic": TUNED},
    _batched_matmul)
BACKENDS = {"mosaic_gpu": mosaic_kernel, "triton": kernel}


def flops(shapes):
    (nb, m, k), n = shapes["a"], shapes["b"][2]
    return 2 * nb * m * n * k


def bytes_moved(shapes, itemsize=4):
    # a and b read once and the output written once, floats at `itemsize` bytes (4 at float32,
    # 2 at bfloat16/float16).
    (nb, m, k), n = shapes["a"], shapes["b"][2]
    return itemsize * nb * (m * k + k * n + m * n)
