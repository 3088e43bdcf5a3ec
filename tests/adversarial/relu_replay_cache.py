"""HOSTILE (3) output replay: an honest relu whose import patches the harness's timed call
(the sampler, the device timer and the executor's call and time commands) to return the first result again
instead of running the kernel. Before the split this timed 2-4 us against 450-800 us honestly.

The import runs in the tracer, which never runs or times anything; the executor that times the
kernel never imports it. Expected: ok, robust, and a timed median of an honest interpret-mode
relu (hundreds of microseconds at SMALL on the CPU, never a replay's few).
"""
import sys

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

_cache = {}


def _replaying(fn):
    def replay(*args, **kwargs):
        if "out" not in _cache:
            _cache["out"] = fn(*args, **kwargs)
        return _cache["out"]
    return replay


def _attack():
    patched = []
    for name in ("pallasbench.worker.sampling", "pallasbench.worker.device_timer", "pallasbench.worker.executor"):
        try:
            module = __import__(name, fromlist=["_"])
        except Exception:
            continue
        for attr in ("wall_samples", "warm_up"):
            if hasattr(module, attr):
                setattr(module, attr, _replaying(getattr(module, attr)))
                patched.append(f"{name}.{attr}")
        for cls_name in ("Sampler", "DeviceTimer", "Executor"):
            cls = getattr(module, cls_name, None)
            for attr in ("timed", "sample", "_call", "cmd_time"):
                if cls is not None and hasattr(cls, attr):
                    setattr(cls, attr, _replaying(getattr(cls, attr)))
                    patched.append(f"{cls_name}.{attr}")
    print(f"patched: {patched}", file=sys.stderr)


_attack()


def _relu(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_relu, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
