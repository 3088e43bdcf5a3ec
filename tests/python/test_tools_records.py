"""pallasbench.tools.records: run folders, cut last lines, corrupt lines, one record per key."""
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


def test_gzipped_records_read_as_plain_ones(tmp_path, capsys):
    """records.jsonl.gz (the committed GPU results): a file, a folder holding only it, the
    Python API's reader; a cut gzip stream is an error naming the file."""
    import gzip

    import pallasbench

    text = json.dumps(RECORD) + "\n" + json.dumps({**RECORD, "size": "medium"}) + "\n" + json.dumps(RECORD)[:9]
    path = tmp_path / "records.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode()))
    [(first, source), (second, _)] = records_io.read(str(tmp_path))
    assert source.path == path and (first["size"], second["size"]) == ("small", "medium")
    assert f"{path}:3: skipped a cut last line" in capsys.readouterr().err
    assert [r["size"] for r in pallasbench.read_records(path, tmp_path)] == ["small", "medium"] * 2
    (tmp_path / "records.jsonl").write_text(json.dumps(RECORD) + "\n")  # the plain file first
    assert records_io.records_path(str(tmp_path)) == tmp_path / "records.jsonl"
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(pallasbench.UsageError, match=rf"cannot read records file {cut}"):
        pallasbench.read_records(cut)


def test_the_html_report_shows_an_older_binarys_absolute_paths_relative(tmp_path):
    """A record from before portable paths: an absolute artifact path inside the run folder is read
    there and shown relative; one outside it (another machine's) is withheld, its name shown."""
    from pathlib import Path

    from pallasbench.tools import html_report

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "records" / "gpu_ok.jsonl"
    record = json.loads(fixture.read_text().splitlines()[0])
    run = tmp_path / "run"
    (run / "artifacts").mkdir(parents=True)
    ptx = run / "artifacts" / "kernel.ptx"
    ptx.write_text("// the PTX written beside the records\n.visible .entry from_the_file()\n")
    record["artifacts"]["ptx"] = {"path": str(ptx), "bytes": ptx.stat().st_size}
    record["artifacts"]["sass"] = {"path": "/home/someone/run/artifacts/kernel.sass", "bytes": 10}
    record["candidate"]["path"] = "/home/someone/pallasbench/tasks/level1/embedding_lookup.py"
    (run / "records.jsonl").write_text(json.dumps(record) + "\n")
    page = tmp_path / "report.html"
    assert main(html_report.run, ["--out", str(page), str(run)]) == 0
    text = page.read_text()
    assert "from_the_file()" in text  # read through the path made relative
    assert str(ptx) not in text and "/home/someone" not in text
    assert "kernel.sass (an absolute path outside the run folder, withheld)" in text
