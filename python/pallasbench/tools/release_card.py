"""The card (README.md) of a PallasBench-Robust release: the Hub's front matter naming the three
configs with their features and row counts, and a text whose every number is computed from the
rows. The suite's sections are the export card's own (dataset_card, card_numbers) over the suite's
rows; the ports' and verdicts' counts are computed here from theirs. What the checks cannot prove
is read from docs/threat_model.md's open rows, so the card follows the threat model."""
from __future__ import annotations

import re
from pathlib import Path

from pallasbench.tools import card_numbers as cn
from pallasbench.tools import dataset_card as dc
from pallasbench.tools.release_ports import FIXED, ORIGINAL

WHAT_A_ROW_IS = {"suite": "one evaluation of a task's own kernel: (task, size, dtype, backend), as recorded",
                 "ports": "one task with both backends: the Triton kernel, the Mosaic GPU kernel, their diff, "
                          "both records' verdicts and speeds",
                 "verdicts": "one corpus candidate at one dtype: its class, the expected verdict, its GPU record"}


def front_matter(manifest: dict, configs: dict, sizes: dict, files: dict) -> str:
    from datasets import DatasetInfo, SplitDict, SplitInfo
    from datasets.info import DatasetInfosDict
    from huggingface_hub import DatasetCardData

    suite = configs["suite"][0]
    data = DatasetCardData(
        license=dc.hub_license(suite) if suite else "apache-2.0", pretty_name="PallasBench-Robust",
        tags=dc.TAGS + ["robustness", "kernel-verification", "mosaic-gpu", "triton"],
        size_categories=[dc.size_category(sum(len(rows) for rows, _ in configs.values()))],
        configs=[{"config_name": n, "data_files": [{"split": "train", "path": files[n]}]} for n in configs])
    infos = {}
    for name, (rows, features) in configs.items():
        splits = SplitDict()
        splits.add(SplitInfo(name="train", num_examples=len(rows), num_bytes=sizes[name]))
        infos[name] = DatasetInfo(features=features, splits=splits)
    DatasetInfosDict(infos).to_dataset_card_data(data)
    return f"---\n{data.to_yaml()}\n---\n"


def deeper(lines: list[str]) -> list[str]:
    """The export card's sections one heading level down, under this card's config heading."""
    return ["#" + line if line.startswith("#") else line for line in lines]


def intro(manifest: dict, configs: dict, files: dict, target: Path) -> list[str]:
    sha = manifest["binary"]["sha"]
    rows = [[f"`{n}`", len(r), WHAT_A_ROW_IS[n], f"`{files[n]}`", (target / files[n]).stat().st_size]
            for n, (r, _) in configs.items()]
    return [f"# PallasBench-Robust {manifest['version']}", "",
            "JAX Pallas GPU kernels with their robust evaluations: correctness against a float64 reference on "
            "seeds and stress cases, robustness filters that catch kernels which only look right, CUPTI device "
            "times against XLA, and the compiler's artifacts, keyed by `kernel_name`; beside them the Triton to "
            "Mosaic GPU port of each task that has both, and a corpus of honest and hostile candidates with the "
            "verdict each should get, for training and testing kernel verifiers.", "",
            f"Built by `make dataset` (python/pallasbench/tools/release.py) from `dataset/manifest.json`: every "
            f"suite record is of one binary, the checkout at commit `{sha}` (the records' `sha`"
            + "".join(f"; or `{other}`, the same code by `git diff`" for other in manifest["binary"].get("same_code_shas", []))
            + "). Why these runs: "
            f"{manifest['binary']['why']}", "",
            *dc.table(["config", "rows", "a row is", "file", "bytes (as committed)"], rows),
            "", "```python", "from datasets import load_dataset",
            *[f"{n} = load_dataset(\"path/to/this/folder\", \"{n}\", split=\"train\")" for n in configs], "```", ""]


def made(manifest: dict, suite: list[dict]) -> list[str]:
    lines = ["## How it was made", ""]
    lines += [f"- `{e['records']}` ({section}): {e['why']}" for section in ("suite", "verdicts")
              for e in manifest[section]]
    lines += [f"- not used: `{e['records']}`: {e['why']}" for e in manifest.get("not_used", [])]
    lines.append("")
    if not suite:
        return lines + ["**No GPU suite record of this binary yet**: the suite and ports configs are empty.", ""]
    return lines + deeper(dc.environment(suite)) + [f"- runs: {dc.runs_line(suite)}",
                                                    f"- commit (`sha`): {dc.counts(cn.distinct(suite, 'sha'))}", ""]


def artifacts(suite: list[dict], trimmed: dict) -> list[str]:
    def having(key):
        return sum(1 for r in suite if isinstance(cn.at(r, f"artifacts.{key}.text"), str))
    by_mode = dc.counts(cn.distinct(suite, "artifacts.mode"))
    return ["### Compiler artifacts", "",
            f"Text in the row, never a path (`artifacts.mode`: {by_mode}). Rows with PTX: {having('ptx')}, SASS: "
            f"{having('sass')}, ptxas log: {having('ptxas')}, of {len(suite)}; a row without says why in "
            "`artifacts.unavailable` (Mosaic GPU kernels launch no kCustomKernel XLA's dump names, so their PTX "
            "and SASS are not captured; runs with `--artifacts none` carry none). `stablehlo`, `jaxpr` and the "
            "Triton IR (`artifacts.triton_ir`) are the module's own.", "",
            f"Trimmed: SASS reduced to the functions of the record's own kernels (`artifacts.summary.kernels`) "
            f"in {trimmed['records']} rows ({trimmed['functions']} other functions, {trimmed['bytes']} bytes "
            "removed); nothing else is cut.", ""]


def suite_section(suite: list[dict], trimmed: dict) -> list[str]:
    lines = ["## `suite`", "", "Every record of the runs as the harness wrote it (ok and robust, or its failure "
             "as recorded), local paths made repository-relative; the columns are the record schema's "
             "(docs/record_schema.md).", ""]
    if not suite:
        return lines + ["No rows: the manifest names no suite records of this binary yet.", ""]
    for section in (dc.contents, dc.pass_rates, dc.speed, dc.filters, dc.measurement):
        lines += deeper(section(suite))
    return lines + artifacts(suite, trimmed)


def ports_section(ports: list[dict]) -> list[str]:
    lines = ["## `ports`", "",
             f"The port JAX asks of every Pallas GPU user, Triton to Mosaic GPU, each pair run on the same GPU in "
             f"the same run: `source_original` is the code the task's `{ORIGINAL}` entry reaches, `source_fixed` "
             f"the code its `{FIXED}` entry reaches, `diff` the unified diff. Both are cut from the record's "
             "bundled source (the task file and every pallasbench.kernels module it imports, as it ran): the "
             "top-level definitions each backend's entry in the task's `BACKENDS` reaches by static reference, "
             "by module (names from outside the bundle, such as jax, `tl` or the task's family, stay names); `source_note` is null when the bundle's task file hashes to the records' `task_sha256` "
             "(the code that ran), else says what is missing. `runs` holds both records' status, verdict (`passed`), speedup over XLA and median "
             "time per (size, dtype).", ""]
    if not ports:
        return lines + ["No rows: no task has records of both backends in this release.", ""]
    runs = sorted({(run["size"], run["dtype"]) for row in ports for run in row["runs"]})
    rows = []
    for size, dtype in runs:
        pairs = [run for row in ports for run in row["runs"] if (run["size"], run["dtype"]) == (size, dtype)]
        both = [run for run in pairs if run[ORIGINAL]["passed"] and run[FIXED]["passed"]
                and run[ORIGINAL]["speedup"] and run[FIXED]["speedup"]]
        ratio = cn.geomean([run[FIXED]["speedup"] / run[ORIGINAL]["speedup"] for run in both])
        rows.append([size, dtype, len(pairs), len(both), dc.ratio(cn.geomean([r[ORIGINAL]["speedup"] for r in both])),
                     dc.ratio(cn.geomean([r[FIXED]["speedup"] for r in both])), dc.ratio(ratio)])
    failed = [[row["kernel_name"], run["size"], run["dtype"], run[ORIGINAL]["status"], run[FIXED]["status"]]
              for row in ports for run in row["runs"] if not (run[ORIGINAL]["passed"] and run[FIXED]["passed"])]
    lines += [f"{len(ports)} tasks; {sum(r['both_passed'] for r in ports)} with both kernels ok and robust in every "
              f"run; {sum(r['source_note'] is None for r in ports)} with sources verified against `task_sha256`. Geomeans over the tasks where both passed and both were timed:", "",
              *dc.table(["size", "dtype", "tasks", "both passed", f"{ORIGINAL} speedup", f"{FIXED} speedup",
                         f"{FIXED} / {ORIGINAL}"], rows), ""]
    if failed:
        lines += ["Pairs where a kernel did not pass (its record says why):", "",
                  *dc.table(["task", "size", "dtype", ORIGINAL, FIXED], failed), ""]
    return lines


def verdicts_section(verdicts: list[dict]) -> list[str]:
    with_gpu = [r for r in verdicts if r["gpu_status"] is not None]
    rows = [[corpus, len(group), sum(1 for r in group if r["expected_status"] == ["ok"] and r["expected_robust"]),
             sum(1 for r in group if r["gpu_status"] is not None),
             sum(1 for r in group if r["gpu_on_expectation"] is True)]
            for corpus, group in cn.grouped(verdicts, lambda r: r["corpus"])]
    lines = ["## `verdicts`", "",
             "Every candidate file of tests/adversarial/ and tests/candidates/ at each dtype a test states a verdict "
             "for: `class` is the group the stating table puts it in (tests/e2e/test_adversarial.py's headings, "
             "the candidate file's own \"Hostile (...)\"/\"Honest (...)\"), `expected_status` (any of) and "
             "`expected_robust` what it must get and `stated_in` where that is said; `gpu_expected_*` what "
             "bench/adversarial_gpu.sh expects on the GPU where it differs in size or verdict. `gpu_*` is the "
             "record the harness gave it on the GPU in this release's runs, else null with "
             "`gpu_missing_reason`. `source` is the file at the release's build.", "",
             *dc.table(["corpus", "rows", "expected to pass", "with a GPU record", "GPU record on expectation"], rows),
             "", f"- class: {dc.counts(cn.counted(r['class'] for r in verdicts))}", ""]
    off = [[r["candidate"], r["dtype"], "/".join(r["gpu_expected_status"] or r["expected_status"] or ["-"]),
            r["gpu_status"], r["gpu_robustness_passed"]] for r in with_gpu if r["gpu_on_expectation"] is False]
    if off:
        lines += ["GPU records off their expectation:", "",
                  *dc.table(["candidate", "dtype", "expected", "status", "robust"], off), ""]
    missing = cn.counted(r["gpu_missing_reason"] for r in verdicts if r["gpu_missing_reason"])
    if missing:
        lines += [f"- without a GPU record: {dc.counts(missing)}", ""]
    return lines


def open_rows(root: Path) -> list[str]:
    """The bold titles of docs/threat_model.md's "Not defended (yet), or only partly" section."""
    text = (root / "docs" / "threat_model.md").read_text()
    section = text.split("## Not defended", 1)[1].split("\n## ", 1)[0] if "## Not defended" in text else ""
    return re.findall(r"^- \*\*(.+?)\*\*", section, re.M)


def closing(manifest: dict, configs: dict, root: Path) -> list[str]:
    suite = configs["suite"][0]
    gpus = dc.counts(cn.distinct(suite, "environment.gpu_name")) if suite else "none"
    empty = [n for n, (rows, _) in configs.items() if not rows]
    sha = manifest["binary"]["sha"]
    years = sorted({str(r.get("run_id"))[:4] for r in suite if r.get("run_id")})  # run ids start with the UTC date
    return ["## Intended uses", "",
            "- training and testing kernel verifiers and reward models: `verdicts` pairs code with the verdict "
            "it should get, hostile and honest; `suite` pairs each kernel with what the robust checks found;",
            "- learning the Triton to Mosaic GPU port (`ports`): each pair is the same task, both verified on one GPU;",
            "- reading what the compiler made of a Pallas kernel (IR, PTX, SASS summaries) beside its speed.", "",
            "Not for ranking GPUs or kernels beyond the runs' own GPU, size and dtype.", "",
            "## Limitations", "",
            f"- GPU: {gpus}: the times hold for that GPU, its driver and jax only. Sizes: "
            f"{dc.counts(cn.distinct(suite, 'size'))}; dtypes: {dc.counts(cn.distinct(suite, 'dtype'))}; the "
            "release is meant to grow to MEDIUM and LARGE at float32, bfloat16 and float16, on an H200.",
            f"- configs without rows in this build: {', '.join(empty) or 'none'}.",
            "- a verdict is evidence, not proof: the checks cannot prove a kernel correct on inputs no seed or "
            "stress case draws, nor that it is not merely suspiciously fast. Open rows of docs/threat_model.md "
            "(each explained there):", *[f"  - {title}" for title in open_rows(root)],
            "- `ports` sources are a static cut of the bundled source: code reached only dynamically is missing.",
            "- expectations are the project's own; a corpus case measures one attack, not the class of attacks.", "",
            "## Citation", "", "```bibtex",
            f"@misc{{pallasbench_robust_{manifest['version'].replace('.', '_')},",
            "  title = {PallasBench-Robust: JAX Pallas GPU kernels with robust evaluations},",
            "  author = {{PallasBench contributors}},",
            f"  note = {{Version {manifest['version']}, built from commit {sha}}}" + ("," if years else ""),
            *([f"  year = {{{years[-1]}}}"] if years else []), "}", "```", "",
            "## License", "",
            *(dc.licensing(suite)[2:-1] if suite else ["No suite rows: no license declared by records."]),
            "The corpus files in `verdicts` are the project's own test files, under the same license.", ""]


def render(manifest: dict, configs: dict, sizes: dict, trimmed: dict, files: dict, root: Path, target: Path) -> str:
    suite, ports, verdicts = (configs[n][0] for n in ("suite", "ports", "verdicts"))
    body = (intro(manifest, configs, files, target) + made(manifest, suite) + suite_section(suite, trimmed)
            + ports_section(ports) + verdicts_section(verdicts) + closing(manifest, configs, root))
    return front_matter(manifest, configs, sizes, files) + "\n" + "\n".join(body)
