"""DEGENERATE (i) loads the task file tasks/level1/layernorm.py with importlib (no `import`
statement names it) and runs its `reference` on each block of whole rows inside a token
pallas_call.

Correct (allclose passes) and the jaxpr has all the arithmetic inside the pallas_call: only
the source scan of source_analysis can catch it, and only if it sees through
importlib.util.spec_from_file_location on a path under tasks/.
"""
import importlib.util
from pathlib import Path

import jax
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _load_task(name):
    path = Path(__file__).resolve().parents[2] / "tasks" / "level1" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"_borrowed_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_REFERENCE = _load_task("layernorm").reference


def _body(x_ref, o_ref):
    o_ref[...] = _REFERENCE(x_ref[...])


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
