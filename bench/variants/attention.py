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
        # LARGE's shipped split8 (13.4 us vs XLA 8.2): the stats call's 16-row tiles (512 programs,
        # M=16 dots) took 7.4 us and the store call recomputes every q.k tile (6.0 us).
        "split8_sbq64_t64x128_w8": {"mode": "split", "splits": 8, "stats_bq": 64, "tile_k": 128, "num_warps": 8},
        # scores stored by the stats call, read by the store call (one dot per score, as XLA)
        "split8_stored_t64x128_w8": {"mode": "split", "splits": 8, "tile_k": 128, "num_warps": 8,
                                     "store_scores": True},
        "split8_sbq64_stored_t64x128_w8": {"mode": "split", "splits": 8, "stats_bq": 64, "tile_k": 128,
                                           "num_warps": 8, "store_scores": True},
        "split16_sbq64_stored_t64x128_w8": {"mode": "split", "splits": 16, "stats_bq": 64, "tile_k": 128,
                                            "num_warps": 8, "store_scores": True},
        "split8_sbq32_stored_t128x128_w8": {"mode": "split", "splits": 8, "stats_bq": 32, "tile_q": 128,
                                            "tile_k": 128, "num_warps": 8, "store_scores": True},
        "split8_sbq64w8_stored_t32x128_w4": {"mode": "split", "splits": 8, "stats_bq": 64, "stats_warps": 8,
                                             "tile_q": 32, "tile_k": 128, "store_scores": True},
        # XLA's gemm + softmax split on the Mosaic GPU matmul (k is its K-major operand as it is)
        # and an exp2 row pass: 128 x 64 CTA tiles at LARGE (plan: >= 132 tiles), or 128 x 128.
        "mosaic": {"mode": "mosaic"},
        "mosaic_w128": {"mode": "mosaic", "mosaic_width": 128},
        "mosaic_w128_s2": {"mode": "mosaic", "mosaic_width": 128, "mosaic_stages": 2},
        # LARGE: the Mosaic scores 4.0 us (cuBLAS 6.0), the row pass 3.3 us (XLA's softmax 2.9):
        # 8 rows a program (128 programs of 8 warps); 4 rows, or 4 warps.
        "mosaic_s2": {"mode": "mosaic", "mosaic_stages": 2},
        "mosaic_rows_b16k": {"mode": "mosaic", "rows_block_bytes": 16 * 1024},
        "mosaic_rows_w4": {"mode": "mosaic", "rows_num_warps": 4},
        "mosaic_rows_b16k_w4": {"mode": "mosaic", "rows_block_bytes": 16 * 1024, "rows_num_warps": 4},
        # float32's LARGE winner at 16 bits (bf16 LARGE ships the older split8 entry, 0.65x on 2026-12-04)
        "split8_sbq64w8_stored_t32x128_w4_16": {"mode": "split", "splits": 8, "stats_bq": 64, "stats_warps": 8,
                                                "tile_q": 32, "tile_k": 128, "num_warps": 8, "store_scores": True,
                                                "_dtypes": ["bfloat16", "float16"]},
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
        # float32 at S >= 2048: the first query block on split-TF32 dots (PRECISE_ROWS 128), a second call:
        # its price against one plain call, and the probe's LARGE winner (which failed the large
        # stress case on plain TF32) with it
        "plain_tf32": {"precise_rows": 0, "_dtypes": ["float32"]},
        "precise256": {"precise_rows": 256, "_dtypes": ["float32"]},
        "bq128_bk64_w8_precise": {"bq": 128, "bk": 64, "num_warps": 8, "_dtypes": ["float32"]},
    },
    # MEDIUM x (128, 256), d 64: qkv grid 4 programs, attention 2 (bq 64), ffn 16. LARGE x (512,
    # 1024), d 256, shipped bq 16: 32 attention programs (66.6 us of 163: 16 k/v tiles then 32
    # wo column tiles, serially), qkv 64 programs (44 us), ffn 256 of 32x64 (52 us; w read 16x).
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
        # LARGE: more attention programs. out_splits: a query block's wo columns over programs
        # (attention recomputed per split); kv_splits: its keys over programs, merged in the
        # projection call.
        "out4": {"out_splits": 4},  # 128 programs, a quarter of the projection each
        "out8": {"out_splits": 8},
        "kv4_out4": {"kv_splits": 4, "out_splits": 4},  # 128 + 128 programs
        "kv4_out8": {"kv_splits": 4, "out_splits": 8},
        "kv8_bq32_out4": {"bq": 32, "kv_splits": 8, "out_splits": 4},
        # the feed-forward's own tiles: fewer re-reads of wff (4 MB at LARGE)
        "ffn64x64": {"ffn_block_m": 64, "ffn_block_n": 64},  # 128 programs at LARGE
        "ffn64x128_w8": {"ffn_block_m": 64, "ffn_block_n": 128, "ffn_warps": 8},
        "ffn64x64_bk32_s3": {"ffn_block_m": 64, "ffn_block_n": 64, "block_k": 32, "proj_stages": 3},
        # together: qkv at 16 rows (128 programs: 44 -> 32 us in call 2), attention and ffn as above
        "bm16_kv4_out4_ffn64x64": {"block_m": 16, "kv_splits": 4, "out_splits": 4, "ffn_block_m": 64,
                                   "ffn_block_n": 64},
        "bm16_out4_ffn64x128_w8": {"block_m": 16, "out_splits": 4, "ffn_block_m": 64, "ffn_block_n": 128,
                                   "ffn_warps": 8},
        # LARGE float32 (2026-12-04: rmsnorm_qkv 33.0 us, rmsnorm_ffn 40.6 us against XLA's 10.8 +
        # 11.5): qkv's 16-row tiles re-read the (1024, 64) weight panels from 32 row programs;
        # taller or narrower tiles trade programs for re-reads. The ffn's K step and warps.
        "qkv_bm32_bn32": {"block_m": 32, "block_n": 32},
        "qkv_bm64_bn32": {"block_m": 64, "block_n": 32},
        "qkv_bm64_bn64_w8": {"block_m": 64, "block_n": 64, "proj_warps": 8},
        "qkv_bm32_bn64_s3": {"block_m": 32, "block_n": 64, "proj_stages": 3},
        "ffn64x64_bk32_s4": {"ffn_block_m": 64, "ffn_block_n": 64, "block_k": 32, "proj_stages": 4},
        "ffn128x64_w8": {"ffn_block_m": 128, "ffn_block_n": 64, "ffn_warps": 8},
        "ffn64x32_w4": {"ffn_block_m": 64, "ffn_block_n": 32},
        # both projections on the Mosaic GPU matmul (float32 only): an rmsnorm pass, the weights'
        # packing pass, one TMA + wgmma kernel each (qkv's three weights side by side); the
        # ffn's residual a pass of its own. 128 x 64 CTA tiles by the kernel's plan: 48 qkv and
        # 64 ffn CTAs at LARGE.
        "mosaic_proj": {"proj_backend": "mosaic", "_dtypes": ["float32"]},
        "mosaic_proj_s6": {"proj_backend": "mosaic", "mosaic_stages": 6, "_dtypes": ["float32"]},
        # the attention reading q, k, v as column blocks of the qkv product (no XLA slices, ~4 us)
        "mosaic_proj_views": {"proj_backend": "mosaic", "qkv_views": True, "_dtypes": ["float32"]},
    },
}
