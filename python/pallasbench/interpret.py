"""Pallas interpret mode on machines without a GPU.

Pallas kernels written for the GPU refuse to lower on the CPU backend. On the CPU the worker
makes `interpret=True` the default of `pl.pallas_call` before any task or candidate is imported,
so the same source runs unchanged on both (the jaxpr still holds the pallas_call equation).
"""

from __future__ import annotations

import functools

_patched = False


def on_cpu() -> bool:
    import jax

    return jax.default_backend() == "cpu"


def enable_interpret_default() -> None:
    """Make interpret=True the default of pallas_call (idempotent)."""
    global _patched
    if _patched:
        return
    from jax.experimental import pallas as pl

    original = pl.pallas_call

    @functools.wraps(original)
    def pallas_call_interpreted(*args, **kwargs):
        kwargs.setdefault("interpret", True)
        return original(*args, **kwargs)

    pl.pallas_call = pallas_call_interpreted
    _patched = True
