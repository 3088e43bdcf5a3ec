"""Shared vocabulary of the task files: input domains, tolerances, block shapes.

Every task file under tasks/levelN/ imports this module as `tl`. It holds only what several
tasks share; a task's own semantics stay in its file.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------------------------------------
# Backend pinning
# ---------------------------------------------------------------------------------------------


def triton_params(num_warps: int = 4, num_stages: int = 3):
    """Compiler params that pin a plain pallas_call to the Triton backend.

    JAX 0.11 deprecates the implicit Triton default; passing its CompilerParams explicitly keeps a
    future default change from silently switching backends. Interpret mode ignores them.
    """
    from jax.experimental.pallas import triton as pltriton

    return pltriton.CompilerParams(num_warps=num_warps, num_stages=num_stages)


# ---------------------------------------------------------------------------------------------
# Block shapes
# ---------------------------------------------------------------------------------------------

# Triton refuses any in-kernel array over 2^20 elements (checked when compiling) and any array
# whose element count is not a power of two (checked when lowering).
MAX_BLOCK_ELEMENTS = 1 << 20

# Default byte budget of one block of a streaming kernel: 8K float32 elements keep an 8-warp
# program (256 threads) at 32 elements per thread, wide enough for 16-byte loads without spills.
DEFAULT_BLOCK_BYTES = 32 * 1024


class BlockLimitError(ValueError):
    """A block shape the Triton backend cannot compile."""


def next_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n) - 1).bit_length()


def prev_pow2(n: int) -> int:
    return 1 if n <= 1 else 1 << (int(n).bit_length() - 1)


def check_block(name: str, block_shape) -> None:
    """Raise BlockLimitError naming the block when it breaks Triton's rules."""
    elements = math.prod(block_shape)
    if any(d != next_pow2(d) for d in block_shape):
        raise BlockLimitError(
            f"block '{name}' {tuple(block_shape)}: every dimension must be a power of two")
    if elements > MAX_BLOCK_ELEMENTS:
        raise BlockLimitError(
            f"block '{name}' {tuple(block_shape)} has {elements} elements; "
            f"the Triton limit is {MAX_BLOCK_ELEMENTS} (2^20)")


def block_2d(shape, itemsize: int = 4, budget_bytes: int = DEFAULT_BLOCK_BYTES,
             max_cols: int | None = None, allow_ragged: bool = False) -> tuple[int, int]:
    """Block (rows, cols) for a 2-D array streamed in row-major order.

    Rule: the column extent is the whole row rounded up to a power of two (contiguous, wide
    loads), capped by `max_cols` and by the budget; the row extent is the largest power of two
    that keeps rows*cols*itemsize within `budget_bytes`, capped at the array's rows rounded up
    to a power of two. Both are powers of two and the product never exceeds 2^20 elements.

    Pallas's Triton lowering does not mask edge blocks (an overhanging block reads and writes out
    of bounds), so a block that does not divide the array is refused: pad outside the kernel, or
    mask inside it with pallas.triton's load/store and pass allow_ragged=True.
    """
    rows, cols = shape
    budget_elems = max(1, min(budget_bytes // itemsize, MAX_BLOCK_ELEMENTS))
    bc = min(next_pow2(cols), prev_pow2(budget_elems))
    if max_cols is not None:
        bc = min(bc, prev_pow2(max_cols))
    br = max(1, min(next_pow2(rows), prev_pow2(budget_elems // bc)))
    check_block("block_2d", (br, bc))
    if not allow_ragged and (rows % br or cols % bc):
        raise BlockLimitError(f"block ({br}, {bc}) does not divide array ({rows}, {cols}): the "
                              "Triton lowering does not mask edge blocks; pad or mask")
    return br, bc


def row_block(rows: int, cols: int, itemsize: int = 4,
              budget_bytes: int = DEFAULT_BLOCK_BYTES) -> tuple[int, int]:
    """Block (rows, cols) for a kernel that needs a whole row in one program (row reductions).

    The column extent is the whole row rounded up to a power of two (the tail is masked or padded
    by the caller); rows per program fill the byte budget. Raises BlockLimitError when a single row
    alone exceeds 2^20 elements, so the caller must tile the row instead.
    """
    bc = next_pow2(cols)
    if bc > MAX_BLOCK_ELEMENTS:
        raise BlockLimitError(
            f"a row of {cols} elements ({bc} padded) exceeds the Triton limit of "
            f"{MAX_BLOCK_ELEMENTS} elements per block; tile the row")
    budget_elems = max(bc, min(budget_bytes // itemsize, MAX_BLOCK_ELEMENTS))
    br = max(1, min(next_pow2(rows), prev_pow2(budget_elems // bc)))
    return br, bc


# ---------------------------------------------------------------------------------------------
# Accurate f32 sums inside kernels
# ---------------------------------------------------------------------------------------------

# Heads live on a 2^-10 grid within +-2^12: their f32 sums are exact while |partial| < 2^14.
SUM_GRID = 1024.0
SUM_HEAD_RANGE = 4096.0


def split_for_sum(x):
    """x = head + tail exactly, for sums that carry little more than their final rounding.

    A plain f32 tree sum of thousands of N(0,1) terms errs by ~1e-5, the size of the tolerance
    near zero. Heads sit on a 2^-10 grid, so summing them is exact (while |partial| < 2^14);
    tails are below 2^-10, so their rounding is negligible. Sum both, add at the end. The grid
    rounding is an int32 round trip: (x + c) - c would be folded back to x by XLA's CPU
    compiler in interpret mode.
    """
    import jax.numpy as jnp

    scaled = jnp.clip(x, -SUM_HEAD_RANGE, SUM_HEAD_RANGE) * SUM_GRID  # power of two: exact
    head = scaled.astype(jnp.int32).astype(jnp.float32) * (1.0 / SUM_GRID)
    return head, x - head


# ---------------------------------------------------------------------------------------------
# Masked edges (inside kernels)
# ---------------------------------------------------------------------------------------------


def edge_mask(shape, row0, rows: int, col0, cols: int):
    """True where (row0 + i, col0 + j) lies inside a rows x cols array."""
    import jax.numpy as jnp
    from jax import lax

    r = row0 + lax.broadcasted_iota(jnp.int32, shape, 0)
    c = col0 + lax.broadcasted_iota(jnp.int32, shape, 1)
    return (r < rows) & (c < cols)


def column_tile(ref, col0, width: int):
    """ref[:, col0:col0 + width] as a ref view (the whole ref when the width is its own)."""
    from jax.experimental import pallas as pl

    return ref if width == ref.shape[1] else ref.at[:, pl.ds(col0, width)]


def load_tile(ref, row0, rows: int, col0, cols: int, width: int, other):
    """ref[:, col0:col0 + width] of a rows x cols array, lanes outside it read as `other`.

    Pallas's Triton lowering does not mask edge blocks: an overhanging block reads undefined
    memory. The mask keeps it out of max/sum; blocks that tile the array exactly skip the mask
    (a static check).
    """
    from jax.experimental.pallas import triton as pltriton

    tile = column_tile(ref, col0, width)
    if rows % ref.shape[0] == 0 and cols % width == 0:
        return tile[...]
    mask = edge_mask((ref.shape[0], width), row0, rows, col0, cols)
    return pltriton.load(tile, mask=mask, other=other)


def store_tile(ref, val, row0, rows: int, col0, cols: int):
    """Stores val at ref[:, col0:col0 + width], leaving lanes outside the array untouched."""
    from jax.experimental.pallas import triton as pltriton

    br, width = val.shape
    tile = column_tile(ref, col0, width)
    if rows % br == 0 and cols % width == 0:
        tile[...] = val
    else:
        pltriton.store(tile, val, mask=edge_mask((br, width), row0, rows, col0, cols))


def load_rows(ref, row0, rows: int, other):
    """A (br,) block of per-row values, rows past the array read as `other`."""
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental.pallas import triton as pltriton

    if rows % ref.shape[0] == 0:
        return ref[...]
    return pltriton.load(ref, mask=row0 + lax.iota(jnp.int32, ref.shape[0]) < rows, other=other)


def store_rows(ref, val, row0, rows: int):
    """Stores a (br,) block of per-row values, leaving rows past the array untouched."""
    import jax.numpy as jnp
    from jax import lax
    from jax.experimental.pallas import triton as pltriton

    if rows % ref.shape[0] == 0:
        ref[...] = val
    else:
        pltriton.store(ref, val, mask=row0 + lax.iota(jnp.int32, ref.shape[0]) < rows)


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def dividing_tile(dim: int, pref: int) -> int:
    """Largest power of two in [16, pref] dividing dim; else pref capped near dim (the array is
    then padded to a multiple of it). 16: the smallest block jnp.dot takes."""
    t = pref
    while t >= 16:
        if dim % t == 0:
            return t
        t //= 2
    return max(16, min(pref, next_pow2(dim)))


def pad_to_multiple(x, axis: int, mult: int):
    """Zero-pad one axis up to a multiple of mult: layout only (zeros add nothing to a dot or a
    scatter of zero rows)."""
    import jax.numpy as jnp

    extra = -x.shape[axis] % mult
    if not extra:
        return x
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, extra)
    return jnp.pad(x, widths)


# ---------------------------------------------------------------------------------------------
# Tolerances (TASKS.md: upper bounds; a task may be stricter, never looser)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tolerance:
    """|out-ref| <= atol + rtol*|ref| elementwise, and ||out-ref||/||ref|| <= rel_norm."""

    atol: float
    rtol: float
    rel_norm: float

    def as_dict(self) -> dict:
        return {"atol": self.atol, "rtol": self.rtol, "rel_norm": self.rel_norm}


EXACT = Tolerance(0.0, 0.0, 0.0)
ELEMENTWISE = Tolerance(1e-5, 1e-5, 1e-5)
TRANSCENDENTAL = Tolerance(1e-5, 1e-4, 1e-5)
MATMUL = Tolerance(1e-2, 1e-2, 2e-3)
ATOMIC_SUM = Tolerance(1e-4, 1e-4, 1e-4)

# ---------------------------------------------------------------------------------------------
# Inputs and their domains
# ---------------------------------------------------------------------------------------------

# Domain kinds say how an input may be perturbed without leaving its domain (robustness filters):
REAL = "real"  # any float: additive noise
POSITIVE = "positive"  # float > 0: multiplicative noise
UNIT = "unit_interval"  # float in [0, 1]: noise clipped to the interval
DISCRETE = "discrete"  # ids, DNA, masks: resample a fraction of positions
SIMPLEX_ROWS = "simplex_rows"  # rows sum to one: resample whole rows
ONE_HOT_ROWS = "one_hot_rows"  # one-hot rows (encoded DNA): resample whole rows


@dataclass(frozen=True)
class Input:
    name: str
    domain: str = REAL


def normal(rng: np.random.Generator, shape, scale: float = 1.0) -> np.ndarray:
    return (rng.standard_normal(shape, dtype=np.float32) * np.float32(scale)).astype(np.float32)


def weight(rng: np.random.Generator, shape) -> np.ndarray:
    """N(0,1) scaled by 1/sqrt(fan_in), fan_in = product of all but the last dimension."""
    fan_in = math.prod(shape[:-1]) if len(shape) > 1 else shape[0]
    return normal(rng, shape, 1.0 / math.sqrt(fan_in))


def uniform(rng: np.random.Generator, shape, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    return rng.uniform(low, high, size=shape).astype(np.float32)


def log_uniform(rng: np.random.Generator, shape, low: float, high: float) -> np.ndarray:
    return np.exp(rng.uniform(math.log(low), math.log(high), size=shape)).astype(np.float32)


def ids(rng: np.random.Generator, shape, high: int) -> np.ndarray:
    return rng.integers(0, high, size=shape, dtype=np.int32)


def dna(rng: np.random.Generator, shape) -> np.ndarray:
    """Bases as uint8: A=0, C=1, G=2, T=3."""
    return rng.integers(0, 4, size=shape, dtype=np.uint8)


def one_hot_dna(rng: np.random.Generator, shape) -> np.ndarray:
    """float32 one-hot encoding of random DNA; `shape` ends with the 4 channels."""
    bases = dna(rng, shape[:-1])
    return np.eye(4, dtype=np.float32)[bases]


def bernoulli(rng: np.random.Generator, shape, p: float, dtype=np.uint8) -> np.ndarray:
    return (rng.random(size=shape) < p).astype(dtype)


def softmax_rows(rng: np.random.Generator, shape) -> np.ndarray:
    z = rng.standard_normal(shape).astype(np.float64)
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)


# Perturbation strength for the input-impact filter: large enough that the reference's change
# stands far above f32/TF32 rounding, small enough to stay inside the input's domain.
PERTURB_NOISE = 0.05
PERTURB_FRACTION = 0.1


def perturb(rng: np.random.Generator, x: np.ndarray, domain: str) -> np.ndarray:
    """A copy of `x` changed within its domain (robustness filters: input impact)."""
    if domain == REAL:
        scale = float(np.std(x)) or 1.0
        return (x + PERTURB_NOISE * scale * rng.standard_normal(x.shape)).astype(x.dtype)
    if domain == POSITIVE:
        return (x * np.exp(PERTURB_NOISE * rng.standard_normal(x.shape))).astype(x.dtype)
    if domain == UNIT:
        return np.clip(x + PERTURB_NOISE * rng.standard_normal(x.shape), 0, 1).astype(x.dtype)
    if domain == DISCRETE:
        values = np.unique(x)
        out = x.copy()
        where = rng.random(x.shape) < PERTURB_FRACTION
        out[where] = rng.choice(values, size=int(where.sum()))
        return out
    if domain in (SIMPLEX_ROWS, ONE_HOT_ROWS):
        rows = x.reshape(-1, x.shape[-1]).copy()
        where = rng.random(rows.shape[0]) < PERTURB_FRACTION
        fresh = (softmax_rows(rng, (int(where.sum()), x.shape[-1])) if domain == SIMPLEX_ROWS
                 else np.eye(x.shape[-1], dtype=x.dtype)[rng.integers(0, x.shape[-1], int(where.sum()))])
        rows[where] = fresh.astype(x.dtype)
        return rows.reshape(x.shape)
    raise ValueError(f"unknown input domain '{domain}'")


# ---------------------------------------------------------------------------------------------
# Sizes
# ---------------------------------------------------------------------------------------------

SIZE_NAMES = ("small", "medium", "large")


def sizes(medium: dict, small: dict | None = None, large: dict | None = None) -> dict:
    """SMALL / MEDIUM / LARGE input shapes by name.

    TASKS.md's default: SMALL = MEDIUM / 8 per dimension (at least 8), LARGE = MEDIUM x 4 per
    dimension. A size given explicitly replaces the derived one for the inputs it names.
    """

    def derive(fn):
        return {k: tuple(fn(d) for d in v) for k, v in medium.items()}

    out = {
        "small": derive(lambda d: max(8, d // 8)),
        "medium": {k: tuple(v) for k, v in medium.items()},
        "large": derive(lambda d: d * 4),
    }
    for name, given in (("small", small), ("large", large)):
        if given:
            out[name].update({k: tuple(v) for k, v in given.items()})
    return out


# ---------------------------------------------------------------------------------------------
# Stress cases (TASKS.md, "Stress cases"): inputs beyond N(0,1) draws
# ---------------------------------------------------------------------------------------------

# Every case a task runs or skips, in the order they are checked. "distinct" is the all-distinct
# extreme of the degenerate inputs, where the domain allows it.
STRESS_CASES = ("tiny", "large", "offset", "degenerate", "distinct")

# Reasons shared by many task files for a case they skip.
NO_ROW_STATISTIC = ("no row statistic: TASKS.md offsets norms, softmax-class ops, losses over "
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


def stress(*run: str, large_factor: float = 30.0, offset_input: str | None = None,
           offset_axis: int = -1, keep: tuple = (), **skipped: str) -> Stress:
    """The cases named first run; each keyword named after a case skips it, its value the reason:
    tl.stress("tiny", "large", offset=tl.NO_ROW_STATISTIC, degenerate=tl.NO_DISCRETE_INPUT,
    distinct=tl.NO_DISCRETE_INPUT)."""
    return Stress(tuple(run), dict(skipped), large_factor, offset_input, offset_axis, tuple(keep))
