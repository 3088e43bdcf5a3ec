"""Stress cases (docs/tasks.md, "Stress cases"): every task declares each case, its inputs stay in
their domains, and the delicate cases (offset) pass with the suite's own kernels."""

import types

import jax
import numpy as np
import pytest

from pallasbench.task import dtypes, registry, stress
from pallasbench import task as tl
from pallasbench.worker.protocol import ReferenceRequest
from pallasbench.worker.reference import Reference

TASKS = sorted(registry.discover())
CASES = [(name, case) for name in TASKS for case in registry.load(name).STRESS.run]


def test_every_task_runs_or_skips_every_case_with_a_reason():
    for name in TASKS:
        spec = registry.load(name).STRESS
        for case in tl.STRESS_CASES:
            assert (case in spec.run) != bool(spec.skipped.get(case)), (name, case)


def test_float_tasks_check_tiny_and_large_unless_they_say_why():
    for name in TASKS:
        module = registry.load(name)
        if any(i.domain in (tl.REAL, tl.POSITIVE) for i in module.INPUTS):
            for case in ("tiny", "large"):
                assert case in module.STRESS.run or module.STRESS.skipped[case], (name, case)


def test_a_task_missing_a_reason_is_refused():
    with pytest.raises(ValueError, match="neither runs nor gives a reason"):
        tl.stress_cases("tiny", large="x").check("t", ["x"])
    with pytest.raises(ValueError, match="offset_input"):
        tl.stress_cases("tiny", "large", "offset", degenerate="d", distinct="d").check("t", ["x"])
    with pytest.raises(ValueError, match="unknown case"):
        tl.stress_cases("tiny", huge="?", large="x", offset="x", degenerate="x", distinct="x").check("t", ["x"])


@pytest.mark.parametrize("name, case", CASES, ids=[f"{n}-{c}" for n, c in CASES])
def test_stress_inputs_keep_shapes_and_domains(name, case):
    module = registry.load(name)
    shapes = module.SHAPES["small"]
    normal = module.make_inputs(np.random.default_rng(5), shapes)
    inputs = stress.make_inputs(module, case, np.random.default_rng(5), shapes)
    for spec, x, base in zip(module.INPUTS, inputs, normal):
        assert x.shape == tuple(shapes[spec.name]) and x.dtype == base.dtype, (spec.name, x.shape, x.dtype)
        if np.issubdtype(x.dtype, np.floating):
            assert np.isfinite(x).all(), spec.name
        if spec.domain == tl.POSITIVE:
            assert (x > 0).all()
        if spec.domain == tl.UNIT:
            assert ((x >= 0) & (x <= 1)).all()
        if spec.domain in (tl.ONE_HOT_ROWS, tl.SIMPLEX_ROWS):
            np.testing.assert_allclose(x.sum(axis=-1), 1, rtol=1e-5)
        if spec.domain == tl.DISCRETE:
            assert x.min() >= 0 and (x.dtype != np.uint8 or x.max() <= 3), spec.name  # ids, bases, masks
            if case == "degenerate":
                assert len(np.unique(x)) == 1, spec.name
    changed = [not np.array_equal(x, base) for x, base in zip(inputs, normal)]
    assert any(changed), f"{name}: case '{case}' changes no input"


def test_tiny_and_large_scale_free_floats_and_redraw_positive_ones():
    relu, log = registry.load("relu"), registry.load("log")
    x = relu.make_inputs(np.random.default_rng(1), relu.SHAPES["small"])[0]
    tiny = stress.make_inputs(relu, "tiny", np.random.default_rng(1), relu.SHAPES["small"])[0]
    np.testing.assert_array_equal(tiny, (x * np.float32(1e-3)).astype(np.float32))
    exp = registry.load("exp")
    assert exp.STRESS.large_factor == 10.0 and registry.load("matmul").STRESS.large_factor == 1e3
    big = stress.make_inputs(log, "large", np.random.default_rng(1), log.SHAPES["small"])[0]
    assert 1e3 <= big.min() and big.max() <= 1e6


def test_offset_is_one_constant_per_row():
    module = registry.load("softmax")
    x = module.make_inputs(np.random.default_rng(2), module.SHAPES["small"])[0]
    shifted = stress.make_inputs(module, "offset", np.random.default_rng(2), module.SHAPES["small"])[0]
    delta = shifted.astype(np.float64) - x
    np.testing.assert_allclose(delta, delta[:, :1].repeat(x.shape[1], axis=1), atol=1e-3)
    assert np.abs(delta[:, 0]).max() > 100


def test_batch_norm_offsets_each_column():
    module = registry.load("batch_norm_1d")
    x = module.make_inputs(np.random.default_rng(2), module.SHAPES["small"])[0]
    shifted = stress.make_inputs(module, "offset", np.random.default_rng(2), module.SHAPES["small"])[0]
    delta = shifted.astype(np.float64) - x
    np.testing.assert_allclose(delta, delta[:1, :].repeat(x.shape[0], axis=0), atol=1e-3)


def test_attention_offset_shifts_every_score_of_a_row_by_one_constant():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((16, 8)).astype(np.float32) for _ in range(3))
    q2, k2, v2 = stress.score_offset(np.random.default_rng(4), q, k, v)
    base = q.astype(np.float64) @ np.where(np.arange(8) == 7, 1.0, k).T / np.sqrt(8)
    scores = q2.astype(np.float64) @ k2.astype(np.float64).T / np.sqrt(8)
    shift = scores - base
    np.testing.assert_allclose(shift, shift[:, :1].repeat(16, axis=1), atol=1e-2)
    assert np.abs(shift).max() > 50 and (v2 == v).all()


def test_degenerate_is_poly_a_and_one_id():
    kmer = registry.load("kmer_count")
    seq = stress.make_inputs(kmer, "degenerate", np.random.default_rng(0), kmer.SHAPES["small"])[0]
    assert (seq == 0).all()
    ids = stress.make_inputs(registry.load("one_hot"), "degenerate", np.random.default_rng(0),
                             registry.load("one_hot").SHAPES["small"])[0]
    assert len(np.unique(ids)) == 1


def test_de_bruijn_holds_every_word_once():
    seq = stress.de_bruijn(4, 4)
    assert len(seq) == 256
    cyclic = np.concatenate([seq, seq[:3]])
    words = {tuple(cyclic[i:i + 4]) for i in range(256)}
    assert len(words) == 256


def test_distinct_ids_are_distinct_when_the_domain_allows():
    ids = stress.distinct_ids(np.random.default_rng(0), (512,), 1024)
    assert len(np.unique(ids)) == 512
    more = stress.distinct_ids(np.random.default_rng(0), (2048,), 1024)
    assert np.bincount(more, minlength=1024).max() == 2


def test_a_case_the_task_does_not_run_is_refused():
    with pytest.raises(ValueError, match="does not run stress case 'offset'"):
        stress.make_inputs(registry.load("relu"), "offset", np.random.default_rng(0),
                           registry.load("relu").SHAPES["small"])


def test_registry_requires_a_stress_declaration(tmp_path):
    module = types.ModuleType("fake")
    for attr in ("NAME", "LEVEL", "CATEGORY", "INPUTS", "SHAPES", "TOLERANCE", "USES_TF32", "ORDER_DEPENDENT"):
        setattr(module, attr, getattr(registry.load("relu"), attr))
    for fn in registry.REQUIRED_FUNCTIONS:
        setattr(module, fn, getattr(registry.load("relu"), fn))
    with pytest.raises(registry.TaskError, match="missing STRESS"):
        registry.validate(module, registry.TaskFile("relu", 1, tmp_path / "relu.py"))


OFFSET = [(n, c) for n, c in CASES if c == "offset"]


@pytest.mark.parametrize("name", [n for n, _ in OFFSET])
def test_suite_kernels_pass_the_offset_case(name):
    """The delicate case: norms, softmax-class ops, losses over logits and attention at row
    offsets of up to 1e3, against the float64 reference (the harness's check in miniature)."""
    module = registry.load(name)
    inputs = stress.make_inputs(module, "offset", np.random.default_rng(11), module.SHAPES["small"])
    ref = np.asarray(Reference()._run_reference(module, inputs)).astype(np.float64)
    out = np.asarray(jax.jit(module.kernel)(*inputs)).astype(np.float64)
    tol = module.TOLERANCE
    atol = tol.atol * max(1.0, float(np.sqrt(np.mean(ref ** 2))))
    assert np.isfinite(out).all()
    assert (np.abs(out - ref) <= atol + tol.rtol * np.abs(ref)).all()
    assert np.linalg.norm(out - ref) <= tol.rel_norm * np.linalg.norm(ref)


def test_the_large_case_shrinks_until_float16_holds_its_reference(tmp_path):
    """The tasks' large factors keep the reference finite at float32. float16 (65504) cannot hold
    mlp_block's at x1e3: the reference process shrinks the factor until it can, and answers with
    the reference of the inputs it wrote; bfloat16 (float32's range) keeps the task's factor."""
    module = registry.load("mlp_block")
    full = stress.make_inputs(module, "large", np.random.default_rng(7), module.SHAPES["small"])
    ref = Reference()
    fields = {"task": "mlp_block", "size": "small", "seed": 7, "stress": "large"}
    for dtype in ("bfloat16", "float16"):
        (tmp_path / dtype).mkdir()
        request = ReferenceRequest.read(fields | {"dtype": dtype, "dir": str(tmp_path / dtype)})
        reply = ref.cmd_reference(request)
        inputs = [np.load(a["path"]) for a in reply["inputs"]]
        out = np.load(reply["output"]["path"])
        # x is N(0, 1) times the factor used: the ratio to the x1e3 draw recovers it.
        factor = 1e3 * np.abs(inputs[0]).max() / np.abs(full[0]).max()
        if dtype == "bfloat16":
            np.testing.assert_array_equal(inputs[0], dtypes.round_to(full[0], "bfloat16"))
            continue
        assert 1 < factor < 1e3 / 3, factor
        assert np.isfinite(out).all()
        again = Reference()._run_reference(module, inputs)
        np.testing.assert_array_equal(out, dtypes.round_to(np.asarray(again), "float16"))
