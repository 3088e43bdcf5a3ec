"""KNOWN SEEDS (a lookup table) on reduce_sum: the attack fixed seeds invite.

At trace time it regenerates the inputs of seeds 0-4 (the seeds the harness used before they
came from OS entropy), stores their row sums, and its kernel fingerprints x by its first eight
values: a known x is answered from the table without reading it, anything else gets an honest
row sum. Against seeds 0..N-1, with timing on a checked seed's inputs, it passed every check and
was timed 17-37x faster than its honest twin (the issue that introduced secret seeds).

Now every seed is fresh and the timing inputs are a set of their own: the table never hits, so
it is checked and timed on the honest path. Verdict: ok, robust, timed honestly (the recheck of
every timed batch passes, and its time is an honest kernel's).
"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import triton as pltriton

from pallasbench import task as tl

SHAPE = (512, 256)  # reduce_sum at SMALL
KNOWN_SEEDS = range(5)
ENTRIES = 8  # a power of two for Triton's blocks; unused entries can never match
PRINT = 8  # values of x's first row that identify an input


def _table():
    keys = np.full((ENTRIES, PRINT), np.nan, np.float32)
    sums = np.zeros((ENTRIES, SHAPE[0]), np.float32)
    for i, seed in enumerate(KNOWN_SEEDS):
        x = tl.normal(np.random.default_rng(seed), SHAPE)
        keys[i] = x[0, :PRINT]
        sums[i] = x.astype(np.float64).sum(axis=1)
    return keys, sums


KEYS, SUMS = _table()


def _lookup_or_sum(print_ref, keys_ref, sums_ref, x_ref, o_ref):
    # Triton lowers no boolean reductions: count matching values instead.
    same = jnp.sum((keys_ref[...] == print_ref[...]).astype(jnp.float32), axis=1)
    hit = same == PRINT  # (ENTRIES,)
    found = jnp.max(hit.astype(jnp.float32)) > 0

    @pl.when(found)
    def _():
        o_ref[...] = jnp.sum(jnp.where(hit[:, None], sums_ref[...], 0.0), axis=0)

    @pl.when(jnp.logical_not(found))
    def _():
        o_ref[...] = jnp.sum(x_ref[...], axis=1)


def kernel(x):
    rows, cols = x.shape
    br = max(1, min(rows, 8192 // cols))
    keys, sums = jnp.asarray(KEYS), jnp.asarray(SUMS)
    if (rows, cols) != SHAPE:
        sums = jnp.zeros((ENTRIES, rows), jnp.float32)  # no table at other sizes: honest
    return pl.pallas_call(
        _lookup_or_sum,
        out_shape=jax.ShapeDtypeStruct((rows,), x.dtype),
        grid=(rows // br,),
        in_specs=[pl.BlockSpec((1, PRINT), lambda i: (0, 0)),
                  pl.BlockSpec((ENTRIES, PRINT), lambda i: (0, 0)),
                  pl.BlockSpec((ENTRIES, br), lambda i: (0, i)),
                  pl.BlockSpec((br, cols), lambda i: (i, 0))],
        out_specs=pl.BlockSpec((br,), lambda i: (i,)),
        compiler_params=pltriton.CompilerParams(num_warps=4, num_stages=1),
    )(x, keys, sums, x)
