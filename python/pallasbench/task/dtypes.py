"""The dtype axis (`--dtype float32|bfloat16|float16`, docs/dtypes.md).

At a low-precision dtype every float input and output of a task is that dtype; integer inputs
(indices, genomics bases) keep their types. Inputs are drawn as at float32 and rounded to the
dtype (round to nearest even); the reference computes in float32 (float64 where the task
declares it) on the rounded values, and its result is rounded to the output dtype.

Between the processes, arrays of a low-precision dtype travel as float32 .npy files holding
values the dtype represents exactly (numpy's .npy format has no bfloat16): the file descriptions
name the logical dtype, and the executor casts on load, which loses nothing.
"""
from __future__ import annotations

import numpy as np

from pallasbench.task.tolerance import EXACT, Tolerance

FLOAT32 = "float32"
LOW_PRECISION = ("bfloat16", "float16")
DTYPES = (FLOAT32, *LOW_PRECISION)

# The bounds (KernelBench checks fp16/bf16 at 1e-2); a task may declare stricter ones.
BOUNDS = {
    "bfloat16": Tolerance(1e-2, 1e-2, 1e-2),
    "float16": Tolerance(2e-3, 2e-3, 2e-3),
}


def check_dtype(dtype: str) -> str:
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype '{dtype}' (one of {', '.join(DTYPES)})")
    return dtype


def numpy_dtype(name: str) -> np.dtype:
    """np.dtype of a name numpy alone may not know (bfloat16 comes from ml_dtypes)."""
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def is_float(name: str) -> bool:
    return name in DTYPES or name == "float64"


def at_dtype(name: str, dtype: str) -> str:
    """A float32 array's dtype at the run's dtype; any other dtype stays."""
    return dtype if name == FLOAT32 else name


def output_at_dtype(output: str, inputs: list[str], dtype: str) -> str:
    """The output's dtype at `dtype`: a float32 output follows the float inputs; a task with no
    float input (one_hot, genomics counts) keeps its output type, since nothing its kernel is
    given says which float type to make."""
    return at_dtype(output, dtype) if FLOAT32 in inputs else output


def round_to(array, dtype: str) -> np.ndarray:
    """A float32 array rounded to `dtype` (nearest even) and held as float32 again: exactly the
    values the dtype represents. Anything not float32 is returned as it is."""
    array = np.asarray(array)
    if dtype == FLOAT32 or array.dtype != np.float32:
        return array
    return array.astype(numpy_dtype(dtype)).astype(np.float32)


def tolerances(module, input_dtypes: list[str] | None = None) -> dict[str, dict]:
    """The task's bound at each dtype: its TOLERANCE at float32; at a low precision the dtype's
    bound, or the task's own from LOW_PRECISION_TOLERANCE when stricter in every field; exact
    stays exact. A task with no float input (`input_dtypes` given) runs the same at every dtype,
    so it keeps its float32 bound."""
    base: Tolerance = module.TOLERANCE
    declared: dict = getattr(module, "LOW_PRECISION_TOLERANCE", {})
    found = {FLOAT32: base.as_dict()}
    unchanged = input_dtypes is not None and FLOAT32 not in input_dtypes
    for dtype in LOW_PRECISION:
        bound = BOUNDS[dtype]
        chosen = base if base == EXACT or unchanged else declared.get(dtype, bound)
        if not unchanged and any(getattr(chosen, f) > getattr(bound, f) for f in ("atol", "rtol", "rel_norm")):
            raise ValueError(f"task '{module.NAME}': LOW_PRECISION_TOLERANCE[{dtype}] {chosen} is looser "
                             f"than the dtype's bound {bound}")
        found[dtype] = chosen.as_dict()
    return found


def views(module, input_dtypes: dict[str, str], output_dtype: str, bytes_at: dict[str, dict | None]) -> dict:
    """The task as evaluated at each dtype, the one place the dtype axis is derived (the harness
    reads it from describe; C++ derives nothing): its bound there (`tolerances`), its inputs'
    dtypes (float32 ones at the dtype), its output's (`output_at_dtype`), and its byte model at
    each size where it has one at that dtype (`bytes_at[dtype]`, None: no figure, rather than the
    float32 one that would double a 2-byte kernel's bandwidth)."""
    floats = list(input_dtypes.values())
    bounds = tolerances(module, floats)
    found = {}
    for dtype in DTYPES:
        view = {"tolerance": bounds[dtype],
                "dtypes": {name: at_dtype(kind, dtype) for name, kind in input_dtypes.items()},
                "output_dtype": output_at_dtype(output_dtype, floats, dtype)}
        if bytes_at.get(dtype) is not None:
            view["bytes"] = bytes_at[dtype]
        found[dtype] = view
    return found
