"""Task inputs: their domains, the generators that draw them, and perturbation within a domain.

Large arrays (LARGE elementwise inputs are 1 GiB) are drawn in chunks of CHUNK elements, each from
its own stream spawned from the caller's Generator (Generator.spawn: the children depend on the
seed and on how many were spawned before, nothing else), on a thread pool (numpy releases the GIL
while it fills). The chunking is fixed, so a seed draws the same numbers whatever the thread count;
arrays of at most CHUNK elements are drawn from the Generator itself, as before. Either way every
input has the distribution its task declares.
"""

from __future__ import annotations

import math
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

CHUNK = 1 << 22  # elements per stream (16 MiB of float32): fixed, part of what a seed draws
_pool: list = []


def set_threads(count: int | None) -> None:
    """The number of drawing threads (None: PALLASBENCH_DRAW_THREADS, else every CPU). What a
    seed draws does not depend on it."""
    while _pool:
        _pool.pop().shutdown()
    count = count or int(os.environ.get("PALLASBENCH_DRAW_THREADS", "0")) or os.cpu_count() or 1
    _pool.append(ThreadPoolExecutor(max_workers=count, thread_name_prefix="pallasbench-draw"))


def _threads() -> ThreadPoolExecutor:
    if not _pool:
        set_threads(None)
    return _pool[0]


def _chunks(n: int) -> list[slice]:
    return [slice(start, min(start + CHUNK, n)) for start in range(0, n, CHUNK)]


def _fill(rng: np.random.Generator, out: np.ndarray, draw) -> np.ndarray:
    """Fills the C-contiguous `out` with draw(generator, flat slice): from `rng` itself when it
    is one chunk, else chunk by chunk, each from its own spawned stream, in parallel."""
    flat = out.reshape(-1)
    parts = _chunks(flat.size)
    if len(parts) <= 1:
        draw(rng, flat, slice(0, flat.size))
        return out
    streams = rng.spawn(len(parts))
    list(_threads().map(lambda job: draw(job[0], flat[job[1]], job[1]), zip(streams, parts)))
    return out


def _std(x: np.ndarray) -> float:
    """The standard deviation of x, one pass over fixed chunks in parallel, summed in float64 (no
    full-size temporary; it only scales the perturbation's noise, so E[x^2] - E[x]^2 in float64
    is precise enough for float32 data)."""
    flat = x.reshape(-1)
    if flat.size == 0:
        return 0.0

    def moments(part):
        chunk = flat[part].astype(np.float64)
        return float(chunk.sum()), float(np.dot(chunk, chunk))

    sums = list(_threads().map(moments, _chunks(flat.size)))
    mean = sum(s for s, _ in sums) / flat.size
    return math.sqrt(max(sum(q for _, q in sums) / flat.size - mean * mean, 0.0))

# Domain kinds say how an input may be perturbed without leaving its domain (robustness filters):
REAL = "real"  # any float: additive noise
POSITIVE = "positive"  # float > 0: multiplicative noise
UNIT = "unit_interval"  # float in [0, 1]: noise clipped to the interval
DISCRETE = "discrete"  # ids, DNA, masks: resample a fraction of positions
SIMPLEX_ROWS = "simplex_rows"  # rows sum to one: resample whole rows
ONE_HOT_ROWS = "one_hot_rows"  # one-hot rows (encoded DNA): resample whole rows


@dataclass(frozen=True)
class Input:
    """One input of a task. `weight`: a model parameter (a matmul's or a convolution's weights, a
    bias, a norm's scale, an embedding table, a PWM), which a deployment lays out once, offline:
    data movement outside the kernels that derives from weights alone is packing and is not
    counted against the kernel (docs/filters.md, "Data movement")."""
    name: str
    domain: str = REAL
    weight: bool = False


def normal(rng: np.random.Generator, shape, scale: float = 1.0) -> np.ndarray:
    """N(0, scale^2) in float32, drawn in float32 and scaled in place."""
    factor = np.float32(scale)

    def draw(g, out, _where):
        g.standard_normal(dtype=np.float32, out=out)
        if factor != 1:
            out *= factor

    return _fill(rng, np.empty(shape, dtype=np.float32), draw)


def weight(rng: np.random.Generator, shape) -> np.ndarray:
    """N(0,1) scaled by 1/sqrt(fan_in), fan_in = product of all but the last dimension."""
    fan_in = math.prod(shape[:-1]) if len(shape) > 1 else shape[0]
    return normal(rng, shape, 1.0 / math.sqrt(fan_in))


def uniform(rng: np.random.Generator, shape, low: float = 0.0, high: float = 1.0) -> np.ndarray:
    """U[low, high) drawn in float64, chunk by chunk, rounded to float32 (as before chunking, the
    rounding can reach `high`)."""
    def draw(g, out, _where):
        out[...] = g.uniform(low, high, size=out.size)

    return _fill(rng, np.empty(shape, dtype=np.float32), draw)


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
    if domain in (REAL, POSITIVE, UNIT) and x.dtype == np.float32:
        return _perturb_float32(rng, np.ascontiguousarray(x), domain)
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


def _perturb_float32(rng: np.random.Generator, x: np.ndarray, domain: str) -> np.ndarray:
    """perturb of a float32 input: the same noise model (additive N(0, (0.05 std)^2) for REAL,
    a factor exp(N(0, 0.05^2)) for POSITIVE, additive N(0, 0.05^2) clipped to [0, 1] for UNIT),
    drawn in float32 chunk by chunk into the copy (float64 noise cost a 2 GiB temporary and most
    of the time of a LARGE input's perturbation)."""
    source = x.reshape(-1)
    if domain == REAL:
        sigma = np.float32(PERTURB_NOISE * (_std(x) or 1.0))
    else:
        sigma = np.float32(PERTURB_NOISE)

    def draw(g, out, where):
        g.standard_normal(dtype=np.float32, out=out)
        out *= sigma
        if domain == POSITIVE:
            np.exp(out, out=out)
            out *= source[where]
        else:
            out += source[where]
            if domain == UNIT:
                np.clip(out, 0, 1, out=out)

    return _fill(rng, np.empty_like(x), draw)
