"""Variants of the attention kernels for bench/probe.py (issue 19): tiles, warps, stages and the
algorithmic options each kernel reads through pallasbench.task.tuning.choice. The shipped
default is always timed first; these are the candidates to replace it at MEDIUM and LARGE."""

VARIANTS = {
    # MEDIUM (512, 64): the default's 8 programs (bq 64) fill 8 of 132 SMs; LARGE (2048, 128): 32.
    "flash_attention": {
        "bq32_w4": {"bq": 32, "num_warps": 4},  # twice the programs, half the accumulator
        "bq16_w4": {"bq": 16, "num_warps": 4},  # 4x the programs; smallest tensor-core M
        "bq64_split4": {"splits": 4},  # 4x programs, same tiles as the default
        "bq32_split4_w4": {"bq": 32, "splits": 4, "num_warps": 4},
        "bq64_split8_w4s3": {"splits": 8, "num_warps": 4, "num_stages": 3},
        "bq32_split8_w4": {"bq": 32, "splits": 8, "num_warps": 4},
        "bq64_bk32_split4_w4": {"bk": 32, "splits": 4, "num_warps": 4},  # fewer live registers
        "bq128_bk64_split8_w8": {"bq": 128, "bk": 64, "splits": 8, "num_warps": 8},
    },
    # MEDIUM (256, 64): 16 programs of 16 rows, two passes over K; LARGE (1024, 128): 64.
    "qk_softmax": {
        "bq16_w2": {"num_warps": 2},  # 16-row tiles barely feed 4 warps
        "onepass_bq16_w4": {"mode": "one_pass"},  # no second dot per tile
        "onepass_bq16_w8": {"mode": "one_pass", "num_warps": 8},  # LARGE: 16K live scores
        "onepass_bq32_w8": {"mode": "one_pass", "bq": 32, "num_warps": 8, "_dtypes": ["bfloat16", "float16"]},
        "split4_t64x64_w4": {"mode": "split", "splits": 4},  # N*N/4096 store programs
        "split2_t32x128_w4": {"mode": "split", "splits": 2, "tile_q": 32, "tile_k": 128},
        "split8_t64x128_w8": {"mode": "split", "splits": 8, "tile_k": 128, "num_warps": 8},
        "split4_t32x64_w4_s1": {"mode": "split", "splits": 4, "tile_q": 32, "num_stages": 1},
    },
    # MEDIUM (8, 256, 64): bq 64 gives 32 programs; LARGE (16, 512, 128): 128 programs.
    "multi_head_attention": {
        "bq32_w4": {"bq": 32, "num_warps": 4},  # 64 programs at MEDIUM
        "bq16_w4": {"bq": 16, "num_warps": 4},  # 128 programs at MEDIUM
        "bq32_bk64_w4": {"bq": 32, "bk": 64, "num_warps": 4},  # fewer live registers
        "bq64_w4s3": {"bq": 64, "num_warps": 4, "num_stages": 3},  # deeper k/v pipeline
        "bq64_bk64_w8": {"bq": 64, "bk": 64, "num_warps": 8},
        "bq128_bk32_w8": {"bq": 128, "bk": 32, "num_warps": 8},  # LARGE: k/v tile feeds 128 rows
    },
    # Causal, MEDIUM (1, 12, 1024, 128): bq 64 gives 192 programs; LARGE (4, 16, 4096, 128).
    "attention_forward": {
        "bq128_bk64_w8": {"bq": 128, "bk": 64},  # half the k/v reloads; bq*d=16K -> 8 warps
        "bq128_bk32_w8": {"bq": 128, "bk": 32},
        "bq64_bk64_w4s3": {"bq": 64, "bk": 64, "num_stages": 3},
        "bq64_bk32_w4": {"bq": 64, "bk": 32},  # finer diagonal: fewer masked scores
        "bq32_bk32_w4": {"bq": 32, "bk": 32, "num_warps": 4},
        "bq64_bk64_w8": {"bq": 64, "bk": 64, "num_warps": 8},
    },
    # MEDIUM only, x (128, 256), d 64: qkv grid 4 programs, attention 2 (bq 64), ffn 16.
    "transformer_block": {
        "attn_bq32": {"bq": 32},  # 4 attention programs
        "attn_bq16": {"bq": 16},  # 8 attention programs; a quarter of the accumulator registers
        "bq16_bm16": {"bq": 16, "block_m": 16},  # also 8 qkv / 32 ffn programs
        "bq16_bm16_bn32": {"bq": 16, "block_m": 16, "block_n": 32},  # 16 qkv / 64 ffn programs
        "bq32_bm16_w2": {"bq": 32, "block_m": 16, "num_warps": 2, "proj_warps": 2},
        "bq16_bk32_s3": {"bq": 16, "bk": 32, "num_stages": 3},
        # float16's full-precision dots (578.8 us, spills) as three TF32 tensor-core dots each
        "f16_split_tf32": {"full_precision": "split_tf32", "_dtypes": ["float16"]},
        "f16_split_tf32_bq16": {"full_precision": "split_tf32", "bq": 16, "_dtypes": ["float16"]},
        "f16_ieee_bq16_bm16": {"bq": 16, "block_m": 16, "_dtypes": ["float16"]},
    },
}
