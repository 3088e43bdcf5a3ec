"""Stress cases (docs/tasks.md, "Stress cases"): what a task declares, and the inputs made for it.

A task file declares its cases with `stress_cases` (a Stress spec); the trusted reference process
makes their inputs. A kernel must compute its task's function on every valid input, not only on
N(0,1) draws: each task checks, after its seeds, the cases its file's STRESS declares, each on a
fresh secret seed.
The transforms here are the defaults by input domain; a task whose case needs more (attention's
offset, a de Bruijn sequence, all-distinct ids) defines `stress_inputs(case, rng, shapes, inputs)`
and returns its own inputs for that case (None: the default).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from pallasbench.task.domains import DISCRETE, ONE_HOT_ROWS, POSITIVE, REAL, Input, log_uniform

# Every case a task runs or skips, in the order they are checked. "distinct" is the all-distinct
# extreme of the degenerate inputs, where the domain allows it.
STRESS_CASES = ("tiny", "large", "offset", "degenerate", "distinct")

# Reasons shared by many task files for a case they skip.
NO_ROW_STATISTIC = ("no row statistic: the offset case is for norms, softmax-class ops, losses over "
                    "logits and attention")
NO_DISCRETE_INPUT = "no integer or genomics input"
NO_FLOAT_INPUT = "no free float input to scale (integer, one-hot or bounded inputs only)"
NO_DISTINCT = "the domain has fewer values than the input has elements: all-distinct is impossible"


@dataclass(frozen=True)
class Stress:
    """A task's stress cases: the ones it checks and, for each it skips, why.

    run: cases checked after the seeds, each on a fresh secret seed.
    skipped: case -> reason, for every case of STRESS_CASES not in run.
    large_factor: the factor of the "large" case (30; exp 10; the matmul class 1e3).
    offset_input: the input that gets the per-row constant of the "offset" case.
    offset_axis: the axis the constant is constant along (-1: one constant per row).
    keep: float inputs that tiny/large leave alone (say why in the task file).
    """

    run: tuple
    skipped: dict
    large_factor: float = 30.0
    offset_input: str | None = None
    offset_axis: int = -1
    keep: tuple = ()

    def check(self, task: str, input_names) -> None:
        """Raise ValueError unless every case is run or skipped with a reason."""
        unknown = [c for c in (*self.run, *self.skipped) if c not in STRESS_CASES]
        if unknown:
            raise ValueError(f"task '{task}': STRESS names unknown case(s) {unknown} "
                             f"(known: {list(STRESS_CASES)})")
        missing = [c for c in STRESS_CASES if c not in self.run and not self.skipped.get(c)]
        if missing:
            raise ValueError(f"task '{task}': STRESS neither runs nor gives a reason to skip {missing}")
        both = [c for c in self.run if c in self.skipped]
        if both:
            raise ValueError(f"task '{task}': STRESS both runs and skips {both}")
        if "offset" in self.run and self.offset_input not in input_names:
            raise ValueError(f"task '{task}': STRESS runs 'offset' but offset_input='{self.offset_input}' is "
                             f"not an input ({list(input_names)})")
        bad_keep = [k for k in self.keep if k not in input_names]
        if bad_keep:
            raise ValueError(f"task '{task}': STRESS keep names no input: {bad_keep}")

    def as_dict(self) -> dict:
        return {"run": list(self.run), "skipped": dict(self.skipped)}


def stress_cases(*run: str, large_factor: float = 30.0, offset_input: str | None = None,
                 offset_axis: int = -1, keep: tuple = (), **skipped: str) -> Stress:
    """The cases named first run; each keyword named after a case skips it, its value the reason:
    tl.stress_cases("tiny", "large", offset=tl.NO_ROW_STATISTIC, degenerate=tl.NO_DISCRETE_INPUT,
                    distinct=tl.NO_DISCRETE_INPUT). (Not `stress`: that is this module's name in the package.)"""
    return Stress(tuple(run), dict(skipped), large_factor, offset_input, offset_axis, tuple(keep))


# ---------------------------------------------------------------------------------------------
# The inputs of each case
# ---------------------------------------------------------------------------------------------

TINY_FACTOR = 1e-3
POSITIVE_TINY = (1e-6, 1e-3)
POSITIVE_LARGE = (1e3, 1e6)
OFFSET_RANGE = 1e3


def make_inputs(module, case: str, rng: np.random.Generator, shapes: dict,
                large_factor: float | None = None) -> list:
    """The inputs of one stress case: make_inputs on the case's seed, then the case's transform.
    large_factor replaces the task's for the large case (the reference process shrinks it at a
    dtype that cannot hold the task's large reference: worker/reference.py)."""
    spec = module.STRESS
    if large_factor is not None:
        spec = dataclasses.replace(spec, large_factor=large_factor)
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


def transform(case: str, spec: Stress, inp: Input, x: np.ndarray, rng: np.random.Generator):
    """One input under one case's default transform; inputs the case does not touch pass through."""
    if case in ("tiny", "large") and inp.name not in spec.keep:
        if inp.domain == REAL:
            factor = TINY_FACTOR if case == "tiny" else spec.large_factor
            return (x * np.float32(factor)).astype(x.dtype)
        if inp.domain == POSITIVE:
            low, high = POSITIVE_TINY if case == "tiny" else POSITIVE_LARGE
            return log_uniform(rng, x.shape, low, high).astype(x.dtype)
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


def degenerate(rng: np.random.Generator, inp: Input, x: np.ndarray) -> np.ndarray:
    """Every base the same (poly-A), every id the same (one bin, one row, one class)."""
    if inp.domain == ONE_HOT_ROWS:
        out = np.zeros_like(x)
        out[..., 0] = 1  # every position base A
        return out
    if inp.domain != DISCRETE:
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
