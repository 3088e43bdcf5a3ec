"""Honest (issue 37): relu over (128, 4096) Triton blocks, a whole MEDIUM row band a program. On the
H100 at MEDIUM it was correct on every seed and compiled in 6.6 s, then its compiler-artifact
capture (the recompile with XLA's dumps) ran past the evaluation's timeout and the record said
`timeout`. The capture has a bound of its own now (--artifacts-timeout): this kernel is ok, robust
and timed, its record saying why any artifact is missing. bench/containment_gpu.sh runs it."""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = (128, 4096)


def _body(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    block = (min(BLOCK[0], rows), min(BLOCK[1], cols))
    spec = pl.BlockSpec(block, lambda i, j: (i, j))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(pl.cdiv(rows, block[0]), pl.cdiv(cols, block[1])), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=8, num_stages=1))(x)
