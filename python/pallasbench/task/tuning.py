"""Kernel configuration choices: searched on the GPU, shipped beside the task, replaceable
while a kernel is traced.

A kernel reads each tunable choice (tile, warps, stages, split count...) through `choice`, with
the kernel's own heuristic as the default. Three layers answer, first match wins:
1. `variant(task, **values)`: bench/probe.py times a task's variants by tracing its kernel
   inside one. The harness never enters it; `active()` lets a test assert nothing is left set.
2. The task's shipped table (`Tuned`, `tuned_kernel`): the configurations bench/probe.py chose
   for the task's own sizes and dtypes on a named GPU, committed in the task file. It applies
   while the kernel traces at exactly one of those sizes (its inputs' shapes) and dtypes.
3. The default the kernel passes (its heuristic: every other shape, SMALL, candidates' calls).
A task file says nothing more of its table than the table and where it was chosen: this is how
every table applies, and each record's kernel_config (registry.describe) says which values ran.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools

_ACTIVE: dict[str, dict] = {}
_SHIPPED: dict[str, dict] = {}
_READ: dict[str, set] = {}  # keys `choice` was asked for, per task, while its table applies


@dataclasses.dataclass(frozen=True)
class Tuned:
    """Configurations chosen by bench/probe.py: {size: {dtype: values}} on `gpu`, from the
    results in `source`. A dtype not listed falls back to `fallback[dtype]` (e.g. float16 takes
    bfloat16's: the same 16-bit tensor-core paths); "*" matches any dtype (integer tasks)."""

    gpu: str
    source: str
    configs: dict
    fallback: dict = dataclasses.field(default_factory=lambda: {"float16": "bfloat16"})

    def values(self, size: str, dtype: str) -> dict:
        by_dtype = self.configs.get(size, {})
        for key in (dtype, self.fallback.get(dtype), "*"):
            if key in by_dtype:
                return dict(by_dtype[key])
        return {}


def size_of(shapes: dict, input_names, arrays) -> str | None:
    """The size whose input shapes are exactly the arrays' (in input order), or None."""
    given = [tuple(a.shape) for a in arrays]
    for size, by_name in shapes.items():
        if [tuple(by_name[name]) for name in input_names] == given:
            return size
    return None


def _dtype_of(arrays) -> str:
    import jax.numpy as jnp

    floats = [a.dtype for a in arrays if jnp.issubdtype(a.dtype, jnp.floating)]
    return jnp.dtype(floats[0]).name if floats else "*"


def tuned_kernel(task: str, shapes: dict, inputs, table: Tuned, pinned: dict | None = None):
    """Decorator: the kernel traces with `table`'s values for its size and dtype as the shipped
    layer of `choice` (under `task`), and `pinned` at every shape (one function traced as two
    implementations: {"backend": "mosaic"} and {"backend": "triton"}). `inputs` are the task's
    INPUTS (their names give the order of the kernel's arguments)."""
    names = [i.name for i in inputs]
    pinned = dict(pinned or {})

    def wrap(kernel):
        @functools.wraps(kernel)
        def traced(*arrays):
            size, dtype = size_of(shapes, names, arrays), _dtype_of(arrays)
            values = shipped_values(traced, size, dtype)
            with _layer(_SHIPPED, task, values), _layer(_READ, task, set()):
                out = kernel(*arrays)
                # a key the kernel never asks for is a typo or a stale table (unless a tuning run's
                # values changed the kernel's form, and with it which keys it reads)
                unread = sorted(set(values) - _READ[task]) if task not in _ACTIVE else []
            if unread:
                raise ValueError(f"task '{task}': tuned configuration for {size} {dtype} sets "
                                 f"{unread}, which its kernel never reads")
            return out

        traced.tuned = table
        traced.pinned = pinned
        return traced

    return wrap


def shipped_values(kernel, size: str | None, dtype: str) -> dict:
    """What a tuned_kernel traces with at `size` (None: a shape of no size) and `dtype`: its
    table's values there, then its pinned values."""
    table = kernel.tuned.values(size, dtype) if size else {}
    return {**table, **kernel.pinned}


@contextlib.contextmanager
def _layer(layer: dict, task: str, value):
    """Within the block, layer[task] is `value`; after it, what it was (or nothing)."""
    previous = layer.get(task)
    layer[task] = value
    try:
        yield
    finally:
        if previous is None:
            del layer[task]
        else:
            layer[task] = previous


@contextlib.contextmanager
def variant(task: str, **values):
    """Within the block, `choice(task, key, default)` returns values[key] where given."""
    with _layer(_ACTIVE, task, {**_ACTIVE.get(task, {}), **values}):
        yield


def read_variants(path) -> dict[str, dict[str, dict]]:
    """The VARIANTS of a bench/variants/*.py file: {task: {variant name: values}}, where values may
    carry "_dtypes" (the dtypes the variant is for) beside its tuning values."""
    import importlib.util
    from pathlib import Path

    path = Path(path)
    spec = importlib.util.spec_from_file_location(f"variants_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.VARIANTS


def tuning_values(values: dict) -> dict:
    """A variant's tuning values, without its "_dtypes"."""
    return {key: value for key, value in values.items() if key != "_dtypes"}


def choice(task: str, key: str, default):
    """The value of `key` for `task`: a tuning run's, else the task's shipped table's for the
    size and dtype being traced, else `default`."""
    if task in _READ:
        _READ[task].add(key)
    for layer in (_ACTIVE, _SHIPPED):
        if key in layer.get(task, {}):
            return layer[task][key]
    return default


def active() -> dict[str, dict]:
    """What tuning values are set now (empty outside a `variant` block)."""
    return {task: dict(values) for task, values in _ACTIVE.items()}
