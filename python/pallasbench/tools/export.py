"""`pallasbench export INPUT... --to FOLDER [--format jsonl|parquet]`: runs' records as a folder a
dataset hub accepts: data/train-00000-of-00001.<format>, every row of the one record schema
(docs/record_schema.json), and a README.md card computed from the records (docs/export.md).

Compiler artifacts a run wrote as files (`--artifacts files`: `artifacts.<ptx|sass|ptxas|pass_trail>.path`,
relative to the records file's folder) are copied into the dataset folder at the same relative
path, so the exported records' paths hold there. An older binary's absolute paths are made relative
first (records.portable_paths): `candidate.path` and `module_name` to the repository or the run
folder (else the file's name alone, as the binary writes them now), artifact paths to the run folder.

Refused (exit 2): a --to that exists and is not an empty folder, an input that cannot be read,
records of another schema_version than each other or than the schema's, a record outside the
schema, two different records under one uuid, an artifact file that is missing (named, never a
dataset with dangling paths) or whose path leaves its run folder (an absolute one outside it
included)."""
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
from pallasbench.tools.records import Source, portable_paths, read_all


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


def artifact_files(items: list[tuple[dict, Source]]) -> dict[Path, Path]:
    """The artifact files the records name: their path in the dataset -> the file to copy. A
    missing file, a path that is absolute or climbs out of its run folder, or one path naming two
    different files is refused, naming each."""
    wanted: dict[Path, Path] = {}
    problems: list[str] = []
    for record, source in items:
        artifacts = record.get("artifacts") if isinstance(record.get("artifacts"), dict) else {}
        for key, entry in artifacts.items():
            if not isinstance(entry, dict) or not isinstance(entry.get("path"), str):
                continue
            relative = Path(entry["path"])
            if relative.is_absolute() or ".." in relative.parts:
                problems.append(f"{where(source)}: artifacts.{key}.path {entry['path']} is not inside the run folder")
                continue
            file = source.path.parent / relative
            if not file.is_file():
                problems.append(f"{where(source)}: artifacts.{key}.path {entry['path']}: no file {file}")
            elif relative in wanted and wanted[relative].read_bytes() != file.read_bytes():
                problems.append(f"{where(source)}: artifacts.{key}.path {entry['path']} names two different files "
                                f"({wanted[relative]} and {file})")
            else:
                wanted[relative] = file
    if problems:
        shown = "\n  ".join(problems[:20]) + (f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else "")
        raise ToolUsageError(f"{len(problems)} artifact file(s) cannot be exported (copy the run's artifacts/ "
                             f"folder beside its records file, or run with --artifacts inline):\n  {shown}")
    return wanted


def copy_artifacts(files: dict[Path, Path], folder: Path) -> None:
    for relative, file in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, folder / relative)


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
    portable_paths(items)  # an older binary's absolute paths: relative, or refused below (artifacts)
    check_schema_version(items)
    items = unique(items)
    artifacts = artifact_files(items)
    from pallasbench.tools import dataset_files

    dataset_files.check_conforming(items, dataset_files.export_schema())
    records = [record for record, _ in items]
    written: list[Path] = []

    def fill(folder: Path) -> None:
        written.append(write_dataset(records, folder, args.format))
        copy_artifacts(artifacts, folder)

    write_whole(target, fill)
    copied = f" and {len(artifacts)} artifact files" if artifacts else ""
    print(f"exported {len(records)} records to {target / written[0]} with {target / 'README.md'}{copied}")
    return 0


if __name__ == "__main__":
    sys.exit(main(run))
