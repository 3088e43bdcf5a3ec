"""The data file of an exported dataset: every record a row of the one Arrow schema
(docs/record_schema.json), the fields a record lacks as nulls, in JSON Lines or Parquet. One
schema for every row is what lets a dataset hub (and `datasets`, pandas, polars) read the file
without guessing a column's type from its first rows."""
from __future__ import annotations

import json
from pathlib import Path

from pallasbench import record_schema
from pallasbench.tools import ToolUsageError
from pallasbench.tools.records import Source

FORMATS = ("jsonl", "parquet")

# The pallasbench-robust card's columns and KernelBook's (docs/architecture.md, "The record"): first, so
# that a reader of either dataset finds its columns where it expects them.
CARD_COLUMNS = ("kernel_name", "level", "category", "source_original", "source_fixed", "diff", "jaxpr",
                "stablehlo", "result")
KERNELBOOK_COLUMNS = ("uuid", "entry_point", "python_code", "triton_code", "repo_name", "module_name",
                      "synthetic", "licenses", "stars", "sha", "repo_link")

# The Hub's viewer reads a Parquet file one row group at a time; records with inline compiler
# output run to megabytes, so groups are sized by bytes, not by a fixed row count.
ROW_GROUP_BYTES = 64 << 20


def data_file(fmt: str) -> str:
    """The Hub's naming for a dataset's one file of its train split."""
    return f"data/train-00000-of-00001.{fmt}"


def export_schema(schema: dict | None = None) -> dict:
    """The record schema with the card's and KernelBook's columns first, the rest by name."""
    schema = record_schema.load() if schema is None else schema
    first = CARD_COLUMNS + KERNELBOOK_COLUMNS
    missing = [c for c in first if c not in schema]
    if missing:  # the schema file and docs/architecture.md's record disagree: a defect, not the user's input
        raise ValueError(f"docs/record_schema.json lacks the columns {', '.join(missing)}")
    return {**{c: schema[c] for c in first}, **{c: schema[c] for c in sorted(schema) if c not in first}}


def check_conforming(items: list[tuple[dict, Source]], schema: dict) -> None:
    """Every record fits the schema, else the first that does not is refused by file:line (Arrow
    would otherwise drop an unknown field silently or fail on a type without saying where)."""
    for record, source in items:
        problems = record_schema.check(record, schema)
        if problems:
            shown = "; ".join(problems[:3]) + (f"; and {len(problems) - 3} more" if len(problems) > 3 else "")
            raise ToolUsageError(f"{source.path}:{source.line}: not in the record schema "
                                 f"(docs/record_schema.json): {shown}")


def to_table(records: list[dict], features):
    """The records as one Arrow table of the features' schema (ints widen to declared floats)."""
    import pyarrow as pa

    return pa.Table.from_pylist(records, schema=features.arrow_schema)


def write_jsonl(table, path: Path) -> None:
    """One row a line, every column present (null where the record lacked it), floats as floats."""
    with path.open("w", encoding="utf-8") as out:
        for batch in table.to_batches(max_chunksize=256):
            for row in batch.to_pylist():
                out.write(json.dumps(row, ensure_ascii=False, allow_nan=False, separators=(",", ":")))
                out.write("\n")


def write_parquet(table, path: Path) -> None:
    import pyarrow.parquet as pq

    row_bytes = max(1, table.nbytes // max(1, table.num_rows))
    pq.write_table(table, path, row_group_size=max(1, ROW_GROUP_BYTES // row_bytes))


def write(records: list[dict], features, folder: Path, fmt: str) -> Path:
    """Writes the data file under `folder` and returns its path relative to the folder."""
    relative = Path(data_file(fmt))
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    table = to_table(records, features)
    (write_jsonl if fmt == "jsonl" else write_parquet)(table, path)
    return relative
