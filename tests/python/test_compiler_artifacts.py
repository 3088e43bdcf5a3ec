"""compiler_artifacts' decoding of the Pallas kernels in an exported module, as the executor hands
them to the harness's precision policy: a Mosaic GPU kernel's module is decoded to MLIR text whose
inline PTX names its tensor-core types (tests/analyze/test_kernel_precision.cpp reads such lines),
and the Mosaic GPU runtime is loaded before such a module is compiled."""

import hashlib
import io
import re
import sys

import jax
import numpy as np
import pytest

from pallasbench.task import registry
from pallasbench.worker import compiler_artifacts, executor, interpret, tracer


def _exported(task_name, size, dtype, backend="triton"):
    """The CUDA lowering of the task's implementation on `backend` as the tracer exports it on the
    GPU, and as the executor reads it back."""
    task = registry.load(task_name)
    kernel = registry.implementation(task, backend)
    avals = [jax.ShapeDtypeStruct(task.SHAPES[size][i.name], dtype) for i in task.INPUTS]
    jax.clear_caches()  # other tests trace the same kernels in interpret mode
    with interpret.suspended(), tracer._target("NVIDIA H200"):
        return jax.export.deserialize(bytearray(tracer.export(kernel, avals, "cuda")))


@pytest.mark.parametrize("dtype, wgmma", [("float32", ".f32.tf32.tf32"), ("bfloat16", ".f32.bf16.bf16")])
def test_a_mosaic_kernel_is_decoded_with_its_wgmma_types(dtype, wgmma, monkeypatch):
    loads = []
    monkeypatch.setattr(compiler_artifacts, "load_mosaic_runtime", lambda: loads.append(1))
    # matmul's Mosaic GPU implementation, at a size its table tunes at each dtype
    size = "medium" if dtype == "float32" else "large"
    _, kernels, _ = executor.describe_module(_exported("matmul", size, dtype, "mosaic_gpu"))
    mosaic = [k for k in kernels if k["target"] in compiler_artifacts.MOSAIC_TARGETS]
    assert len(mosaic) == 1 and mosaic[0]["name"] == "matmul" and "error" not in mosaic[0], mosaic[0].get("error")
    assert "wgmma.mma_async" in mosaic[0]["ir"] and wgmma in mosaic[0]["ir"]
    # the name its kernel launches under (CUPTI saw it on the H200), and its grid and block, for
    # the launch check: one CTA per SM of the H200 the tracer targets (a persistent grid), and
    # the table's warpgroups (two consumers, one producer) of 128 threads
    (launch,) = mosaic[0]["launches"]
    assert launch["name"] == "matmul_mosaic_gpu_kernel"
    assert (launch["grid_y"], launch["grid_z"], launch["block_threads"]) == (1, 1, 384), launch
    assert 1 <= launch["grid_x"] <= 132, launch
    # the running jax's Mosaic GPU IR version, not export's forward-compatible older one, whose
    # attribute syntax jax 0.11.2 cannot parse back (docs/jax_versions.md)
    from jax.experimental.mosaic.gpu import core as mosaic_core
    version = int(re.search(r"stable_mosaic_gpu\.version = (\d+)", mosaic[0]["ir"]).group(1))
    assert version > mosaic_core.FWD_COMPAT_IR_VERSION
    assert [k["name"] for k in kernels if k["target"] not in compiler_artifacts.MOSAIC_TARGETS] == (
        ["matmul_pack"] if dtype == "float32" else [])  # float32's Triton packing pass
    assert loads == [1]  # the runtime, for the compile that follows
    _, kernels, _ = executor.describe_module(_exported("matmul", "small", dtype))  # its Triton one
    assert kernels and loads == [1]


def test_loading_the_mosaic_runtime_imports_jaxs_module():
    compiler_artifacts.load_mosaic_runtime()
    assert "jax.experimental.mosaic.gpu" in sys.modules


def test_a_mosaic_call_without_its_module_is_unreadable_not_raised():
    entry = compiler_artifacts.decode_kernel("mosaic_gpu_v2", None)
    assert entry["ir"] is None and "no configuration" in entry["error"]

    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    with mlir.make_ir_context():
        config = ir.DictAttr.get({"kernel_hash": ir.StringAttr.get("x")})
        entry = compiler_artifacts.decode_kernel("mosaic_gpu_v2", config)
        assert entry["ir"] is None and "no Mosaic GPU module" in entry["error"]
        garbage = ir.DictAttr.get({"module": ir.StringAttr.get(b"\x00not bytecode")})
        entry = compiler_artifacts.decode_kernel("mosaic_gpu_v2", garbage)
        assert entry["ir"] is None and entry["error"]


def test_a_mosaic_module_under_another_modules_hash_is_unreadable():
    """kernel_hash must be the module's own SHA-256: a call naming another kernel (one the custom
    call may have cached) beside a harmless module would have the policy read code that does not run."""
    from jax._src.interpreters import mlir
    from jax._src.lib.mlir import ir

    with mlir.make_ir_context():
        module = ir.Module.parse("module {}")
        buffer = io.BytesIO()
        module.operation.write_bytecode(buffer)
        data = buffer.getvalue()

        def config(digest):
            return ir.DictAttr.get({"module": ir.StringAttr.get(data), "kernel_hash": ir.StringAttr.get(digest)})

        assert compiler_artifacts.decode_kernel("mosaic_gpu_v2", config(hashlib.sha256(data).digest()))["ir"]
        entry = compiler_artifacts.decode_kernel("mosaic_gpu_v2", config(hashlib.sha256(b"other").digest()))
        assert entry["ir"] is None and entry["error"] == "kernel_hash is not the SHA-256 of the module"
