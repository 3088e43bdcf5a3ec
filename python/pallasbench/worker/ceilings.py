"""The device's own ceilings for the roofline, measured once per run with the device timer:
streaming bandwidth (a large elementwise read+write, the copy XLA does best) and matmul
throughput of XLA at f32 (precision highest), TF32 (default precision), bf16 and f16 (the
low-precision dtypes' roofline ceilings, docs/dtypes.md)."""

from __future__ import annotations

import numpy as np

# Large enough to leave launch overhead and L2 out of it: 1 GiB streamed, 8192^3 matmuls.
COPY_ELEMENTS = 1 << 28
MATMUL_N = 8192
SAMPLES = 15


def measure(timer) -> dict:
    import jax
    import jax.numpy as jnp

    def median_us(fn, *args) -> float:
        jax.block_until_ready(fn(*args))  # compile and warm up
        jax.block_until_ready(fn(*args))
        samples = timer.sample(fn, args, SAMPLES, 10.0)["samples_us"]
        timer.last_output = None  # up to 1 GiB: not kept past its samples
        return float(np.median(samples))

    out: dict = {"method": f"median of {SAMPLES} CUPTI samples, L2 flushed before each"}
    x = jnp.ones((COPY_ELEMENTS,), jnp.float32)
    us = median_us(jax.jit(lambda v: -v), x)
    out["copy"] = {"bytes": 2 * x.nbytes, "us": us, "gbps": 2 * x.nbytes / us * 1e-3,
                   "what": "negate 1 GiB f32 (read + write)"}
    del x
    flops = 2 * MATMUL_N ** 3
    for name, dtype, precision in (("f32", jnp.float32, "highest"), ("tf32", jnp.float32, "default"),
                                   ("bf16", jnp.bfloat16, "default"), ("f16", jnp.float16, "default")):
        a = jnp.ones((MATMUL_N, MATMUL_N), dtype)

        def matmul(p, q, precision=precision):
            return jnp.dot(p, q, precision=precision, preferred_element_type=jnp.float32)

        us = median_us(jax.jit(matmul), a, a)
        out[f"matmul_{name}"] = {"flops": flops, "us": us, "tflops": flops / us * 1e-6,
                                 "what": f"XLA {MATMUL_N}^3 {np.dtype(dtype).name} dot, precision {precision}"}
    return out
