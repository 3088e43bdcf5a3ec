"""DEGENERATE (precision, bfloat16 tier) an add for `--dtype bfloat16` that rounds its sum
through float8 (e4m3) inside the kernel before storing it as bf16: half the bytes a real fp8
pipeline would move, three significand bits instead of eight.

fp8 keeps ~6% relative accuracy against bf16's 1e-2 bound: correctness fails, and the kernel's IR
holds a conversion to f8E4M3FN, which the precision check reads as a downgrade in a bf16 task.
Expected at bfloat16: incorrect, source_analysis fails ("precision downgrade").
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _add(x_ref, y_ref, o_ref):
    s = x_ref[...].astype(jnp.float32) + y_ref[...].astype(jnp.float32)
    o_ref[...] = s.astype(jnp.float8_e4m3fn).astype(o_ref.dtype)


def kernel(x, y):
    rows, cols = x.shape
    br = max(1, min(rows, 4096 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_add, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(rows // br,),
                          in_specs=[spec, spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x, y)
