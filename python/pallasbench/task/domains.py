"""Task inputs: their domains, the generators that draw them, and perturbation within a domain."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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
