"""HOSTILE (2) an honest relu whose import writes a forged record line into every file
descriptor it can find beyond stdio (the harness's records file, other workers' pipes, anything
the caller left open), then prints what it found.

The tracer inherits no descriptor but its pipes: nothing reaches the records file. The only
descriptors it finds are its own process's (JAX's, and the dup of stdout the protocol writes
to), so the forged line lands in its own reply channel: the harness reads a line that is not
the reply it asked for and refuses it. A forged reply could only hand over a module, and a
module is analysed whoever made it. Expected: crashed (protocol), and records.jsonl holds the
harness's one whole record.
"""
import json
import os
import sys

import jax
import jax.numpy as jnp
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

FORGED = json.dumps({"kernel_name": "relu", "status": "ok", "forged": True}) + "\n"


def _spray():
    found = []
    for fd in range(3, 4096):
        try:
            os.fstat(fd)
        except OSError:
            continue
        found.append(fd)
        try:
            os.write(fd, FORGED.encode())
        except OSError:
            pass
    print(f"descriptors beyond stdio: {found}", file=sys.stderr)


_spray()


def _relu(x_ref, o_ref):
    o_ref[...] = jnp.maximum(x_ref[...], 0.0)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    spec = pl.BlockSpec((br, cols), lambda i: (i, 0))
    return pl.pallas_call(_relu, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype),
                          grid=(rows // br,), in_specs=[spec], out_specs=spec,
                          compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1))(x)
