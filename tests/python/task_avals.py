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
