"""--compile-cache DIR through the CLI: the records say whether each compile hit JAX's persistent
cache (compile.cache), off by default; the folder reaches the trusted executor, not the tracer."""
import json
import sys
from pathlib import Path

from e2e_support import ROOT, run_cli

sys.path.insert(0, str(ROOT / "python"))
from pallasbench import record_schema  # noqa: E402


def run_relu(env, out: Path, *flags) -> dict:
    result = run_cli(env, "run", "relu", "--device", "cpu", "--no-timing", "--out", out, *flags)
    assert result.returncode == 0, result.stdout + result.stderr
    [record] = [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]
    assert record["status"] == "ok"
    assert record_schema.check(record, record_schema.load()) == []
    return record


def test_records_say_whether_the_compile_hit(env, tmp_path):
    cold = run_relu(env, tmp_path / "none")
    assert cold["compile"]["cache"] == {"enabled": False}  # hit unknown: no lookup, left out

    folder = tmp_path / "cache"  # created by the harness
    first = run_relu(env, tmp_path / "first", "--compile-cache", folder)
    assert first["compile"]["cache"] == {"enabled": True, "hit": False}
    keys = {p.name for p in folder.iterdir() if p.name.startswith("jit_call-")}
    assert len(keys) == 1  # the candidate's module; the tracer never wrote here (it exports, never compiles)
    second = run_relu(env, tmp_path / "second", "--compile-cache", folder)
    assert second["compile"]["cache"] == {"enabled": True, "hit": True}
    assert {p.name for p in folder.iterdir() if p.name.startswith("jit_call-")} == keys


def test_a_file_is_no_cache_folder(env, tmp_path):
    (tmp_path / "file").write_text("")
    result = run_cli(env, "eval", "--task", "relu", "--candidate", ROOT / "tasks" / "level1" / "relu.py",
                     "--device", "cpu", "--compile-cache", tmp_path / "file")
    assert result.returncode == 2 and "--compile-cache" in result.stderr and "not a folder" in result.stderr
