"""Stress inputs (shared/TASKS.md, "Stress cases"), made by the trusted reference process.

A kernel must compute its task's function on every valid input, not only on N(0,1) draws: each
task checks, after its seeds, the cases its file's STRESS declares, each on a fresh secret seed.
The transforms here are the defaults by input domain; a task whose case needs more (attention's
offset, a de Bruijn sequence, all-distinct ids) defines `stress_inputs(case, rng, shapes, inputs)`
and returns its own inputs for that case (None: the default).
"""

from __future__ import annotations

import numpy as np

from pallasbench import tasklib as tl

TINY_FACTOR = 1e-3
POSITIVE_TINY = (1e-6, 1e-3)
POSITIVE_LARGE = (1e3, 1e6)
OFFSET_RANGE = 1e3


def cases(module) -> tuple:
    return tuple(module.STRESS.run)


def make_inputs(module, case: str, rng: np.random.Generator, shapes: dict) -> list:
    """The inputs of one stress case: make_inputs on the case's seed, then the case's transform."""
    spec = module.STRESS
    if case not in spec.run:
        raise ValueError(f"task '{module.NAME}' does not run stress case '{case}' "
                         f"(it runs {list(spec.run)}; skipped: {spec.skipped.get(case, 'unknown case')})")
    inputs = list(module.make_inputs(rng, shapes))
    custom = getattr(module, "stress_inputs", None)
    if custom is not None:
        own = custom(case, rng, shapes, inputs)
        if own is not None:
            return list(own)
    if case == "distinct":
        raise ValueError(f"task '{module.NAME}' runs 'distinct' but its stress_inputs gives no inputs for it")
    return [transform(case, spec, inp, x, rng) for inp, x in zip(module.INPUTS, inputs)]


def transform(case: str, spec: tl.Stress, inp: tl.Input, x: np.ndarray, rng: np.random.Generator):
    """One input under one case's default transform; inputs the case does not touch pass through."""
    if case in ("tiny", "large") and inp.name not in spec.keep:
        if inp.domain == tl.REAL:
            factor = TINY_FACTOR if case == "tiny" else spec.large_factor
            return (x * np.float32(factor)).astype(x.dtype)
        if inp.domain == tl.POSITIVE:
            low, high = POSITIVE_TINY if case == "tiny" else POSITIVE_LARGE
            return tl.log_uniform(rng, x.shape, low, high).astype(x.dtype)
    if case == "offset" and inp.name == spec.offset_input:
        return add_offset(rng, x, spec.offset_axis)
    if case == "degenerate":
        return degenerate(rng, inp, x)
    return x


def add_offset(rng: np.random.Generator, x: np.ndarray, axis: int = -1) -> np.ndarray:
    """x plus a constant drawn from U[-1e3, 1e3], one per slice along `axis` (axis -1: per row)."""
    shape = list(x.shape)
    shape[axis] = 1
    return (x + rng.uniform(-OFFSET_RANGE, OFFSET_RANGE, size=shape)).astype(x.dtype)


def degenerate(rng: np.random.Generator, inp: tl.Input, x: np.ndarray) -> np.ndarray:
    """Every base the same (poly-A), every id the same (one bin, one row, one class)."""
    if inp.domain == tl.ONE_HOT_ROWS:
        out = np.zeros_like(x)
        out[..., 0] = 1  # every position base A
        return out
    if inp.domain != tl.DISCRETE:
        return x
    if x.dtype == np.uint8:
        return np.zeros_like(x)  # DNA: poly-A; masks: every position off
    return np.full_like(x, rng.choice(np.unique(x)))


def de_bruijn(alphabet: int, order: int) -> np.ndarray:
    """A de Bruijn sequence B(alphabet, order): every word of `order` letters once, cyclically
    (the standard recursive construction)."""
    a = [0] * alphabet * order
    seq: list[int] = []

    def extend(t: int, p: int):
        if t > order:
            if order % p == 0:
                seq.extend(a[1:p + 1])
            return
        a[t] = a[t - p]
        extend(t + 1, p)
        for j in range(a[t - p] + 1, alphabet):
            a[t] = j
            extend(t + 1, t)

    extend(1, 1)
    return np.asarray(seq, dtype=np.uint8)


def score_offset(rng: np.random.Generator, q: np.ndarray, k: np.ndarray, *rest: np.ndarray) -> list:
    """Attention's offset case: every score of a query row shifted by one constant from
    U[-1e3, 1e3], exactly. Every key's last feature is set to 1 and each query row's last feature
    gets c*sqrt(d), so q.k/sqrt(d) gains c whatever the key: the softmax is unchanged, and a
    kernel that exponentiates before subtracting the row max overflows. (A constant added to all
    of q's features would not shift scores by a row constant, and at 1e3 TF32's rounding of q
    alone would move them by more than 1.)"""
    d = q.shape[-1]
    q, k = q.copy(), k.copy()
    k[..., -1] = 1
    shift = rng.uniform(-OFFSET_RANGE, OFFSET_RANGE, size=q.shape[:-1]) * np.sqrt(d)
    q[..., -1] += shift.astype(q.dtype)
    return [q, k, *rest]


def distinct_ids(rng: np.random.Generator, shape, high: int) -> np.ndarray:
    """int32 ids of `shape` in [0, high), all distinct when high allows; otherwise as distinct
    as it allows (a shuffled cycle through every id)."""
    count = int(np.prod(shape))
    cycles = -(-count // high)
    ids = np.concatenate([rng.permutation(high) for _ in range(cycles)])[:count]
    return ids.reshape(shape).astype(np.int32)
