"""The index family's Mosaic GPU kernels (kernels/mosaic_index.py, mosaic_scatter.py): each lowers for CUDA on this
CPU machine at MEDIUM float32 and LARGE bfloat16 as one mosaic_gpu_v2 call (no Triton call, no
XLA convert around it), and runs in JAX's Mosaic GPU interpreter at SMALL equal to its task's
reference (the index tasks are exact), except gather's and scatter_add's, whose inline Mosaic GPU
no CPU interpreter runs: they are marked GPU-only, so off the GPU their tasks prefer Triton."""

import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import mosaic_index, mosaic_matmul, mosaic_scatter
from pallasbench.task import registry
from pallasbench.task.gpu_only import is_gpu_only
from task_avals import cuda_module_text

KERNELS = {**mosaic_index.KERNELS, **mosaic_scatter.KERNELS}


@pytest.mark.parametrize("size, dtype", [("medium", "float32"), ("large", "bfloat16")])
@pytest.mark.parametrize("task_name", sorted(KERNELS))
def test_lowers_for_cuda(task_name, size, dtype):
    text = cuda_module_text(registry.load(task_name), KERNELS[task_name], size, dtype)
    assert text.count("mosaic_gpu_v2") >= 1 and "__gpu$xla.gpu.triton" not in text
    assert "stablehlo.convert" not in text


@pytest.mark.parametrize("task_name, dtype", [("one_hot", "float32"), ("embedding_lookup", "bfloat16")])
def test_interpreted_equals_reference(task_name, dtype):
    task = registry.load(task_name)
    xs = [jnp.asarray(a, dtype) if np.asarray(a).dtype == np.float32 else jnp.asarray(a)
          for a in task.make_inputs(np.random.default_rng(3), task.SHAPES["small"])]
    out = mosaic_index.KERNELS[task_name](*xs, interpret=mosaic_matmul.interpret_params())
    np.testing.assert_array_equal(np.asarray(out), np.asarray(task.reference(*xs)))


def test_refuses_ids_off_the_copy_quantum():
    with pytest.raises(ValueError, match="multiple of 32"):
        mosaic_index.KERNELS["one_hot"](jnp.zeros((40,), jnp.int32))


def test_the_inline_mosaic_kernels_are_gpu_only():
    marked = {name: is_gpu_only(registry.implementations(registry.load(name))["mosaic_gpu"])
              for name in KERNELS}
    assert marked == {"one_hot": False, "embedding_lookup": False, "gather": True, "scatter_add": True}
