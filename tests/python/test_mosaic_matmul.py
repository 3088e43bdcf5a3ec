"""The Mosaic GPU matmul (kernels/mosaic_matmul.py, tuning backend "mosaic"): lowers for CUDA on
this CPU machine (Pallas's Mosaic GPU lowering, layout inference and wgmma checks all run at
lower()), refuses interpret mode by name, and computes the right numbers in JAX's Mosaic GPU
interpreter where that interpreter can run it (JAX 0.10's cannot read a transposed wgmma
operand: the packed, K-major weight path is checked on the GPU only)."""

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import fused_matmul_mosaic
from pallasbench.kernels import mosaic_matmul as mosaic
from pallasbench.kernels import tiled_matmul as mm
from pallasbench.task import registry, tuning
from pallasbench.worker import interpret
from task_avals import task_avals

ROOT = Path(__file__).resolve().parents[2]
MOSAIC_CALL = "mosaic_gpu_v2"


def _variants(task):
    return {name: dict(values) for name, values in tuning.read_variants(ROOT / "bench/variants/matmul.py")[task].items()
            if values.get("backend") == "mosaic"}


def _lower(task, size, dtype, implementation="triton", **values):
    fn = registry.implementation(task, implementation)
    with tuning.variant(task.NAME, **values), interpret.suspended():
        lowered = jax.jit(lambda *xs: fn(*xs)).trace(*task_avals(task, size, dtype)).lower(
            lowering_platforms=("cuda",))
    assert not tuning.active()
    return lowered.as_text()


CASES = [(task, size, dtype) for task in ("matmul", "linear_bias_relu", "swiglu")
         for size in ("medium", "large") for dtype in ("float32", "bfloat16")]
CASES += [("mlp_block", "medium", dtype) for dtype in ("float32", "bfloat16")]


@pytest.mark.parametrize("task_name, size, dtype", CASES)
def test_mosaic_backend_lowers_for_cuda(task_name, size, dtype):
    """The default Mosaic configuration at the task's sizes: the matmul is one mosaic_gpu_v2
    call, float32 keeps its (Triton) packing pass, 16-bit single weights have none."""
    text = _lower(registry.load(task_name), size, dtype, backend="mosaic")
    assert text.count(MOSAIC_CALL) >= 1
    packs = "__gpu$xla.gpu.triton" in text
    assert packs == (dtype == "float32" or task_name == "swiglu")


@pytest.mark.parametrize("task_name, count", [("matmul", 8), ("swiglu", 8), ("batched_matmul", 6),
                                              ("fused_relu_matmul", 2)])
def test_every_mosaic_variant_lowers_for_cuda(task_name, count):
    task = registry.load(task_name)
    variants = _variants(task_name)
    assert len(variants) >= count
    for name, values in variants.items():
        for dtype in values.pop("_dtypes", ["float32", "bfloat16"]):
            if dtype == "float16":
                continue  # bfloat16's path, the same kernel
            assert MOSAIC_CALL in _lower(task, "medium", dtype, **values), (name, dtype)


@pytest.mark.parametrize("task_name, size, dtype", [("matmul", "medium", "float32"), ("matmul", "small", "bfloat16"),
                                                     ("mlp_block", "medium", "bfloat16")])
def test_each_implementation_runs_its_own_backend_at_every_size(task_name, size, dtype):
    """One function, two implementations (tiled_matmul.backend_kernels): the Mosaic GPU one is
    Mosaic at every size (its table's tiles where tuned, its plan elsewhere), the Triton one is
    Triton at every size, whatever the other's table says; only the Mosaic one is GPU-only."""
    task = registry.load(task_name)
    found = registry.implementations(task)
    with interpret.suspended():
        lowered = {backend: jax.jit(lambda *xs, fn=fn: fn(*xs)).trace(*task_avals(task, size, dtype)).lower(
            lowering_platforms=("cuda",)).as_text() for backend, fn in found.items()}
    assert MOSAIC_CALL in lowered["mosaic_gpu"]
    assert MOSAIC_CALL not in lowered["triton"] and "__gpu$xla.gpu.triton" in lowered["triton"]
    assert found["mosaic_gpu"].gpu_only and not getattr(found["triton"], "gpu_only", False)
    assert found["mosaic_gpu"].pinned == {"backend": "mosaic"} and found["triton"].pinned == {"backend": "triton"}


def test_a_prologue_is_a_pass_of_its_own():
    """fused_relu_matmul's Mosaic GPU implementation: relu(x) is a Triton pass before the kernel
    (TMA feeds shared memory with no elementwise step), beside the weights' packing."""
    text = _lower(registry.load("fused_relu_matmul"), "medium", "float32", "mosaic_gpu")
    assert text.count(MOSAIC_CALL) >= 1 and "fused_relu_matmul_prologue" in text
    assert "fused_relu_matmul_pack" in text


def test_the_prologue_pass_applies_and_rounds_to_tf32():
    x = jnp.asarray(np.random.default_rng(3).standard_normal((64, 96)), jnp.float32)
    got = np.asarray(jax.jit(lambda t: fused_matmul_mosaic._prologue_pass(t, mm.relu, rounded=True, name="p"))(x))
    want = np.asarray(mm.round_tf32(jnp.maximum(x, 0.0)))
    np.testing.assert_array_equal(got, want)
    assert (got.view(np.int32) & 0x1FFF == 0).all() and (got >= 0).all()
    plain = np.asarray(jax.jit(lambda t: fused_matmul_mosaic._prologue_pass(t, mm.relu, rounded=False, name="p"))(x))
    np.testing.assert_array_equal(plain, np.maximum(np.asarray(x), 0))


def test_interpret_mode_refuses_by_name():
    task = registry.load("linear_bias_relu")
    inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])
    assert interpret.interpreting()  # tests/python/conftest.py installed the default
    with tuning.variant(task.NAME, backend="mosaic"):
        with pytest.raises(NotImplementedError, match="linear_bias_relu.*Hopper"):
            jax.jit(lambda *xs: task.kernel(*xs))(*inputs)
    with interpret.suspended():
        assert not interpret.interpreting()
        with interpret.forced(True):
            assert interpret.interpreting()


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="backend"):
        _lower(registry.load("matmul"), "medium", "float32", backend="cutlass")


@pytest.mark.parametrize("cfg, n_w, itemsize, packed, why", [
    (mosaic.Config(), 1, 4, False, "K-major"),
    (mosaic.Config(wg_split="n"), 2, 4, True, "one weight"),
    (mosaic.Config(bm=64), 1, 4, True, "multiple of 64"),
    (mosaic.Config(width=256, stages=6), 1, 4, True, "shared memory"),
    (mosaic.Config(bk=16), 1, 4, True, "128 bytes"),
    (mosaic.Config(width=512), 1, 2, False, "up to 256"),
    (mosaic.Config(delay_release=1), 1, 4, True, "last step's slot"),
])
def test_check_refuses_what_the_kernel_cannot_run(cfg, n_w, itemsize, packed, why):
    with pytest.raises(ValueError, match=why):
        mosaic.check(cfg, 1024, 1024, 1024, n_w, itemsize, itemsize, True, packed)


@pytest.mark.parametrize("wg_split, bias_dtype", [("m", "float32"), ("n", "float32"), ("m", "bfloat16")])
def test_interpreted_bf16_matches_reference(wg_split, bias_dtype):
    """2 output tiles walked by one CTA (persistent loop, planar snake), 2 K steps through a
    2-slot ring, bias through SMEM (a bfloat16 one widened in the kernel), 64 x 64 epilogue
    stores: JAX's Mosaic GPU interpreter on the CPU."""
    m, n, k = 128, 256, 128
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((m, k)), jnp.bfloat16)
    w = jnp.asarray(rng.standard_normal((k, n)), jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal(n), bias_dtype)
    cfg = mosaic.Config(bm=128, width=128, bk=64, stages=2, wg_split=wg_split)
    old = mosaic.NUM_SMS
    mosaic.NUM_SMS = 1  # fewer CTAs than tiles: the CTA walks both
    try:
        out = mosaic.matmul(x, w, lambda acc, bias: mm.relu(acc + bias), bias=b, packed=False,
                            config=cfg, interpret=mosaic.interpret_params())
    finally:
        mosaic.NUM_SMS = old
    ref = np.maximum(np.asarray(x, np.float64) @ np.asarray(w, np.float64) + np.asarray(b, np.float64), 0.0)
    out = np.asarray(out.astype(jnp.float32), np.float64)
    # one bfloat16 rounding of the result (2^-8 relative), float32 accumulation
    assert np.all(np.abs(out - ref) <= 2.0 ** -8 * np.abs(ref) + 1e-3), np.abs(out - ref).max()


def _interpreter_reads_transposed_operands() -> bool:
    """JAX 0.10's Mosaic GPU interpreter fails on a transposed wgmma operand
    ('TransposeTransform' object has no attribute 'indices'); 0.11's runs it."""
    return tuple(int(p) for p in jax.__version__.split(".")[:2]) >= (0, 11)


@pytest.mark.skipif(not _interpreter_reads_transposed_operands(),
                    reason="JAX 0.10's Mosaic GPU interpreter cannot read the packed (transposed) weights")
@pytest.mark.parametrize("dtype, n_w, wg_split", [("float32", 1, "m"), ("float32", 1, "n"),
                                                   ("float32", 2, "m"), ("bfloat16", 2, "m")])
def test_interpreted_packed_matches_reference(dtype, n_w, wg_split):
    """The packed, K-major weights (float32's TF32 path, and any n_w > 1) in JAX 0.11's
    interpreter, which multiplies in full float32 (TF32 truncation is checked on the GPU)."""
    m, n, k, width = 128, 256 // n_w, 128, 128
    rng = np.random.default_rng(1)
    x = jnp.asarray(rng.standard_normal((m, k)), dtype)
    ws = [jnp.asarray(rng.standard_normal((k, n)), dtype) for _ in range(n_w)]
    b = jnp.asarray(rng.standard_normal(n), jnp.float32)
    cfg = mosaic.Config(bm=128, width=width, bk=128 // jnp.dtype(dtype).itemsize, stages=2,
                        wg_split=wg_split)
    packed = mm.pack_weights(ws, width // n_w)
    old = mosaic.NUM_SMS
    mosaic.NUM_SMS = 1
    try:
        if n_w == 2:
            out = mosaic.matmul(x, packed, lambda g, u: mm.silu(g) * u, n_w=2, packed=True,
                                config=cfg, interpret=mosaic.interpret_params())
        else:
            out = mosaic.matmul(x, packed, lambda acc, bias: mm.relu(acc + bias), bias=b,
                                packed=True, config=cfg, interpret=mosaic.interpret_params())
    finally:
        mosaic.NUM_SMS = old
    x64 = np.asarray(x.astype(jnp.float32), np.float64)
    prods = [x64 @ np.asarray(w.astype(jnp.float32), np.float64) for w in ws]
    ref = (prods[0] / (1 + np.exp(-prods[0])) * prods[1] if n_w == 2
           else np.maximum(prods[0] + np.asarray(b), 0.0))
    out = np.asarray(out.astype(jnp.float32), np.float64)
    rtol = 2.0 ** -8 if dtype == "bfloat16" else 1e-5
    assert np.all(np.abs(out - ref) <= rtol * np.abs(ref) + 1e-3), np.abs(out - ref).max()


@pytest.mark.skipif(not _interpreter_reads_transposed_operands(),
                    reason="JAX 0.10's Mosaic GPU interpreter cannot read the packed (transposed) weights")
def test_interpreted_batched_matches_reference():
    """batches > 1: three batches of two row tiles each, one CTA walking all twelve tiles, each
    row tile against its own batch's packed weights (batched_matmul's Mosaic path)."""
    nb, m, n, k = 3, 256, 256, 64
    rng = np.random.default_rng(2)
    a = jnp.asarray(rng.standard_normal((nb, m, k)), jnp.float32)
    b = jnp.asarray(rng.standard_normal((nb, k, n)), jnp.float32)
    cfg = mosaic.Config(bm=128, width=128, bk=32, stages=2)
    packed = jax.vmap(lambda w: mm.pack_weights([w], cfg.width))(b).reshape(nb * n, k)
    old = mosaic.NUM_SMS
    mosaic.NUM_SMS = 1
    try:
        out = mosaic.matmul(a.reshape(nb * m, k), packed, lambda acc: acc, packed=True, config=cfg,
                            batches=nb, interpret=mosaic.interpret_params())
    finally:
        mosaic.NUM_SMS = old
    ref = np.einsum("bmk,bkn->bmn", np.asarray(a, np.float64), np.asarray(b, np.float64))
    np.testing.assert_allclose(np.asarray(out).reshape(nb, m, n), ref, rtol=1e-4, atol=1e-4)


def test_a_batch_that_straddles_a_row_tile_is_refused():
    x = jnp.zeros((2 * 192, 64), jnp.float32)
    w = jnp.zeros((2 * 128, 64), jnp.float32)
    with pytest.raises(ValueError, match="rows a batch"):
        mosaic.matmul(x, w, lambda acc: acc, packed=True, config=mosaic.Config(bm=128), batches=2)


def test_a_16_bit_bias_is_not_converted_outside_the_kernel():
    """The harness refuses XLA work outside the Pallas kernels: mlp_block's bfloat16 biases
    were widened by an XLA convert before the Mosaic kernel (H200, 2026-12-04: not robust)."""
    text = _lower(registry.load("mlp_block"), "medium", "bfloat16", "mosaic_gpu")
    assert MOSAIC_CALL in text and "stablehlo.convert" not in text
