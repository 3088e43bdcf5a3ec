"""One interpret-mode run per distinct program and inputs, for the tests that run a task's
variants at SMALL.

A variants file often holds configurations that trace to the same program at SMALL: a tile
clamped to the SMALL array, or launch values (warps, stages) that interpret mode ignores. `run`
lowers the function as `jax.jit(fn)(*args)` would, and compiles and runs it only when this
process has not yet run the same lowered module (its full StableHLO text) on the same input
bytes; otherwise it returns that run's outputs. The same program on the same inputs computes the
same outputs, so each variant's test still checks its own lowering against its own reference,
while a duplicate costs a lowering instead of an XLA compile and an interpret-mode run.
"""
import hashlib

import jax
import numpy as np

_RUNS: dict[str, object] = {}


def key(lowered, args) -> str:
    digest = hashlib.sha256(lowered.as_text().encode())
    for x in args:
        a = np.asarray(x)
        digest.update(f"|{a.shape}|{a.dtype}|".encode())
        digest.update(np.ascontiguousarray(a).tobytes())
    return digest.hexdigest()


def run(fn, *args):
    """`jax.jit(fn)(*args)`, as numpy arrays (the same pytree), computed once per program and inputs."""
    lowered = jax.jit(fn).lower(*args)
    k = key(lowered, args)
    if k not in _RUNS:
        _RUNS[k] = jax.tree.map(np.asarray, lowered.compile()(*args))
    return _RUNS[k]
