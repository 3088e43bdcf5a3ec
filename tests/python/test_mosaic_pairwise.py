"""The pairwise family's Mosaic GPU kernels (kernels/mosaic_pairwise.py): each lowers for CUDA on
this CPU machine at MEDIUM float32 and LARGE bfloat16 as one mosaic_gpu_v2 call (no Triton call,
no XLA convert), and runs at SMALL as the harness's tracer runs it (forced interpret mode with
worker/mosaic_interpret.py's rules, exported) against its task's reference: outer_product exact,
pairwise_distance within float32 rounding (its SMALL rows have 16 features, read in 32-wide TMA
boxes whose columns past the array come back as zeros, which only the tracer's interpreter
models: JAX's refuses the read)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import mosaic_pairwise
from pallasbench.task import registry
from pallasbench.worker import interpret, mosaic_interpret
from task_avals import cuda_module_text


@pytest.mark.parametrize("size, dtype", [("medium", "float32"), ("large", "bfloat16")])
@pytest.mark.parametrize("task_name", sorted(mosaic_pairwise.KERNELS))
def test_lowers_for_cuda(task_name, size, dtype):
    text = cuda_module_text(registry.load(task_name), mosaic_pairwise.KERNELS[task_name], size, dtype)
    assert "mosaic_gpu_v2" in text and "__gpu$xla.gpu.triton" not in text
    assert "stablehlo.convert" not in text


def _run_as_the_tracer(fn, *xs):
    mosaic_interpret.install()  # forced() installs the rules only once Mosaic GPU is imported
    jax.clear_caches()
    with interpret.forced(True):
        exported = jax.export.export(jax.jit(fn), platforms=["cpu"])(
            *[jax.ShapeDtypeStruct(x.shape, x.dtype) for x in xs])
    return np.asarray(exported.call(*xs), np.float64)


@pytest.mark.parametrize("task_name, rtol", [("outer_product", 0.0), ("pairwise_distance", 1e-6)])
def test_small_matches_the_reference(task_name, rtol):
    task = registry.load(task_name)
    xs = [jnp.asarray(a) for a in task.make_inputs(np.random.default_rng(5), task.SHAPES["small"])]
    out = _run_as_the_tracer(mosaic_pairwise.KERNELS[task_name], *xs)
    with jax.enable_x64():
        ref = np.asarray(task.reference(*[jnp.asarray(np.asarray(x, np.float64)) for x in xs]))
    np.testing.assert_allclose(out, ref.astype(np.float32), rtol=rtol, atol=0)


def test_tiles_that_do_not_divide_the_output_are_refused():
    with pytest.raises(ValueError, match="outer_product: .*tiles"):
        mosaic_pairwise.KERNELS["outer_product"](jnp.zeros((100,)), jnp.zeros((128,)))
