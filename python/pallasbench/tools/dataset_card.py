"""The README.md of an exported dataset: YAML front matter a dataset hub reads (license, the data
file, the features) and a card whose every number is computed from the records (card_numbers).
The prose says what the numbers mean; the numbers themselves (thresholds included) come from
the records, so the card cannot drift from the harness that wrote them; what each filter checks
comes from the harness's filter registry (pallasbench.filters)."""
from __future__ import annotations

from pallasbench import filters as registered_filters
from pallasbench.tools import card_numbers as cn
from pallasbench.tools.dataset_files import CARD_COLUMNS, KERNELBOOK_COLUMNS

# License ids the Hub's `license:` field knows, as SPDX ids lowercased; any other is "other".
HUB_LICENSES = {"apache-2.0", "mit", "bsd-2-clause", "bsd-3-clause", "gpl-2.0", "gpl-3.0", "lgpl-2.1",
                "lgpl-3.0", "agpl-3.0", "mpl-2.0", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0", "unlicense"}
TAGS = ["pallas", "jax", "gpu-kernels", "benchmark"]


def cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def counts(pairs, absent: str = "not recorded") -> str:
    """"a (3), b (1)"; None is the records that lack the field."""
    return ", ".join(f"{absent if v is None else v} ({n})" for v, n in pairs) or "-"


def ratio(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}x"


def table(header: list[str], rows: list[list]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]


def hub_license(records: list[dict]) -> str:
    license_ = cn.uniform_license(records)
    return license_.lower() if license_ and license_.lower() in HUB_LICENSES else "other"


def size_category(n: int) -> str:
    """The Hub's size bucket: n<1K, 1K<n<10K, ... (its ids, by powers of ten)."""
    bounds = [(1_000, "1K"), (10_000, "10K"), (100_000, "100K"), (1_000_000, "1M"), (10_000_000, "10M")]
    if n < bounds[0][0]:
        return "n<1K"
    for (low, low_name), (high, high_name) in zip(bounds, bounds[1:]):
        if n < high:
            return f"{low_name}<n<{high_name}"
    return "n>10M"


def front_matter(records: list[dict], data_file: str, features) -> str:
    from datasets.info import DatasetInfo, DatasetInfosDict
    from huggingface_hub import DatasetCardData

    data = DatasetCardData(
        license=hub_license(records), pretty_name="PallasBench records", tags=TAGS,
        size_categories=[size_category(len(records))],
        configs=[{"config_name": "default", "data_files": [{"split": "train", "path": data_file}]}])
    # The features in the card make the Hub and load_dataset read every row with the one schema.
    DatasetInfosDict({"default": DatasetInfo(features=features)}).to_dataset_card_data(data)
    return f"---\n{data.to_yaml()}\n---\n"


def runs_line(records: list[dict]) -> str:
    runs = sorted({str(r.get("run_id")) for r in records if r.get("run_id")})
    shown = ", ".join(runs) if len(runs) <= 10 else f"{runs[0]} ... {runs[-1]}"
    return f"{len(runs)} run(s): {shown}" if runs else "no run id recorded"


def intro(records: list[dict]) -> list[str]:
    tasks = {r.get("kernel_name") for r in records}
    return ["# PallasBench records", "",
            f"{len(records)} evaluation records of JAX Pallas kernels over {len(tasks)} task(s), from "
            f"{runs_line(records)}. Each row is one evaluation of one kernel on one task at one size: its "
            "source, the JAX reference, what the compiler made of it, whether it is correct and robust, and, "
            "where it was timed, how fast it ran against XLA. Every number below is computed from the rows; "
            "\"value (n)\" means n records hold that value.", ""]


def contents(records: list[dict]) -> list[str]:
    rows = [[cn.level_name(level), len({r.get("kernel_name") for r in group}), len(group)]
            for level, group in cn.grouped(records, lambda r: r.get("level"))]
    rows.append(["all", len({r.get("kernel_name") for r in records}), len(records)])
    return ["## Contents", "", *table(["level", "tasks", "records"], rows), "",
            f"- status: {counts(cn.distinct(records, 'status'))}",
            f"- kernel: {counts(cn.distinct(records, 'candidate.kind'))} (`suite`: the task's own kernel)",
            f"- size: {counts(cn.distinct(records, 'size'))}",
            f"- dtype: {counts(cn.distinct(records, 'dtype'))}",
            f"- device: {counts(cn.distinct(records, 'config.device'))}",
            f"- category: {counts(cn.distinct(records, 'category'))}", ""]


def pass_rates(records: list[dict]) -> list[str]:
    rows = [[r.group, r.records, r.status_ok, r.correct, r.robust, r.passed] for r in cn.pass_rows(records)]
    return ["## Pass rates", "",
            "`status` ok: the evaluation found no failure (the candidate compiled, ran, was correct, and its times, "
            "where taken, stand). "
            "`result.correctness_passed`: the output matched the reference within the task's tolerance on every "
            "seed and stress case (and every timing batch rechecked). `result.robustness_passed`: every "
            "robustness filter passed (below). `passed`: the record's verdict, status ok and robust (what `eval`'s "
            "exit code 0 means), computed once by the binary. "
            "Each rate counts the records that hold the field.", "",
            *table(["records", "n", "status ok", "correctness_passed", "robustness_passed", "passed"], rows), ""]


def speed(records: list[dict]) -> list[str]:
    by_level, by_category = cn.speed_rows(records)
    lines = ["## Speed", "",
             "`timing.speedup` is the XLA reference's median device time over the kernel's (CUPTI, on the GPU); "
             "wall-clock times (CPU interpret mode) carry no speedup. Geomeans are over the records that "
             "`passed` (status ok and robust) and have a speedup.", ""]
    if not by_level:
        return lines + ["No record has a speedup, so no geomean is given.", ""]
    header = ["records with a speedup", "of them passed", "geomean (passed)"]
    for title, rows in (("level", by_level), ("category", by_category)):
        lines += table([title, *header], [[r.group, r.timed, r.passed, ratio(r.geomean)] for r in rows]) + [""]
    total = cn.speed_row("all", records)
    return lines + [f"{total.timed} of {len(records)} records have a speedup.", ""]


def environment(records: list[dict]) -> list[str]:
    rows = [[label, counts(values)] for label, values in cn.environment(records)]
    return ["## Where it ran", "", "Each distinct value in the records' `environment`, with its record count.", "",
            *table(["", "values (records)"], rows), ""]


def filters(records: list[dict]) -> list[str]:
    described = registered_filters.by_name()  # what each checks: the harness's registry
    rows = []
    for row in cn.filter_rows(records):
        known = described.get(row.name)
        checks, passes = (known.checks, known.passes_when) if known else ("see docs/filters.md",) * 2
        thresholds = counts([(f"{t:g}", n) for t, n in row.thresholds])
        rows.append([f"`{row.name}`", checks, passes, thresholds, row.ran, row.passed])
    return ["## Robustness filters", "",
            "After a candidate is correct on every seed, the harness runs these filters on its outputs and "
            "its compiled module (docs/filters.md); `result.robustness_passed` is true only when all pass. "
            "A candidate that is not correct gets every filter failed as \"not run\", which the counts leave "
            "out. Thresholds are the ones the records hold (`result.filters.<name>.threshold`).", "",
            *table(["filter", "what it checks", "passes when", "threshold (records)", "ran", "passed"], rows), ""]


def timer_lines(summary: cn.TimerSummary, records: list[dict]) -> list[str]:
    lines = [f"### `{summary.timer}` ({summary.records} records)", ""]
    lines += [f"- how: {method} ({n})" for method, n in summary.methods if method is not None]
    if summary.timer == "wall":
        on_cpu = sum(1 for r in records if cn.at(r, "timing.timer") == "wall" and cn.at(r, "config.device") == "cpu")
        lines.append(f"- host wall clock, {on_cpu} of them in Pallas interpret mode on the CPU: these times say "
                     "nothing about GPU speed and give no speedup")
    lines.append(f"- L2 flushed before each sample: {summary.l2_flushed} of {summary.records}")
    if summary.samples:
        lines.append(f"- samples per kernel series: {summary.samples[0]} to {summary.samples[1]}")
    lines.append(f"- converged (ended by the noise or the median's interval, not the budget): "
                 f"{summary.converged} of {summary.records}")
    lines += [f"- series ended by \"{exit_}\": {n} (kernel and reference), e.g. `{example}`"
              for exit_, n, example in summary.exits]
    return lines + [""]


def measurement(records: list[dict]) -> list[str]:
    untimed = sum(1 for r in records if not isinstance(r.get("timing"), dict))
    lines = ["## How the numbers were measured", "",
             f"Correctness: each candidate is checked on `config.seeds` seeds "
             f"({counts(cn.distinct(records, 'config.seeds'))}), "
             "each seed's inputs drawn from the record's `seed`, and on the task's stress cases, "
             "against the task's reference (`reference_precision`: "
             f"{counts(cn.distinct(records, 'reference_precision'))}), within the task's `tolerance`.", "",
             "Timing (docs/measurement.md): warm calls of the kernel and of the XLA reference, sampled in "
             "alternating batches until a stopping rule ends each series: enough samples and either a low "
             "relative noise or a tight 95% interval of the median, else the time budget. `timing.median_us` "
             "is the median per call; `timing.ci95_us` is the median's distribution-free 95% interval (order "
             "statistics); `timing.speedup_ci95` divides the opposite ends of the two medians' intervals. "
             f"{untimed} record(s) have no `timing` (a failed evaluation, or a run without timing).", ""]
    for summary in cn.timer_summaries(records):
        lines += timer_lines(summary, records)
    return lines


def columns() -> list[str]:
    return ["## Columns", "",
            "Every row has every column; a field a record lacks is null (a failed evaluation has no `timing`, "
            "an ok one no `error`). The field reference is docs/record_schema.md in the PallasBench repository.",
            "",
            f"- pallasbench-robust card columns: {', '.join(f'`{c}`' for c in CARD_COLUMNS)}",
            f"- KernelBook columns: {', '.join(f'`{c}`' for c in KERNELBOOK_COLUMNS)} (`python_code` is the "
            "JAX reference, `triton_code` the Pallas kernel)", "",
            "```python", "from datasets import load_dataset", "ds = load_dataset(\"path/to/this/folder\", "
            "split=\"train\")  # the features above give every row one schema", "```", ""]


def licensing(records: list[dict]) -> list[str]:
    pairs = [(", ".join(ls) if ls else "not declared", n) for ls, n in cn.licenses(records)]
    return ["## License", "", f"`licenses` of the records: {counts(pairs)}. The card's license is the one "
            "every record declares, else \"other\".", ""]


def render(records: list[dict], data_file: str, features) -> str:
    sections = [intro, contents, pass_rates, speed, environment, filters, measurement]
    body = [line for section in sections for line in section(records)] + columns() + licensing(records)
    return front_matter(records, data_file, features) + "\n" + "\n".join(body)
