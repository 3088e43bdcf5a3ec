#!/usr/bin/env python3
"""Writes an `eval --batch` file of N candidates for one task, as an RL loop would send them:
mostly honest variants (the task's own kernel, each with a comment of its own, so each is a
distinct candidate with its own hash), and every few the adversarial corpus's candidates for the
task (tests/adversarial/<task>_*.py: refused, wrong or honest), all as inline sources.

    python3 bench/batch_requests.py softmax 50 --size medium > requests.jsonl
"""
import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task")
    parser.add_argument("count", type=int)
    parser.add_argument("--size", default="medium")
    parser.add_argument("--adversarial-every", type=int, default=5,
                        help="every Nth request is an adversarial candidate (0: none)")
    args = parser.parse_args()
    own = next((ROOT / "tasks").glob(f"level*/{args.task}.py"), None)
    if own is None:
        print(f"no task file for '{args.task}'", file=sys.stderr)
        return 2
    hostile = sorted((ROOT / "tests" / "adversarial").glob(f"{args.task}_*.py"))
    for i in range(args.count):
        if args.adversarial_every and hostile and i % args.adversarial_every == args.adversarial_every - 1:
            path = hostile[(i // args.adversarial_every) % len(hostile)]
            source, kind = path.read_text(), path.stem
        else:
            source, kind = own.read_text() + f"\n# candidate {i}\n", "variant"
        print(json.dumps({"id": f"{i:03d}-{kind}", "task": args.task, "size": args.size, "source": source}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
