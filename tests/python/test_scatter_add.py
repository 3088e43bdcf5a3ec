"""tasks/level1/scatter_add.py: the open-sum walk over each program's rows (interpret mode),
which sends a run of equal ids as one atomic of its sum, and its CUDA lowering."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import sorted_scatter
from pallasbench.task import registry, tuning
from pallasbench.worker import interpret

TASK = registry.load("scatter_add")
N, D = 256, 64


def fresh():
    """The kernel as a new function: jax.jit caches a trace per function, whatever the tuning."""
    return lambda *xs: TASK.kernel(*xs)


def _ids(pattern: str, rng) -> np.ndarray:
    return {
        "random": lambda: rng.integers(0, TASK.NUM_ROWS, N),
        "sorted": lambda: np.sort(rng.integers(0, TASK.NUM_ROWS, N)),
        "one_id": lambda: np.full(N, 7),
        "alternating": lambda: np.arange(N) % 2,  # no two neighbours equal: every row sends
        "runs_across_chunks": lambda: np.repeat(np.arange(N), 5)[:N],  # runs of 5 over chunks of 8
        "last_row_new": lambda: np.r_[np.zeros(N - 1, int), [1023]],
    }[pattern]().astype(np.int32)


@pytest.mark.parametrize("rows", [4, 32])
@pytest.mark.parametrize("pattern", ["random", "sorted", "one_id", "alternating", "runs_across_chunks",
                                     "last_row_new"])
def test_every_row_reaches_its_id(pattern, rows):
    """Against a float64 np.add.at: a row dropped, sent twice or sent to its neighbour's id (a
    wrong open-sum flush) is off by O(1)."""
    rng = np.random.default_rng(3)
    upd, idx = rng.standard_normal((N, D)).astype(np.float32), _ids(pattern, rng)
    with tuning.variant("scatter_add", rows=rows):
        out = np.asarray(TASK.kernel(jnp.asarray(upd), jnp.asarray(idx)))
    want = np.zeros((TASK.NUM_ROWS, D))
    np.add.at(want, idx, upd.astype(np.float64))
    np.testing.assert_allclose(out, want, atol=1e-5, rtol=1e-5)


def test_a_run_reaches_the_output_as_one_sum():
    """All 64 rows into id 0: 2**24, then 63 ones. A chain of single-row float32 adds rounds
    every +1 away (2**24 + 1 is a tie, rounded to even); with 32 rows a program, the second
    program's 32 ones arrive as one partial sum, 32, and the output is exactly 2**24 + 32
    (interpret mode runs the programs in grid order)."""
    upd = np.ones((64, 8), np.float32)
    upd[0] = 2.0**24
    with tuning.variant("scatter_add", rows=32):
        out = np.asarray(TASK.kernel(jnp.asarray(upd), jnp.zeros(64, jnp.int32)))
    assert np.all(out[0] == np.float32(2.0**24 + 32))
    assert not out[1:].any()


def test_rows_not_a_multiple_of_the_chunk_is_refused():
    upd, idx = jnp.zeros((64, 8), jnp.float32), jnp.zeros(64, jnp.int32)
    with tuning.variant("scatter_add", rows=12), pytest.raises(ValueError, match="scatter_add: rows=12"):
        TASK.kernel(upd, idx)


@pytest.mark.parametrize("rows", [4, 32])
def test_lowers_for_cuda_with_one_triton_kernel(rows):
    avals = [jax.ShapeDtypeStruct((32768, 1024), jnp.float32), jax.ShapeDtypeStruct((32768,), jnp.int32)]
    with tuning.variant("scatter_add", rows=rows), interpret.suspended():
        text = jax.jit(fresh()).trace(*avals).lower(lowering_platforms=("cuda",)).as_text()
    assert text.count("__gpu$xla.gpu.triton") == 1


# The "sorted" method: a counting sort of the ids, then one float32 sum per output row.

@pytest.mark.parametrize("pattern", ["random", "one_id", "last_row_new"])
def test_sorted_method_sums_every_row_into_its_id(pattern):
    """Against a float64 np.add.at, with 2 sort chunks and groups longer than one gather (one_id):
    a row placed twice, dropped, or in another id's group is off by O(1)."""
    rng = np.random.default_rng(5)
    upd, idx = rng.standard_normal((N, D)).astype(np.float32), _ids(pattern, rng)
    with tuning.variant("scatter_add", method="sorted", sort_chunk=128, segment_rows=16, max_cols=32):
        out = np.asarray(TASK.kernel(jnp.asarray(upd), jnp.asarray(idx)))
    want = np.zeros((TASK.NUM_ROWS, D))
    np.add.at(want, idx, upd.astype(np.float64))
    np.testing.assert_allclose(out, want, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("pattern", ["random", "one_id"])
def test_sorted_grouping_is_a_stable_sort(pattern):
    """bounds and perm against numpy's stable argsort, over 4 chunks of 64 ids with a dropped
    out-of-range id: a group out of index order (an unstable rank), a shifted chunk offset or a
    counted out-of-range id fails."""
    rng = np.random.default_rng(7)
    idx = _ids(pattern, rng)
    idx[5] = TASK.NUM_ROWS  # out of the domain: placed nowhere
    bounds, perm = sorted_scatter.group_rows(jnp.asarray(idx), TASK.NUM_ROWS, sort_chunk=64, num_warps=4,
                                             name="t")
    kept = np.flatnonzero(idx < TASK.NUM_ROWS)
    order = kept[np.argsort(idx[kept], kind="stable")]
    np.testing.assert_array_equal(np.asarray(perm)[:kept.size], order)
    np.testing.assert_array_equal(np.asarray(bounds), np.searchsorted(np.sort(idx[kept]), np.arange(TASK.NUM_ROWS + 1)))


def test_sorted_method_lowers_for_cuda_with_three_triton_kernels():
    avals = [jax.ShapeDtypeStruct((32768, 1024), jnp.float32), jax.ShapeDtypeStruct((32768,), jnp.int32)]
    with tuning.variant("scatter_add", method="sorted"), interpret.suspended():
        text = jax.jit(fresh()).trace(*avals).lower(lowering_platforms=("cuda",)).as_text()
    assert text.count("__gpu$xla.gpu.triton") == 3


def test_unknown_method_is_refused():
    with tuning.variant("scatter_add", method="radix"), pytest.raises(ValueError, match="method='radix'"):
        TASK.kernel(jnp.zeros((64, 8), jnp.float32), jnp.zeros(64, jnp.int32))
