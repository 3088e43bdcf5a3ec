"""The Mosaic GPU families (kernels/mosaic_elementwise.py, mosaic_rows.py, mosaic_columns.py):
every task's kernel lowers for CUDA on this CPU machine at MEDIUM and LARGE, float32 and
bfloat16 (Mosaic GPU's real lowering: layouts, the 256-element TMA box, shared memory), as one
mosaic_gpu_v2 call with no XLA casts around it; one task of each kind runs in JAX's Mosaic GPU
interpreter at SMALL and matches its task's reference within the task's tolerance."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench.kernels import (mosaic_columns, mosaic_elementwise, mosaic_matmul, mosaic_reductions,
                                 mosaic_rows, mosaic_stream)
from pallasbench.task import dtypes, registry, stress
from pallasbench.worker import interpret
from task_avals import cuda_module_text

MOSAIC_CALL = "mosaic_gpu_v2"
FAMILIES = {"elementwise": mosaic_elementwise, "rows": mosaic_rows, "reductions": mosaic_reductions,
            "columns": mosaic_columns}
KERNELS = {task: kernel for family in FAMILIES.values() for task, kernel in family.KERNELS.items()}


def _lowered_text(task_name, size, dtype):
    return cuda_module_text(registry.load(task_name), KERNELS[task_name], size, dtype)


# Each kernel at its MEDIUM float32 and LARGE bfloat16 shapes: both tile plans and both element
# sizes, half the lowerings of every (size, dtype) pair (CI time).
@pytest.mark.parametrize("size, dtype", [("medium", "float32"), ("large", "bfloat16")])
@pytest.mark.parametrize("task_name", sorted(KERNELS))
def test_lowers_for_cuda(task_name, size, dtype):
    text = _lowered_text(task_name, size, dtype)
    assert MOSAIC_CALL in text and "__gpu$xla.gpu.triton" not in text
    assert "stablehlo.convert" not in text  # inputs go in at their dtype, widened in the kernel


def _inputs(task, dtype, seed=0):
    arrays = task.make_inputs(np.random.default_rng(seed), task.SHAPES["small"])
    return [jnp.asarray(dtypes.round_to(a, dtype), dtype) if np.asarray(a).dtype == np.float32
            else jnp.asarray(a) for a in arrays]


def _float64(x):
    """A float input as float64 (the reference's precision for the checks), others as they are."""
    return jnp.asarray(np.asarray(x.astype(jnp.float32), np.float64)) if mosaic_stream.is_float(x.dtype) else x


def check_against_reference(task_name, dtype, case=None, seed=1, **kwargs):
    """The kernel at SMALL in the interpreter against the task's float64 reference, within the
    task's tolerance at `dtype` (the reference rounded once to the dtype, as the harness does);
    on a stress case's inputs when `case` is given."""
    task = registry.load(task_name)
    if case is None:
        xs = _inputs(task, dtype)
    else:
        xs = [jnp.asarray(a) for a in stress.make_inputs(task, case, np.random.default_rng(seed), task.SHAPES["small"])]
    out = np.asarray(KERNELS[task_name](*xs, **kwargs).astype(jnp.float32), np.float64)
    with jax.enable_x64():
        ref = np.asarray(task.reference(*[_float64(x) for x in xs]))
    ref = dtypes.round_to(ref.astype(np.float32), dtype).astype(np.float64)
    tol = dtypes.tolerances(task)[dtype]
    err = np.abs(out - ref)
    assert out.shape == ref.shape
    assert np.all(err <= tol["atol"] + tol["rtol"] * np.abs(ref)), (task_name, dtype, err.max())
    assert np.linalg.norm(out - ref) <= tol["rel_norm"] * np.linalg.norm(ref), (task_name, dtype)


# One kernel of each family in the interpreter (the accuracy tests below add one case each for
# the norms, cross_entropy and batch_norm_1d; the worker-mode test runs relu): each costs 1-3 s.
INTERPRETED = [("fused_bias_gelu_dropout", "bfloat16"), ("rmsnorm_residual", "bfloat16"),
               ("fused_softmax_cross_entropy", "bfloat16"), ("col_sum", "bfloat16"),
               ("cosine_sim", "float32")]


@pytest.mark.parametrize("task_name, dtype", INTERPRETED)
def test_interpreted_matches_reference(task_name, dtype):
    check_against_reference(task_name, dtype, interpret=mosaic_matmul.interpret_params())


def test_norms_hold_rows_far_from_zero():
    """layernorm's offset case (a per-row constant up to 1e3): a plain float32 mean would carry
    ~1e-4 into every output, 10 times the tolerance."""
    check_against_reference("layernorm", "float32", case="offset", interpret=mosaic_matmul.interpret_params())


def test_cross_entropy_folds_labels_and_an_online_max():
    """Per-row labels come in through SMEM; logits offset by up to 1e3 a row keep the loss exact
    to float32 rounding of O(1) values ((max - logit) + log(sum))."""
    check_against_reference("cross_entropy", "float32", case="offset", interpret=mosaic_matmul.interpret_params())


def test_batch_norm_holds_offset_columns():
    """Columns up to 1e3 from 0: x - p is exact, p the pivot."""
    check_against_reference("batch_norm_1d", "float32", case="offset", interpret=mosaic_matmul.interpret_params())


def test_batch_norm_centres_on_a_pivot_near_the_mean():
    """The large case (x30): where gamma * (x - mean) * rstd cancels against beta, the output
    keeps the rounding of mean(x - p). With row 0 as the pivot p (up to 3 sigma off the mean)
    this input erred by 1.4 times the tolerance; with the first tile's mean, by half of it
    (XLA's two-pass float32 reference: 0.47)."""
    check_against_reference("batch_norm_1d", "float32", case="large", seed=8,
                            interpret=mosaic_matmul.interpret_params())


def test_the_worker_interpret_mode_picks_the_interpreter():
    """interpret=AUTO (the default): the CPU worker's interpret mode runs the interpreter; with
    it suspended the kernel lowers for the GPU, which the CPU backend refuses."""
    assert interpret.interpreting()
    x = jnp.asarray(np.random.default_rng(0).standard_normal((64, 256)), jnp.float32)
    np.testing.assert_array_equal(np.asarray(KERNELS["relu"](x)), np.maximum(np.asarray(x), 0))
    with interpret.suspended(), pytest.raises(ValueError, match="Only interpret mode"):
        jax.block_until_ready(KERNELS["relu"](x))


def test_log1p_and_expm1_keep_float32_accuracy_near_zero():
    """The naive forms lose every digit below 1e-8 (1 + e rounds to 1, exp(x) to 1)."""
    small = np.array([1e-9, 3e-8, 1e-6, 1e-3, 0.3, 1.0], np.float32)
    got = np.asarray(mosaic_elementwise.log1p(jnp.asarray(small)), np.float64)
    np.testing.assert_allclose(got, np.log1p(small.astype(np.float64)), rtol=2e-7)
    neg = -small
    got = np.asarray(mosaic_elementwise.expm1(jnp.asarray(neg)), np.float64)
    np.testing.assert_allclose(got, np.expm1(neg.astype(np.float64)), rtol=2e-7)
    assert float(mosaic_elementwise.expm1(jnp.float32(-200.0))) == -1.0


@pytest.mark.parametrize("shape, why", [((64, 100), "100 columns"), ((6, 256), "6 rows")])
def test_shapes_the_tiles_cannot_cover_are_refused_by_name(shape, why):
    x = jnp.zeros(shape, jnp.float32)
    with pytest.raises(ValueError, match=f"relu: .*{why}"):
        KERNELS["relu"](x)


def test_operands_of_other_shapes_are_refused():
    with pytest.raises(ValueError, match="add: .*operands"):
        KERNELS["add"](jnp.zeros((64, 256)), jnp.zeros((32, 256)))


@pytest.mark.parametrize("units, most, want", [(2048, 264, (256, 8)), (96, 528, (96, 1)), (7, 4, (1, 7))])
def test_work_is_split_evenly_over_the_ctas(units, most, want):
    assert mosaic_stream.split_units(units, most) == want


def test_the_plan_fills_the_block_budget_and_the_smem():
    cfg = mosaic_elementwise.Config()
    assert mosaic_elementwise.plan((4096, 4096), [4], cfg) == (16, 256)
    assert mosaic_elementwise.plan((4096, 4096), [2], cfg) == (32, 256)
    assert mosaic_elementwise.plan((512, 128), [4, 1], cfg) == (32, 128)
    with pytest.raises(ValueError, match="copy: .*shared memory"):
        mosaic_elementwise.map_blocks(lambda x: x, jnp.zeros((512, 512)), name="copy",
                                      config=mosaic_elementwise.Config(stages=16, block_bytes=65536))
