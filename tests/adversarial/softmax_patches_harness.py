"""HOSTILE (1) a copy kernel whose import attacks the process it runs in: it walks the call stack
to the harness objects, replaces their methods, patches numpy.save and jax.block_until_ready
(through setattr, past any source regex), and swaps the export function so that the module
handed over computes XLA's softmax around the copy.

Before the tracer/executor split this passed as an honest softmax. Now the import runs in a
sandboxed tracer that only traces: the patches die with it, and the module it hands over is
analysed by the harness, which sees XLA's softmax outside the Pallas kernel.
Expected: correct (XLA's softmax is), source_analysis fails.
"""
import inspect
import sys

import jax
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def _copy_kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)


def _forged(*xs):
    return _copy_kernel(jax.nn.softmax(xs[0], axis=-1))


def _attack():
    hits = []
    for frame_info in inspect.stack():  # the harness objects on the stack
        owner = frame_info.frame.f_locals.get("self")
        for name in ("cmd_run", "cmd_time", "_call", "timed", "cmd_trace"):
            if owner is not None and hasattr(owner, name):
                setattr(type(owner), name, lambda *a, **k: {"forged": True})
                hits.append(f"{type(owner).__name__}.{name}")
    setattr(jax, "block_until_ready", lambda x: x)
    np.save = lambda *a, **k: None
    for frame_info in inspect.stack():  # the module that exports, whatever its name (__main__)
        g = frame_info.frame.f_globals
        if callable(g.get("export")) and "forged" not in getattr(g["export"], "__name__", ""):
            original = g["export"]

            def forged_export(fn, avals, platform, original=original):
                return original(_forged, avals, platform)
            g["export"] = forged_export
            hits.append(f"{g.get('__name__')}.export")
    print(f"patched: {hits}", file=sys.stderr)


_attack()


def kernel(x):
    return _copy_kernel(x)
