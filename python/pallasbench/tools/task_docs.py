"""`pallasbench list --format markdown [--level N] [--category C]`: the task suite's specification
as markdown, made from the task files alone (the registry's `describe` and the modules' own
attributes and sources), so it is whatever the harness checks. docs/tasks.md is its output for
the whole suite, and tests/python/test_task_docs.py fails when the two differ.

The output depends on nothing but the task files and the task vocabulary (python/pallasbench/
task/): no time, no absolute path, no machine."""
from __future__ import annotations

import argparse
import dis
import functools
import inspect
import os
import string
import sys
import textwrap
from pathlib import Path
from types import FunctionType, ModuleType

from pallasbench.tools import ToolUsageError, main

REGENERATE = "build/pallasbench list --format markdown > docs/tasks.md"
LEVEL_TITLES = {1: "single operators", 2: "fusions", 3: "architecture components"}


def number(value: float) -> str:
    """A bound or factor, short and stable: 30, 0.5, 1e-5, 2e-3, 1e3."""
    if value and (abs(value) < 0.1 or abs(value) >= 1000):
        mantissa, exponent = f"{value:e}".split("e")
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return f"{value:g}"


def cell(text: str) -> str:
    """Text in a markdown table cell: a '|' of a formula would end the cell."""
    return text.replace("|", "\\|")


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def count(value: int) -> str:
    return f"{value:,}"


def shape_text(shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def summary_line(module: ModuleType) -> str:
    doc = inspect.getdoc(module) or ""
    return doc.strip().splitlines()[0] if doc.strip() else f"{module.NAME}: (the task file has no docstring)"


def _globals_read(fn: FunctionType) -> list[str]:
    """The global names a function (and the lambdas and comprehensions inside it) reads, in order."""
    names, codes = [], [fn.__code__]
    while codes:
        code = codes.pop(0)
        for ins in dis.get_instructions(code):
            if ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval not in names:
                names.append(ins.argval)
        codes.extend(c for c in code.co_consts if inspect.iscode(c))
    return names


def source_with_helpers(fn: FunctionType) -> str:
    """A function's source, preceded by the module constants (numbers, strings, tuples of them) and
    the functions of its own module it reads, recursively: what a reader needs to know what it
    computes. Library calls (jnp, jax, tl) are named, not expanded. A functools.partial shows its
    function and the arguments it binds."""
    fn = inspect.unwrap(fn)
    if isinstance(fn, functools.partial):
        bound = ", ".join([*map(repr, fn.args), *(f"{k}={v!r}" for k, v in fn.keywords.items())])
        return source_with_helpers(fn.func) + f"# bound as functools.partial({fn.func.__name__}, {bound})\n"
    constants, helpers, seen = {}, [], {fn.__name__}
    pending = [fn]
    while pending:
        current = pending.pop(0)
        for name in _globals_read(current):
            value = current.__globals__.get(name)
            if isinstance(value, FunctionType) and value.__module__ == fn.__module__ and name not in seen:
                seen.add(name)
                helpers.append(value)
                pending.append(value)
            elif _is_constant(value) and not isinstance(value, bool):
                constants.setdefault(name, value)
    parts = [f"{name} = {value!r}" for name, value in constants.items()]
    text = "\n".join(parts) + ("\n\n" if parts else "")
    for helper in [*helpers[::-1], fn]:
        text += textwrap.dedent(inspect.getsource(helper)).rstrip() + "\n\n"
    return text.rstrip() + "\n"


def _is_constant(value) -> bool:
    if isinstance(value, (int, float, str)):
        return True
    return isinstance(value, tuple) and all(isinstance(v, (int, float, str)) for v in value)


def output_specs(module: ModuleType, info: dict) -> dict:
    """The reference's output (shape, dtype) at each size, from abstract evaluation (no data)."""
    import jax
    import numpy as np

    found = {}
    for size, shapes in info["shapes"].items():
        avals = [jax.ShapeDtypeStruct(tuple(shapes[i.name]), np.dtype(info["dtypes"][i.name]))
                 for i in module.INPUTS]
        out = jax.eval_shape(module.reference, *avals)
        found[size] = (tuple(out.shape), str(out.dtype))
    return found


def custom_stress_cases(module: ModuleType) -> list[str]:
    """The stress cases whose inputs the task makes itself (its stress_inputs answers them), found
    by asking it at SMALL."""
    import numpy as np

    custom = getattr(module, "stress_inputs", None)
    if custom is None:
        return []
    small = module.SHAPES["small"]
    found = []
    for case in module.STRESS.run:
        rng = np.random.default_rng(0)
        if custom(case, rng, small, list(module.make_inputs(rng, small))) is not None:
            found.append(case)
    return found


def tolerance_name(tolerance) -> str:
    from pallasbench.task import tolerance as tolerances

    for name, value in vars(tolerances).items():
        if name.isupper() and value == tolerance:
            return f"`tl.{name}`"
    return "the task's own"


def tolerance_text(bound: dict) -> str:
    if not any(bound.values()):
        return "exact"
    return f"atol {number(bound['atol'])}, rtol {number(bound['rtol'])}, rel_norm {number(bound['rel_norm'])}"


def task_facts(module: ModuleType) -> dict:
    """Everything the page says of one task, read from the registry and the module."""
    from pallasbench.task import dtypes, registry

    info = registry.describe(module)
    input_dtypes = list(info["dtypes"].values())
    outputs = output_specs(module, info)
    # The task at each dtype as the harness reads it (task/dtypes.py views: the one derivation).
    views = dtypes.views(module, info["dtypes"], outputs["small"][1],
                         {"float32": info["bytes"], **registry.bytes_by_dtype(module)})
    return {
        **info,
        "file": f"tasks/level{module.LEVEL}/{module.NAME}.py",
        "summary": summary_line(module),
        "float": dtypes.FLOAT32 in input_dtypes,
        "outputs": outputs,
        "low_output_dtype": {d: views[d]["output_dtype"] for d in dtypes.LOW_PRECISION},
        "bytes_by_dtype": {d: views[d]["bytes"] for d in dtypes.LOW_PRECISION if "bytes" in views[d]},
        "tolerance_name": tolerance_name(module.TOLERANCE),
        "tolerances": {d: view["tolerance"] for d, view in views.items()},
        "stress_spec": module.STRESS,
        "custom_stress": custom_stress_cases(module),
        "reference_source": source_with_helpers(module.reference),
        "inputs_source": source_with_helpers(module.make_inputs),
        "stress_source": source_with_helpers(module.stress_inputs) if hasattr(module, "stress_inputs") else None,
        "domains": {i.name: i.domain for i in module.INPUTS},
        "weights": [i.name for i in module.INPUTS if i.weight],
    }


# ---------------------------------------------------------------------------------------------
# One task
# ---------------------------------------------------------------------------------------------

def io_table(f: dict) -> list[str]:
    from pallasbench.task.shapes import SIZE_NAMES

    rows = ["| | domain | dtype | " + " | ".join(SIZE_NAMES) + " |", "|---|---|---|" + "---|" * len(SIZE_NAMES)]
    for name, domain in f["domains"].items():
        shapes = " | ".join(shape_text(f["shapes"][size][name]) for size in SIZE_NAMES)
        kind = f"{domain}, weight" if name in f["weights"] else domain
        rows.append(f"| `{name}` | {kind} | {f['dtypes'][name]} | {shapes} |")
    out_dtype = f["outputs"]["small"][1]
    low = {f["low_output_dtype"][d] for d in f["low_output_dtype"]}
    if low != {out_dtype}:
        out_dtype += " (the run's dtype at bfloat16/float16)"
    shapes = " | ".join(shape_text(f["outputs"][size][0]) for size in SIZE_NAMES)
    rows.append(f"| output | | {out_dtype} | {shapes} |")
    return rows


def stress_lines(f: dict) -> list[str]:
    spec = f["stress_spec"]
    lines = []
    for case in spec.run:
        what = ("the task's own inputs (`stress_inputs` below)" if case in f["custom_stress"]
                else "; ".join(case_inputs(f, case)) or "no input changes")
        lines.append(f"  - runs **{case}**: {what}")
    if spec.keep:
        lines.append(f"  - tiny and large leave {', '.join(f'`{k}`' for k in spec.keep)} as drawn")
    for case, reason in spec.skipped.items():
        lines.append(f"  - skips **{case}**: {reason}")
    return lines


def case_inputs(f: dict, case: str) -> list[str]:
    """What the default transform of a case (python/pallasbench/task/stress.py) does to each input."""
    from pallasbench.task import domains, stress

    spec, found = f["stress_spec"], []
    for name, domain in f["domains"].items():
        scaled = case in ("tiny", "large") and name not in spec.keep
        if scaled and domain == domains.REAL:
            factor = stress.TINY_FACTOR if case == "tiny" else spec.large_factor
            found.append(f"`{name}` x{number(factor)}")
        elif scaled and domain == domains.POSITIVE:
            low, high = stress.POSITIVE_TINY if case == "tiny" else stress.POSITIVE_LARGE
            found.append(f"`{name}` log-uniform in [{number(low)}, {number(high)}]")
        elif case == "offset" and name == spec.offset_input:
            along = "one per row" if spec.offset_axis == -1 else f"constant along axis {spec.offset_axis}"
            found.append(f"`{name}` plus a constant from U[-{number(stress.OFFSET_RANGE)}, "
                         f"{number(stress.OFFSET_RANGE)}], {along}")
        elif case == "degenerate" and domain == domains.ONE_HOT_ROWS:
            found.append(f"`{name}` every row base A")
        elif case == "degenerate" and domain == domains.DISCRETE:
            found.append(f"`{name}` all 0 (poly-A; a mask all off)" if f["dtypes"][name] == "uint8"
                         else f"`{name}` one value drawn from it, everywhere")
    return found


def model_table(f: dict) -> list[str]:
    from pallasbench.task.shapes import SIZE_NAMES

    low = f["float"] and f["bytes_by_dtype"]
    unit = "integer ops" if f["integer_ops"] else "FLOPs"
    at = " (float32)" if f["float"] else ""
    head = f"| size | {unit} | bytes{at} |" + (" bytes (bfloat16/float16) |" if low else "") + f" {unit} per byte{at} |"
    rows = [head, "|---|---|---|" + ("---|" if low else "") + "---|"]
    for size in SIZE_NAMES:
        flops, nbytes = f["flops"][size], f["bytes"][size]
        cells = [size, count(flops), count(nbytes)]
        if low:
            cells.append(count(f["bytes_by_dtype"]["bfloat16"][size]))
        cells.append(f"{flops / nbytes:.3g}" if nbytes else "-")
        rows.append("| " + " | ".join(cells) + " |")
    if f["float"] and not f["bytes_by_dtype"]:
        rows += ["", "`bytes_moved` takes no `itemsize`: no bandwidth figure at bfloat16/float16."]
    return rows


def config_line(f: dict) -> str | None:
    """Where each implementation's TUNED table applies (python/pallasbench/task/tuning.py)."""
    parts = []
    for backend, config in f["kernel_configs"].items():
        if config is None:
            continue
        pinned = config.get("pinned", [])
        tuned = [f"{size} ({', '.join(d for d, values in by_dtype.items() if values != pinned)})"
                 for size, by_dtype in config["values"].items()
                 if any(values != pinned for values in by_dtype.values())]
        if tuned:
            parts.append(f"`{backend}` on the {config['gpu']} ({config['source']}) at {', '.join(tuned)}")
    if not parts:
        return None
    return (f"- **Suite kernels' configurations**: tuned {'; '.join(parts)}; other shapes take the kernel's "
            f"defaults (each record's `kernel_config` gives the values, the backend among them, that ran).")


def reference_text(f: dict) -> str:
    if not f["float"] and f["outputs"]["small"][1] != "float32":
        return "integer arithmetic (no float input or output)"
    platform = "TF32 contractions" if f["uses_tf32"] else "float32"
    return (f"float64, rounded to the output's dtype; the platform's class (docs/measurement.md): XLA's own "
            f"at {platform} (at bfloat16 and float16 runs, at that dtype)")


def render_task(f: dict) -> str:
    from pallasbench.task import dtypes

    args = ", ".join(f["domains"])
    lines = [f"### {f['name']}", "", f"{f['summary']}", "",
             f"`{f['file']}` · level {f['level']} · {f['category']} · `kernel({args})`", ""]
    lines += io_table(f)
    tol = f["tolerances"]
    lines += ["", f"- **Tolerance** ({f['tolerance_name']}): float32 {tolerance_text(tol[dtypes.FLOAT32])}; "
                  + "; ".join(f"{d} {tolerance_text(tol[d])}" for d in dtypes.LOW_PRECISION) + ".",
              f"- **Reference**: {reference_text(f)}.",
              f"- **TF32 allowed** (`USES_TF32`): {yes_no(f['uses_tf32'])}. **Order-dependent** "
              f"(`ORDER_DEPENDENT`, determinism within tolerance): {yes_no(f['order_dependent'])}.",
              f"- **The suite's implementations** (`--backend`, preferred first): "
              + ", ".join(f"`{b}`" + (" (GPU only: left out in interpret mode on the CPU)"
                                      if b in f.get("gpu_only_backends", []) else "") for b in f["backends"]) + ".",
              "- **Stress cases**:", *stress_lines(f)]
    if line := config_line(f):
        lines.append(line)
    lines += ["", *model_table(f), "", "Reference:", "", "```python", f["reference_source"].rstrip(), "```", "",
              "Inputs (`make_inputs`):", "", "```python", f["inputs_source"].rstrip(), "```"]
    if f["stress_source"]:
        lines += ["", "Stress inputs (`stress_inputs`):", "", "```python", f["stress_source"].rstrip(), "```"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------------------------

def header(facts: list[dict], selection: str) -> str:
    """task_docs_header.md with the numbers of the task vocabulary filled in."""
    from pallasbench.task import dtypes, stress

    template = string.Template((Path(__file__).parent / "task_docs_header.md").read_text(encoding="utf-8"))
    dtype_rows = ["| dtype | atol | rtol | rel_norm |", "|---|---|---|---|"]
    dtype_rows += [f"| {d} | {number(b.atol)} | {number(b.rtol)} | {number(b.rel_norm)} |"
                   for d, b in dtypes.BOUNDS.items()]
    return template.substitute(
        title=f"# The task suite: {len(facts)} tasks{selection}", regenerate=REGENERATE,
        tolerance_table="\n".join(tolerance_table(facts)), dtype_table="\n".join(dtype_rows),
        tiny=number(stress.TINY_FACTOR), tiny_low=number(stress.POSITIVE_TINY[0]),
        tiny_high=number(stress.POSITIVE_TINY[1]), large_low=number(stress.POSITIVE_LARGE[0]),
        large_high=number(stress.POSITIVE_LARGE[1]), offset=number(stress.OFFSET_RANGE),
        index="\n".join(index_table(facts)))


def tolerance_table(facts: list[dict]) -> list[str]:
    from pallasbench.task import tolerance as tolerances

    rows = ["| bound | atol | rtol | rel_norm | tasks |", "|---|---|---|---|---|"]
    named = [(n, v) for n, v in vars(tolerances).items() if n.isupper() and isinstance(v, tolerances.Tolerance)]
    for name, bound in named:
        users = [f["name"] for f in facts if f["tolerance_name"] == f"`tl.{name}`"]
        rows.append(f"| `tl.{name}` | {number(bound.atol)} | {number(bound.rtol)} | {number(bound.rel_norm)} | "
                    f"{', '.join(users) or '-'} |")
    own = [f"{f['name']} ({tolerance_text(f['tolerance'])})" for f in facts if f["tolerance_name"] == "the task's own"]
    if own:
        rows.append(f"| the task's own | | | | {', '.join(own)} |")
    return rows


def index_table(facts: list[dict]) -> list[str]:
    rows = ["| level | task | category | what |", "|---|---|---|---|"]
    rows += [f"| {f['level']} | [{f['name']}](#{f['name']}) | {f['category']} | {cell(f['summary'])} |" for f in facts]
    return rows


def render(modules: list[ModuleType], selection: str = "") -> str:
    """The page for these task modules, grouped by level in (level, name) order."""
    facts = sorted((task_facts(m) for m in modules), key=lambda f: (f["level"], f["name"]))
    parts = [header(facts, selection)]
    for level in sorted({f["level"] for f in facts}):
        of_level = [f for f in facts if f["level"] == level]
        title = LEVEL_TITLES.get(level)
        parts.append(f"## Level {level}{' — ' + title if title else ''} ({len(of_level)})\n")
        parts += [render_task(f) for f in of_level]
    return "\n".join(parts)


def select(level: int | None, category: str | None) -> tuple[list[ModuleType], str]:
    """The tasks of a level and a category (None: any), and words naming the selection for the title."""
    from pallasbench.task import registry

    modules = [registry.load(name) for name in sorted(registry.discover())]
    chosen = [m for m in modules
              if (level is None or m.LEVEL == level) and (category is None or m.CATEGORY == category)]
    words = ", ".join(w for w in (f"level {level}" if level is not None else "",
                                  f"category {category}" if category else "") if w)
    if not chosen:
        levels = ", ".join(str(n) for n in sorted({m.LEVEL for m in modules}))
        raise ToolUsageError(f"no task of {words} (levels: {levels}; "
                             f"categories: {', '.join(sorted({m.CATEGORY for m in modules}))})")
    return chosen, f" ({words})" if words else ""


def run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="pallasbench list --format markdown")
    parser.add_argument("--level", type=int, help="only tasks of this level")
    parser.add_argument("--category", help="only tasks of this category")
    args = parser.parse_args(argv)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")  # shapes only: no device, the same text everywhere
    modules, selection = select(args.level, args.category)
    sys.stdout.write(render(modules, selection))
    return 0


if __name__ == "__main__":
    sys.exit(main(run))
