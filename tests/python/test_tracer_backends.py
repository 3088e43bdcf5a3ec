"""The tracer lowers as the GPU machine's jax does (worker/backends.py): a plain pl.pallas_call
with Triton, a pallas_call with Mosaic GPU compiler params refused, plgpu.kernel through the CPU
interpreter or refused saying why; and a failure to lower says which backend, why, where in the
candidate, and how to fix it. Traced in this process (worker/tracer.py's Tracer, as its process
runs it, less the sandbox)."""

from pathlib import Path

import jax
import jax.numpy as jnp
import pytest

from pallasbench.task import registry
from pallasbench.worker import backends, interpret, tracer
from pallasbench.worker.protocol import CommandError, TraceRequest

BACKENDS = Path(__file__).resolve().parents[1] / "candidates" / "backends"
OLD_JAX = hasattr(jax.config, "jax_pallas_use_mosaic_gpu")  # 0.10: the option exists, default on


@pytest.fixture
def gpu_machine_lowering():
    backends.lower_as_gpu_machine()
    yield
    if OLD_JAX:
        jax.config.update("jax_pallas_use_mosaic_gpu", True)


def trace(tmp_path, monkeypatch, source: str, shape=(256, 256)) -> dict:
    monkeypatch.chdir(tmp_path)
    request = TraceRequest.from_json({"candidate": {"source": source, "name": "mine.py"},
                                      "inputs": [{"shape": list(shape), "dtype": "float32"}], "platform": "cpu"})
    return tracer.Tracer().cmd_trace(request)


def cuda_text(fn, shape=(512, 512)):
    jax.clear_caches()
    with interpret.suspended():
        return jax.jit(fn).trace(jax.ShapeDtypeStruct(shape, jnp.float32)).lower(lowering_platforms=("cuda",)).as_text()


def double(x):
    """A plain pl.pallas_call, as the Pallas docs write one: no compiler params."""
    from jax.experimental import pallas as pl

    def body(x_ref, o_ref):
        o_ref[...] = x_ref[...] * 2.0

    spec = pl.BlockSpec((64, 128), lambda i, j: (i, j))
    return pl.pallas_call(body, out_shape=jax.ShapeDtypeStruct(x.shape, x.dtype), grid=(8, 4), in_specs=[spec],
                          out_specs=spec)(x)


@pytest.mark.skipif(not OLD_JAX, reason="jax 0.11+ lowers a plain pallas_call with Triton only")
def test_a_plain_pallas_call_lowers_with_triton_as_on_the_gpu_machine(gpu_machine_lowering):
    text = cuda_text(double)
    assert "__gpu$xla.gpu.triton" in text and "mosaic_gpu_v2" not in text
    jax.config.update("jax_pallas_use_mosaic_gpu", True)  # jax 0.10's default: Mosaic GPU
    assert "mosaic_gpu_v2" in cuda_text(double)


def test_a_plgpu_kernel_without_params_lowers_with_mosaic_gpu(tmp_path, monkeypatch, gpu_machine_lowering):
    """As jax 0.11 does: with the option off, jax 0.10 would send it to Triton ("mesh is not
    supported in the Triton backend")."""
    source = (BACKENDS / "mosaic_softmax.py").read_text()
    source = source.replace("compiler_params=plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Warpgroup),",
                            "")
    assert "CompilerParams" not in source
    traced = trace(tmp_path, monkeypatch, source)
    assert traced["analysis_module"] and traced["module"]


def test_a_pallas_call_with_mosaic_params_is_refused_naming_plgpu_kernel(tmp_path, monkeypatch, gpu_machine_lowering):
    source = (BACKENDS / "pallas_call_relu.py").read_text().replace(
        "out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)),",
        "out_specs=pl.BlockSpec((bm, bn), lambda i, j: (i, j)), compiler_params=plgpu.CompilerParams(),").replace(
        "from jax.experimental import pallas as pl", "from jax.experimental import pallas as pl\n"
        "from jax.experimental.pallas import mosaic_gpu as plgpu")
    with pytest.raises(CommandError) as refused:
        trace(tmp_path, monkeypatch, source, (512, 512))
    assert "Triton only" in str(refused.value) and "plgpu.kernel" in str(refused.value)
    assert refused.value.details["backend"] == "mosaic_gpu"
    assert any("pltriton.CompilerParams" in fix for fix in refused.value.details["fixes"])


LANE_ROW_MAX = """import jax
import jax.numpy as jnp
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x):
    def body(x_gmem, o_gmem):
        def step(_, x_smem, o_smem):
            v = x_smem[...]
            o_smem[...] = v - jnp.max(v, axis=1, keepdims=True)

        block = plgpu.BlockSpec((64, 256), lambda i: (i, 0))
        plgpu.emit_pipeline(step, grid=(4,), in_specs=[block], out_specs=[block])(x_gmem, o_gmem)

    lane = plgpu.CompilerParams(lowering_semantics=plgpu.LoweringSemantics.Lane)
    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), compiler_params=lane)(x)
"""


def test_a_lowering_failure_names_backend_why_line_and_fix(tmp_path, monkeypatch, gpu_machine_lowering):
    """A row max in Lane semantics: Mosaic GPU cannot reduce along an axis there."""
    with pytest.raises(CommandError) as failed:
        trace(tmp_path, monkeypatch, LANE_ROW_MAX)
    message, details = str(failed.value), failed.value.details
    assert message.startswith("Mosaic GPU lowering failed: ") and "No support for axes yet" in message
    assert details["backend"] == "mosaic_gpu" and "plgpu.kernel" in details["chosen_by"]
    assert "Lane" in details["chosen_by"]
    assert details["candidate_line"] == "mine.py:10 in step: o_smem[...] = v - jnp.max(v, axis=1, keepdims=True)"
    assert any("Warpgroup" in fix for fix in details["fixes"])


TWO_WARPGROUPS = """import jax
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import mosaic_gpu as plgpu


def kernel(x):
    def body(x_gmem, o_gmem):
        def scoped(x_smem, o_smem, barrier):
            @pl.when(lax.axis_index("wg") == 0)
            def _():
                plgpu.copy_gmem_to_smem(x_gmem, x_smem, barrier)
                plgpu.barrier_wait(barrier)
                o_smem[...] = x_smem[...] * 2.0
                plgpu.commit_smem()
                plgpu.copy_smem_to_gmem(o_smem, o_gmem)
                plgpu.wait_smem_to_gmem(0)

        pl.run_scoped(scoped, plgpu.SMEM(x.shape, x.dtype), plgpu.SMEM(x.shape, x.dtype),
                      plgpu.Barrier(num_barriers=1), collective_axes="wg")

    return plgpu.kernel(body, out_type=jax.ShapeDtypeStruct(x.shape, x.dtype), num_threads=2, thread_name="wg")(x)
"""


def test_a_kernel_the_cpu_interpreter_cannot_run_is_refused_saying_so(tmp_path, monkeypatch, gpu_machine_lowering):
    """Two warpgroups: the kernel lowers for CUDA, the CPU interpreter runs one."""
    with pytest.raises(CommandError) as refused:
        trace(tmp_path, monkeypatch, TWO_WARPGROUPS, (64, 128))
    assert str(refused.value).startswith("not runnable on the CPU: ") and "num_threads=2" in str(refused.value)
    assert "--device gpu" in str(refused.value) and refused.value.details["backend"] == "mosaic_gpu"


def test_an_error_of_the_candidates_own_is_no_backends(tmp_path, monkeypatch, gpu_machine_lowering):
    source = "def kernel(x):\n    raise ValueError('mine, not a backend\\'s')\n"
    with pytest.raises(CommandError) as failed:
        trace(tmp_path, monkeypatch, source, (8, 8))
    assert str(failed.value).startswith("tracing or exporting 'kernel' failed: ValueError")
    assert failed.value.details == {"backend": "", "chosen_by": "", "candidate_line":
                                    "mine.py:2 in kernel: raise ValueError('mine, not a backend\\'s')", "fixes": []}


def test_a_plgpu_kernel_asking_for_interpret_mode_is_refused(tmp_path, monkeypatch, gpu_machine_lowering):
    """interpret=True would leave the GPU machine's module without a Mosaic GPU kernel."""
    source = (BACKENDS / "mosaic_relu.py").read_text().replace(
        "compiler_params=plgpu.CompilerParams(", "interpret=True, compiler_params=plgpu.CompilerParams(")
    with pytest.raises(CommandError) as refused:
        trace(tmp_path, monkeypatch, source, (512, 512))
    assert str(refused.value).startswith("plgpu.kernel(..., interpret=...)") and "drop interpret=" in str(refused.value)
