"""Pallas interpret mode on machines without a GPU.

Pallas kernels written for the GPU refuse to lower on the CPU backend. On the CPU the worker
makes `interpret=True` the default of `pl.pallas_call` before any task or candidate is imported,
so the same source runs unchanged on both (the jaxpr still holds the pallas_call equation).
`suspended()` turns the default off for a while: tests use it to lower kernels for CUDA on the
CPU, which runs Pallas's real Triton lowering rules without a GPU. `forced(True)`, the tracer's
rule for the module it runs on the CPU, interprets every Pallas kernel, Mosaic GPU's
`plgpu.kernel` included (worker/mosaic_interpret.py).
"""

from __future__ import annotations

import contextlib
import functools
import sys

_patched = False
_active = True
_forced = None  # None: interpret=True by default only; True/False: every pallas_call, whatever it asks


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
        if _forced is not None:
            kwargs["interpret"] = _forced
        elif _active:
            kwargs.setdefault("interpret", True)
        return original(*args, **kwargs)

    pl.pallas_call = pallas_call_interpreted
    _patched = True


def interpreting() -> bool:
    """Whether a pallas_call traced now runs in interpret mode by this module's doing: forced
    on, or the interpret default installed and not suspended. Kernels outside pallas_call
    (Mosaic GPU's plgpu.kernel, which this module does not patch) ask it to refuse a CPU run
    by name rather than fail deep in lowering."""
    if _forced is not None:
        return _forced
    return _patched and _active


def tracer_decides() -> bool:
    """Whether the tracer has forced interpret mode on or off (forced()): a kernel then passes no
    interpret= of its own, and the tracer's choice (its interpreter rules, or a real lowering)
    stands."""
    return _forced is not None


@contextlib.contextmanager
def suspended():
    """Within the block, pallas_call lowers for real (no interpret default)."""
    global _active
    previous, _active = _active, False
    try:
        yield
    finally:
        _active = previous


@contextlib.contextmanager
def forced(value: bool):
    """Within the block, every pallas_call lowers with interpret=value, whatever it passes. The
    CPU tracer exports the module it runs with True and the CUDA module it is judged by with
    False, so library kernels that pass interpret=False run on the CPU, and an explicit
    interpret=True cannot hide the kernel there (on a GPU machine nothing is forced: an
    interpret-mode kernel leaves no Pallas kernel in the module and is refused).

    Kernels Pallas builds elsewhere (Mosaic GPU's plgpu.kernel, pl.kernel, pl.core_map, a
    pallas_call imported before the patch) follow JAX's own switch, read as `switch or
    interpret`: forced on, it is True, and plgpu.kernel runs through Pallas's interpreter with
    worker/mosaic_interpret.py's rules (JAX's Mosaic GPU interpreter needs host callbacks,
    which jax.export cannot hand over); forced off, it is cleared in this thread, so no setting
    of the candidate's interprets the CUDA module. An explicit interpret= on plgpu.kernel is
    left alone there: an interpreted kernel leaves no Mosaic GPU kernel in the CUDA module, which
    the harness refuses."""
    global _forced
    from jax._src import config

    switch = config.pallas_tpu_interpret_mode_context_manager
    if value and "jax._src.pallas.mosaic_gpu.core" in sys.modules:  # a Mosaic GPU kernel may be traced
        from pallasbench.worker import mosaic_interpret

        mosaic_interpret.install()
    previous, _forced = _forced, value
    previous_switch = switch.swap_local(True if value else None)
    try:
        yield
    finally:
        switch.set_local(previous_switch)
        _forced = previous
