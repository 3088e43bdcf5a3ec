"""pallasbench.tools.records: run folders, cut last lines, corrupt lines, one record per key."""
import gzip
import json

import pytest

from pallasbench.tools import ToolUsageError, main
from pallasbench.tools import records as records_io

RECORD = {"kernel_name": "relu", "status": "ok", "size": "small", "candidate": {"kind": "suite", "path": "t.py"}}


def test_a_run_folder_stands_for_its_records_file(tmp_path):
    (tmp_path / "records.jsonl").write_text(json.dumps(RECORD) + "\n")
    [(record, source)] = records_io.read(str(tmp_path))
    # A record from before the `passed` field is given it on read (not robust: not passed).
    assert record == {**RECORD, "passed": False} and source.path == tmp_path / "records.jsonl" and source.line == 1


def test_a_gzipped_records_file_is_read_and_a_broken_one_named(tmp_path):
    """bench/results/ commits runs' records gzipped; the release and export read them as they are."""
    path = tmp_path / "r.records.jsonl.gz"
    path.write_bytes(gzip.compress((json.dumps(RECORD) + "\n").encode()))
    [(record, source)] = records_io.read(str(path))
    assert record["kernel_name"] == "relu" and source.path == path and source.line == 1
    path.write_bytes(gzip.compress(b"x" * 100)[:20])
    with pytest.raises(ToolUsageError, match=f"cannot read records file {path}"):
        records_io.read(str(path))


def test_a_cut_last_line_is_skipped_with_a_warning(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(RECORD) + "\n" + json.dumps(RECORD)[:20])
    assert len(records_io.read(str(path))) == 1
    assert f"{path}:2: skipped a cut last line" in capsys.readouterr().err


def test_a_corrupt_line_inside_names_file_and_line(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(RECORD) + "\n{oops\n" + json.dumps(RECORD) + "\n")
    with pytest.raises(ToolUsageError, match=rf"{path}:2: not a JSON record"):
        records_io.read(str(path))
    path.write_text('{"status": "ok"}\n')
    with pytest.raises(ToolUsageError, match=rf"{path}:1: not a PallasBench record"):
        records_io.read(str(path))
    with pytest.raises(ToolUsageError, match="cannot read records file"):
        records_io.read(str(tmp_path / "absent"))


def test_every_record_is_kept_and_candidates_are_named(tmp_path):
    later = {**RECORD, "status": "incorrect"}
    other = {**RECORD, "candidate": {"kind": "user", "path": "/somewhere/mine.py"}}
    requested = {**other, "request_id": "attempt-3"}
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (RECORD, other, later, requested)))
    kept = [r for r, _ in records_io.read_all([str(tmp_path)])]
    assert [r["status"] for r in kept] == ["ok", "ok", "incorrect", "ok"]
    assert [records_io.candidate_name(r) for r in kept] == ["suite", "mine.py", "suite", "attempt-3"]


def test_main_maps_errors_to_the_clis_exit_codes(capsys):
    def usage(_):
        raise ToolUsageError("bad file x.jsonl")

    def defect(_):
        raise KeyError("oops")

    assert main(lambda _: 0, []) == 0
    assert main(usage, []) == 2 and "pallasbench: error: bad file x.jsonl" in capsys.readouterr().err
    assert main(defect, []) == 3 and "KeyError" in capsys.readouterr().err
