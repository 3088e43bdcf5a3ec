"""pallasbench.filters: the registry's descriptions as the binary prints them, and the refusal of
anything else."""
import json

import pytest

from pallasbench import filters

ENTRY = {"name": "input_impact", "checks": "the change", "direction": "<=", "threshold": 0.25,
         "threshold_varies_with": ""}


def test_descriptions_are_the_binarys_registry():
    described = filters.descriptions()
    assert described, "the registry lists no filter"
    assert len(set(filters.names())) == len(described)
    for d in described:
        assert d.direction in filters.DIRECTIONS and d.checks, d
        assert (d.threshold is None) == (d.direction == "reason-only"), d
    assert filters.by_name()[described[0].name] is described[0]


def test_passes_when_leaves_the_number_to_the_records():
    (d,) = filters.parse(json.dumps([ENTRY]))
    assert d.threshold == 0.25 and d.passes_when == "value <= threshold"
    (qualitative,) = filters.parse(json.dumps([{**ENTRY, "direction": "reason-only", "threshold": None}]))
    assert qualitative.passes_when == "no reason to refuse"


def test_parse_refuses_an_entry_it_cannot_read():
    with pytest.raises(ValueError, match="entry 0 lacks 'checks'"):
        filters.parse(json.dumps([{k: v for k, v in ENTRY.items() if k != "checks"}]))
    with pytest.raises(ValueError, match="input_impact: unknown direction 'above'"):
        filters.parse(json.dumps([{**ENTRY, "direction": "above"}]))


def test_a_missing_binary_is_named(monkeypatch, tmp_path):
    from pallasbench import api

    monkeypatch.setenv("PALLASBENCH_BINARY", str(tmp_path / "nowhere"))
    filters.descriptions.cache_clear()
    try:
        with pytest.raises(api.HarnessError, match="nowhere is missing"):
            filters.descriptions()
    finally:
        filters.descriptions.cache_clear()
