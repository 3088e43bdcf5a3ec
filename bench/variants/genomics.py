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
        "strided": {"layout": "strided"},
        "strided_t16": {"layout": "strided", "tile": 16},
        "t16": {"tile": 16},
        "strided_t16_w2": {"layout": "strided", "tile": 16, "num_warps": 2},
        "strided_1pass": {"layout": "strided", "passes": 1, "_dtypes": ["float32"]},
        "strided_t32_w8": {"layout": "strided", "tile": 32, "num_warps": 8},
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
