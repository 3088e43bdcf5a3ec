"""Runs the adversarial corpus through `pallasbench eval` and prints a markdown table: what a
plain allclose check concludes (status ok) against what the harness concludes (correct and
robust), with the filters that failed. Usage: python bench/corpus_table.py (from the repo root,
after `make build`; PALLASBENCH_PYTHON picks the worker's Python)."""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
from test_adversarial import CASES  # noqa: E402


def verdict(candidate, task):
    out = subprocess.run([str(ROOT / "build" / "pallasbench"), "eval", "--task", task, "--candidate",
                          str(ROOT / "tests" / "adversarial" / candidate), "--device", "cpu", "--no-timing",
                          "--json"], capture_output=True, text=True, cwd=ROOT, timeout=600)
    return json.loads(out.stdout)


def main():
    print("| candidate | task | expected | allclose | harness | filters failed |")
    print("|---|---|---|---|---|---|")
    for candidate, task, status, robust, _ in CASES:
        record = verdict(candidate, task)
        ran = record["status"] == "ok"
        failed = [name for name, f in record["result"]["filters"].items() if not f["passed"]] if ran else []
        accepted = ran and record["result"]["robustness_passed"]
        expected = "accept" if robust else "reject"
        print(f"| {candidate} | {task} | {expected} | {'accepts' if ran else 'rejects'} | "
              f"{'accepts' if accepted else 'rejects'} ({record['status']}) | {', '.join(failed) or '-'} |")


if __name__ == "__main__":
    main()
