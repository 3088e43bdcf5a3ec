"""Kernel configuration choices a tuning run may replace while a kernel is traced.

A kernel reads each tunable choice (tile, warps, stages, split count...) through `choice`, with
the value the task ships as the default. bench/probe.py times a task's variants by tracing its
kernel inside `variant(task, **values)`. The harness never enters `variant`: a suite run always
traces the shipped defaults, and `active()` lets a test assert that nothing is left set.
"""

from __future__ import annotations

import contextlib

_ACTIVE: dict[str, dict] = {}


@contextlib.contextmanager
def variant(task: str, **values):
    """Within the block, `choice(task, key, default)` returns values[key] where given."""
    previous = _ACTIVE.get(task)
    _ACTIVE[task] = {**(previous or {}), **values}
    try:
        yield
    finally:
        if previous is None:
            del _ACTIVE[task]
        else:
            _ACTIVE[task] = previous


def choice(task: str, key: str, default):
    """The value of `key` for `task`: a tuning run's, else the shipped `default`."""
    return _ACTIVE.get(task, {}).get(key, default)


def active() -> dict[str, dict]:
    """What tuning values are set now (empty outside a `variant` block)."""
    return {task: dict(values) for task, values in _ACTIVE.items()}
