"""Tiled-matmul variants (pallasbench.kernels.tiled_matmul.TUNABLE) for bench/probe.py.

Names: tBMxWIDTHkBKwWARPSsSTAGES (WIDTH: dot columns, all weights together), `pack` /
`nopack` where the weights' packing pass is forced on or off (default: packed for float32
dots, read as they are for 16-bit ones), `swap` for the unpacked product computed transposed.

`mosaic_tBMxWIDTHkBKsSTAGES`: the Mosaic GPU kernel (kernels/mosaic_matmul.py; Hopper only, so
the CPU tests only lower these): a persistent, warp-specialised TMA + wgmma kernel, BM x WIDTH
per CTA split between two compute warpgroups by rows (`_n`: by columns, one weight only),
STAGES SMEM slots per operand; `_g8` walks the tiles in bands of 8 (planar_snake). K steps
stay the kernel's default, 128 bytes of the dot's dtype (the kBK of the name): a float16 task
whose hidden layer is float32 (mlp_block) then steps 32 there, not 64.
"""

from pallasbench.kernels import tiled_matmul as mm


def _tile(bm, width, bk, warps, stages, **extra):
    return {"bm": bm, "width": width, "bk": bk, "num_warps": warps, "num_stages": stages, **extra}




F32 = {"_dtypes": ["float32"]}
LOW = {"_dtypes": ["bfloat16", "float16"]}

_VARIANTS = {
    # float32: TF32 dots, K steps of 32 (128-byte rows)
    "t128x128k32w4s3": {**_tile(128, 128, 32, 4, 3), **F32},
    "t128x128k32w4s4": {**_tile(128, 128, 32, 4, 4), **F32},
    "t128x64k32w4s4": {**_tile(128, 64, 32, 4, 4), **F32},
    "t64x128k32w4s4": {**_tile(64, 128, 32, 4, 4), **F32},
    "t64x64k32w4s5": {**_tile(64, 64, 32, 4, 5), **F32},
    "t128x64k64w4s3": {**_tile(128, 64, 64, 4, 3), **F32},
    "t128x256k32w8s3": {**_tile(128, 256, 32, 8, 3), **F32},
    "nopack": {"pack": False, **F32},
    "nopack_t128x128k32w4s3": {**_tile(128, 128, 32, 4, 3, pack=False), **F32},
    # unpacked, the product computed transposed: the N-major weight tile as the first operand
    "swap": {"pack": False, "swap": True, **F32},
    "swap_t128x128k32w4s3": {**_tile(128, 128, 32, 4, 3, pack=False, swap=True), **F32},
    "swap_t128x64k32w4s4": {**_tile(128, 64, 32, 4, 4, pack=False, swap=True), **F32},
    # bfloat16 / float16: K steps of 64
    "pack": {"pack": True, **LOW},
    "t128x128k64w4s3": {**_tile(128, 128, 64, 4, 3), **LOW},
    "t128x128k64w4s4": {**_tile(128, 128, 64, 4, 4), **LOW},
    "t128x128k64w8s4": {**_tile(128, 128, 64, 8, 4), **LOW},
    "t128x256k64w8s3": {**_tile(128, 256, 64, 8, 3), **LOW},
    "t64x128k64w4s4": {**_tile(64, 128, 64, 4, 4), **LOW},
    "t128x64k64w4s4": {**_tile(128, 64, 64, 4, 4), **LOW},
    "t64x64k64w4s5": {**_tile(64, 64, 64, 4, 5), **LOW},
    # Mosaic GPU (issue 19), every dtype: the kernel's own plan (mosaic_matmul.plan)
    "mosaic": {"backend": "mosaic"},
    # float32 on TF32 wgmma (packed K-major weights), K steps of 32
    "mosaic_t128x64k32s4": {**mm.mosaic(128, 64, 4), **F32},
    "mosaic_t128x128k32s4": {**mm.mosaic(128, 128, 4), **F32},
    # x rounded to nearest TF32 by an XLA pass first (wgmma truncates its float32 operands; the
    # packed weights are rounded by the pack either way): the accuracy check of the TF32 path
    "mosaic_t128x128k32s4_rx": {**mm.mosaic(128, 128, 4), "round_x": True, **F32},
    "mosaic_t128x256k32s3": {**mm.mosaic(128, 256, 3), **F32},
    "mosaic_t256x128k32s3": {**mm.mosaic(256, 128, 3), **F32},
    "mosaic_t256x128k32s3_g8": {**mm.mosaic(256, 128, 3, grid_width=8), **F32},
    # bfloat16 / float16: K steps of 64, one weight read (K, N) as it is, two packed
    "mosaic_t128x64k64s4": {**mm.mosaic(128, 64, 4), **LOW},
    "mosaic_t128x128k64s4": {**mm.mosaic(128, 128, 4), **LOW},
    "mosaic_t128x256k64s3": {**mm.mosaic(128, 256, 3), **LOW},
    "mosaic_t256x128k64s3": {**mm.mosaic(256, 128, 3), **LOW},
    "mosaic_t256x128k64s3_g8": {**mm.mosaic(256, 128, 3, grid_width=8), **LOW},
}

# Compute warpgroups side by side in N: one weight only (the halves would split the weights).
_ONE_WEIGHT = {
    "mosaic_t128x256k32s3_n": {**mm.mosaic(128, 256, 3, wg_split="n"), **F32},
    "mosaic_t128x256k64s3_n": {**mm.mosaic(128, 256, 3, wg_split="n"), **LOW},
}

VARIANTS = {task: {**_VARIANTS, **(_ONE_WEIGHT if task != "swiglu" else {})} for task in
            ("matmul", "linear_bias_relu", "swiglu", "mlp_block")}

# The next probe's candidates (2026-12-04, not yet measured): the batched Mosaic kernel's tiles
# (LARGE (16, 512, 512): 128 x 128 is the plan, 256 tiles over 132 SMs; 128 x 256 and 256 x 128
# give 128, one wave) and fused_relu_matmul on Mosaic at 16 bits (its relu a pass of its own).
_BATCHED = {
    "mosaic": {"backend": "mosaic"},
    "mosaic_t128x256k32s3": {**mm.mosaic(128, 256, 3), **F32},
    "mosaic_t256x128k32s3": {**mm.mosaic(256, 128, 3), **F32},
    "mosaic_t128x128k32s4_g8": {**mm.mosaic(128, 128, 4, grid_width=8), **F32},
    "mosaic_t128x256k64s3": {**mm.mosaic(128, 256, 3), **LOW},
    "mosaic_t128x128k64s4": {**mm.mosaic(128, 128, 4), **LOW},
}
VARIANTS["batched_matmul"] = _BATCHED
VARIANTS["fused_relu_matmul"] = {
    "mosaic_t128x64k64s4": {**mm.mosaic(128, 64, 4), **LOW},
    "mosaic_t128x256k64s3": {**mm.mosaic(128, 256, 3), **LOW},
}
