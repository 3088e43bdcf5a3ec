"""Abstract inputs of a task at a size, for tracing and lowering without drawing the arrays:
shapes from the task's SHAPES, dtypes from its SMALL inputs (drawing MEDIUM or LARGE costs
seconds), float32 inputs at `dtype` as the harness runs a dtype tier."""
import jax
import numpy as np


def task_avals(task, size: str, dtype="float32") -> list:
    inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])
    return [jax.ShapeDtypeStruct(tuple(task.SHAPES[size][i.name]), dtype if np.asarray(x).dtype == np.float32
                                 else np.asarray(x).dtype)
            for i, x in zip(task.INPUTS, inputs)]


def cuda_module_text(task, kernel, size: str, dtype="float32") -> str:
    """kernel's module lowered for CUDA on this CPU machine at the task's `size` and `dtype`, as
    text (the worker's interpret mode suspended: a real Mosaic GPU / Triton lowering)."""
    from pallasbench.worker import interpret

    with interpret.suspended():
        traced = jax.jit(lambda *xs: kernel(*xs)).trace(*task_avals(task, size, dtype))
        return traced.lower(lowering_platforms=("cuda",)).as_text()
