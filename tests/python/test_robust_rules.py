"""pallasbench.robust_rules: the pallasbench-robust rules on tiny synthetic arrays, each case built so
that the rule's definition (thresholds, first input only, comparison against the reference, the
four regexes) decides it."""
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from pallasbench import robust_rules as rr

ROOT = Path(__file__).resolve().parents[2]

RNG = np.random.default_rng(0)
VARYING = RNG.standard_normal((8, 16)).astype(np.float32)


# -- output_range / output_std ----------------------------------------------------------------

def test_constant_output_fails_range_and_std():
    constant = np.full((8, 16), 0.5, np.float32)
    assert rr.output_range(constant).passed is False
    assert rr.output_std(constant).passed is False


def test_varying_output_passes_range_and_std():
    assert rr.output_range(VARYING).passed is True
    assert rr.output_std(VARYING).passed is True


def test_thresholds_are_absolute():
    tiny = np.array([0.0, 2e-6], np.float32)  # spread 2e-6 >= 1e-6: passes however flat relative
    assert rr.output_range(tiny).passed is True
    assert rr.output_range(np.array([0.0, 5e-7], np.float32)).passed is False
    assert rr.output_range(np.array([-1e12, 1e12], np.float64)).passed is False  # above 1e12
    assert rr.output_std(np.array([0.0, 1e-6], np.float32)).passed is False  # std 5e-7


def test_nan_output_fails_range():
    assert rr.output_range(np.array([0.0, np.nan, 1.0], np.float32)).passed is False


# -- axes_variation ---------------------------------------------------------------------------

def test_rows_constant_along_last_axis_fail_axes():
    rows = np.repeat(RNG.standard_normal((8, 1)).astype(np.float32), 16, axis=1)
    result = rr.axes_variation(rows)
    assert result.passed is False
    assert "axis 1" in result.reason and "axis 0" not in result.reason


def test_one_d_output_skips_axes():
    result = rr.axes_variation(np.zeros(16, np.float32))  # constant, yet 1-D: skipped
    assert result.passed is True and "skipped" in result.reason


def test_sparse_one_hot_passes_axes():
    """Their report (7.3) says one_hot trips this rule; its definition (mean std >= 1e-6) does not."""
    one_hot = np.asarray(jax.nn.one_hot(jnp.arange(8) % 4, 16))
    assert rr.axes_variation(one_hot).passed is True


# -- input_impact -----------------------------------------------------------------------------

def test_perturbation_is_first_input_plus_tenth_of_key_42_normal():
    x = np.zeros((4, 4), np.float32)
    expected = 0.1 * np.asarray(jax.random.normal(jax.random.PRNGKey(42), (4, 4)))
    np.testing.assert_allclose(np.asarray(rr.perturb_first(jnp.asarray(x))), expected, rtol=1e-6)
    # No cast back to the input's dtype (the report's definition): integer ids become float32.
    assert rr.perturb_first(jnp.zeros(4, jnp.int32)).dtype == jnp.float32


def test_ignored_input_matching_reference_fails_impact():
    ref = VARYING * 2.0
    result = rr.input_impact(lambda x: jnp.asarray(ref), [VARYING], ref)
    assert result.passed is False and result.value == 0.0


def test_used_input_passes_impact():
    ref = VARYING * 2.0
    assert rr.input_impact(lambda x: x * 2.0, [VARYING], ref).passed is True


def test_impact_compares_against_reference_so_an_ignoring_kernel_with_error_passes():
    ref = VARYING * 2.0
    off = ref + 1e-3  # ignores its input, but differs from the reference by 1e-3
    assert rr.input_impact(lambda x: jnp.asarray(off), [VARYING], ref).passed is True


def test_only_first_input_is_perturbed():
    x, y = VARYING, VARYING + 1.0
    ref = x + y
    uses_only_first = rr.input_impact(lambda a, b: a + y, [x, y], ref)  # b ignored, a used
    assert uses_only_first.passed is True
    ignores_first = rr.input_impact(lambda a, b: x + b, [x, y], ref)  # a ignored: caught
    assert ignores_first.passed is False


def test_kernel_raising_on_perturbed_input_fails_impact():
    def picky(x):
        if x.dtype != jnp.int32:
            raise TypeError("ids must be int32")
        return x

    ids = np.arange(8, dtype=np.int32)
    result = rr.input_impact(picky, [ids], ids)
    assert result.passed is False and "TypeError" in result.reason


# -- source_analysis --------------------------------------------------------------------------

@pytest.mark.parametrize("source", [
    "    o_ref[...] = 0\n",
    "    o_ref[..] = 1.0\n",
    "    o_ref[...] = 0.5 * z * (1.0 + t)\n",  # a real gelu: no word boundary after the digit
    "    return jnp.zeros((4,))\n",
    "    y = jnp.full((4, 4), 0)\n",
    '"""docstring: o_ref[...] = 0 would be wrong"""\n',  # the whole module text is searched
])
def test_source_patterns_match(source):
    assert rr.source_analysis(source).passed is False


@pytest.mark.parametrize("source", [
    "    o_ref[...] = x_ref[...]\n",
    "    out_ref[...] = 0\n",  # only the name o_ref is known
    "    o_ref[...] = jnp.full(o_ref.shape, 0.5, jnp.float32)\n",  # a constant output, unflagged
    "    return np.zeros((4,))\n",  # numpy's zeros: only jnp.zeros is known
])
def test_source_patterns_miss(source):
    assert rr.source_analysis(source).passed is True


# -- verdict ----------------------------------------------------------------------------------

def test_verdict_rejects_accepts_and_na():
    ok = rr.RuleResult("x", True, None, None, "")
    bad = rr.RuleResult("y", False, None, None, "")
    unknown = rr.RuleResult("z", None, None, None, "n/a: why")
    assert rr.verdict({"a": ok, "b": ok}) == "accepts"
    assert rr.verdict({"a": ok, "b": bad, "c": unknown}) == "rejects"
    assert rr.verdict({"a": ok, "c": unknown}) == "n/a"


def test_corpus_candidate_constant_gc_content():
    record = rr.evaluate_candidate("gc_content", ROOT / "tests" / "adversarial" / "gc_content_constant.py")
    rules = record["rules"]
    assert record["verdict"] == "rejects"
    assert rules["output_range"]["passed"] is False and rules["output_std"]["passed"] is False
    assert rules["input_impact"]["passed"] is True  # 0.5 differs from the reference's 0.49..0.51
    assert rules["source_analysis"]["passed"] is True
