"""The record's one schema: every fixture record (CPU and H200, ok and failed, one of a shard)
conforms to docs/record_schema.json, and any mix of records files loads as one dataset."""
import itertools
import json
import os
from pathlib import Path

import pytest

from pallasbench import filters, record_schema

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records"
FILES = sorted(FIXTURES.glob("*.jsonl"))


def records_of(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


ALL = [r for f in FILES for r in records_of(f)]


def test_fixtures_mix_what_the_schema_must_hold():
    statuses = {r["status"] for r in ALL}
    assert {"ok", "incorrect", "compile_error", "crashed", "timeout"} <= statuses, statuses
    assert {r["config"]["device"] for r in ALL} == {"cpu", "gpu"}
    assert any("timing" in r for r in ALL) and any("timing" not in r for r in ALL)
    assert any("shard" in r for r in ALL) and any("shard" not in r for r in ALL)  # run --shard I/N
    # A kernel that failed to lower: error.lowering (tests/candidates/backends/mosaic_softmax_smem.py).
    assert any("lowering" in r.get("error", {}) for r in ALL)
    assert all(r["schema_version"] == 2 for r in ALL)


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_every_fixture_record_conforms(path):
    schema = record_schema.load()
    for record in records_of(path):
        assert record_schema.check(record, schema) == [], record["kernel_name"]


def test_check_finds_a_null_an_unknown_field_and_a_changed_type():
    schema = record_schema.load()
    record = json.loads(json.dumps(ALL[0]))
    record["result"]["max_abs_error"] = None
    record["result"]["brand_new"] = 1
    record["level"] = "one"
    record["environment"] = "cpu"
    record["error"] = {"message": "m", "lowering": {"backend": "mosaic_gpu", "fixes": "smaller blocks"}}
    problems = record_schema.check(record, schema)
    assert ".result.max_abs_error: null (leave the field out instead)" in problems
    assert ".result.brand_new: not in the schema" in problems
    assert ".level: string, the schema has int64" in problems
    assert ".environment: string, the schema has an object" in problems
    assert ".error.lowering.fixes: string, the schema has a list" in problems


def test_a_field_per_registered_filter_and_no_other():
    verdict = record_schema.load_file()["result"]["filters"][record_schema.EACH_FILTER]
    assert record_schema.load()["result"]["filters"] == {name: verdict for name in filters.names()}
    schema = record_schema.load(filter_names=["output_range", "sixth"])
    assert list(schema["result"]["filters"]) == ["output_range", "sixth"]
    record = json.loads(json.dumps(ALL[0]))
    record["result"]["filters"]["sixth"] = {"passed": True, "value": 1.0, "threshold": 1.0, "direction": ">=",
                                            "reason": "ok"}
    record["result"]["filters"] = {k: v for k, v in record["result"]["filters"].items() if k in ("output_range",
                                                                                              "sixth")}
    assert record_schema.check(record, schema) == []
    record["result"]["filters"]["made_up"] = {"passed": True}
    assert record_schema.check(record, schema) == [".result.filters.made_up: not in the schema"]


def test_collapse_gives_back_the_files_form():
    inferred = record_schema.infer(ALL)
    assert set(inferred["result"]["filters"]) == {n for r in ALL for n in r["result"]["filters"]}
    collapsed = record_schema.collapse(inferred, record_schema.load_file())
    assert list(collapsed["result"]["filters"]) == [record_schema.EACH_FILTER]
    assert record_schema.merge(record_schema.load_file(), collapsed) == record_schema.load_file()


def test_merge_refuses_a_field_of_two_types():
    with pytest.raises(ValueError, match=r"\.timing: an object in one record, string in another"):
        record_schema.infer([{"timing": {"median_us": 1.0}}, {"timing": "none"}])
    assert record_schema.infer([{"x": 1}, {"x": 2.5}]) == {"x": "float64"}  # Arrow widens int64


@pytest.fixture()
def offline_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return tmp_path / "cache"


def load_json(files, cache, **kwargs):
    import datasets

    datasets.disable_progress_bars()
    return datasets.load_dataset("json", data_files=[str(f) for f in files], split="train", cache_dir=str(cache),
                                 **kwargs)


@pytest.mark.parametrize("order", list(itertools.permutations(range(len(FILES))))[:: max(1, len(FILES) - 1)])
def test_any_mix_of_files_loads_with_the_schemas_features(order, offline_cache):
    files = [FILES[i] for i in order]
    ds = load_json(files, offline_cache, features=record_schema.features())
    expected = [r for f in files for r in records_of(f)]
    assert ds.num_rows == len(expected)
    assert ds["status"] == [r["status"] for r in expected]
    assert ds["config_hash"] == [r["config_hash"] for r in expected]
    assert ds["shard"] == [r.get("shard") for r in expected]


def test_one_file_of_every_kind_loads_without_features(tmp_path, offline_cache):
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("".join(f.read_text() for f in FILES))
    ds = load_json([mixed], offline_cache)
    assert ds.num_rows == len(ALL)
    medians = [r["timing"]["median_us"] if "timing" in r else None for r in ALL]
    loaded = [(t or {}).get("median_us") for t in ds["timing"]]
    assert [m is None for m in loaded] == [m is None for m in medians]
    assert [m for m in loaded if m is not None] == pytest.approx([m for m in medians if m is not None], rel=1e-12)


def test_pandas_reads_every_file_and_the_mix():
    import pandas as pd

    frames = [pd.read_json(f, lines=True) for f in FILES]
    assert [len(f) for f in frames] == [len(records_of(f)) for f in FILES]
    mixed = pd.concat(frames, ignore_index=True)
    assert list(mixed["status"]) == [r["status"] for r in ALL]
