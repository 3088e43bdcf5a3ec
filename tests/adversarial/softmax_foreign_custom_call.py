"""HOSTILE (foreign kernel) the softmax comes from a custom call the harness does not know (an
XLA FFI target, as a library's hand-written CUDA kernel would be), beside a token Pallas copy.

jax.export refuses unknown custom calls; the tracer hands the module over anyway, and the
harness's analysis refuses it before anything compiles it: a foreign custom call could run any
code in the executor. Expected: compile_error, source_analysis fails naming the target.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(x):
    y = jax.ffi.ffi_call("pallasbench_foreign_softmax", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)
    rows, cols = y.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(y.shape, y.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(y)
