"""A soak: 50 consecutive evaluations in one `eval` of the e2e candidates (honest, printing,
raising, crashing, wrong) leave the harness's open fds and its processes at the counts they
typically had in the first half, no scratch file outlives the evaluations around it, and every repetition of a
candidate gets the same verdict.
(The failing candidates' checks live here: five repetitions each instead of one eval each.)"""
import itertools
import json
import re
import os
import subprocess
from pathlib import Path

import pytest

from e2e_support import BINARY, CANDIDATES, ROOT

# candidate -> (status, what the error or the stderr tail says; "" for ok)
VERDICTS = {
    "relu_good.py": ("ok", ""),
    # stdout prints cannot forge the protocol's replies
    "relu_prints.py": ("ok", ""),
    "relu_syntax_error.py": ("compile_error", "syntax error"),
    "relu_raises.py": ("compile_error", "this candidate refuses to trace"),
    # A host callback that raises when run: no host callback is handed to the executor at all.
    "relu_runtime_error.py": ("compile_error", "host callback 'pure_callback'"),
    "relu_returns_tuple.py": ("runtime_error", "'kernel' returns 2 arrays, expected one"),
    "relu_wrong_shape.py": ("incorrect", "shape (512, 256) differs from the reference's (512, 512)"),
    "relu_wrong_dtype.py": ("incorrect", "dtype float16 differs from the reference's float32"),
    "relu_nan.py": ("incorrect", "NaN/Inf elements where the reference is finite"),
    # The tracer is the init of its PID namespace, which its own SIGABRT cannot kill: glibc's
    # abort() then ends it with a fault (SIGSEGV). Either way a signal, and the candidate's.
    "relu_aborts.py": ("crashed", "signal"),
}
# Each evaluation starts a sandboxed tracer (~3 CPU-s on the CI machine): 100 cost CI ~300 CPU-s.
# 50 keep every check's reach: a leak of one fd or process per evaluation would raise the last ten
# snapshots' floor ~30 above the first half's median (one every ten evaluations: ~3), a scratch
# file leaked in any of the first 30 evaluations (every candidate three times) stays in more than
# the 20 snapshots allowed, and each candidate runs five times, interleaved with the others.
EVALS = 50
WINDOW = 10
# Snapshots are taken as records arrive, while the other lane is mid-evaluation, so the count of
# scratch files at any one snapshot is whatever that evaluation holds then. A leak is a file that
# stays: one seen at more snapshots than this (the other lane's evaluations take a few) was kept.
MAX_FILE_LIFETIME = 20


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        pid, ppid = int(text.split()[0]), int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def scratch_files(pid: int) -> set[tuple[str, int, int]]:
    """Each scratch file as (path, inode, mtime): a file removed and written again is a new one."""
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path("/tmp")
    found = set()
    for folder in base.glob(f"pallasbench-{pid}-*"):
        for path in folder.rglob("*"):
            try:
                st = path.lstat()
            except OSError:  # removed while we walked
                continue
            if path.is_file():
                found.add((str(path), st.st_ino, st.st_mtime_ns))
    return found


def snapshot(pid: int) -> tuple[int, int, set]:
    return len(os.listdir(f"/proc/{pid}/fd")), len(descendants(pid)), scratch_files(pid)


def longest_lived(snapshots: list[tuple[int, int, set]]) -> tuple[int, object]:
    """The most snapshots any one scratch file was seen at, and that file."""
    seen: dict[tuple, int] = {}
    for _, _, files in snapshots:
        for file in files:
            seen[file] = seen.get(file, 0) + 1
    return max(((n, f) for f, n in seen.items()), default=(0, None), key=lambda item: item[0])


@pytest.fixture(scope="module")
def soak(env, tmp_path_factory):
    out = tmp_path_factory.mktemp("soak")
    candidates = list(itertools.islice(itertools.cycle(VERDICTS), EVALS))
    args = [a for c in candidates for a in ("--candidate", str(CANDIDATES / c))]
    # Two lanes: each its own reference and executor, a tracer per candidate, all threads of one run.
    proc = subprocess.Popen([str(BINARY), "eval", "--task", "relu", *args, "--device", "cpu", "--no-timing",
                             "--jobs", "2", "--out", str(out)], env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    seen, workers = [], set()
    for line in proc.stderr:  # one progress line as each evaluation ends
        if re.match(rf"\[\d+/{EVALS}\] relu", line):
            seen.append(snapshot(proc.pid))
            workers |= descendants(proc.pid)
    returncode = proc.wait(timeout=120)
    records = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    return {"pid": proc.pid, "returncode": returncode, "records": records, "snapshots": seen, "workers": workers,
            "candidates": candidates}


def test_fifty_evals_leak_nothing(soak):
    assert soak["returncode"] == 1  # some candidates fail
    records, seen = soak["records"], soak["snapshots"]
    assert len(records) == EVALS and len(seen) == EVALS
    assert [Path(r["candidate"]["path"]).name for r in records] == soak["candidates"]
    # What the lanes hold in flight varies snapshot to snapshot: a tracer being spawned holds its
    # pipes for a moment (+4 fds at one snapshot of a hundred in one CI run). A leak is what stays,
    # so it raises the floor: the fewest fds (processes) of the last snapshots may not exceed the
    # first half's typical (median) count.
    start = [c[:2] for c in seen[1:EVALS // 2]]
    end = [c[:2] for c in seen[-WINDOW:]]
    typical = tuple(sorted(c[i] for c in start)[len(start) // 2] for i in range(2))
    print(f"fds, processes: median in evals 2-{EVALS // 2} {typical}; the last {WINDOW} {end}")
    for what, index in (("open fds", 0), ("processes", 1)):
        assert min(c[index] for c in end) <= typical[index], (what, start, end)
    lifetime, file = longest_lived(seen)
    print(f"scratch files per snapshot: {[len(c[2]) for c in seen]}; longest lived {lifetime} snapshots: {file}")
    assert lifetime <= MAX_FILE_LIFETIME, (lifetime, file)
    assert not scratch_files(soak["pid"])
    assert not [pid for pid in soak["workers"] if Path(f"/proc/{pid}").exists()]  # no worker outlives the run


@pytest.mark.parametrize("candidate", list(VERDICTS), ids=[c.removesuffix(".py") for c in VERDICTS])
def test_every_repetition_gets_the_candidates_verdict(soak, candidate):
    status, message = VERDICTS[candidate]
    mine = [r for r in soak["records"] if Path(r["candidate"]["path"]).name == candidate]
    assert len(mine) == EVALS // len(VERDICTS)
    for record in mine:
        assert record["status"] == status, record.get("error")
        if status == "ok":
            assert record["result"]["correctness_passed"] and record["result"]["robustness_passed"]
            continue
        assert message in record["error"]["message"] or message in record.get("stderr_tail", "")
        assert record["result"]["correctness_passed"] is False
        assert record["result"]["robustness_passed"] is False
    if candidate == "relu_aborts.py":
        assert all(r["error"]["phase"] == "trace" for r in mine)
