"""The record's one schema (docs/record_schema.json): every field's type, for checking records
and for loading any mix of records files as one dataset.

A schema is a tree: a leaf is a type name ("string", "int64", "float64", "bool"), an object maps
field names to subtrees (a struct: any field may be absent, none is ever null), and a one-element
list [subtree] is a list of that (an empty list [] a list whose elements were never seen).

In the file, an object whose one field is EACH_FILTER ("<filter>", at result.filters) stands for
one field per robustness filter the harness registers, each of that subtree: load() writes them
out from pallasbench.filters, so a new filter needs no line here or in the file.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

SCHEMA_FILE = Path(__file__).resolve().parents[2] / "docs" / "record_schema.json"
LEAVES = ("string", "int64", "float64", "bool")
EACH_FILTER = "<filter>"


def load(path: Path = SCHEMA_FILE, filter_names: Sequence[str] | None = None) -> dict:
    """The schema with a field per filter: `filter_names`, by default the registered filters."""
    if filter_names is None:
        from pallasbench import filters

        filter_names = filters.names()
    return expand(load_file(path), filter_names)


def load_file(path: Path = SCHEMA_FILE) -> dict:
    """The schema as the file holds it (EACH_FILTER not written out)."""
    return json.loads(path.read_text())["record"]


def expand(tree, filter_names: Sequence[str]):
    """`tree` with each EACH_FILTER object written out as one field per name."""
    if isinstance(tree, dict):
        if EACH_FILTER in tree:
            verdict = expand(tree[EACH_FILTER], filter_names)
            return {name: verdict for name in filter_names}
        return {key: expand(sub, filter_names) for key, sub in tree.items()}
    if isinstance(tree, list):
        return [expand(sub, filter_names) for sub in tree]
    return tree


def collapse(tree, like):
    """`tree` (inferred from records: one field per filter) in the file's form: wherever `like`
    holds EACH_FILTER, the fields merged into it."""
    if isinstance(tree, dict) and isinstance(like, dict):
        if EACH_FILTER in like:
            merged = None
            for name, sub in tree.items():
                merged = merge(merged, sub, f".{name}")
            return {EACH_FILTER: collapse(merged, like[EACH_FILTER])} if merged is not None else {}
        return {key: collapse(sub, like.get(key)) for key, sub in tree.items()}
    if isinstance(tree, list) and isinstance(like, list) and tree and like:
        return [collapse(tree[0], like[0])]
    return tree


def type_of(value):
    """The schema subtree one JSON value has."""
    if value is None:
        return None
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int64"
    if isinstance(value, float):
        return "float64"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        element = None
        for item in value:
            element = merge(element, type_of(item), "[]")
        return [] if element is None else [element]
    return {key: type_of(item) for key, item in value.items()}


def merge(a, b, path: str = ""):
    """The schema holding both: structs take the union of their fields, int64 widens to
    float64; anything else that differs is an error naming the path."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: merge(a.get(k), b.get(k), f"{path}.{k}") for k in {**a, **b}}
    if isinstance(a, list) and isinstance(b, list):
        if not a or not b:
            return a or b
        return [merge(a[0], b[0], f"{path}[]")]
    if isinstance(a, str) and isinstance(b, str) and {a, b} == {"int64", "float64"}:
        return "float64"
    if a == b:
        return a
    raise ValueError(f"{path or '.'}: {describe(a)} in one record, {describe(b)} in another")


def infer(records) -> dict:
    schema = None
    for record in records:
        schema = merge(schema, type_of(record))
    return sort(schema or {})


def sort(tree):
    if isinstance(tree, dict):
        return {k: sort(tree[k]) for k in sorted(tree)}
    if isinstance(tree, list):
        return [sort(t) for t in tree]
    return tree


def describe(tree) -> str:
    if isinstance(tree, dict):
        return "an object"
    if isinstance(tree, list):
        return "a list"
    return tree


def check(record, schema: dict) -> list[str]:
    """Every way `record` departs from `schema`: a null, a field the schema lacks, a type other
    than the schema's (an int64 where float64 is declared is allowed: Arrow widens it)."""
    problems: list[str] = []
    _check(record, schema, "", problems)
    return problems


def _check(value, tree, path: str, problems: list[str]) -> None:
    where = path or "."
    if value is None:
        problems.append(f"{where}: null (leave the field out instead)")
    elif isinstance(tree, dict):
        if not isinstance(value, dict):
            problems.append(f"{where}: {describe(type_of(value))}, the schema has an object")
            return
        for key, item in value.items():
            if key not in tree:
                problems.append(f"{path}.{key}: not in the schema")
            else:
                _check(item, tree[key], f"{path}.{key}", problems)
    elif isinstance(tree, list):
        if not isinstance(value, list):
            problems.append(f"{where}: {describe(type_of(value))}, the schema has a list")
            return
        for i, item in enumerate(value):
            if not tree:
                problems.append(f"{where}: the schema knows no element type for this list")
                return
            _check(item, tree[0], f"{path}[{i}]", problems)
    else:
        have = type_of(value)
        if have != tree and not (have == "int64" and tree == "float64"):
            problems.append(f"{where}: {describe(have)}, the schema has {tree}")


def features(schema: dict | None = None):
    """datasets.Features for load_dataset("json", data_files=..., features=features()): any mix
    of records files (ok and failed, CPU and GPU, in any order) loads as one table."""
    from datasets import Features, List, Value

    def build(tree):
        if isinstance(tree, dict):
            return {k: build(t) for k, t in tree.items()}
        if isinstance(tree, list):
            return List(build(tree[0]) if tree else Value("null"))
        return Value(tree)

    return Features(build(schema if schema is not None else load()))
