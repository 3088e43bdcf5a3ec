"""Pallas interpret mode on machines without a GPU.

Pallas kernels written for the GPU refuse to lower on the CPU backend. On the CPU the worker
makes `interpret=True` the default of `pl.pallas_call` before any task or candidate is imported,
so the same source runs unchanged on both (the jaxpr still holds the pallas_call equation).
`suspended()` turns the default off for a while: tests use it to lower kernels for CUDA on the
CPU, which runs Pallas's real Triton lowering rules without a GPU.
"""

from __future__ import annotations

import contextlib
import functools

_patched = False
_active = True


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
        if _active:
            kwargs.setdefault("interpret", True)
        return original(*args, **kwargs)

    pl.pallas_call = pallas_call_interpreted
    _patched = True


@contextlib.contextmanager
def suspended():
    """Within the block, pallas_call lowers for real (no interpret default)."""
    global _active
    previous, _active = _active, False
    try:
        yield
    finally:
        _active = previous
