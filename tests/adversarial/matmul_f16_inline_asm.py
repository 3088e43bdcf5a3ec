"""PRECISION (below the class, hidden) matmul_f16_in_kernel.py's rounding hidden from the element
types: the f32 operand blocks are rounded to float16 and back by inline PTX (`cvt.rn.f16.f32`,
then `cvt.f32.f16`), so every MLIR type in the kernel's IR stays f32.

Only the precision policy's reading of inline PTX type suffixes (src/analyze/kernel_precision.cpp,
ptx_types) sees the f16, and puts the kernel below the task's class: every case is then judged by
4x XLA's own error at TF32 alone, which float16's 10 mantissa bits meet (docs/measurement.md).
GPU only (bench/adversarial_gpu.sh): interpret mode cannot run PTX. Expected: ok, robust, with
correctness.below_class and "f16 in tt.elementwise_inline_asm" in precision.below_class.
"""
import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

BLOCK = 64
ROUND_TO_F16 = "{ .reg .f16 h; cvt.rn.f16.f32 h, $1; cvt.f32.f16 $0, h; }"


def _round(x):
    (y,) = pltriton.elementwise_inline_asm(ROUND_TO_F16, args=[x], constraints="=r,r", pack=1,
                                           result_shape_dtypes=[jax.ShapeDtypeStruct(x.shape, jnp.float32)])
    return y


def _matmul(a_ref, b_ref, o_ref):
    acc = jnp.zeros((BLOCK, BLOCK), jnp.float32)
    for k in range(a_ref.shape[1] // BLOCK):
        a = _round(a_ref[:, k * BLOCK:(k + 1) * BLOCK])
        b = _round(b_ref[k * BLOCK:(k + 1) * BLOCK, :])
        acc += jnp.dot(a, b, preferred_element_type=jnp.float32)
    o_ref[...] = acc


def kernel(a, b):
    m, k = a.shape
    _, n = b.shape
    return pl.pallas_call(
        _matmul, out_shape=jax.ShapeDtypeStruct((m, n), jnp.float32), grid=(m // BLOCK, n // BLOCK),
        in_specs=[pl.BlockSpec((BLOCK, k), lambda i, j: (i, 0)), pl.BlockSpec((k, BLOCK), lambda i, j: (0, j))],
        out_specs=pl.BlockSpec((BLOCK, BLOCK), lambda i, j: (i, j)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(a, b)
