"""pallasbench.task.tuning: the values a tuning run may set while a kernel traces, and the
matmul variants bench/probe.py times (each must be a correct kernel, not only a fast one)."""

from pathlib import Path

import jax
import numpy as np
import pytest

from pallasbench.task import dtypes, registry, tuning
from task_avals import task_avals

ROOT = Path(__file__).resolve().parents[2]


def test_choice_is_the_default_outside_a_variant():
    assert tuning.choice("matmul", "bm", 128) == 128
    assert tuning.active() == {}


def test_variant_sets_values_for_its_task_only_and_nests():
    with tuning.variant("matmul", bm=64):
        assert tuning.choice("matmul", "bm", 128) == 64
        assert tuning.choice("matmul", "bk", 32) == 32
        assert tuning.choice("swiglu", "bm", 128) == 128
        with tuning.variant("matmul", bk=16):
            assert (tuning.choice("matmul", "bm", 0), tuning.choice("matmul", "bk", 0)) == (64, 16)
        assert tuning.choice("matmul", "bk", 32) == 32
    assert tuning.active() == {}


def test_variant_is_undone_when_the_block_raises():
    with pytest.raises(RuntimeError):
        with tuning.variant("matmul", bm=64):
            raise RuntimeError("trace failed")
    assert tuning.active() == {}


def _matmul_variants():
    return tuning.read_variants(ROOT / "bench" / "variants" / "matmul.py")["matmul"]


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_every_matmul_variant_is_correct_at_small(dtype):
    """Each variant of bench/variants/matmul.py for its dtypes, in interpret mode at SMALL,
    against the float32 reference (tests/python/conftest.py turns interpret mode on): a variant that changes the tiling must not change the result
    beyond the task's tolerance."""
    import jax.numpy as jnp

    module = registry.load("matmul")
    a, b = module.make_inputs(np.random.default_rng(0), module.SHAPES["small"])
    a, b = (jnp.asarray(dtypes.round_to(x, dtype)).astype(dtype) for x in (a, b))
    with jax.default_matmul_precision("highest"):
        ref = np.asarray(module.reference(a.astype(jnp.float32), b.astype(jnp.float32)), np.float64)
    tol = dtypes.tolerances(module)[dtype]
    ran = 0
    for name, values in _matmul_variants().items():
        values = dict(values)
        if dtype not in values.pop("_dtypes", [dtype]):
            continue
        if values.get("backend") == "mosaic":  # Hopper only: test_mosaic_matmul.py lowers them
            continue
        with tuning.variant("matmul", **values):
            out = jax.jit(lambda x, y: module.kernel(x, y))(a, b)
        out = np.asarray(out.astype(jnp.float32), np.float64)
        rel = np.linalg.norm(out - ref) / np.linalg.norm(ref)
        assert rel <= tol["rel_norm"], f"variant {name} at {dtype}: relative error {rel:.2e}"
        assert np.all(np.abs(out - ref) <= tol["atol"] + tol["rtol"] * np.abs(ref)), name
        ran += 1
    assert ran >= 8
    assert tuning.active() == {}


def _tuned_implementations():
    return sorted((name, backend) for name in registry.discover()
                  for backend, fn in registry.implementations(registry.load(name)).items() if hasattr(fn, "tuned"))


def _tuned_tasks():
    return sorted({name for name, _ in _tuned_implementations()})


def test_shipped_tables_exist_for_the_probed_tasks():
    assert {"matmul", "flash_attention", "qk_softmax", "pairwise_distance", "sequence_match"} <= set(_tuned_tasks())


@pytest.mark.parametrize("task, backend", _tuned_implementations())
def test_every_shipped_configuration_lowers_for_cuda_and_is_read(task, backend):
    """Each (size, dtype) entry of the task's TUNED table keeps Triton's block rules, lowers for
    CUDA to the backend it names (Triton, or Mosaic GPU for a "*backend" or "mode" of "mosaic"), and every value in
    it is read by the kernel (tuned_kernel raises otherwise)."""
    from pallasbench.task import blocks
    from pallasbench.worker import interpret, jaxpr_info

    module = registry.load(task)
    kernel = registry.implementation(module, backend)
    table = kernel.tuned
    assert table.gpu and (ROOT / table.source).is_dir(), f"{task}: results {table.source} not committed"
    for size, by_dtype in table.configs.items():
        for dtype in by_dtype:
            run_dtype = "float32" if dtype == "*" else dtype
            avals = task_avals(module, size, run_dtype)
            with interpret.suspended():  # the Mosaic GPU kernel refuses to trace in interpret mode
                jaxpr = jax.make_jaxpr(lambda *xs: kernel(*xs))(*avals)
                lowered = jax.jit(lambda *xs: kernel(*xs)).trace(*avals).lower(lowering_platforms=("cuda",))
            for call in jaxpr_info.pallas_calls(jaxpr):
                for block, space in zip(call["block_shapes"], call["memory_spaces"]):
                    if space != "any":
                        blocks.check_block(f"{task}/{size}/{dtype}", block)
            text = lowered.as_text()
            # "backend", a task's own key for part of its kernels ("proj_backend"), or a mode
            # (qk_softmax's "mosaic")
            if any((key.endswith("backend") or key == "mode") and value == "mosaic"
                   for key, value in tuning.shipped_values(kernel, size, run_dtype).items()):
                assert "mosaic_gpu" in text, f"{task} {size} {dtype}: no Mosaic GPU kernel"
            else:
                assert "__gpu$xla.gpu.triton" in text and "mosaic_gpu" not in text, \
                    f"{task} {size} {dtype}: not the Triton kernel"


def test_a_table_value_the_kernel_never_reads_is_refused():
    module = registry.load("matmul")
    table = tuning.Tuned(gpu="test", source="bench", configs={"small": {"float32": {"bm": 64, "bmm": 32}}})
    kernel = tuning.tuned_kernel("matmul", module.SHAPES, module.INPUTS, table)(module.kernel.__wrapped__)
    a, b = module.make_inputs(np.random.default_rng(0), module.SHAPES["small"])
    with pytest.raises(ValueError, match=r"'matmul'.*small float32.*\['bmm'\]"):
        jax.jit(kernel)(a, b)


def test_the_shipped_table_applies_at_its_sizes_only():
    module = registry.load("matmul")
    seen = {}
    table = tuning.Tuned(gpu="test", source="bench", configs={"small": {"*": {"bm": 64}}})

    def probe(a, b):
        seen[a.shape] = tuning.choice("matmul", "bm", "heuristic")
        return a

    kernel = tuning.tuned_kernel("matmul", module.SHAPES, module.INPUTS, table)(probe)
    small = module.make_inputs(np.random.default_rng(0), module.SHAPES["small"])
    kernel(*small)
    kernel(np.zeros((32, 256), np.float32), np.zeros((256, 256), np.float32))
    assert seen == {small[0].shape: 64, (32, 256): "heuristic"}
    with tuning.variant("matmul", bm=16):  # a tuning run's values come first
        kernel(*small)
    assert seen[small[0].shape] == 16


def test_describe_gives_the_shipped_configuration_by_size_and_dtype():
    import json

    configs = registry.describe(registry.load("matmul"))["kernel_configs"]
    info = configs["triton"]
    assert info["gpu"] == "NVIDIA H200" and info["source"].startswith("bench/results/")
    medium = {d["key"]: json.loads(d["value"]) for d in info["values"]["medium"]["bfloat16"]}
    # the table's entry, and the backend the implementation pins at every shape
    assert medium == {**registry.load("matmul").kernel.tuned.configs["medium"]["bfloat16"], "backend": "triton"}
    assert info["values"]["medium"]["float16"] == info["values"]["medium"]["bfloat16"]  # falls back
    assert info["values"]["small"]["float32"] == info["pinned"] == [{"key": "backend", "value": '"triton"'}]
    # the Mosaic GPU implementation's own table: its tiles, where the Triton one has none
    mosaic = {d["key"]: json.loads(d["value"]) for d in configs["mosaic_gpu"]["values"]["medium"]["float32"]}
    assert mosaic["backend"] == "mosaic" and mosaic["mosaic_bm"] == 128
    assert info["values"]["medium"]["float32"] == info["pinned"]
    assert registry.describe(registry.load("add"))["kernel_configs"] == {"mosaic_gpu": None, "triton": None}


def test_a_variants_file_reads_as_tasks_names_and_values():
    variants = tuning.read_variants(ROOT / "bench" / "variants" / "matmul.py")
    assert {"matmul", "swiglu"} <= set(variants)
    values = variants["matmul"]["pack"]
    assert values["_dtypes"] and tuning.tuning_values(values) == {"pack": True}
