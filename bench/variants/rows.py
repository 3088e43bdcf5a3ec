"""Variants of the memory-bound row, reduction and elementwise kernels for bench/probe.py
(issue 19): the tasks under ~0.9x of XLA on the H200 at MEDIUM.

Launch keys (kernels.rowwise, reductions, elementwise): "block_bytes" sets rows per program
(names bNk: N KB), "num_warps" (wN), "min_programs" (pN: padded_rows' floor on programs). At
bfloat16 the shipped 32 KB blocks hold twice the rows, so MEDIUM's 2048-row norms run 128
programs of 8 warps: under one per SM, 8 warps an SM, too few loads in flight to cover DRAM
latency. Smaller blocks give more programs and more resident warps an SM. Task keys change the
arithmetic where it, not memory, bounds the 16-bit runs (see each task's docstring).
"""

LOW = {"_dtypes": ["bfloat16", "float16"]}  # 16-bit only: a float32 run would fail tolerance

VARIANTS = {
    "reduce_sum": {
        "add": {"sum": "add"},
        "add_b16k": {"sum": "add", "block_bytes": 16 * 1024},
        "floor": {"sum": "floor"},
        "floor_b16k": {"sum": "floor", "block_bytes": 16 * 1024},
        "plain": {"sum": "plain", **LOW},
        "plain_b16k": {"sum": "plain", "block_bytes": 16 * 1024, **LOW},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
    },
    "layernorm": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w8": {"block_bytes": 16 * 1024, "num_warps": 8},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "b4k_w2": {"block_bytes": 4 * 1024, "num_warps": 2},
        "one_pass": {"stats": "one_pass"},
        "one_pass_b16k": {"stats": "one_pass", "block_bytes": 16 * 1024},
        "one_pass_b8k_w4": {"stats": "one_pass", "block_bytes": 8 * 1024, "num_warps": 4},
    },
    "rmsnorm": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w8": {"block_bytes": 16 * 1024, "num_warps": 8},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "b4k_w2": {"block_bytes": 4 * 1024, "num_warps": 2},
        "w4": {"num_warps": 4},
        "w16": {"num_warps": 16},
    },
    "log_softmax": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w8": {"block_bytes": 16 * 1024, "num_warps": 8},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "w16": {"num_warps": 16},
        "exp2": {"exp": "exp2"},
        "exp2_b16k": {"exp": "exp2", "block_bytes": 16 * 1024},
        "exp2_b16k_w8": {"exp": "exp2", "block_bytes": 16 * 1024, "num_warps": 8},
    },
    "sigmoid_bce": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "log": {"softplus": "log"},
        "exp2": {"exp": "exp2"},
        "exp2_log_b16k": {"exp": "exp2", "softplus": "log", "block_bytes": 16 * 1024},
        "exp2_b16k": {"exp": "exp2", "block_bytes": 16 * 1024},
    },
    "fused_bias_gelu_dropout": {
        "sigmoid": {"gelu": "sigmoid"},
        "mul": {"scale": "mul"},
        "sigmoid_mul": {"gelu": "sigmoid", "scale": "mul"},
        "sigmoid_mul_b16k": {"gelu": "sigmoid", "scale": "mul", "block_bytes": 16 * 1024},
        "sigmoid2_mul": {"gelu": "sigmoid_exp2", "scale": "mul"},
        "sigmoid2_mul_b16k": {"gelu": "sigmoid_exp2", "scale": "mul", "block_bytes": 16 * 1024},
        "sigmoid2_mul_w4": {"gelu": "sigmoid_exp2", "scale": "mul", "num_warps": 4},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
    },
    "reduce_max": {
        "b16k": {"block_bytes": 16 * 1024},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "w4": {"num_warps": 4},
        "w16": {"num_warps": 16},
        "b64k_w16": {"block_bytes": 64 * 1024, "num_warps": 16},
    },
    "fused_softmax_cross_entropy": {
        "w4": {"num_warps": 4},
        "p128": {"min_programs": 128},
        "p128_w8": {"min_programs": 128, "num_warps": 8},
        "p512": {"min_programs": 512},
        "p512_w2": {"min_programs": 512, "num_warps": 2},
    },
    "fused_layer_norm_relu": {
        "one_pass": {"stats": "one_pass"},
        "p512": {"min_programs": 512},
        "p512_w8": {"min_programs": 512, "num_warps": 8},
        "p1024": {"min_programs": 1024},
        "one_pass_p512": {"stats": "one_pass", "min_programs": 512},
    },
    "cosine_sim": {
        "b16k": {"block_bytes": 16 * 1024},
        "b16k_w4": {"block_bytes": 16 * 1024, "num_warps": 4},
        "b8k_w4": {"block_bytes": 8 * 1024, "num_warps": 4},
        "b8k_w2": {"block_bytes": 8 * 1024, "num_warps": 2},
        "w4": {"num_warps": 4},
    },
    "col_sum": {
        "add": {"split": "add"},
        "floor": {"split": "floor"},
        "add_t16k": {"split": "add", "tile": 16 * 1024},
        "t16k": {"tile": 16 * 1024},
        "c256": {"cols": 256},
        "add_c256_t16k": {"split": "add", "cols": 256, "tile": 16 * 1024},
        "w4": {"num_warps": 4},
    },
    "scatter_add": {
        "r4": {"rows": 4},
        "r16": {"rows": 16},
        "r16_w4": {"rows": 16, "num_warps": 4},
        "c128_w1": {"max_cols": 128, "num_warps": 1},
        "r16_c128_w1": {"rows": 16, "max_cols": 128, "num_warps": 1},
        "w4": {"num_warps": 4},
    },
}
