"""Every task file: interface, Triton block rules at all sizes, lowering for CUDA, ragged shapes.

Each task's SMALL correctness in interpret mode is tests/e2e/test_run.py's: the whole suite through
the harness (three seeds, the stress cases, the filters), which a direct comparison here repeated."""

import math

import jax
import numpy as np
import pytest

from pallasbench.task import registry
from pallasbench.worker import interpret, jaxpr_info
from pallasbench import task as tl
from task_avals import task_avals

TASKS = sorted(registry.discover())


@pytest.fixture(scope="module", params=TASKS)
def task(request):
    return registry.load(request.param)


def test_reference_follows_the_matmul_precision_setting(task):
    """The worker times the speed baseline of a TF32 task at XLA's default precision and checks
    correctness at "highest", both through jax.default_matmul_precision: a reference that fixes
    its own precision would make the baseline f32 (4.6x slower for a large matmul)."""
    if not task.USES_TF32:
        pytest.skip(f"{task.NAME} does not use TF32: its reference has no matmul precision to follow")
    avals = task_avals(task, "small")
    fresh = lambda *xs: task.reference(*xs)  # noqa: E731
    with jax.default_matmul_precision("default"):
        fast = jax.jit(fresh).lower(*avals).as_text()
    with jax.default_matmul_precision("highest"):
        exact = jax.jit(lambda *xs: task.reference(*xs)).lower(*avals).as_text()
    assert "HIGHEST" not in fast, f"{task.NAME}: the reference fixes its matmul precision"
    assert "HIGHEST" in exact


def test_integer_ops_tasks_work_on_integer_data(task):
    """INTEGER_OPS takes a task out of the float FLOP roofline: only tasks whose inputs are all
    integer (DNA bases, ids) may claim it."""
    if not getattr(task, "INTEGER_OPS", False):
        pytest.skip(f"{task.NAME} does not claim INTEGER_OPS")
    inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])
    assert all(np.issubdtype(np.asarray(x).dtype, np.integer) for x in inputs), task.NAME


def test_weights_are_float_parameters_and_described(task):
    """A weight (tl.Input(..., weight=True)) is a model parameter, which the data-movement rule
    lets a candidate pack outside its kernels (docs/filters.md): never the discrete data a task
    indexes or counts by. describe sends the flag to the harness."""
    inputs = task.make_inputs(np.random.default_rng(0), task.SHAPES["small"])
    for spec, x in zip(task.INPUTS, inputs):
        if spec.weight:
            assert spec.domain != tl.DISCRETE and np.issubdtype(np.asarray(x).dtype, np.floating), spec
    described = {i["name"]: i["weight"] for i in registry.describe(task)["inputs"]}
    assert described == {i.name: i.weight for i in task.INPUTS}


def test_inputs_follow_shapes(task):
    for size in tl.SIZE_NAMES:
        if size != "small" and sum(math.prod(s) for s in task.SHAPES[size].values()) > 1 << 22:
            continue  # generating big inputs costs seconds per task (CI time); SHAPES are checked
        inputs = task.make_inputs(np.random.default_rng(1), task.SHAPES[size])
        assert [x.shape for x in inputs] == [task.SHAPES[size][i.name] for i in task.INPUTS]


@pytest.mark.parametrize("size", tl.SIZE_NAMES)
def test_blocks_fit_triton(task, size):
    fresh = lambda *xs: task.kernel(*xs)  # noqa: E731 - a new function: its trace is not cached for later tests
    with interpret.suspended():  # as the GPU traces it (a shipped Mosaic GPU entry refuses interpret mode)
        closed = jax.make_jaxpr(fresh)(*task_avals(task, size))
    calls = jaxpr_info.pallas_calls(closed)
    assert calls, f"{task.NAME}: no pallas_call in the kernel's jaxpr"
    for call in calls:
        for block, space, array in zip(call["block_shapes"], call["memory_spaces"],
                                       call["array_shapes"]):
            if space == "any":
                continue
            tl.check_block(f"{task.NAME}/{size}", block)
            # Pallas's Triton lowering does not mask edge blocks: a block that does not divide
            # its array reads and writes out of bounds on the GPU.
            assert all(a % b == 0 for a, b in zip(array, block)), (
                f"{task.NAME}/{size}: block {block} does not divide array {array}")
        assert len(call["grid"]) <= 3


@pytest.mark.parametrize("size", ["small", "large"])
def test_lowers_to_triton_for_cuda(task, size):
    """Pallas's Triton lowering (power-of-two arrays, supported primitives) runs on the CPU too."""
    fresh = lambda *xs: task.kernel(*xs)  # noqa: E731 - a new function: no cached interpret trace
    with interpret.suspended():
        lowered = jax.jit(fresh).trace(*task_avals(task, size)).lower(lowering_platforms=("cuda",))
    assert "__gpu$xla.gpu.triton" in lowered.as_text()


# Awkward shapes for the tasks whose kernels handle ragged edges themselves, by masks or by
# padding (that code is dead at the suite's power-of-two shapes), and rows wider than one tile
# (the two-pass paths of kernels.rowwise and kernels.reductions).
MATRIX = (37, 300)
WIDE = (3, 9000)
RAGGED = {
    **{f"{name}{tag}": {"x": shape} for name in ("softmax", "log_softmax", "layernorm", "rmsnorm", "reduce_sum",
                                                 "reduce_mean", "reduce_max")
       for tag, shape in (("", MATRIX), ("/wide", WIDE))},
    "col_sum": {"x": (300, 37)},
    **{name: {"pred": MATRIX, "target": MATRIX} for name in ("mse_loss", "huber_loss")},
    "cosine_sim": {"x": MATRIX, "y": MATRIX},
    "cross_entropy": {"logits": MATRIX, "labels": MATRIX[:1]},
    "layernorm_residual": {"x": MATRIX, "r": MATRIX},
    "rmsnorm_residual": {"x": MATRIX, "r": MATRIX},
    "fused_layer_norm_relu": {"x": MATRIX},
    "fused_softmax_cross_entropy": {"logits": MATRIX, "labels": MATRIX},
    "fused_gelu_bias": {"x": MATRIX, "b": MATRIX[1:]},
    "fused_bias_gelu_dropout": {"x": MATRIX, "b": MATRIX[1:], "keep": MATRIX},
    "sigmoid_bce": {"logits": MATRIX, "targets": MATRIX},
}


@pytest.mark.parametrize("case", sorted(RAGGED))
def test_ragged_shapes_match_reference(case):
    task = registry.load(case.split("/")[0])
    inputs = task.make_inputs(np.random.default_rng(3), RAGGED[case])
    out = np.asarray(jax.jit(lambda *v: task.kernel(*v))(*inputs), dtype=np.float64)
    ref = np.asarray(jax.jit(task.reference)(*inputs), dtype=np.float64)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
