"""One configuration per evaluation, through the CLI: the resume key, the shard key and the record
all read the job's own configuration (its request's size and dtype), never the run's flags
patched afterwards. Two relu evaluations at SMALL (bfloat16 and float32) make the records the
later runs resume from; those runs evaluate nothing they should not."""
import json

import pytest

from e2e_support import CANDIDATES, run_cli

GOOD = str(CANDIDATES / "relu_good.py")
FAST = ("--device", "cpu", "--no-timing", "--jobs", "1")


def write_batch(path, *requests):
    path.write_text("".join(json.dumps({"path": GOOD, "task": "relu", **r}) + "\n" for r in requests))
    return path


def records_of(folder):
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def recorded(env, tmp_path_factory):
    """A records folder holding one bfloat16 relu, evaluated at SMALL."""
    folder = tmp_path_factory.mktemp("job-config")
    batch = write_batch(folder / "bf16.jsonl", {"id": "bf16", "dtype": "bfloat16"})
    result = run_cli(env, "eval", "--batch", batch, "--out", folder / "run", *FAST, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    return folder


def test_a_float32_request_is_not_answered_by_a_bfloat16_record(env, recorded, tmp_path):
    """The run's --dtype (bfloat16) is not the request's (float32): the bfloat16 record must not
    stand for it. (The resume key was once built from the run's config patched by size only.)"""
    out = tmp_path / "run"
    out.mkdir()
    (out / "records.jsonl").write_text((recorded / "run" / "records.jsonl").read_text())
    batch = write_batch(tmp_path / "f32.jsonl", {"id": "f32", "dtype": "float32"})
    result = run_cli(env, "eval", "--batch", batch, "--out", out, "--dtype", "bfloat16", "--resume", *FAST,
                     timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "recorded before" not in result.stderr, result.stderr[-2000:]
    records = records_of(out)
    assert [(r["dtype"], r["config"].get("dtype", "float32")) for r in records] == [("bfloat16", "bfloat16"), ("float32", "float32")]
    assert records[0]["config_hash"] != records[1]["config_hash"]


def test_a_request_of_another_size_than_the_run_resumes_its_own_record(env, recorded, tmp_path):
    """Size mix: the bfloat16 SMALL request again, under --size medium: it is the recorded
    evaluation (its own size and dtype), so nothing is evaluated and nothing is appended."""
    out = tmp_path / "run"
    out.mkdir()
    before = (recorded / "run" / "records.jsonl").read_text()
    (out / "records.jsonl").write_text(before)
    batch = write_batch(tmp_path / "again.jsonl", {"id": "again", "size": "small", "dtype": "bfloat16"})
    result = run_cli(env, "eval", "--batch", batch, "--out", out, "--size", "medium", "--resume", *FAST,
                     timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "recorded before" in result.stderr, result.stderr[-2000:]
    assert (out / "records.jsonl").read_text() == before


def takes_it(env, batch, flags, index, count):
    """Whether shard index/count takes the batch's one request, read from the CLI's share line (the
    shards partition the work: tests/e2e/test_shard.py)."""
    result = run_cli(env, "eval", "--batch", batch, "--shard", f"{index}/{count}", "--out", batch.parent / f"s{index}",
                     "--resume", *flags, *FAST, timeout=600)
    assert f"shard {index}/{count}: " in result.stderr, result.stderr[-2000:]
    taken = f"shard {index}/{count}: 1 of the 1 selected" in result.stderr
    assert taken or f"shard {index}/{count}: 0 of the 1 selected" in result.stderr, result.stderr[-2000:]
    return taken


def test_the_shard_key_is_the_requests_size_and_dtype_not_the_flags(env, recorded, tmp_path):
    """A request names its size and dtype: the shard it falls to is the same whatever --size and
    --dtype the run gives. Every shard resumes from the recorded folder (the request is its
    bfloat16 relu), so no shard evaluates anything."""
    batch = write_batch(tmp_path / "one.jsonl", {"id": "one", "size": "small", "dtype": "bfloat16"})
    for index in (1, 2):
        (tmp_path / f"s{index}").mkdir()
        (tmp_path / f"s{index}" / "records.jsonl").write_text((recorded / "run" / "records.jsonl").read_text())
    plain = takes_it(env, batch, (), 1, 2)
    other_flags = takes_it(env, batch, ("--size", "large", "--dtype", "float16"), 1, 2)
    assert plain == other_flags
