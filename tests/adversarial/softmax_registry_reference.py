"""DEGENERATE (i) imports the harness's task registry and runs the task's own reference inside
a token pallas_call.

`from pallasbench.task import registry` loads tasks/level1/softmax.py; each program applies its
`reference` (jax.nn.softmax) to its block of whole rows. All the arithmetic sits inside the
pallas_call, so the jaxpr looks honest and the output is correct (allclose passes): only the
source scan of source_analysis (an import of pallasbench.task.registry) can catch it.
"""
import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench.task import registry

_TASK = registry.load("softmax")


def _body(x_ref, o_ref):
    o_ref[...] = _TASK.reference(x_ref[...])


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
