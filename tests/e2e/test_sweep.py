"""`run --size A,B --dtype C,D`: a sweep in one invocation (nvbench's axes), one records file, one
job per (task, size, dtype), each with its own resume key. one_hot: a task cheap at MEDIUM too."""
import json

from e2e_support import run_cli


def test_sweep_runs_every_size_and_dtype_once(env, tmp_path):
    args = ("run", "one_hot", "--backend", "triton", "--device", "cpu", "--no-timing", "--jobs", "1",
            "--out", tmp_path)
    result = run_cli(env, *args, "--size", "small,medium", "--dtype", "float32,bfloat16")
    assert result.returncode == 0, result.stdout + result.stderr
    records = [json.loads(line) for line in (tmp_path / "records.jsonl").read_text().splitlines()]
    # Sizes outermost, then dtypes: the records and the summary come grouped by them.
    assert [(r["size"], r["dtype"]) for r in records] == [
        ("small", "float32"), ("small", "bfloat16"), ("medium", "float32"), ("medium", "bfloat16")]
    assert len({r["config_hash"] for r in records}) == 4
    assert ("small: 1 of 1 passed; small/bfloat16: 1 of 1 passed; medium: 1 of 1 passed; "
            "medium/bfloat16: 1 of 1 passed") in result.stdout
    assert "small,medium" in result.stdout  # the run's header names the sweep's sizes

    # Resume keys per job: the same sweep (in another order) finds all four recorded, a wider one
    # runs only what is new.
    again = run_cli(env, *args, "--size", "medium,small", "--dtype", "bfloat16,float32", "--resume")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "4 task(s) were recorded before" in again.stdout
    assert len((tmp_path / "records.jsonl").read_text().splitlines()) == 4

    bad = run_cli(env, "run", "one_hot", "--size", "small,huge", "--device", "cpu")
    assert bad.returncode == 2
    assert "unknown size 'huge'" in bad.stderr
