"""pallasbench.tools.export in-process: the card's numbers against values recomputed here from the
fixture records, the refusals (exit 2, naming what is wrong), and the data file's one schema.
tests/e2e/test_cli_export.py runs the command on a real CPU run and loads what it wrote."""
import copy
import json
import re
import statistics
from pathlib import Path

import pytest

from pallasbench import filters, record_schema
from pallasbench.tools import USAGE, card_numbers, dataset_card, dataset_files, export, main

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "records"
FILES = sorted(FIXTURES.glob("*.jsonl"))


def records_of(*paths: Path) -> list[dict]:
    return [json.loads(line) for path in paths for line in path.read_text().splitlines()]


ALL = records_of(*FILES)


def write(path: Path, records: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


def render(records: list[dict]) -> str:
    schema = dataset_files.export_schema()
    return dataset_card.render(records, "data/train-00000-of-00001.jsonl", record_schema.features(schema))


def test_pass_rates_count_the_records_holding_each_field():
    rows = {row.group: row for row in card_numbers.pass_rows(ALL)}
    assert rows["all"].records == len(ALL)
    assert rows["all"].status_ok.passed == sum(r["status"] == "ok" for r in ALL)
    robust = [r["result"]["robustness_passed"] for r in ALL]
    assert (rows["all"].robust.passed, rows["all"].robust.of) == (sum(robust), len(robust))
    level2 = [r for r in ALL if r["level"] == 2]
    assert level2 and rows["level 2"].correct.passed == sum(r["result"]["correctness_passed"] for r in level2)
    assert str(card_numbers.Rate(1, 3)) == "1/3 (33.3%)" and str(card_numbers.Rate(0, 0)) == "-"


def test_geomean_speedup_is_over_the_records_that_passed():
    timed = [r for r in ALL if "speedup" in r.get("timing", {})]
    assert len(timed) >= 4 and any(not r["result"]["robustness_passed"] for r in timed)
    by_level, by_category = card_numbers.speed_rows(ALL)
    (level1,) = by_level
    assert level1.timed == len(timed)
    kept = [r["timing"]["speedup"] for r in timed if r["status"] == "ok" and r["result"]["robustness_passed"]]
    assert (level1.passed, level1.geomean) == (len(kept), pytest.approx(statistics.geometric_mean(kept)))
    assert {row.group for row in by_category} == {r["category"] for r in timed}


def test_the_records_own_verdict_decides_not_the_card():
    """A record's `passed` stands as the binary wrote it: the card never re-derives it."""
    record = copy.deepcopy(next(r for r in ALL if r["status"] == "ok" and r["result"]["robustness_passed"]
                                and "speedup" in r.get("timing", {})))
    assert card_numbers.speed_row("x", [record]).passed == 1
    record["passed"] = False
    assert card_numbers.speed_row("x", [record]).passed == 0
    assert card_numbers.pass_row("x", [record]).passed.passed == 0
    record["timing"]["speedup"] = 0.0
    assert card_numbers.speedup(record) is None


def test_filter_thresholds_come_from_the_records():
    record = copy.deepcopy(next(r for r in ALL if r["status"] == "ok"))
    record["result"]["filters"]["output_range"]["threshold"] = 0.7
    rows = {row.name: row for row in card_numbers.filter_rows([record])}
    assert list(rows) == [n for n in filters.names() if n in record["result"]["filters"]]  # the registry's order
    assert rows["output_range"].thresholds == [(0.7, 1)]
    assert "| 0.7 (1) |" in render([record])
    failed = next(r for r in ALL if r["status"] == "incorrect")  # its filters say "not run: ..."
    assert card_numbers.filter_row("output_std", [failed]).ran == 0


def test_what_a_filter_checks_comes_from_the_registry():
    record = copy.deepcopy(next(r for r in ALL if r["status"] == "ok"))
    record["result"]["filters"]["retired"] = {"passed": True, "value": 1.0, "threshold": 0.5, "reason": "ok"}
    card = render([record])
    for d in filters.descriptions():
        if d.name in record["result"]["filters"]:
            assert f"| `{d.name}` | {dataset_card.cell(d.checks)} | {d.passes_when} |" in card
    assert "| `retired` | see docs/filters.md | see docs/filters.md | 0.5 (1) | 1 | 1 |" in card
    assert card_numbers.filter_names([record])[-1] == "retired"  # after the registry's, by name


def test_license_is_the_records_when_uniform_else_other():
    suite = [r for r in ALL if r["candidate"]["kind"] == "suite"]
    assert {tuple(r["licenses"]) for r in suite} == {("Apache-2.0",)}
    assert dataset_card.hub_license(suite) == "apache-2.0"
    assert dataset_card.hub_license(ALL) == "other"  # user candidates declare none
    assert "license: apache-2.0" in render(suite) and "license: other" in render(ALL)
    unknown = [dict(r, licenses=["Made-Up-1.0"]) for r in suite]
    assert dataset_card.hub_license(unknown) == "other"


@pytest.mark.parametrize("n, bucket", [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (123_456, "100K<n<1M"),
                                       (10_000_000, "n>10M")])
def test_size_category(n, bucket):
    assert dataset_card.size_category(n) == bucket


def test_card_without_any_speedup_says_so_and_prints_no_missing_number():
    cpu = records_of(FIXTURES / "cpu_ok.jsonl", FIXTURES / "cpu_failures.jsonl")
    card = render(cpu)
    assert "No record has a speedup, so no geomean is given." in card
    assert "## Speed" in card and "| level 1 | 0 |" not in card  # no empty speed rows either


def test_card_columns_come_first_and_are_in_the_schema():
    columns = list(dataset_files.export_schema())
    first = dataset_files.CARD_COLUMNS + dataset_files.KERNELBOOK_COLUMNS
    assert columns[:len(first)] == list(first)
    assert sorted(columns) == sorted(record_schema.load())
    with pytest.raises(ValueError, match="lacks the columns uuid"):
        dataset_files.export_schema({c: "string" for c in columns if c != "uuid"})


def test_jsonl_rows_hold_every_column_and_floats_stay_floats(tmp_path):
    record = copy.deepcopy(ALL[0])
    record["result"]["max_abs_error"] = 0  # an int where the schema says float64: Arrow widens it
    schema = dataset_files.export_schema()
    dataset_files.write([record, ALL[-1]], record_schema.features(schema), tmp_path, "jsonl")
    text = (tmp_path / dataset_files.data_file("jsonl")).read_text()
    rows = [json.loads(line) for line in text.splitlines()]
    assert [list(row) for row in rows] == [list(schema)] * 2
    assert list(rows[0]["result"]) == list(schema["result"])  # nested fields too, null where absent
    assert '"max_abs_error":0.0' in text.splitlines()[0]


def run_export(tmp_path, inputs, to=None, fmt="jsonl"):
    to = to or tmp_path / "dataset"
    return main(export.run, ["--to", str(to), "--format", fmt, *map(str, inputs)]), to


def test_refuses_a_folder_that_is_not_empty(tmp_path, capsys):
    (tmp_path / "dataset").mkdir()
    (tmp_path / "dataset" / "keep.txt").write_text("mine")
    code, to = run_export(tmp_path, [FILES[0]])
    assert code == USAGE
    assert f"--to {to}: exists and is not an empty folder" in capsys.readouterr().err
    assert [p.name for p in to.iterdir()] == ["keep.txt"]


def test_writes_into_an_empty_folder(tmp_path):
    (tmp_path / "dataset").mkdir()
    code, to = run_export(tmp_path, [FILES[0]])
    assert code == 0
    assert sorted(p.name for p in to.iterdir()) == ["README.md", "data"]
    assert [p.name for p in tmp_path.iterdir()] == ["dataset"]  # no scratch folder left beside it


@pytest.mark.parametrize("name, named", [("no_such_file.jsonl", "no_such_file.jsonl"),
                                         ("empty_run", "empty_run/records.jsonl")])
def test_refuses_an_unreadable_input(tmp_path, capsys, name, named):
    (tmp_path / "empty_run").mkdir()  # a run folder without its records.jsonl
    code, to = run_export(tmp_path, [FILES[0], tmp_path / name])
    assert code == USAGE
    assert f"cannot read records file {tmp_path / named}\n" in capsys.readouterr().err
    assert not to.exists()


def test_refuses_records_of_two_schema_versions(tmp_path, capsys):
    old = write(tmp_path / "old.jsonl", [dict(ALL[0], schema_version=1)])
    code, to = run_export(tmp_path, [FILES[0], old])
    assert code == USAGE
    err = capsys.readouterr().err
    assert "records of different schema_version: 2 (" in err and f"1 ({old}:1)" in err
    assert not to.exists()
    code, _ = run_export(tmp_path, [old])
    assert code == USAGE and "schema_version 1; export writes schema_version 2" in capsys.readouterr().err


def test_refuses_a_record_outside_the_schema_naming_its_line(tmp_path, capsys):
    bad = copy.deepcopy(ALL[1])
    bad["result"]["brand_new"] = 1
    path = write(tmp_path / "bad.jsonl", [ALL[0], bad])
    code, to = run_export(tmp_path, [path])
    assert code == USAGE
    err = capsys.readouterr().err
    assert f"{path}:2: not in the record schema" in err and ".result.brand_new: not in the schema" in err
    assert not to.exists()


def test_one_record_given_twice_is_one_row_two_under_one_uuid_are_refused(tmp_path, capsys):
    code, to = run_export(tmp_path, [FILES[0], FILES[0]])
    assert code == 0
    rows = (to / dataset_files.data_file("jsonl")).read_text().splitlines()
    assert len(rows) == len(records_of(FILES[0]))
    changed = dict(records_of(FILES[0])[0], stars=7)
    code, _ = run_export(tmp_path, [FILES[0], write(tmp_path / "changed.jsonl", [changed])],
                         to=tmp_path / "other")
    assert code == USAGE
    assert f"{FILES[0]}:1 and {tmp_path / 'changed.jsonl'}:1: two different records with uuid" in \
        capsys.readouterr().err


def test_a_failed_write_leaves_no_folder(tmp_path):
    def fail(folder):
        (folder / "half").write_text("x")
        raise RuntimeError("disk full")

    with pytest.raises(RuntimeError):
        export.write_whole(tmp_path / "dataset", fail)
    assert list(tmp_path.iterdir()) == []


MISSING = re.compile(r"\b(None|nan|NaN|inf|Infinity)\b")


@pytest.mark.parametrize("files", [FILES, [FIXTURES / "cpu_failures.jsonl"]], ids=["all", "failures_only"])
def test_no_number_in_the_card_is_a_missing_value(files):
    body = render(records_of(*files)).split("\n---\n", 1)[1]
    assert MISSING.findall(body) == []
    rates = [line for line in body.splitlines() if re.match(r"\| (all|level \d+) \|", line)]
    assert rates
    for line in rates:
        for cell in (c.strip() for c in line.strip("| ").split("|")[1:]):
            assert re.fullmatch(r"\d+|\d+/\d+ \(\d+\.\d%\)|\d+\.\d{3}x|-", cell), line


def test_artifact_files_are_copied_into_the_dataset_or_the_export_is_refused(tmp_path, capsys):
    """--artifacts files records name files beside them: export carries them, or refuses naming
    each missing one (never a dataset whose paths dangle)."""
    record = copy.deepcopy(records_of(FIXTURES / "gpu_ok.jsonl")[0])
    texts = {}
    for key in ("ptx", "sass"):
        texts[key] = record["artifacts"][key]["text"]
        record["artifacts"][key] = {"path": f"artifacts/{record['kernel_name']}.small/kernel.{key}",
                                    "bytes": len(texts[key])}
    run = tmp_path / "run"
    run.mkdir()
    write(run / "records.jsonl", [record])
    assert main(export.run, ["--to", str(tmp_path / "refused"), str(run)]) == USAGE
    err = capsys.readouterr().err
    assert all(f"artifacts.{key}.path {record['artifacts'][key]['path']}: no file" in err for key in texts), err
    assert not (tmp_path / "refused").exists()
    for key, text in texts.items():
        (run / record["artifacts"][key]["path"]).parent.mkdir(parents=True, exist_ok=True)
        (run / record["artifacts"][key]["path"]).write_text(text)
    assert main(export.run, ["--to", str(tmp_path / "dataset"), str(run)]) == 0
    assert "and 2 artifact files" in capsys.readouterr().out
    for key, text in texts.items():
        assert (tmp_path / "dataset" / record["artifacts"][key]["path"]).read_text() == text
    record["artifacts"]["ptx"]["path"] = "../../etc/passwd"
    write(run / "records.jsonl", [record])
    assert main(export.run, ["--to", str(tmp_path / "escaped"), str(run)]) == USAGE
    assert "../../etc/passwd is not inside the run folder" in capsys.readouterr().err


def test_an_older_binarys_absolute_paths_are_exported_relative_or_refused(tmp_path, capsys):
    """Records from before portable paths hold another machine's absolute paths: exported relative
    to the repository (this one, or the one the file's suite records show), to the run folder, else
    as the file's name; an artifact outside the run folder is refused, naming the field."""
    from pallasbench.tools.records import REPOSITORY

    suite, user = (copy.deepcopy(records_of(FIXTURES / name)[0]) for name in ("gpu_ok.jsonl", "gpu_failures.jsonl"))
    run = tmp_path / "run"
    (run / "artifacts").mkdir(parents=True)
    suite["candidate"]["path"] = "/home/someone/pallasbench/tasks/level1/embedding_lookup.py"
    ptx = run / "artifacts" / "kernel.ptx"
    ptx.write_text(suite["artifacts"]["ptx"]["text"])
    suite["artifacts"]["ptx"] = {"path": str(ptx), "bytes": ptx.stat().st_size}  # absolute, inside the run
    in_repository, in_writer, in_run, elsewhere = (dict(user, uuid=f"{user['uuid'][:-1]}{i}") for i in range(4))
    in_repository["candidate"] = dict(user["candidate"], path=str(REPOSITORY / "tests/e2e/candidates/relu_good.py"))
    in_writer["candidate"] = dict(user["candidate"], path="/home/someone/pallasbench/tests/mine.py")
    in_run["candidate"] = dict(user["candidate"], path=str(run / "cands" / "mine.py"))
    elsewhere["candidate"] = dict(user["candidate"], path="/scratch/u1/attempt7.py")
    candidates = (in_repository, in_writer, in_run, elsewhere)
    for record in candidates:
        record["module_name"] = record["candidate"]["path"]
    write(run / "records.jsonl", [suite, *candidates])
    assert main(export.run, ["--to", str(tmp_path / "dataset"), str(run)]) == 0, capsys.readouterr().err
    rows = records_of(tmp_path / "dataset" / dataset_files.data_file("jsonl"))
    assert [r["candidate"]["path"] for r in rows] == [
        "tasks/level1/embedding_lookup.py", "tests/e2e/candidates/relu_good.py", "tests/mine.py", "cands/mine.py",
        "attempt7.py"]
    assert [r["module_name"] for r in rows[1:]] == [r["candidate"]["path"] for r in rows[1:]]
    assert rows[0]["module_name"] == suite["module_name"]  # a suite module's dotted name stays
    assert rows[0]["artifacts"]["ptx"]["path"] == "artifacts/kernel.ptx"
    assert (tmp_path / "dataset" / "artifacts" / "kernel.ptx").read_text() == ptx.read_text()
    assert "/home/someone" not in (tmp_path / "dataset" / dataset_files.data_file("jsonl")).read_text()
    suite["artifacts"]["ptx"]["path"] = "/home/someone/run/artifacts/kernel.ptx"
    write(run / "records.jsonl", [suite])
    assert main(export.run, ["--to", str(tmp_path / "refused"), str(run)]) == USAGE
    assert (f"{run / 'records.jsonl'}:1: artifacts.ptx.path /home/someone/run/artifacts/kernel.ptx is not inside "
            "the run folder") in capsys.readouterr().err
