"""`pallasbench export` on a real CPU run (suite kernels timed on the wall clock, a failing
candidate) mixed with H200 records (timed with CUPTI, failures): both formats load with
`datasets.load_dataset` and with pandas, every column of one type across rows; the card's numbers
are the ones recomputed here from the records; refusals exit 2."""
import json
import shutil
import math
import re
import statistics
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from e2e_support import CANDIDATES, ROOT, run_cli
from pallasbench import filters, record_schema
from pallasbench.tools import dataset_files

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records"
FORMATS = ("jsonl", "parquet")


def records_in(path: Path) -> list[dict]:
    path = path / "records.jsonl" if path.is_dir() else path
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module")
def exported(env, tmp_path_factory):
    """Two tasks run on the CPU, one failing candidate, three fixture files; exported as each format."""
    base = tmp_path_factory.mktemp("export")
    proc = run_cli(env, "run", "relu", "softmax", "--size", "small", "--device", "cpu", "--out", base / "run")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    proc = run_cli(env, "eval", "--task", "relu", "--candidates", CANDIDATES / "relu_wrong_shape.py",
                   "--size", "small", "--device", "cpu", "--out", base / "failing")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    # gpu_failures.jsonl names --artifacts files paths the fixture does not hold: refused as is,
    # exported (the files copied into the dataset) once placeholder files stand beside a copy.
    proc = run_cli(env, "export", FIXTURES / "gpu_failures.jsonl", "--to", base / "refused", timeout=120)
    assert proc.returncode == 2 and "artifacts/relu.small.23a7bca1/kernel.ptx: no file" in proc.stderr, proc.stderr
    assert not (base / "refused").exists()
    (base / "gpu").mkdir()
    shutil.copy(FIXTURES / "gpu_failures.jsonl", base / "gpu" / "records.jsonl")
    for record in records_in(base / "gpu"):
        for entry in (e for e in record["artifacts"].values() if isinstance(e, dict) and "path" in e):
            (base / "gpu" / entry["path"]).parent.mkdir(parents=True, exist_ok=True)
            (base / "gpu" / entry["path"]).write_text(f"placeholder for {entry['path']}")
    inputs = [base / "run", base / "failing", *(FIXTURES / f for f in ("gpu_ok.jsonl", "cpu_ok.jsonl")), base / "gpu"]
    folders = {}
    for fmt in FORMATS:
        folders[fmt] = base / f"dataset_{fmt}"
        proc = run_cli(env, "export", *inputs, "--to", folders[fmt], "--format", fmt, timeout=120)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return {"records": [r for path in inputs for r in records_in(path)], "folders": folders, "base": base}


def test_the_mix_holds_what_the_export_must_carry(exported):
    records = exported["records"]
    assert {r["timing"]["timer"] for r in records if "timing" in r} == {"wall", "cupti"}
    assert {"ok", "incorrect", "compile_error", "crashed", "timeout"} <= {r["status"] for r in records}
    assert {r["level"] for r in records} == {1, 2}
    assert any(r["run_id"] == records[0]["run_id"] and r["config"]["device"] == "cpu" for r in records)


def test_artifact_files_travel_with_the_dataset(exported):
    for folder in exported["folders"].values():
        for record in records_in(exported["base"] / "gpu"):
            for entry in (e for e in record["artifacts"].values() if isinstance(e, dict) and "path" in e):
                assert (folder / entry["path"]).read_text() == f"placeholder for {entry['path']}"


def test_records_hold_no_absolute_local_path(exported):
    """Records are read on other machines: the candidate's path and module name are relative to
    the repository (a candidate outside it keeps its file name alone)."""
    fresh = records_in(exported["base"] / "run") + records_in(exported["base"] / "failing")
    assert {r["candidate"]["path"] for r in fresh if r["candidate"]["kind"] == "suite"} == {
        "tasks/level1/relu.py", "tasks/level1/softmax.py"}
    candidate = next(r for r in fresh if r["candidate"]["kind"] == "user")
    expected = (CANDIDATES / "relu_wrong_shape.py").relative_to(ROOT).as_posix()
    assert candidate["candidate"]["path"] == candidate["module_name"] == expected
    for record in fresh:
        for path in (record["candidate"]["path"], record["module_name"]):
            assert not Path(path).is_absolute() and str(ROOT) not in path, path


LEAVES = {"string": (str,), "int64": (int, np.integer), "float64": (float, np.floating), "bool": (bool, np.bool_)}


def is_null(value) -> bool:
    """None, or pandas' marks of a missing value (NA, a NaN: JSON records hold no NaN)."""
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def departures(value, tree, path="") -> list[str]:
    """Where a loaded value is not of the schema's type (null is allowed anywhere)."""
    if is_null(value):
        return []
    if isinstance(tree, dict):
        if not isinstance(value, dict) or set(value) != set(tree):
            return [f"{path}: {type(value).__name__} with fields {sorted(value) if isinstance(value, dict) else ''}"]
        return [p for key in tree for p in departures(value[key], tree[key], f"{path}.{key}")]
    if isinstance(tree, list):
        if not isinstance(value, (list, np.ndarray)):
            return [f"{path}: {type(value).__name__}, not a list"]
        return [p for i, item in enumerate(value) for p in departures(item, tree[0], f"{path}[{i}]")]
    wrong_int = tree == "int64" and isinstance(value, (bool, np.bool_))
    return [] if isinstance(value, LEAVES[tree]) and not wrong_int else [f"{path}: {value!r} is not {tree}"]


def kind(value) -> str:
    return "list" if isinstance(value, np.ndarray) else type(value).__name__


@pytest.mark.parametrize("fmt", FORMATS)
def test_loads_with_datasets_in_the_cards_schema(exported, fmt, tmp_path, monkeypatch):
    import datasets

    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    datasets.disable_progress_bars()
    ds = datasets.load_dataset(str(exported["folders"][fmt]), split="train", cache_dir=str(tmp_path / "cache"))
    schema = dataset_files.export_schema()
    assert ds.features == record_schema.features(schema)  # the card's, not types guessed from rows
    records = exported["records"]
    assert ds["uuid"] == [r["uuid"] for r in records]
    assert [t and t["speedup"] for t in ds["timing"]] == [r.get("timing", {}).get("speedup") for r in records]
    assert ds["result"] == [{**dict.fromkeys(schema["result"]), **r["result"],
                             "filters": ds["result"][i]["filters"]} for i, r in enumerate(records)]
    for row in ds:
        assert departures(row, schema) == [], row["uuid"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_loads_with_pandas_each_column_of_one_type(exported, fmt):
    path = exported["folders"][fmt] / dataset_files.data_file(fmt)
    # Parquet keeps Arrow's types with the pyarrow backend (numpy's would turn a nested int column
    # that has nulls into floats); JSON lines parse to Python's own types either way.
    frame = pd.read_json(path, lines=True) if fmt == "jsonl" else pd.read_parquet(path, dtype_backend="pyarrow")
    schema = dataset_files.export_schema()
    assert list(frame.columns) == list(schema)
    assert list(frame["status"]) == [r["status"] for r in exported["records"]]
    for column in frame.columns:
        kinds = {kind(v) for v in frame[column] if not is_null(v)}
        assert len(kinds) <= 1, (column, kinds)
    for row in frame.to_dict(orient="records"):
        assert departures(row, schema) == [], row["uuid"]


def card(exported, fmt="jsonl") -> tuple[dict, str]:
    text = (exported["folders"][fmt] / "README.md").read_text()
    _, front, body = text.split("---\n", 2)
    return yaml.safe_load(front), body


def rate(records, passed) -> str:
    n = sum(1 for r in records if passed(r))
    return f"{n}/{len(records)} ({100 * n / len(records):.1f}%)"


def test_front_matter_points_at_the_data_file(exported):
    for fmt in FORMATS:
        meta, _ = card(exported, fmt)
        (config,) = meta["configs"]
        path = config["data_files"][0]["path"]
        assert path == f"data/train-00000-of-00001.{fmt}" and (exported["folders"][fmt] / path).is_file()
        assert meta["license"] == "other"  # user candidates declare no license, suite kernels Apache-2.0
        assert meta["size_categories"] == ["n<1K"]
        assert [f["name"] for f in meta["dataset_info"]["features"]] == list(dataset_files.export_schema())


def test_card_counts_and_pass_rates_are_the_records(exported):
    records = exported["records"]
    _, body = card(exported)
    assert body.startswith(f"\n# PallasBench records\n\n{len(records)} evaluation records")
    statuses = ", ".join(f"{s} ({n})" for s, n in Counter(r["status"] for r in records).most_common())
    assert f"- status: {statuses}\n" in body
    dtypes = Counter(r.get("dtype") for r in records)  # records from before the dtype axis lack it
    assert dtypes["float32"] >= 3
    shown = ", ".join(f"{d or 'not recorded'} ({n})" for d, n in dtypes.most_common())
    assert f"- dtype: {shown}\n" in body
    for level in (1, 2):
        group = [r for r in records if r["level"] == level]
        tasks = len({r["kernel_name"] for r in group})
        assert f"| level {level} | {tasks} | {len(group)} |\n" in body
        assert (f"| level {level} | {len(group)} | {rate(group, lambda r: r['status'] == 'ok')} | "
                f"{rate(group, lambda r: r['result']['correctness_passed'])} | "
                f"{rate(group, lambda r: r['result']['robustness_passed'])} | "
                f"{rate(group, lambda r: r['status'] == 'ok' and r['result']['robustness_passed'])} |\n") in body
    assert f"| all | {len(records)} | {rate(records, lambda r: r['status'] == 'ok')} |" in body


def test_card_speedups_are_geomeans_of_the_records(exported):
    records = exported["records"]
    _, body = card(exported)
    timed = [r for r in records if "speedup" in r.get("timing", {})]
    assert {r["config"]["device"] for r in timed} == {"gpu"}  # the CPU's wall clock gives none
    kept = [r["timing"]["speedup"] for r in timed if r["status"] == "ok" and r["result"]["robustness_passed"]]
    assert f"| level 1 | {len(timed)} | {len(kept)} | {statistics.geometric_mean(kept):.3f}x |\n" in body
    assert f"{len(timed)} of {len(records)} records have a speedup." in body
    matmul = [r for r in timed if r["category"] == "matmul"]
    assert matmul and not any(r["result"]["robustness_passed"] for r in matmul)  # none passed: no geomean
    assert f"| matmul | {len(matmul)} | 0 | - |\n" in body


def test_card_environment_filters_and_timers_are_the_records(exported):
    records = exported["records"]
    _, body = card(exported)
    gpu = Counter(r["environment"].get("gpu_name") for r in records)
    assert f"| GPU | NVIDIA H200 ({gpu['NVIDIA H200']}), not recorded ({gpu[None]}) |" in body
    jax_versions = Counter(r["environment"]["jax"] for r in records)
    assert set(jax_versions) >= {"0.10.2", "0.11.2"}
    assert "| jax | " + ", ".join(f"{v} ({n})" for v, n in jax_versions.most_common()) + " |" in body
    ran = [r for r in records if not r["result"]["filters"]["source_analysis"]["reason"].startswith("not run:")]
    passed = sum(r["result"]["filters"]["source_analysis"]["passed"] for r in ran)
    assert re.search(rf"\| `source_analysis` \|.*\| 0\.05 \({len(ran)}\) \| {len(ran)} \| {passed} \|\n", body)
    for timer in ("wall", "cupti"):
        n = sum(1 for r in records if r.get("timing", {}).get("timer") == timer)
        assert f"### `{timer}` ({n} records)" in body
    wall_on_cpu = sum(1 for r in records if r.get("timing", {}).get("timer") == "wall")
    assert f"host wall clock, {wall_on_cpu} of them in Pallas interpret mode on the CPU" in body


def test_every_registered_filter_is_in_the_records_and_the_card(exported):
    """Whatever the registry holds: a new filter reaches the records, the schema and the card with
    no line elsewhere (docs/filters.md, "Adding a filter")."""
    fresh = records_in(exported["base"] / "run") + records_in(exported["base"] / "failing")
    _, body = card(exported)
    for d in filters.descriptions():
        verdicts = [r["result"]["filters"][d.name] for r in fresh]
        assert all(v["direction"] == d.direction for v in verdicts), d.name
        ran = [v for v in verdicts if not v["reason"].startswith("not run:")]
        assert ran and all(v["threshold"] == d.threshold for v in ran), d.name
        assert f"| `{d.name}` | {d.checks.replace('|', chr(92) + '|')} | {d.passes_when} |" in body
        assert d.name in dataset_files.export_schema()["result"]["filters"]


def test_card_prints_no_missing_value_where_a_number_belongs(exported):
    for fmt in FORMATS:
        _, body = card(exported, fmt)
        assert re.findall(r"\b(None|nan|NaN|inf|Infinity)\b", body) == []
        assert "()" not in body and "(-)" not in body


def test_refuses_a_folder_that_is_not_empty(env, exported):
    target = exported["folders"]["jsonl"]
    before = sorted(p.name for p in target.iterdir())
    proc = run_cli(env, "export", FIXTURES / "gpu_ok.jsonl", "--to", target, timeout=60)
    assert proc.returncode == 2
    assert f"pallasbench: error: --to {target}: exists and is not an empty folder" in proc.stderr
    assert sorted(p.name for p in target.iterdir()) == before


def test_refuses_an_unreadable_input(env, exported):
    target = exported["base"] / "never"
    proc = run_cli(env, "export", FIXTURES / "gpu_ok.jsonl", exported["base"] / "no_run", "--to", target, timeout=60)
    assert proc.returncode == 2
    assert f"cannot read records file {exported['base'] / 'no_run'}" in proc.stderr
    assert not target.exists()


def test_refuses_records_of_two_schema_versions(env, exported, tmp_path):
    old = tmp_path / "schema1.jsonl"
    old.write_text(json.dumps({**exported["records"][0], "schema_version": 1}) + "\n")
    target = tmp_path / "never"
    proc = run_cli(env, "export", exported["base"] / "run", old, "--to", target, timeout=60)
    assert proc.returncode == 2
    assert "records of different schema_version: 2 (" in proc.stderr and f"1 ({old}:1)" in proc.stderr
    assert not target.exists()
