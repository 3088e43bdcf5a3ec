"""Variants of the genomics-class and small-row kernels for bench/probe.py (issue 19)."""

VARIANTS = {
    "pairwise_distance": {
        "t32": {"tile_m": 32, "tile_n": 32},
        "t16x64": {"tile_m": 16, "tile_n": 64, "num_warps": 2},
        "t32x64_w2": {"tile_m": 32, "tile_n": 64, "num_warps": 2},
        "dot_t64": {"form": "dot"},
        "dot_t32": {"form": "dot", "tile_m": 32, "tile_n": 32},
        "dot_t32x64": {"form": "dot", "tile_m": 32, "tile_n": 64},
        "dot_t64x128_w8": {"form": "dot", "tile_m": 64, "tile_n": 128, "num_warps": 8},
    },
    "sequence_match": {
        "t2048": {"tile": 2048},
        "t2048_c512": {"tile": 2048, "max_cols": 512},
        "packed": {"packed": True},
        "packed_t2048": {"packed": True, "tile": 2048},
        "packed_t8192_w8": {"packed": True, "tile": 8192, "num_warps": 8},
        "packed_t4096_c2048": {"packed": True, "max_cols": 2048},
    },
    "triangle_update": {
        # (strided t16 / t32 and channel-major t16 measured 0.02-0.44x on 2026-12-03: dropped)
        "strided": {"layout": "strided"},
        "strided_1pass": {"layout": "strided", "passes": 1, "_dtypes": ["float32"]},
        # LARGE (256, 256, 128): the shipped 64 x 64 tiles run HGMMA m64n32 (8 warps), 50 TFLOPS
        # over the three TF32 passes; 128 x 128 output tiles with narrower K steps feed m64n128.
        "t128_k32_w8_s3": {"tile": 128, "tile_k": 32, "num_warps": 8, "num_stages": 3},
        "t128_k32_w8_s2": {"tile": 128, "tile_k": 32, "num_warps": 8, "num_stages": 2},
        "t128_k64_w8_s2": {"tile": 128, "tile_k": 64, "num_warps": 8, "num_stages": 2},
        "t128_k16_w8_s4": {"tile": 128, "tile_k": 16, "num_warps": 8, "num_stages": 4},
        "t64_k32_w4_s3": {"tile": 64, "tile_k": 32, "num_warps": 4, "num_stages": 3},
        "t64_k32_w8_s3": {"tile": 64, "tile_k": 32, "num_warps": 8, "num_stages": 3},
        # float32: the operand split in a pass of its own (TF32-exact tiles into the three dots)
        "pass_t128_k16_w8_s4": {"split": "pass", "tile": 128, "tile_k": 16, "num_warps": 8, "num_stages": 4,
                                "_dtypes": ["float32"]},
        "pass_t128_k32_w8_s3": {"split": "pass", "tile": 128, "tile_k": 32, "num_warps": 8, "num_stages": 3,
                                "_dtypes": ["float32"]},
        "pass_t64_k64_w8_s2": {"split": "pass", "tile": 64, "tile_k": 64, "num_warps": 8, "num_stages": 2,
                               "_dtypes": ["float32"]},
    },
    "pwm_scan": {
        "inside": {"weights": "inside"},
        "inside_t64_w2": {"weights": "inside", "tile": 64, "num_warps": 2},
        "inside_t32_w1": {"weights": "inside", "tile": 32, "num_warps": 1},
        "inside_t256_w8": {"weights": "inside", "tile": 256, "num_warps": 8},
        "t64_w2": {"tile": 64, "num_warps": 2},
    },
    "gather": {
        "b8k": {"block_bytes": 8 * 1024},
        "b8k_w2": {"block_bytes": 8 * 1024, "num_warps": 2},
        "b4k_w2": {"block_bytes": 4 * 1024, "num_warps": 2},
        "b32k_w8": {"block_bytes": 32 * 1024, "num_warps": 8},
    },
}
