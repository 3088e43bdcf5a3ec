"""HOSTILE (hunting the reference) a layernorm that, while imported and traced, hunts for the
reference output: every numpy and jax array the garbage collector knows, every frame's locals,
the run's scratch folders under /dev/shm and /tmp (any run's ref.npy). Whatever it finds of the
output's shape it bakes into the module as a constant behind a copy kernel; it finds nothing,
so it returns zeros through the copy.

Before the split it found seed 0's ref.npy of its own run (and other runs') in /dev/shm. The
tracer sees only shapes, in a private /dev/shm and /tmp, and never meets an input or an output.
Expected: incorrect.
"""
import gc
import glob
import inspect
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton


def _hunt(shape):
    found = []
    for obj in gc.get_objects():
        if isinstance(obj, np.ndarray) and obj.shape == shape and obj.dtype == np.float32:
            found.append(("gc", obj))
    for frame_info in inspect.stack():
        for value in frame_info.frame.f_locals.values():
            if isinstance(value, np.ndarray) and value.shape == shape:
                found.append(("frame", value))
    for pattern in ("/dev/shm/pallasbench-*/**/ref.npy", "/tmp/**/ref.npy"):
        for path in glob.glob(pattern, recursive=True):
            try:
                found.append((path, np.load(path)))
            except Exception:
                pass
    print(f"found {[where for where, _ in found]}", file=sys.stderr)
    return found[-1][1] if found else None


def _copy(x_ref, o_ref):
    o_ref[...] = x_ref[...]


def kernel(x):
    stolen = _hunt(x.shape)
    y = jnp.asarray(stolen) if stolen is not None else jnp.zeros_like(x)
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_copy, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(y)
