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
}
