"""The five robustness rules of pallasbench-robust, re-implemented here from their definitions so
that bench/corpus_table.py can put them next to this harness's filters on the same corpus.

Where the definitions come from
-------------------------------
pallasbench-robust is the Hugging Face dataset (huggingface.co/datasets/EvanOLeary/pallasbench-robust)
whose card names the source repository github.com/Tyronita/PallasBench and the technical report
"Towards Robust Pallas Kernel Benchmarking, Verification, and Optimization on GPU" (E. O'Leary).
All references below are to that repository at commit 4a428319dbef86e39e07f952e932ff88fe03b8d9:

- report: docs/robust_evaluation_report.md, section 5.2 "Robustness Filters" (the five filters,
  thresholds and regexes), section 6.3 "Evaluation Protocol" (seed PRNGKey(0), correctness by
  jnp.allclose(atol=1e-5, rtol=1e-5), then the filters), sections 7.3-7.4 (their own results);
- code: pallasbench/robust_eval/filters.py (the filter classes and apply_all_filters) and
  pallasbench/robust_eval/evaluator.py (evaluate_kernel: which arrays each filter receives);
- scripts/run_robust_eval.py (kernel_fn is the task's pallas function, called positionally).

The rules, as defined there (the report's section 5.2 and filters.py agree unless noted):

1. output_range: r = max(output) - min(output) of the kernel's output; passes when
   1e-6 <= r <= 1e12.
2. output_std: std(output) over all elements; passes when >= 1e-6.
3. axes_variation: skipped (passes) for outputs of fewer than 2 dimensions; otherwise, for each
   axis, the mean over the other positions of std(output, axis=axis); fails when any axis's mean
   is < 1e-6.
4. input_impact: perturbed = x + 0.1 * jax.random.normal(PRNGKey(42), x.shape), where x is the
   first input only (evaluator.py passes inputs[0]); the kernel is run on the perturbed input and
   the rule passes when max |kernel(perturbed) - reference_output| >= 1e-6. reference_output is
   the *reference's* output on the unperturbed inputs (evaluator.py passes ref_output), not the
   kernel's own unperturbed output.
5. source_analysis: four regexes searched in the kernel module's whole source
   (inspect.getsource of the module, docstrings and comments included); any match fails:
   ``o_ref[...] = 0`` / ``o_ref[..] = 0``, the same with ``1`` (no word boundary, so
   ``o_ref[...] = 0.5 * z`` matches), ``return jnp.zeros``, and ``jnp.full(..., 0)``.

Only the output of the kernel on one input set is examined; output_range, output_std and
axes_variation never look at the reference. evaluate_kernel draws every input from N(0, 1)
with PRNGKey(0); evaluate_candidate below uses instead the task's own make_inputs at seed 0 and
the harness's reference (as `pallasbench eval` does for seed 0), so that both approaches judge
the same arrays; only input_impact reads the reference, and only against 1e-6.

Where their code and report differ (the report is followed here):

- input_impact noise dtype: filters.py casts the noise to the input's dtype before adding it
  (``.astype(reference_input.dtype)``); the report adds float32 noise. The two agree on float32
  inputs; on integer inputs (ids, uint8 DNA) the report's perturbed input is float32.
- input_impact errors: filters.py turns an exception into a failed filter ("Failed to compute
  perturbed output"); in the report the exception propagates, and evaluate_kernel's
  ``except Exception: filters = {}`` then records no filter at all with robustness_passed
  False. Either way the kernel is rejected; here it is a failed input_impact whose reason says
  what was raised.
- multi-input kernels: neither says how the other inputs are passed. evaluate_kernel calls the
  kernel as ``lambda x: jax.jit(kernel_fn)(x)`` with the one perturbed array, so every kernel of
  more than one input raises TypeError there and fails input_impact. Here the other inputs are
  passed unchanged (the reading "only the first input is perturbed"); `literal_call_fails`
  reports whether the evaluator's one-argument call would have failed.

Known consequences of these definitions (what bench/corpus_table.py shows): the value rules use
absolute 1e-6 thresholds, so only outputs that are constant to 1e-6 fail them; input_impact
compares against the reference, so any kernel whose output differs from the reference by 1e-6
somewhere passes it whatever it does with its inputs, and an input other than the first is
never perturbed; source_analysis is four regexes that only know the name ``o_ref``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

MIN_RANGE = 1e-6  # report section 5.2, Filter 1
MAX_RANGE = 1e12
MIN_STD = 1e-6  # Filter 2
MIN_AXIS_STD = 1e-6  # Filter 3
PERTURBATION_SCALE = 0.1  # Filter 4
PERTURBATION_KEY = 42
MIN_OUTPUT_CHANGE = 1e-6
# Filter 5: output set to zero, output set to one, returns zeros, filled with zeros.
SOURCE_PATTERNS = (
    r"o_ref\[\.\.\.?\]\s*=\s*0",
    r"o_ref\[\.\.\.?\]\s*=\s*1",
    r"return\s+jnp\.zeros",
    r"jnp\.full\(.*,\s*0\)",
)
# Their correctness check (report section 6.3); reported beside the rules, not part of them.
THEIR_ATOL = 1e-5
THEIR_RTOL = 1e-5

# Their five rules' names, which this harness's first filters borrowed. Not read from the harness's
# registry (pallasbench.filters) on purpose: these are another dataset's fixed definitions, and a
# filter added here is no rule of theirs.
RULES = ("output_range", "output_std", "axes_variation", "input_impact", "source_analysis")


@dataclass
class RuleResult:
    """passed is True, False, or None when the rule could not be evaluated (reason says why)."""

    name: str
    passed: bool | None
    value: Any
    threshold: Any
    reason: str


def _jnp():
    import jax.numpy as jnp

    return jnp


def output_range(output) -> RuleResult:
    """Report 5.2 Filter 1; filters.py OutputRangeFilter."""
    jnp = _jnp()
    out = jnp.asarray(output)
    spread = float(jnp.max(out) - jnp.min(out))
    passed = MIN_RANGE <= spread <= MAX_RANGE  # False for NaN
    return RuleResult("output_range", passed, spread, [MIN_RANGE, MAX_RANGE],
                      f"max - min = {spread:.6g} {'within' if passed else 'outside'} "
                      f"[{MIN_RANGE:g}, {MAX_RANGE:g}]")


def output_std(output) -> RuleResult:
    """Report 5.2 Filter 2; filters.py OutputStdFilter."""
    jnp = _jnp()
    std = float(jnp.std(jnp.asarray(output)))
    passed = std >= MIN_STD
    return RuleResult("output_std", passed, std, MIN_STD,
                      f"std = {std:.6g} {'>=' if passed else '<'} {MIN_STD:g}")


def axes_variation(output) -> RuleResult:
    """Report 5.2 Filter 3; filters.py AxesVariationFilter."""
    jnp = _jnp()
    out = jnp.asarray(output)
    if out.ndim < 2:
        return RuleResult("axes_variation", True, None, MIN_AXIS_STD,
                          f"skipped for a {out.ndim}-D output")
    means = [float(jnp.std(out, axis=axis).mean()) for axis in range(out.ndim)]
    flat = [f"axis {axis}: mean std {m:.3g}" for axis, m in enumerate(means) if not m >= MIN_AXIS_STD]
    return RuleResult("axes_variation", not flat, means, MIN_AXIS_STD,
                      "constant along " + ", ".join(flat) if flat else "every axis varies")


def perturb_first(x):
    """The report's perturbation: x + 0.1 * N(0, 1) drawn with PRNGKey(42), float32 noise (no cast
    to x's dtype, so an integer x becomes float32)."""
    import jax

    noise = jax.random.normal(jax.random.PRNGKey(PERTURBATION_KEY), tuple(x.shape))
    return x + PERTURBATION_SCALE * noise


def input_impact(kernel_fn: Callable, inputs: Sequence, reference_output) -> RuleResult:
    """kernel_fn(*inputs with the first perturbed) against the reference's unperturbed output.
    Report 5.2 Filter 4; filters.py InputImpactFilter; evaluator.py evaluate_kernel (inputs[0],
    ref_output)."""
    jnp = _jnp()
    if not inputs:
        return RuleResult("input_impact", None, None, MIN_OUTPUT_CHANGE, "n/a: the kernel takes no input")
    try:
        perturbed = perturb_first(jnp.asarray(inputs[0]))
        out = kernel_fn(perturbed, *inputs[1:])
        diff = float(jnp.max(jnp.abs(jnp.asarray(out) - jnp.asarray(reference_output))))
    except Exception as exc:  # noqa: BLE001 - their rule rejects a kernel that raises here
        return RuleResult("input_impact", False, None, MIN_OUTPUT_CHANGE,
                          f"raised on the perturbed input: {type(exc).__name__}: {str(exc)[:160]}")
    passed = diff >= MIN_OUTPUT_CHANGE  # False for NaN
    return RuleResult("input_impact", passed, diff, MIN_OUTPUT_CHANGE,
                      f"max |kernel(x0 perturbed) - reference(x)| = {diff:.6g} "
                      f"{'>=' if passed else '<'} {MIN_OUTPUT_CHANGE:g}")


def source_analysis(source: str | None) -> RuleResult:
    """Report 5.2 Filter 5; filters.py SourceAnalysisFilter; evaluator.py _load_kernel_source
    (the whole module's text)."""
    if source is None:
        return RuleResult("source_analysis", None, None, None, "n/a: no source")
    hits = [p for p in SOURCE_PATTERNS if re.search(p, source)]
    return RuleResult("source_analysis", not hits, hits, None,
                      f"matched {hits}" if hits else "no degenerate pattern")


def apply_rules(output, kernel_fn: Callable, inputs: Sequence, reference_output,
                source: str | None) -> dict[str, RuleResult]:
    return {
        "output_range": output_range(output),
        "output_std": output_std(output),
        "axes_variation": axes_variation(output),
        "input_impact": input_impact(kernel_fn, inputs, reference_output),
        "source_analysis": source_analysis(source),
    }


def verdict(rules: dict[str, RuleResult]) -> str:
    """'rejects' when a rule failed, 'n/a' when none failed but one could not be evaluated,
    'accepts' when all five passed."""
    if any(r.passed is False for r in rules.values()):
        return "rejects"
    if any(r.passed is None for r in rules.values()):
        return "n/a"
    return "accepts"


# -- a candidate of the adversarial corpus against its task -----------------------------------


def evaluate_candidate(task: str, candidate: Path, size: str = "small", seed: int = 0) -> dict:
    """The rules on `candidate` (a file defining kernel(*inputs)) for `task` at `size`: inputs of
    `seed` made as the harness makes them, the harness's reference (Reference._run_reference), the
    candidate jitted as their evaluator does. A rule that cannot be evaluated is n/a."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import numpy as np

    from pallasbench.task import registry
    from pallasbench.worker import interpret
    from pallasbench.worker.reference import Reference

    if interpret.on_cpu():
        interpret.enable_interpret_default()
    module = registry.load(task)
    inputs = list(module.make_inputs(np.random.default_rng(seed), module.SHAPES[size]))
    reference = np.asarray(Reference()._run_reference(module, inputs))
    record = {"task": task, "candidate": candidate.name, "size": size, "seed": seed,
              "inputs": [f"{spec.name} {x.dtype}{list(x.shape)}" for spec, x in zip(module.INPUTS, inputs)]}

    def not_evaluated(why: str) -> dict:
        rules = {name: RuleResult(name, None, None, None, f"n/a: {why}") for name in RULES}
        return record | {"rules": {k: asdict(v) for k, v in rules.items()}, "verdict": "n/a",
                         "why": why}

    try:
        source = candidate.read_text()
        fn = registry.import_file(candidate, "robust_rules_candidate").kernel
    except Exception as exc:  # noqa: BLE001
        return not_evaluated(f"candidate does not import: {type(exc).__name__}: {exc}")
    jitted = jax.jit(fn)
    try:
        output = np.asarray(jax.block_until_ready(jitted(*inputs)))
    except Exception as exc:  # noqa: BLE001 - evaluate_kernel records no filter in this case
        return not_evaluated(f"candidate raised on the task's inputs: {type(exc).__name__}")

    rules = apply_rules(output, lambda *xs: jax.block_until_ready(jitted(*xs)), inputs, reference, source)
    literal_call_fails = None
    if len(inputs) > 1:  # evaluate_kernel's `lambda x: jax.jit(kernel_fn)(x)`: one argument
        try:
            jax.jit(fn)(perturb_first(jax.numpy.asarray(inputs[0])))
            literal_call_fails = False
        except Exception:  # noqa: BLE001
            literal_call_fails = True
    same_shape = output.shape == reference.shape
    their_allclose = bool(same_shape and np.allclose(output.astype(np.float64), reference.astype(np.float64),
                                                     atol=THEIR_ATOL, rtol=THEIR_RTOL))
    return record | {
        "output": f"{output.dtype}{list(output.shape)}",
        "reference": f"{reference.dtype}{list(reference.shape)}",
        "rules": {k: asdict(v) for k, v in rules.items()},
        "verdict": verdict(rules),
        "literal_call_fails": literal_call_fails,
        "their_allclose_1e-5": their_allclose,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", required=True)
    parser.add_argument("--candidate", required=True, type=Path)
    parser.add_argument("--size", default="small")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    record = evaluate_candidate(args.task, args.candidate.resolve(), args.size, args.seed)
    print(json.dumps(record, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
