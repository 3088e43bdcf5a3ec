"""Variants of the memory-bound row, reduction and elementwise kernels for bench/probe.py
(issue 19): the tasks under ~0.9x of XLA on the H200 at MEDIUM.

Launch keys (kernels.rowwise, reductions, elementwise): "block_bytes" sets rows per program
(names bNk: N KB), "num_warps" (wN), "min_programs" (pN: padded_rows' floor on programs). At
bfloat16 the shipped 32 KB blocks hold twice the rows, so MEDIUM's 2048-row norms run 128
programs of 8 warps: under one per SM, 8 warps an SM, too few loads in flight to cover DRAM
latency. Smaller blocks give more programs and more resident warps an SM (padded_rows' tasks
run 2-8 warps a program, 256 programs: 4-15 warps an SM). Task keys change the
arithmetic where it, not memory, bounds the 16-bit runs (see each task's docstring).
"""

LOW = {"_dtypes": ["bfloat16", "float16"]}  # 16-bit only: a float32 run would fail tolerance

# Launch shapes for the streaming elementwise kernels (kernels.elementwise): bigger blocks (fewer,
# longer programs), fewer warps, narrower rows.
STREAM = {
    "b64k": {"block_bytes": 64 * 1024},
    "b128k_w8": {"block_bytes": 128 * 1024, "num_warps": 8},
    "b64k_w4": {"block_bytes": 64 * 1024, "num_warps": 4},
    "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
    "w4": {"num_warps": 4},
    "c4k": {"max_cols": 4096},
}

VARIANTS = {
    # bfloat16 at 1.9 TB/s: the exact split's two int32 conversions an element (quarter rate)
    # are exposed once the loads halve; add/floor cut them, plain drops the split (16-bit only).
    "reduce_sum": {
        "add": {"sum": "add"},
        "add_b16k": {"sum": "add", "block_bytes": 16 * 1024},
        "floor": {"sum": "floor"},
        "floor_b16k": {"sum": "floor", "block_bytes": 16 * 1024},
        "plain": {"sum": "plain", **LOW},
        "plain_b16k": {"sum": "plain", "block_bytes": 16 * 1024, **LOW},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
    },
    # MEDIUM bfloat16: 128 programs (one an SM); one_pass overlaps the two row reductions.
    "layernorm": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w8": {"block_bytes": 16 * 1024, "num_warps": 8},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "b4k_w2": {"block_bytes": 4 * 1024, "num_warps": 2},
        "one_pass": {"stats": "one_pass"},
        "one_pass_b16k": {"stats": "one_pass", "block_bytes": 16 * 1024},
        "one_pass_b8k_w4": {"stats": "one_pass", "block_bytes": 8 * 1024, "num_warps": 4},
    },
    # Same shapes as layernorm: launch shape only (one read, one write, one row sum).
    "rmsnorm": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w8": {"block_bytes": 16 * 1024, "num_warps": 8},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "b4k_w2": {"block_bytes": 4 * 1024, "num_warps": 2},
        "w4": {"num_warps": 4},
        "w16": {"num_warps": 16},
    },
    # bfloat16: 256 programs of 8 warps; exp2 trades libdevice expf for a multiply and ex2.
    "log_softmax": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w8": {"block_bytes": 16 * 1024, "num_warps": 8},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "w16": {"num_warps": 16},
        "exp2": {"exp": "exp2"},
        "exp2_b16k": {"exp": "exp2", "block_bytes": 16 * 1024},
        "exp2_b16k_w8": {"exp": "exp2", "block_bytes": 16 * 1024, "num_warps": 8},
    },
    # bfloat16: 128 programs; exp and log1p are libdevice routines on every element.
    "sigmoid_bce": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "log": {"softplus": "log"},
        "exp2": {"exp": "exp2"},
        "exp2_log_b16k": {"exp": "exp2", "softplus": "log", "block_bytes": 16 * 1024},
        "exp2_b16k": {"exp": "exp2", "block_bytes": 16 * 1024},
    },
    # LARGE float32 elementwise at ~92% of the copy ceiling where XLA's loop fusions reach ~100%
    # (0.92-0.96x on 2026-12-04): 1 x 8192 blocks, 32768 programs of 8 warps.
    "relu": STREAM,
    "add": STREAM,
    "exp": STREAM,
    # Arithmetic-bound at 16 bits (2.2 TB/s): libdevice tanhf and a true divide an element.
    "fused_bias_gelu_dropout": {
        "sigmoid": {"gelu": "sigmoid"},
        "mul": {"scale": "mul"},
        "sigmoid_mul": {"gelu": "sigmoid", "scale": "mul"},
        "sigmoid_mul_b16k": {"gelu": "sigmoid", "scale": "mul", "block_bytes": 16 * 1024},
        "sigmoid2_mul": {"gelu": "sigmoid_exp2", "scale": "mul"},
        "sigmoid2_mul_b16k": {"gelu": "sigmoid_exp2", "scale": "mul", "block_bytes": 16 * 1024},
        "sigmoid2_mul_w4": {"gelu": "sigmoid_exp2", "scale": "mul", "num_warps": 4},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
        "b64k": {"block_bytes": 64 * 1024},
        "sigmoid2_mul_b64k": {"gelu": "sigmoid_exp2", "scale": "mul", "block_bytes": 64 * 1024},
    },
    # Launch shape only: 1024 / 512 programs of 8 warps at float32 / bfloat16.
    "reduce_max": {
        "b16k": {"block_bytes": 16 * 1024},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "w4": {"num_warps": 4},
        "w16": {"num_warps": 16},
        "b64k_w16": {"block_bytes": 64 * 1024, "num_warps": 16},
    },
    # MEDIUM (1024, 512): 256 programs of 2 warps, 4 warps an SM: latency-bound.
    "fused_softmax_cross_entropy": {
        "w4": {"num_warps": 4},
        "p128": {"min_programs": 128},
        "p128_w8": {"min_programs": 128, "num_warps": 8},
        "p512": {"min_programs": 512},
        "p512_w2": {"min_programs": 512, "num_warps": 2},
        "p512_w4": {"min_programs": 512, "num_warps": 4},
        "p1024_w2": {"min_programs": 1024, "num_warps": 2},
    },
    # 256 programs of 8 warps at both dtypes; more programs, or overlapped row reductions.
    "fused_layer_norm_relu": {
        "one_pass": {"stats": "one_pass"},
        "p512": {"min_programs": 512},
        "p512_w8": {"min_programs": 512, "num_warps": 8},
        "p1024": {"min_programs": 1024},
        "p1024_w4": {"min_programs": 1024, "num_warps": 4},
        "one_pass_p512": {"stats": "one_pass", "min_programs": 512},
    },
    # row_values: 32 KB per input, 8 warps: 256 / 128 programs at float32 / bfloat16.
    "cosine_sim": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "b8k_w2": {"block_bytes": 8 * 1024, "num_warps": 2},
        "w4": {"num_warps": 4},
    },
    # float32 at 2.5 TB/s where reduce_sum (same bytes) reaches 3.3: the split's conversions
    # again, and the partial rows taller tiles would shrink.
    "col_sum": {
        "add": {"split": "add"},
        "floor": {"split": "floor"},
        "add_t16k": {"split": "add", "tile": 16 * 1024},
        "t16k": {"tile": 16 * 1024},
        "c256": {"cols": 256},
        "add_c256_t16k": {"split": "add", "cols": 256, "tile": 16 * 1024},
        "w4": {"num_warps": 4},
    },
    # float32 atomics, runs of equal ids merged: rows a program trades longer merged runs (and
    # fewer atomics for sorted ids) for programs.
    "scatter_add": {
        "r4": {"rows": 4},
        "r8": {"rows": 8},
        "r16": {"rows": 16},
        "r64": {"rows": 64},
        "s2": {"num_stages": 2},
        "w4": {"num_warps": 4},
        "c128_w1": {"max_cols": 128, "num_warps": 1},
        "c512_w4": {"max_cols": 512, "num_warps": 4},
        "r64_c512_w4_s2": {"rows": 64, "max_cols": 512, "num_warps": 4, "num_stages": 2},
        # No float atomics: a counting sort of the ids, then one float32 sum per output row
        # (kernels/sorted_scatter.py).
        "sorted": {"method": "sorted"},
        "sorted_c512_w8": {"method": "sorted", "sort_chunk": 512, "num_warps": 8},
        "sorted_seg64_w8": {"method": "sorted", "segment_rows": 64, "num_warps": 8},
    },
}
