"""Discovery and validation of the task files under tasks/level1|level2|level3/."""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from pallasbench.task.gpu_only import is_gpu_only
from pallasbench.task.shapes import SIZE_NAMES
from pallasbench.task.stress import Stress
from pallasbench.task.tolerance import Tolerance

REQUIRED = {
    "NAME": str, "LEVEL": int, "CATEGORY": str, "INPUTS": tuple, "SHAPES": dict,
    "TOLERANCE": Tolerance, "USES_TF32": bool, "ORDER_DEPENDENT": bool, "STRESS": Stress,
}
REQUIRED_FUNCTIONS = ("make_inputs", "reference", "kernel", "flops", "bytes_moved")
# The Pallas backends a task may implement, in the order the harness prefers them: Mosaic GPU
# (plgpu.kernel, where JAX is taking Pallas on GPUs) before Triton (pl.pallas_call, deprecated).
BACKENDS = ("mosaic_gpu", "triton")


class TaskError(Exception):
    """A task file that does not follow the task interface."""


def project_root() -> Path:
    env = os.environ.get("PALLASBENCH_ROOT")
    return Path(env) if env else Path(__file__).resolve().parents[3]


def tasks_dir() -> Path:
    return project_root() / "tasks"


@dataclass(frozen=True)
class TaskFile:
    name: str
    level: int
    path: Path


def discover() -> dict[str, TaskFile]:
    """Task name -> file, found by file name (tasks/levelN/<name>.py), without importing."""
    found = {}
    for level_dir in sorted(tasks_dir().glob("level[0-9]")):
        level = int(level_dir.name[len("level"):])
        for path in sorted(level_dir.glob("*.py")):
            if path.name.startswith("_"):
                continue
            found[path.stem] = TaskFile(path.stem, level, path)
    return found


def import_file(path: Path, module_name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


def validate(module: ModuleType, task: TaskFile) -> None:
    for attr, kind in REQUIRED.items():
        if not hasattr(module, attr):
            raise TaskError(f"task '{task.name}' ({task.path}): missing {attr}")
        if not isinstance(getattr(module, attr), kind):
            raise TaskError(f"task '{task.name}' ({task.path}): {attr} must be {kind.__name__}")
    for fn in REQUIRED_FUNCTIONS:
        if not callable(getattr(module, fn, None)):
            raise TaskError(f"task '{task.name}' ({task.path}): missing function {fn}()")
    if module.NAME != task.name:
        raise TaskError(f"task file {task.path}: NAME is '{module.NAME}', file says '{task.name}'")
    if module.LEVEL != task.level:
        raise TaskError(f"task '{task.name}': LEVEL {module.LEVEL} but file is in level{task.level}")
    implementations(module, task)
    names = [i.name for i in module.INPUTS]
    try:
        module.STRESS.check(task.name, names)
    except ValueError as exc:
        raise TaskError(f"{exc} ({task.path})") from exc
    for size in SIZE_NAMES:
        shapes = module.SHAPES.get(size)
        if shapes is None or sorted(shapes) != sorted(names):
            raise TaskError(f"task '{task.name}': SHAPES['{size}'] must name exactly {names}")


def implementations(module: ModuleType, task: TaskFile | None = None) -> dict:
    """The task's kernels by backend, preferred first: `kernel` (the Triton implementation every
    task has), plus those an optional BACKENDS dict declares ({"mosaic_gpu": fn, ...})."""
    where = f"task '{module.NAME}' ({task.path if task else module.__file__})"
    declared = getattr(module, "BACKENDS", {"triton": module.kernel})
    if not isinstance(declared, dict) or not declared:
        raise TaskError(f"{where}: BACKENDS must be a non-empty dict of backend -> kernel function")
    for backend, fn in declared.items():
        if backend not in BACKENDS:
            raise TaskError(f"{where}: BACKENDS names '{backend}' (known: {', '.join(BACKENDS)})")
        if not callable(fn):
            raise TaskError(f"{where}: BACKENDS['{backend}'] is not a function")
    if declared.get("triton", module.kernel) is not module.kernel:
        raise TaskError(f"{where}: BACKENDS['triton'] must be `kernel`")
    if is_gpu_only(module.kernel):
        raise TaskError(f"{where}: `kernel` (Triton) runs in interpret mode on the CPU; it cannot be gpu_only")
    return {backend: declared[backend] for backend in BACKENDS if backend in declared}


def implementation(module: ModuleType, backend: str | None):
    """The task's kernel on `backend` (None: `kernel`); a TaskError naming the task otherwise."""
    if backend is None:
        return module.kernel
    found = implementations(module)
    if backend not in found:
        raise TaskError(f"task '{module.NAME}' has no {backend} implementation (it has: {', '.join(found)})")
    return found[backend]


_loaded: dict[str, ModuleType] = {}


def load(name: str) -> ModuleType:
    """Import and validate one task by name; raises TaskError for unknown or malformed tasks."""
    if name in _loaded:
        return _loaded[name]
    tasks = discover()
    if name not in tasks:
        raise TaskError(f"unknown task '{name}' (known: {len(tasks)} under {tasks_dir()})")
    task = tasks[name]
    module = import_file(task.path, f"pallasbench_task_{name}")
    validate(module, task)
    _loaded[name] = module
    return module


def _input_dtypes(module: ModuleType) -> dict:
    """Input dtypes, read off SMALL inputs (make_inputs fixes them for every size)."""
    import numpy as np

    inputs = module.make_inputs(np.random.default_rng(0), module.SHAPES["small"])
    return {spec.name: np.asarray(x).dtype.name for spec, x in zip(module.INPUTS, inputs)}


def describe(module: ModuleType) -> dict:
    """Everything the orchestrator needs to know about a task, as JSON-able data."""
    found = implementations(module)
    return {
        "name": module.NAME,
        "level": module.LEVEL,
        "category": module.CATEGORY,
        "path": str(Path(module.__file__).resolve()),
        "inputs": [{"name": i.name, "domain": i.domain, "weight": i.weight} for i in module.INPUTS],
        "shapes": {size: {k: list(v) for k, v in s.items()} for size, s in module.SHAPES.items()},
        "tolerance": module.TOLERANCE.as_dict(),
        "uses_tf32": module.USES_TF32,
        "order_dependent": module.ORDER_DEPENDENT,
        "stress": module.STRESS.as_dict(),
        "integer_ops": bool(getattr(module, "INTEGER_OPS", False)),
        "dtypes": _input_dtypes(module),
        "backends": list(found),
        "gpu_only_backends": [b for b, fn in found.items() if is_gpu_only(fn)],
        "flops": {size: int(module.flops(module.SHAPES[size])) for size in SIZE_NAMES},
        "bytes": {size: int(module.bytes_moved(module.SHAPES[size])) for size in SIZE_NAMES},
        # each implementation's shipped configuration (None: it ships no table)
        "kernel_configs": {backend: _kernel_config(fn) for backend, fn in found.items()},
    }


def _kernel_config(kernel) -> dict | None:
    """An implementation's shipped configuration (tuning.Tuned): the GPU and results it was chosen
    on, and the values its kernel traces with at each size and dtype, as [{key, value}] with each
    value JSON-encoded (one schema whatever the keys' types; an empty list: the kernel's heuristic),
    and its pinned values. None when it ships no table."""
    import json

    from pallasbench.task import dtypes, tuning

    table = getattr(kernel, "tuned", None)
    if table is None:
        return None
    values = {size: {dtype: [{"key": k, "value": json.dumps(v)}
                             for k, v in sorted(tuning.shipped_values(kernel, size, dtype).items())]
                     for dtype in dtypes.DTYPES}
              for size in SIZE_NAMES}
    pinned = [{"key": k, "value": json.dumps(v)} for k, v in sorted(kernel.pinned.items())]
    return {"gpu": table.gpu, "source": table.source, "values": values, "pinned": pinned}


def bytes_by_dtype(module: ModuleType) -> dict:
    """The byte model at each low-precision dtype, from bytes_moved(shapes, itemsize=2) where the
    task's model takes the float element size; none otherwise (the harness then claims no
    bandwidth figure at that dtype rather than the float32 one)."""
    import inspect

    if "itemsize" not in inspect.signature(module.bytes_moved).parameters:
        return {}
    return {dtype: {size: int(module.bytes_moved(module.SHAPES[size], itemsize=2)) for size in SIZE_NAMES}
            for dtype in ("bfloat16", "float16")}
