"""Tiled-matmul variants (pallasbench.kernels.tiled_matmul.TUNABLE) for bench/probe.py.

Names: tBMxWIDTHkBKwWARPSsSTAGES (WIDTH: dot columns, all weights together), `pack` /
`nopack` where the weights' packing pass is forced on or off (default: packed for float32
dots, read as they are for 16-bit ones), `swap` for the unpacked product computed transposed.
"""


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
}

VARIANTS = {task: dict(_VARIANTS) for task in
            ("matmul", "linear_bias_relu", "swiglu", "mlp_block")}
