"""The committed release (dataset/, `make dataset`, docs/dataset.md): every config loads with
`datasets.load_dataset("dataset/", config)` and with pandas, its rows and columns are the card's,
no row holds a local path, and the verdicts' expectations are still the ones the tests state.
Then the release tool's parts on small inputs: the path rules, the ports' cut of a bundle, the
suite's refusals, the SASS trim. The byte-for-byte rebuild is `make dataset-check` (~7 s)."""
import copy
import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from pallasbench.tools import ToolUsageError, release, release_paths, release_ports, release_verdicts

ROOT = Path(__file__).resolve().parents[2]
DATASET = ROOT / "dataset"
MANIFEST = json.loads((DATASET / "manifest.json").read_text())


def card() -> dict:
    return yaml.safe_load((DATASET / "README.md").read_text().split("---\n")[1])


CARD = card()
INFOS = {info["config_name"]: info for info in CARD["dataset_info"]}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    from datasets import load_dataset

    cache = tmp_path_factory.mktemp("hf_cache")
    return {name: load_dataset(str(DATASET), name, split="train", cache_dir=str(cache)) for name in release.CONFIGS}


def test_the_card_names_each_config_and_its_file():
    assert [c["config_name"] for c in CARD["configs"]] == list(release.CONFIGS)
    for config in CARD["configs"]:
        (file,) = config["data_files"]
        assert file["path"] == release.data_file(config["config_name"]) and (DATASET / file["path"]).is_file()
    assert sorted(p.relative_to(DATASET).as_posix() for p in (DATASET / "data").rglob("*") if p.is_file()) == \
        sorted(release.data_file(n) for n in release.CONFIGS)


@pytest.mark.parametrize("name", release.CONFIGS)
def test_each_config_loads_with_the_cards_rows_and_features(loaded, name):
    from datasets import Features

    dataset = loaded[name]
    info = INFOS[name]
    assert dataset.num_rows == info["splits"][0]["num_examples"]
    assert dataset.features == Features._from_yaml_list(info["features"])
    frame = pd.read_parquet(DATASET / release.data_file(name))
    assert len(frame) == dataset.num_rows and list(frame.columns) == list(dataset.features)


@pytest.mark.parametrize("name", release.CONFIGS)
def test_no_row_holds_a_local_path(name):
    import pyarrow.parquet as pq

    rows = pq.read_table(DATASET / release.data_file(name)).to_pylist()  # every string, at any depth
    assert rows and [(i, hit) for i, row in enumerate(rows) for hit in release_paths.local_paths(row)] == []


def test_the_release_is_of_one_binary_and_one_run_per_key(loaded):
    suite = loaded["suite"]
    assert set(suite["sha"]) <= {MANIFEST["binary"]["sha"]}
    keys = list(zip(suite["kernel_name"], suite["size"], suite["dtype"], suite["backend"]))
    assert len(keys) == len(set(keys))


def test_ports_are_the_suites_tasks_with_both_backends(loaded):
    suite, ports = loaded["suite"], loaded["ports"]
    backends: dict[str, set] = {}
    for task, backend in zip(suite["kernel_name"], suite["backend"]):
        backends.setdefault(task, set()).add(backend)
    assert ports["kernel_name"] == sorted(t for t, b in backends.items() if {"triton", "mosaic_gpu"} <= b)
    for row in ports:
        assert row["source_original"] != row["source_fixed"] and row["diff"].startswith("--- ")
        assert row["source_note"] is None  # cut from the very task file the records hashed


def test_the_verdicts_expectations_are_the_ones_the_tests_state(loaded):
    """An edit of the corpus tables (tests/e2e/test_adversarial.py, the GPU scripts, the guide's
    markers) without `make dataset` fails here."""
    stated = release_verdicts.expectations(ROOT, MANIFEST)
    columns = ["candidate", "dtype", "class", "expected_status", "expected_robust", "stated_in",
               "gpu_expected_status", "gpu_expected_robust"]
    committed = loaded["verdicts"].select_columns(columns).to_list()
    assert committed == [{c: row[c] for c in columns} for row in stated]
    for row in loaded["verdicts"]:
        assert (row["gpu_status"] is None) == (row["gpu_missing_reason"] is not None)
        assert row["source"] == (ROOT / row["candidate"]).read_text()


def test_local_paths_are_rewritten_and_any_other_is_found():
    roots = release_paths.checkout_roots([{"candidate": {"kind": "suite", "path": "/srv/x/tasks/level1/add.py"},
                                           "module_name": "tasks.level1.add"}])
    assert roots == ["/srv/x"]
    row = release_paths.rewrite({"error": {"traceback": 'File "/srv/x/python/pallasbench/a.py", File '
                                           '"/opt/v/lib/python3.12/site-packages/jax/b.py", "/usr/lib/python3.12/c.py"'},
                                 "trust": "/sys/fs/cgroup/api/abc/bench: no controller; a tmpfs for /tmp",
                                 "source_original": 'open("/tmp/x")'}, roots)
    assert row["error"]["traceback"] == ('File "python/pallasbench/a.py", File "<site-packages>/jax/b.py", '
                                         '"<python-stdlib>/c.py"')
    assert row["trust"] == "<cgroup>: no controller; a tmpfs for /tmp"
    assert release_paths.local_paths(row) == []  # code naming /tmp/... is the code's, not where it ran
    assert release_paths.local_paths({"a": ["ok", {"b": "at /home/me/run"}]}) == [("a[1].b", "at /home/me/run")]
    with pytest.raises(ToolUsageError, match="suite row k: a: "):
        release_paths.check_rows("suite", [{"a": "/work/main/x"}], lambda r: "k")


BUNDLE = '''NAME = "t"
from pallasbench.kernels import fast, slow as s
def kernel(x):
    return s.run(x)
BACKENDS = {"mosaic_gpu": fast.TABLE[NAME], "triton": kernel}

# ---- pallasbench.kernels.fast ----
from .shared import helper
def _one(x):
    return helper(x)
def unused(x):
    return x
TABLE = {"t": _one}

# ---- pallasbench.kernels.shared ----
def helper(x):
    return x

# ---- pallasbench.kernels.slow ----
def run(x):
    return x
'''


def test_a_backends_source_is_what_its_entry_reaches():
    modules = release_ports.parse_bundle(BUNDLE, "test")
    triton = release_ports.backend_source(modules, "triton", "test")
    mosaic = release_ports.backend_source(modules, "mosaic_gpu", "test")
    assert "def kernel" in triton and "def run" in triton and "fast" not in triton
    assert "TABLE = " in mosaic and "def _one" in mosaic and "def helper" in mosaic and "NAME = " in mosaic
    assert "def unused" not in mosaic and "def kernel" not in mosaic and "def run" not in mosaic


def test_a_port_without_a_bundle_or_with_another_task_file_says_so():
    pair = [{"triton_code": BUNDLE, "task_sha256": "0" * 64, "backend": b} for b in ("triton", "mosaic_gpu")]
    assert release_ports.sources("t", pair)[3] == "the bundled task file does not hash to the record's task_sha256"
    empty = [{**r, "triton_code": ""} for r in pair]
    assert release_ports.sources("t", empty) == (None, None, None, "the records hold no bundled source "
                                                                     "(triton_code): no port source")
    with pytest.raises(ToolUsageError, match="2 different bundled sources"):
        release_ports.sources("t", [pair[0], empty[1]])


def record(**changes) -> dict:
    base = {"kernel_name": "relu", "size": "medium", "dtype": "float32", "backend": "triton", "sha": "abc",
            "schema_version": 2, "config": {"device": "gpu"}, "candidate": {"kind": "suite"}, "_records_file": "f:1"}
    return {**base, **changes}


def test_the_suite_refuses_another_binary_a_second_run_and_file_artifacts():
    release.check_suite([record(), record(backend="mosaic_gpu")], {"abc"})
    with pytest.raises(ToolUsageError, match="sha zzz, not the manifest's binary abc"):
        release.check_suite([record(sha="zzz")], {"abc"})
    with pytest.raises(ToolUsageError, match="two records of"):
        release.check_suite([record(), record(_records_file="f:2")], {"abc"})
    with pytest.raises(ToolUsageError, match="--artifacts inline"):
        release.trim_artifacts(record(artifacts={"ptx": {"path": "artifacts/x/kernel.ptx"}}))


def test_another_commit_counts_as_the_binary_only_when_git_shows_the_same_code():
    sha = MANIFEST["binary"]["sha"]
    assert release.same_code_shas({"sha": sha}) == {sha}
    with pytest.raises(ToolUsageError, match=f"{'0' * 40} is not the code of {sha}"):
        release.same_code_shas({"sha": sha, "same_code_shas": ["0" * 40]})


def test_sass_keeps_the_records_own_kernels_only():
    sass = "\n\tcode for sm_90a\n\t\tFunction : mine\n A;\n\t\tFunction : other\n B;\n"
    trimmed = record(artifacts={"sass": {"text": sass, "bytes": len(sass)}, "summary": {"kernels": [{"name": "mine"}]}})
    assert release.trim_artifacts(trimmed) == (1, len("\n\t\tFunction : other\n B;\n"))
    assert "other" not in trimmed["artifacts"]["sass"]["text"] and "mine" in trimmed["artifacts"]["sass"]["text"]
    kept = copy.deepcopy(trimmed)
    assert release.trim_artifacts(kept) == (0, 0)
    unnamed = record(artifacts={"sass": {"text": sass, "bytes": len(sass)}, "summary": {"kernels": [{"name": "x"}]}})
    assert release.trim_artifacts(unnamed) == (0, 0) and unnamed["artifacts"]["sass"]["text"] == sass


def test_a_manifest_without_gpu_suite_records_builds_and_the_card_says_so(tmp_path, monkeypatch):
    """The state before a GPU run of a new binary: the verdicts are built, suite and ports are
    empty and the card says so; a release over the size limit is refused and leaves the folder as it was."""
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({**MANIFEST, "suite": [], "verdicts": []}))
    target = tmp_path / "release"
    assert release.build(manifest, target) == {"suite": 0, "ports": 0, "verdicts": len(release_verdicts.expectations(
        ROOT, MANIFEST))}
    text = (target / "README.md").read_text()
    assert "**No GPU suite record of this binary yet**" in text and "configs without rows in this build: suite, ports" in text
    assert pd.read_parquet(target / release.data_file("verdicts"))["gpu_status"].isna().all()
    before = {p: p.read_bytes() for p in target.rglob("*") if p.is_file()}
    monkeypatch.setattr(release, "LIMIT_BYTES", 1000)
    with pytest.raises(ToolUsageError, match="over 1000"):
        release.build(manifest, target)
    assert {p: p.read_bytes() for p in target.rglob("*") if p.is_file()} == before
