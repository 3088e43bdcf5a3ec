"""DEGENERATE (e) precision downgrade on fused_gelu_bias: x and b are cast to bfloat16 outside
the kernel; the kernel computes gelu(x + b) in bf16 and widens only the result to float32.

bf16 keeps 8 mantissa bits: errors of ~4e-3 relative, far outside the transcendental
tolerance (1e-4 relative), so correctness says `incorrect`. source_analysis flags the
convert_element_type outside the pallas_call.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _body(x_ref, b_ref, o_ref):
    z = x_ref[...] + b_ref[...][None, :]
    o_ref[...] = jax.nn.gelu(z, approximate=True).astype(jnp.float32)


def kernel(x, b):
    rows, cols = x.shape
    bc = min(cols, 512)
    br = min(rows, 8192 // bc)
    x16, b16 = x.astype(jnp.bfloat16), b.astype(jnp.bfloat16)
    return pl.pallas_call(
        _body, out_shape=jax.ShapeDtypeStruct(x.shape, jnp.float32),
        grid=(rows // br, cols // bc),
        in_specs=[pl.BlockSpec((br, bc), lambda i, j: (i, j)),
                  pl.BlockSpec((bc,), lambda i, j: (j,))],
        out_specs=pl.BlockSpec((br, bc), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x16, b16)
