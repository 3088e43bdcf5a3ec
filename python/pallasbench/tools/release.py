"""`make dataset`: the PallasBench-Robust release, built from committed GPU records named by a
manifest (dataset/manifest.json) into a folder a dataset hub and `datasets.load_dataset(folder,
config)` read: data/<config>/train-00000-of-00001.parquet (zstd) for the configs `suite`, `ports`
and `verdicts`, and README.md, the card (release_card). docs/dataset.md says what each holds.

    python -m pallasbench.tools.release [--manifest dataset/manifest.json] [--to dataset]

The same records and repository give the same bytes: rows in a fixed order, no time or host in
any file. New GPU records change the manifest, not this code.

Refused (exit 2, nothing written): a manifest or records file that cannot be read; records of
another schema_version than the schema file's; a suite record of another commit (`sha`) than the
manifest's binary, or not of the GPU; two suite records of one (task, size, dtype, backend); a
compiler artifact given as a path (a release holds text: run with --artifacts inline); a local
path left in any row (release_paths); a corpus file with no stated expectation; data over 40 MiB.
The files are written into a scratch folder and moved in whole."""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pallasbench.tools import ToolUsageError, main
from pallasbench.tools.records import read_all

ROOT = Path(__file__).resolve().parents[3]  # the repository (python/pallasbench/tools/ -> .)
CONFIGS = ("suite", "ports", "verdicts")
LIMIT_BYTES = 40 << 20  # the committed release's data, at most (issue 40)
SASS_FUNCTION = re.compile(r"(?=\n\t\tFunction : )")


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m pallasbench.tools.release")
    parser.add_argument("--manifest", default=str(ROOT / "dataset" / "manifest.json"))
    parser.add_argument("--to", default=str(ROOT / "dataset"), help="the folder: its README.md and data/ are replaced")
    return parser.parse_args(argv)


def data_file(config: str) -> str:
    return f"data/{config}/train-00000-of-00001.parquet"


def load_manifest(path: Path) -> dict:
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ToolUsageError(f"cannot read the manifest {path}: {e}") from e
    for key in ("name", "version", "binary", "suite", "verdicts"):
        if key not in manifest:
            raise ToolUsageError(f"{path}: no {key!r}")
    return manifest


def read_runs(entries: list[dict]) -> list[dict]:
    """The records of the manifest's files, each with the repository-relative file it came from."""
    records = []
    for entry in entries:
        for record, source in read_all([str(ROOT / entry["records"])]):
            record["_records_file"] = f"{entry['records']}:{source.line}"
            records.append(record)
    return records


# What the binary and the kernels are made of: two commits equal here ran the same code.
CODE_PATHS = ("src", "include", "python", "tasks", "CMakeLists.txt")


def same_code_shas(binary: dict) -> set[str]:
    """The manifest's sha and any `same_code_shas` (commits that changed only results or docs
    between two device calls of one session), each checked with git to differ from it in no code path."""
    shas = {binary["sha"]}
    for other in binary.get("same_code_shas", []):
        diff = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", binary["sha"], other, "--", *CODE_PATHS],
                              capture_output=True, text=True)
        if diff.returncode != 0:
            reason = diff.stderr.strip() or f"they differ under {', '.join(CODE_PATHS)}"
            raise ToolUsageError(f"manifest binary.same_code_shas: {other} is not the code of {binary['sha']}: {reason}")
        shas.add(other)
    return shas


def check_suite(records: list[dict], shas: set[str]) -> None:
    from pallasbench import record_schema

    expected = json.loads(record_schema.SCHEMA_FILE.read_text())["schema_version"]
    seen: dict[tuple, str] = {}
    for r in records:
        where = r["_records_file"]
        if r.get("schema_version") != expected:
            raise ToolUsageError(f"{where}: schema_version {r.get('schema_version')}, the release writes {expected}")
        if r.get("sha") not in shas:
            raise ToolUsageError(f"{where}: sha {r.get('sha')}, not the manifest's binary {', '.join(sorted(shas))}: "
                                 "one binary a release")
        if (r.get("config") or {}).get("device") != "gpu" or (r.get("candidate") or {}).get("kind") != "suite":
            raise ToolUsageError(f"{where}: not a suite record of the GPU")
        key = (r["kernel_name"], r.get("size"), r.get("dtype"), r.get("backend"))
        if key in seen:
            raise ToolUsageError(f"{where} and {seen[key]}: two records of {key}; the suite holds one run per key")
        seen[key] = where


def check_conforming(records: list[dict], schema: dict) -> None:
    """Every suite record fits the record schema (a field it does not know would be dropped)."""
    from pallasbench import record_schema

    for r in records:
        problems = record_schema.check({k: v for k, v in r.items() if k != "_records_file"}, schema)
        if problems:
            raise ToolUsageError(f"{r['_records_file']}: not in the record schema: {'; '.join(problems[:3])}")


def trim_artifacts(record: dict) -> tuple[int, int]:
    """SASS reduced to the functions of the record's own kernels (artifacts.summary.kernels);
    (functions, bytes) removed. An artifact given as a path is refused: a release holds text."""
    artifacts = record.get("artifacts") if isinstance(record.get("artifacts"), dict) else {}
    for key, entry in artifacts.items():
        if isinstance(entry, dict) and "path" in entry:
            raise ToolUsageError(f"{record['_records_file']}: artifacts.{key} is a file path (--artifacts files); "
                                 "a release holds compiler artifacts as text: run with --artifacts inline")
    sass = artifacts.get("sass")
    kernels = {k.get("name") for k in (artifacts.get("summary") or {}).get("kernels", []) if isinstance(k, dict)}
    if not isinstance(sass, dict) or not isinstance(sass.get("text"), str) or not kernels:
        return 0, 0
    blocks = SASS_FUNCTION.split(sass["text"])
    kept = [b for b in blocks[1:] if b.split("Function : ", 1)[1].split(None, 1)[0] in kernels]
    removed = len(blocks) - 1 - len(kept)
    if removed and kept:  # none kept: the names are spelled otherwise, and nothing is cut blind
        text = blocks[0] + "".join(kept)
        trimmed = len(sass["text"].encode()) - len(text.encode())
        sass["text"], sass["bytes"] = text, len(text.encode())
        return removed, trimmed
    return 0, 0


def suite_rows(records: list[dict], roots: list[str]) -> tuple[list[dict], dict]:
    from pallasbench.tools import release_paths

    trimmed = {"records": 0, "functions": 0, "bytes": 0}
    rows = []
    for record in sorted(records, key=lambda r: (r["kernel_name"], str(r.get("size")), str(r.get("dtype")),
                                                str(r.get("backend")))):
        functions, size = trim_artifacts(record)
        trimmed["records"] += bool(functions)
        trimmed["functions"] += functions
        trimmed["bytes"] += size
        row = {k: v for k, v in record.items() if k != "_records_file"}
        rows.append(release_paths.rewrite(row, roots))
    return rows, trimmed


def write_parquet(rows: list[dict], features, path: Path) -> int:
    """One zstd Parquet file of the features' schema; its in-memory size (the card's num_bytes)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pylist(rows, schema=features.arrow_schema)
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path, compression="zstd", row_group_size=256)
    return table.nbytes


def build(manifest_path: Path, target: Path) -> dict[str, int]:
    from pallasbench import record_schema
    from pallasbench.tools import dataset_files, release_card, release_paths, release_ports, release_verdicts

    manifest = load_manifest(manifest_path)
    sha = manifest["binary"]["sha"]
    suite_records = read_runs(manifest["suite"])
    check_suite(suite_records, same_code_shas(manifest["binary"]))
    schema = dataset_files.export_schema()
    check_conforming(suite_records, schema)
    verdict_records = read_runs(manifest["verdicts"])
    roots = release_paths.checkout_roots(suite_records + verdict_records)
    suite, trimmed = suite_rows(suite_records, roots)
    ports = release_ports.rows(suite)
    verdict_records = [release_paths.rewrite(record, roots) for record in verdict_records]  # paths, errors
    verdicts = release_verdicts.rows(ROOT, manifest, verdict_records, sha)
    configs = {"suite": (suite, record_schema.features(schema), lambda r: r.get("uuid")),
               "ports": (ports, release_ports.features(), lambda r: r["kernel_name"]),
               "verdicts": (verdicts, release_verdicts.features(), lambda r: (r["candidate"], r["dtype"]))}
    for name, (rows, _, key) in configs.items():
        release_paths.check_rows(name, rows, key)
    target.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target, prefix=".release-"))  # written whole, then moved in
    try:
        sizes = {name: write_parquet(rows, features, scratch / data_file(name))
                 for name, (rows, features, _) in configs.items()}
        committed = sum((scratch / data_file(name)).stat().st_size for name in configs)
        if committed > LIMIT_BYTES:
            raise ToolUsageError(f"the release's data take {committed} bytes, over {LIMIT_BYTES} (40 MiB): trim "
                                 "the artifacts or name fewer runs in the manifest")
        card = release_card.render(manifest, {n: (rows, f) for n, (rows, f, _) in configs.items()}, sizes, trimmed,
                                   {n: data_file(n) for n in CONFIGS}, ROOT, scratch)
        (scratch / "README.md").write_text(card, encoding="utf-8")
        shutil.rmtree(target / "data", ignore_errors=True)  # no file of an earlier build stays
        os.replace(scratch / "data", target / "data")
        os.replace(scratch / "README.md", target / "README.md")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return {name: len(rows) for name, (rows, _, _) in configs.items()}


def run(argv: list[str]) -> int:
    args = parse(argv)
    target = Path(args.to)
    counts = build(Path(args.manifest), target)
    print(f"release written to {target}: " + ", ".join(f"{n} {c} rows" for n, c in counts.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(run))
