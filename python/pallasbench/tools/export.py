"""`pallasbench export INPUT... --to FOLDER [--format jsonl|parquet]`: runs' records as a folder a
dataset hub accepts: data/train-00000-of-00001.<format>, every row of the one record schema
(docs/record_schema.json), and a README.md card computed from the records (docs/export.md).

Refused (exit 2): a --to that exists and is not an empty folder, an input that cannot be read,
records of another schema_version than each other or than the schema's, a record outside the
schema, two different records under one uuid."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path

from pallasbench import record_schema
from pallasbench.tools import ToolUsageError, main
from pallasbench.tools.records import Source, read_all


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="pallasbench export")
    parser.add_argument("--to", required=True, help="the dataset folder to write (absent or empty)")
    parser.add_argument("--format", choices=("jsonl", "parquet"), default="jsonl")
    parser.add_argument("inputs", nargs="+", help="run folders or records.jsonl files")
    return parser.parse_args(argv)


def check_target(folder: Path) -> None:
    """A dataset folder is written whole: never into one that holds anything."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise ToolUsageError(f"--to {folder}: exists and is not an empty folder; export writes a new one")


def where(source: Source) -> str:
    return f"{source.path}:{source.line}"


def check_schema_version(items: list[tuple[dict, Source]]) -> None:
    """One schema per dataset: the schema file's, which the columns' types come from."""
    expected = json.loads(record_schema.SCHEMA_FILE.read_text())["schema_version"]
    first: dict[object, Source] = {}
    for record, source in items:
        first.setdefault(record.get("schema_version"), source)
    if len(first) > 1:
        seen = ", ".join(f"{v} ({where(s)})" for v, s in first.items())
        raise ToolUsageError(f"records of different schema_version: {seen}; export one schema version at a time")
    version, source = next(iter(first.items()))
    if version != expected:
        raise ToolUsageError(f"{where(source)}: schema_version {version}; export writes schema_version "
                             f"{expected} (docs/record_schema.json)")


def unique(items: list[tuple[dict, Source]]) -> list[tuple[dict, Source]]:
    """A record given twice (one file named twice, a run folder and its records.jsonl) is one row;
    two different records under one uuid would make the counts lie, so they are refused."""
    kept: dict[str, tuple[dict, Source]] = {}
    out = []
    for record, source in items:
        uuid = record.get("uuid")
        if uuid in kept:
            if kept[uuid][0] != record:
                raise ToolUsageError(f"{where(kept[uuid][1])} and {where(source)}: two different records "
                                     f"with uuid {uuid}")
            continue
        if uuid:
            kept[uuid] = (record, source)
        out.append((record, source))
    return out


def write_dataset(records: list[dict], folder: Path, fmt: str) -> Path:
    # Imported here: pyarrow and datasets take seconds to load, and refusals should not wait.
    from pallasbench.tools import dataset_card, dataset_files

    schema = dataset_files.export_schema()
    features = record_schema.features(schema)
    relative = dataset_files.write(records, features, folder, fmt)
    (folder / "README.md").write_text(dataset_card.render(records, relative.as_posix(), features), encoding="utf-8")
    return relative


def write_whole(target: Path, fill) -> None:
    """Writes into a fresh folder beside `target` and renames it into place, so a failed export
    leaves no half-written dataset."""
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(dir=target.parent, prefix=f".{target.name}.export-"))
    try:
        fill(scratch)
        if target.is_dir():
            target.rmdir()  # empty, as check_target made sure
        os.rename(scratch, target)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise


def run(argv: list[str]) -> int:
    args = parse(argv)
    target = Path(args.to)
    check_target(target)
    items = read_all(args.inputs)
    if not items:
        raise ToolUsageError(f"no records in {', '.join(args.inputs)}")
    check_schema_version(items)
    items = unique(items)
    from pallasbench.tools import dataset_files

    dataset_files.check_conforming(items, dataset_files.export_schema())
    records = [record for record, _ in items]
    written: list[Path] = []
    write_whole(target, lambda folder: written.append(write_dataset(records, folder, args.format)))
    print(f"exported {len(records)} records to {target / written[0]} with {target / 'README.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(run))
