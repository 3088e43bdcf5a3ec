#!/usr/bin/env python3
"""The adversarial corpus's GPU cases (bench/adversarial_gpu.sh's table) as ONE `eval --batch`:
every lane's executor warm for the next case instead of one process start per case (the serial
script costs ~15 s a case on the GPU host). Cases that need flags of their own (timing, a given
seed) are left to bench/adversarial_gpu.sh. Prints one line per case and exits 1 when any case is
off its verdict.

usage: python3 bench/adversarial_batch.py SIZE OUT_DIR [CANDIDATE.py ...] (default: every flagless case)
"""
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cases():
    """(file, task, status, robust) of each case in adversarial_gpu.sh that takes no flags."""
    text = (ROOT / "bench" / "adversarial_gpu.sh").read_text()
    table = text[text.index("cases=("):text.index("\n)\n")]
    for line in re.findall(r'^\s+"([^"]+)"$', table, re.M):
        file, task, status, robust, *rest = line.split()
        if not rest:
            yield file, task, status, robust == "true"


def main(argv) -> int:
    size, out = argv[1], Path(argv[2])
    wanted = set(argv[3:])
    chosen = [c for c in cases() if not wanted or c[0] in wanted]
    if wanted - {c[0] for c in chosen}:
        sys.exit(f"adversarial_batch: not flagless cases of adversarial_gpu.sh: {sorted(wanted - {c[0] for c in chosen})}")
    out.mkdir(parents=True, exist_ok=True)
    batch = out / "requests.jsonl"
    batch.write_text("".join(json.dumps({"id": f, "task": t, "path": str(ROOT / "tests" / "adversarial" / f)}) + "\n"
                             for f, t, _, _ in chosen))
    result = subprocess.run([str(ROOT / "build" / "pallasbench"), "eval", "--batch", str(batch), "--size", size,
                             "--device", "gpu", "--no-timing", "--json", "--jobs", "8", "--out", str(out / "out")],
                            capture_output=True, text=True)
    (out / "batch.log").write_text(result.stderr)
    records = {}
    for line in result.stdout.splitlines():
        if line.startswith("{"):
            record = json.loads(line)
            records[record.get("request_id")] = record
    off = 0
    for file, task, status, robust in chosen:
        r = records.get(file)
        if r is None:
            print(f"{file:42s} FAIL no record")
            off += 1
            continue
        got = (r["status"], r["result"]["robustness_passed"])
        ok = got == (status, robust)
        off += not ok
        c = r.get("correctness") or {}
        ratios = [(s.get("case", "seed"), s.get("tolerance_ratio"), s.get("platform_ratio"), s.get("passed_by"))
                  for s in c.get("seeds", []) + c.get("stress", []) if s.get("platform_ratio") is not None]
        sa = r["result"]["filters"]["source_analysis"]["reason"]
        err = (r.get("error") or {}).get("message", "")
        print(f"{file:42s} {'ok  ' if ok else 'FAIL'} status={got[0]} robust={str(got[1]).lower()} "
              f"below_class={c.get('below_class')} platform={ratios} source_analysis={sa[:140]!r} error={err[:200]!r}")
    print(f"adversarial_batch: {off} case(s) off their verdict of {len(chosen)}; eval exit {result.returncode}")
    return 1 if off else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
