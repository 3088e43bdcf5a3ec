"""pallasbench.tools.report_data: what the HTML report takes from a record, and the geomeans."""
import json
import math
from pathlib import Path

from pallasbench.tools.report_data import groups, header_of, row_of

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def records(name):
    return [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]


def test_a_timed_record_gives_medians_cis_speedup_and_roofline():
    record = next(r for r in records("report/h200_run.jsonl") if r["kernel_name"] == "matmul")
    row = row_of(record)
    timing, roofline = record["timing"], record["roofline"]
    assert row.kernel_us == timing["median_us"] and row.kernel_ci == tuple(timing["ci95_us"])
    assert row.xla_us == timing["reference_median_us"] and row.xla_ci == tuple(timing["reference"]["ci95_us"])
    assert row.speedup == timing["speedup"] and row.speedup_ci == tuple(timing["speedup_ci95"])
    assert row.pct_roofline == max(roofline["pct_peak_bandwidth"], roofline["pct_peak_flops"])
    assert row.bound == ("memory" if roofline["pct_peak_bandwidth"] >= roofline["pct_peak_flops"] else "compute")
    assert row.intensity == roofline["flops"] / roofline["bytes"]
    assert row.registers == record["artifacts"]["summary"]["max_registers"] and row.passed


def test_the_failing_filter_is_one_that_ran():
    rows = [row_of(r) for r in records("report/h200_run.jsonl")]
    dead = next(r for r in rows if r.candidate.endswith("softmax_dead_pallas"))
    assert dead.status == "timing_rejected" and dead.failing_filter == "source_analysis"
    assert "outside the Pallas kernels" in dead.filter_reason and not dead.passed
    wrong = next(r for r in rows if r.candidate.endswith("softmax_float16_out"))
    assert wrong.status == "incorrect" and wrong.failing_filter == "" and "float16" in wrong.message


def test_a_cpu_record_has_wall_clock_times_and_no_speedup():
    record = records("records/cpu_ok.jsonl")[0]
    row = row_of(record)
    assert row.speedup is None and row.pct_roofline is None
    assert row.timer == record["timing"]["timer"] != "cupti" and row.kernel_us == record["timing"]["median_us"]


def test_geomean_counts_only_ok_robust_timed_rows():
    rows = [row_of(r) for r in records("report/h200_run.jsonl")]
    softmax = next(g for g in groups(rows, lambda r: r.category) if g.name == "softmax")
    counted = [r.speedup for r in rows if r.category == "softmax" and r.passed and r.speedup is not None]
    assert len(softmax.speedups) == len(counted) < softmax.tasks
    assert math.isclose(softmax.geomean, math.exp(sum(map(math.log, counted)) / len(counted)))


def test_the_header_lists_distinct_versions_and_the_measured_ceilings():
    header = header_of(records("report/h200_run.jsonl") + records("records/cpu_ok.jsonl"), ["a", "b"])
    assert header.environment["GPU"] == ["NVIDIA H200"]
    assert set(header.environment["jax"]) == {"0.11.2", "0.10.2"}
    assert {c.name for c in header.ceilings} >= {"copy", "matmul_bf16", "matmul_f32", "matmul_tf32"}
    assert header.flags["device"] == ["gpu", "cpu"]
