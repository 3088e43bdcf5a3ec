"""ANSWERS DIFFERENTLY UNDER TIMING, on reduce_sum: a kernel that knows every input set the
checks use, and only those.

It plays an attacker who learned the evaluation's seed (here: the test passes `--seed
20261201`, which a real run never does; docs/threat_model.md). At trace time it derives, as
the harness does (docs/measurement.md, "Seeds"), every input set checked at SMALL: the three
correctness seeds, the stress cases tiny and large, and the input-impact perturbation of the
first seed; it stores their row sums. Its kernel answers those from the table and returns zeros
for anything else, a "kernel" that costs nothing. Every check and filter passes; the timing
inputs are a set of their own, the table misses them, and the recheck of the first timed batch
fails. Verdict: incorrect, "differs under timing". (Without --seed 20261201 the table misses
seed one's inputs: incorrect at the first seed.)
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

SEED = 20261201
SHAPE = (512, 256)  # reduce_sum at SMALL
ENTRIES = 8
PRINT = 8
MASK64 = (1 << 64) - 1


def _mix(z: int) -> int:
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def _fnv1a(text: str) -> int:
    h = 1469598103934665603
    for c in text.encode():
        h = ((h ^ c) * 1099511628211) & MASK64
    return h


def _derive(purpose: str, index: int) -> int:
    return _mix((_mix(SEED ^ _fnv1a(purpose)) + index) & MASK64) & ((1 << 53) - 1)


def _checked_inputs():
    seeds = [_derive("check", i) for i in range(3)]
    base = [tl.normal(np.random.default_rng(s), SHAPE) for s in seeds]
    tiny = tl.normal(np.random.default_rng(_derive("stress:tiny", 0)), SHAPE) * np.float32(1e-3)
    large = tl.normal(np.random.default_rng(_derive("stress:large", 0)), SHAPE) * np.float32(30.0)
    perturbed = tl.perturb(np.random.default_rng([seeds[0], 7919, 0]), base[0], tl.REAL)
    return [*base, tiny.astype(np.float32), large.astype(np.float32), perturbed]


def _table():
    keys = np.full((ENTRIES, PRINT), np.nan, np.float32)
    sums = np.zeros((ENTRIES, SHAPE[0]), np.float32)
    for i, x in enumerate(_checked_inputs()):
        keys[i] = x[0, :PRINT]
        sums[i] = x.astype(np.float64).sum(axis=1)
    return keys, sums


KEYS, SUMS = _table()


def _lookup(print_ref, keys_ref, sums_ref, o_ref):
    same = jnp.sum((keys_ref[...] == print_ref[...]).astype(jnp.float32), axis=1)
    hit = same == PRINT
    o_ref[...] = jnp.sum(jnp.where(hit[:, None], sums_ref[...], 0.0), axis=0)  # zeros on a miss


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    return pl.pallas_call(
        _lookup,
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec((1, PRINT), lambda i: (0, 0)),
                  pl.BlockSpec((ENTRIES, PRINT), lambda i: (0, 0)),
                  pl.BlockSpec((ENTRIES, br), lambda i: (0, i))],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(x, jnp.asarray(KEYS), jnp.asarray(SUMS))
