"""Runs the adversarial corpus (tests/adversarial/, each candidate against its task at SMALL on the
CPU) and prints a markdown table of three verdicts: a plain allclose check (the harness's status
is ok), the harness (correct and robust, with the filters that failed), and the five rules of
pallasbench-robust (python/pallasbench/robust_rules.py, with the rules that failed), then the counts.
Usage: python bench/corpus_table.py (from the repo root, after `make build`; PALLASBENCH_PYTHON
picks the Python of the harness's worker and of the rules)."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
sys.path.insert(0, str(ROOT / "python"))
from test_adversarial import CASES  # noqa: E402

from pallasbench import robust_rules  # noqa: E402

PYTHON = os.environ.get("PALLASBENCH_PYTHON", sys.executable)
PATTERN_LABELS = dict(zip(robust_rules.SOURCE_PATTERNS, ("`o_ref[...] = 0`", "`o_ref[...] = 1`",
                                                         "`return jnp.zeros`", "`jnp.full(..., 0)`")))


def harness_verdict(candidate, task):
    out = subprocess.run([str(ROOT / "build" / "pallasbench"), "eval", "--task", task, "--candidate",
                          str(ROOT / "tests" / "adversarial" / candidate), "--device", "cpu", "--no-timing",
                          "--json"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    return json.loads(out.stdout)


def rules_verdict(candidate, task):
    """pallasbench.robust_rules in a fresh interpreter (a candidate may patch what it imports); its
    record is the last line of stdout (a candidate may print)."""
    python_path = os.pathsep.join(filter(None, [str(ROOT / "python"), os.environ.get("PYTHONPATH")]))
    env = os.environ | {"PYTHONPATH": python_path}
    out = subprocess.run([PYTHON, "-m", "pallasbench.robust_rules", "--task", task, "--candidate",
                          str(ROOT / "tests" / "adversarial" / candidate), "--size", "small"],
                         capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    if out.returncode != 0 or not lines:
        why = f"pallasbench.robust_rules exited {out.returncode}: {out.stderr.strip()[-200:]}"
        return {"verdict": "n/a", "why": why, "rules": {}}
    return json.loads(lines[-1])


def rules_cell(record):
    if record["verdict"] == "n/a" and "why" in record:
        return f"n/a: {record['why']}"
    parts = []
    for name, rule in record["rules"].items():
        if rule.get("passed") is False:
            if name == "source_analysis":
                parts.append(f"{name} ({', '.join(PATTERN_LABELS[p] for p in rule['value'])})")
            elif name == "input_impact" and rule.get("value") is None:
                parts.append(f"{name} (raised)")
            else:
                parts.append(name)
        elif rule.get("passed") is None:
            parts.append(f"{name} {rule['reason']}")
    return ", ".join(parts) or "-"


def main():
    print("| candidate | task | expected | allclose | harness | filters failed | pallasbench-robust rules "
          "| rules failed |")
    print("|---|---|---|---|---|---|---|---|")
    rows = []
    for candidate, task, _status, robust, _ in CASES:
        record = harness_verdict(candidate, task)
        ran = record["status"] == "ok"
        failed = [name for name, f in record["result"]["filters"].items() if not f["passed"]] if ran else []
        accepted = ran and record["result"]["robustness_passed"]
        rules = rules_verdict(candidate, task)
        expected = "accept" if robust else "reject"
        print(f"| {candidate} | {task} | {expected} | {'accepts' if ran else 'rejects'} | "
              f"{'accepts' if accepted else 'rejects'} ({record['status']}) | {', '.join(failed) or '-'} | "
              f"{rules['verdict']} | {rules_cell(rules)} |")
        rows.append({"robust": robust, "allclose": ran, "harness": accepted, "rules": rules["verdict"],
                     "literal": rules.get("literal_call_fails"),
                     "their_allclose": rules.get("their_allclose_1e-5")})

    degenerate = [r for r in rows if not r["robust"]]
    honest = [r for r in rows if r["robust"]]

    def counts(rejects):
        return sum(1 for r in degenerate if rejects(r)), sum(1 for r in honest if rejects(r))

    by_rules = lambda r: r["rules"] == "rejects"  # noqa: E731
    literal = lambda r: by_rules(r) or r["literal"] is True  # noqa: E731
    theirs = lambda r: r["their_allclose"] is False  # noqa: E731
    columns = {
        "allclose": lambda r: not r["allclose"],
        "harness": lambda r: not r["harness"],
        "pallasbench-robust rules": by_rules,
        "allclose, then pallasbench-robust rules": lambda r: not r["allclose"] or by_rules(r),
    }
    print()
    print(f"Rejected, of {len(degenerate)} degenerate and {len(honest)} honest candidates: "
          + "; ".join("{} {} and {}".format(name, *counts(f)) for name, f in columns.items()) + ".")
    multi = [r for r in rows if r["literal"] is not None]
    print(f"pallasbench-robust rules n/a: {sum(1 for r in rows if r['rules'] == 'n/a')}. "
          f"Their evaluate_kernel calls the kernel with the perturbed first input alone, which raises for "
          f"{sum(1 for r in multi if r['literal'])} of the {len(multi)} multi-input candidates; "
          "counting those as failed input_impact, the rules reject {} and {}. ".format(*counts(literal))
          + "Their own correctness check (allclose, atol = rtol = 1e-5) rejects {} and {}; ".format(
              *counts(theirs))
          + "that check, then the rules, reject {} and {} ({} and {} with the one-argument call).".format(
              *counts(lambda r: theirs(r) or by_rules(r)), *counts(lambda r: theirs(r) or literal(r))))


if __name__ == "__main__":
    main()
