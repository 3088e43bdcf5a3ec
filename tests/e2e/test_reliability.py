"""Reliability on the CPU: exit codes over resumed runs, one writer per records file, candidate
bytes as data, the user's environment, CLI limits, a failing disk, scratch hygiene."""
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from e2e_support import BINARY, CANDIDATES, ROOT, run_cli

CHEAP = ["relu", "add", "exp"]


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def start(env, *args):
    return subprocess.Popen([str(BINARY), *map(str, args)], env=env, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_resumed_failure_still_fails(env, tmp_path):
    """A recorded failure counts like a fresh one: CI with --resume cannot pass a failing kernel."""
    args = ["eval", "--task", "relu", "--candidate", CANDIDATES / "relu_raises.py", "--device", "cpu", "--no-timing",
            "--out", tmp_path]
    first = run_cli(env, *args)
    assert first.returncode == 1, first.stderr
    again = run_cli(env, *args, "--resume", "--json")
    assert again.returncode == 1, again.stderr
    assert "recorded before: compile_error" in again.stderr
    assert "(1 from the records file, not run again)" in again.stderr
    assert json.loads(again.stdout)["status"] == "compile_error"  # --json prints the recorded record
    assert len(records_of(tmp_path / "records.jsonl")) == 1


def test_second_writer_is_refused_and_a_queued_one_loses_nothing(env, tmp_path):
    records = tmp_path / "records.jsonl"
    first = start(env, "run", *CHEAP, "--device", "cpu", "--no-timing", "--out", tmp_path, "--resume")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not records.exists():
        time.sleep(0.05)
    time.sleep(0.3)
    refused = run_cli(env, "run", *CHEAP, "--device", "cpu", "--no-timing", "--out", tmp_path, "--resume")
    queued = start(env, "run", *CHEAP, "log", "--device", "cpu", "--no-timing", "--out", tmp_path, "--resume",
                   "--wait-lock")
    out1, err1 = first.communicate(timeout=300)
    out2, err2 = queued.communicate(timeout=300)
    assert refused.returncode == 2, refused.stderr
    assert f"is being written by process {first.pid}" in refused.stderr, refused.stderr
    assert first.returncode == 0, out1 + err1
    assert queued.returncode == 0, out2 + err2
    assert "waiting for it (--wait-lock)" in err2
    assert "3 task(s) were recorded before" in out2
    lines = records.read_text().splitlines()
    names = [json.loads(line)["kernel_name"] for line in lines]  # every line a whole record
    assert sorted(names) == sorted(CHEAP + ["log"])  # nothing lost, nothing twice


def test_report_skips_a_cut_last_line(env, tmp_path):
    path = tmp_path / "records.jsonl"
    shutil.copy(ROOT / "tests" / "fixtures" / "records" / "cpu_failures.jsonl", path)
    whole = path.read_text()
    path.write_text(whole + whole.splitlines()[0][:200])
    result = run_cli(env, "report", path)
    assert result.returncode == 0, result.stderr
    assert f"records.jsonl:{whole.count(chr(10)) + 1}: the last line was cut short" in result.stderr


@pytest.fixture(scope="module")
def records_by_candidate(env, tmp_path_factory):
    """One `eval` of the candidates whose bytes the harness must take as Python would (or refuse
    unread), and of one that crashes its tracer: each candidate in a tracer of its own, as in an
    eval of it alone, at the cost of one harness start-up instead of five. --max-source-bytes 2048
    caps them all: only relu_big.py is over it. The exit code is 1 (some candidates fail)."""
    folder = tmp_path_factory.mktemp("candidates")
    big = folder / "relu_big.py"
    big.write_text((CANDIDATES / "relu_good.py").read_text() + "#" * 3000 + "\n")
    bad = folder / "relu_bad_coding.py"
    bad.write_bytes(b"# -*- coding: ascii -*-\nNAME = 'r\xe9lu'\n" + (CANDIDATES / "relu_good.py").read_bytes())
    files = [CANDIDATES / "relu_bad_bytes.py", CANDIDATES / "relu_latin1.py", CANDIDATES / "relu_aborts.py", big, bad]
    result = run_cli(env, "eval", "--task", "relu", "--candidates", *files, "--device", "cpu", "--no-timing", "--json",
                     "--max-source-bytes", "2048")
    assert result.returncode == 1, result.stderr
    records = {Path(r["candidate"]["path"]).name: r for r in map(json.loads, result.stdout.splitlines())}
    assert sorted(records) == sorted(f.name for f in files)
    return records


def test_non_utf8_stderr_stays_a_candidate_failure(records_by_candidate):
    record = records_by_candidate["relu_bad_bytes.py"]
    assert record["status"] == "compile_error"
    assert "bad bytes \ufffd in the message" in record["error"]["message"]
    assert "garbage \ufffd\ufffd\ufffd not utf-8" in record["stderr_tail"]
    assert "Traceback (most recent call last)" in record["error"]["traceback"]


def test_latin1_source_is_read_as_python_reads_it(records_by_candidate):
    record = records_by_candidate["relu_latin1.py"]
    assert record["status"] == "ok" and record["result"]["robustness_passed"], record["error"]  # alone: exit 0
    assert 'NAME = "r\u00e9lu"' in record["source_original"]  # decoded as latin-1, not replaced
    assert "\ufffd" not in record["source_original"]


def test_oversized_source_is_refused_unread(records_by_candidate):
    record = records_by_candidate["relu_big.py"]
    assert record["status"] == "compile_error"
    assert "over the limit of 2048 (--max-source-bytes): refused unread" in record["error"]["message"]
    assert record["source_original"] == ""


def test_source_that_does_not_decode_is_refused_as_python_would(records_by_candidate):
    """Bytes invalid in the declared encoding: Python would raise SyntaxError at import, so the
    harness refuses the file before any of it runs."""
    record = records_by_candidate["relu_bad_coding.py"]
    assert record["status"] == "compile_error"
    assert record["error"]["phase"] == "load"
    assert "relu_bad_coding.py: the source does not decode as ascii" in record["error"]["message"]


def test_crash_traceback_names_the_cpp_line(records_by_candidate):
    record = records_by_candidate["relu_aborts.py"]
    assert record["status"] == "crashed"
    assert "C++ pallasbench::worker_failure thrown at src/orchestrate/worker.cpp:" in record["error"]["traceback"]


def make_wheel(folder: Path) -> Path:
    """A wheel of one pure-Python module, userlib_pb (what `pip install --target` installs)."""
    import base64
    import hashlib
    import zipfile

    files = {"userlib_pb/__init__.py": "def relu(x):\n    import jax.numpy as jnp\n    return jnp.maximum(x, 0.0)\n",
             "userlib_pb-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: userlib-pb\nVersion: 1.0\n",
             "userlib_pb-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
                                                "Tag: py3-none-any\n"}
    record = "".join(f"{name},sha256={base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=').decode()},"
                     f"{len(text.encode())}\n" for name, text in files.items())
    wheel = folder / "userlib_pb-1.0-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr("userlib_pb-1.0.dist-info/RECORD", record + "userlib_pb-1.0.dist-info/RECORD,,\n")
    return wheel


def test_candidate_imports_from_the_users_pythonpath(env, tmp_path):
    """A library installed with `pip install --target DIR`, and DIR on PYTHONPATH."""
    target = tmp_path / "site"
    pip = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-index", "--no-deps", "--target",
                          str(target), str(make_wheel(tmp_path))], capture_output=True, text=True, timeout=120)
    assert pip.returncode == 0, pip.stderr
    assert (target / "userlib_pb" / "__init__.py").is_file()
    candidate = tmp_path / "relu_userlib.py"
    candidate.write_text((CANDIDATES / "relu_good.py").read_text().replace(
        "jnp.maximum(x_ref[...], 0.0)", "userlib_pb.relu(x_ref[...])") + "\nimport userlib_pb\n")
    user_env = {**env, "PYTHONPATH": str(target)}
    result = run_cli(user_env, "eval", "--task", "relu", "--candidate", candidate, "--device", "cpu", "--no-timing",
                     "--json")
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "import userlib_pb" in json.loads(result.stdout)["source_original"]


@pytest.mark.parametrize("args, says", [
    (["--out", "{file}"], "--out {file}: "),
    (["--out", "/proc/pallasbench/out"], "--out /proc/pallasbench/out: cannot create the folder"),
    (["--device", "gpu"], "--device gpu: JAX sees no GPU here: "),
    (["--max-source-bytes", "0"], "--max-source-bytes 0: a positive number of bytes"),
])
def test_bad_values_are_refused_up_front(env, tmp_path, args, says):
    file = tmp_path / "a_file"
    file.write_text("")
    args = [a.format(file=file) for a in args]
    result = run_cli(env, "eval", "--task", "relu", "--candidate", CANDIDATES / "relu_good.py", "--no-timing", *args)
    assert result.returncode == 2, result.stderr
    assert says.format(file=file) in result.stderr, result.stderr


def test_failed_write_keeps_every_earlier_record(env, tmp_path):
    """The records file reaches a size limit (RLIMIT_FSIZE) mid-run: a clear error, exit 3, and
    the file ends with the records written before."""
    if not shutil.which("prlimit"):
        pytest.skip("prlimit (util-linux) is not installed")
    records = tmp_path / "records.jsonl"
    first = run_cli(env, "run", "relu", "--device", "cpu", "--no-timing", "--out", tmp_path)
    assert first.returncode == 0, first.stderr
    kept = records.read_bytes()
    limited = subprocess.run(["prlimit", f"--fsize={len(kept) + 64}", str(BINARY), "run", "relu", "add", "--device",
                              "cpu", "--no-timing", "--out", str(tmp_path), "--resume"],
                             env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert limited.returncode == 3, limited.stdout + limited.stderr
    assert "task 'add' (small/mosaic_gpu)" in limited.stderr and "cannot append the record" in limited.stderr
    assert "File too large" in limited.stderr and "ends with the last complete record" in limited.stderr
    assert records.read_bytes() == kept


def scratch_folders(pid: int) -> set[str]:
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path("/tmp")
    return {p.name for p in base.glob(f"pallasbench-{pid}-*")}


def test_scratch_of_a_killed_run_is_removed_by_the_next(env, tmp_path):
    proc = start(env, "run", *CHEAP, "--device", "cpu", "--no-timing", "--out", tmp_path)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not scratch_folders(proc.pid):
        time.sleep(0.05)
    mine = scratch_folders(proc.pid)
    assert len(mine) == 1, mine
    base = Path("/dev/shm") if Path("/dev/shm").is_dir() else Path("/tmp")
    assert (base / next(iter(mine))).stat().st_mode & 0o777 == 0o700
    proc.kill()
    proc.communicate(timeout=60)
    assert scratch_folders(proc.pid) == mine  # kill -9: nothing could remove it
    again = start(env, "run", "relu", "--device", "cpu", "--no-timing", "--out", tmp_path / "again")
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert not scratch_folders(proc.pid)  # the next run removed the dead run's folder
    assert not scratch_folders(again.pid)  # and its own as it ended
