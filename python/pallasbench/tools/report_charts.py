"""The HTML report's charts, drawn by matplotlib as inline SVG: the speedup over XLA per task and a
roofline against the run's measured ceilings. Text stays text (svg.fonttype "none"), so the page
can be searched and tested; ids are salted with a constant, so the same records draw the same SVG."""
from __future__ import annotations

import io
import math

import matplotlib

matplotlib.use("Agg")  # no display: the tools run headless
from matplotlib import rcParams  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from pallasbench.tools.report_data import Ceiling, Row  # noqa: E402

rcParams["svg.fonttype"] = "none"
rcParams["svg.hashsalt"] = "pallasbench"
rcParams["font.size"] = 8

SLOW_LINE = 0.8  # the report's "much slower than XLA" mark


def category_colours(rows: list[Row]) -> dict[str, tuple]:
    palette = matplotlib.colormaps["tab20"]
    names = sorted({row.category for row in rows})
    return {name: palette(i % 20) for i, name in enumerate(names)}


def _svg(figure: Figure) -> str:
    buffer = io.StringIO()
    figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
    text = buffer.getvalue()
    return text[text.index("<svg"):]  # inline: no XML prolog or DOCTYPE


def _label(row: Row) -> str:
    return row.task if row.candidate == "suite" else f"{row.task} ({row.candidate})"


def speedup_chart(rows: list[Row], colours: dict[str, tuple]) -> str | None:
    """Horizontal bars from 1x to each task's speedup on a log axis, the CI95 as whiskers; None
    when no record was timed against XLA."""
    timed = sorted((r for r in rows if r.passed and r.speedup and r.speedup > 0), key=lambda r: r.speedup)
    if not timed:
        return None
    figure = Figure(figsize=(7.5, 1.2 + 0.17 * len(timed)))
    axes = figure.add_subplot()
    positions = range(len(timed))
    widths = [r.speedup - 1.0 for r in timed]
    lower = [r.speedup - r.speedup_ci[0] if r.speedup_ci else 0.0 for r in timed]
    upper = [r.speedup_ci[1] - r.speedup if r.speedup_ci else 0.0 for r in timed]
    axes.barh(list(positions), widths, left=1.0, color=[colours[r.category] for r in timed], height=0.7,
              xerr=[lower, upper], error_kw={"ecolor": "black", "elinewidth": 0.8, "capsize": 2})
    axes.set_xscale("log")
    axes.axvline(1.0, color="black", linewidth=1.0)
    axes.axvline(SLOW_LINE, color="tab:red", linewidth=1.0, linestyle="--")
    axes.set_yticks(list(positions), [_label(r) for r in timed])
    axes.set_ylim(-0.7, len(timed) - 0.3)
    low = min(min(r.speedup_ci[0] if r.speedup_ci else r.speedup for r in timed), SLOW_LINE)
    high = max(max(r.speedup_ci[1] if r.speedup_ci else r.speedup for r in timed), 1.0)
    axes.set_xlim(low / 1.25, high * 1.25)
    axes.set_xlabel("speedup over XLA (XLA median / kernel median; whiskers: CI95)")
    axes.grid(axis="x", which="both", linewidth=0.3, alpha=0.5)
    used = sorted({r.category for r in timed})
    handles = [Line2D([], [], color=colours[c], linewidth=6, label=c) for c in used]
    handles += [Line2D([], [], color="tab:red", linestyle="--", label=f"{SLOW_LINE}x"),
                Line2D([], [], color="black", label="1x (as fast as XLA)")]
    axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7)
    return _svg(figure)


def _tflops(flops: float, microseconds: float) -> float:
    return flops / (microseconds * 1e-6) / 1e12


def roofline_chart(rows: list[Row], ceilings: list[Ceiling], colours: dict[str, tuple]) -> str | None:
    """Arithmetic intensity against achieved TFLOP/s, kernel (filled) and XLA (hollow) joined,
    under the measured bandwidth and compute ceilings; None without timed rows or ceilings."""
    points = [r for r in rows if r.passed and r.intensity and r.kernel_us and r.flops]
    bandwidth = [c for c in ceilings if c.unit == "GB/s"]
    compute = sorted((c for c in ceilings if c.unit == "TFLOP/s"), key=lambda c: c.value)
    if not points or not bandwidth:
        return None
    figure = Figure(figsize=(10.0, 6.5))
    axes = figure.add_subplot()
    axes.set_xscale("log")
    axes.set_yscale("log")
    for row in points:
        colour = colours[row.category]
        kernel = _tflops(row.flops, row.kernel_us)
        if row.xla_us:
            xla = _tflops(row.flops, row.xla_us)
            axes.plot([row.intensity, row.intensity], [kernel, xla], color=colour, linewidth=0.8)
            axes.plot(row.intensity, xla, marker="o", markerfacecolor="white", markeredgecolor=colour, markersize=5)
        axes.plot(row.intensity, kernel, marker="o", color=colour, markersize=5)
        axes.annotate(row.task, (row.intensity, kernel), xytext=(3, 2), textcoords="offset points", fontsize=5)
    lo = min(r.intensity for r in points) / 3
    hi = max(max(r.intensity for r in points) * 3, 1.0)
    top = max(c.value for c in compute) if compute else None
    if top:  # the ridge of the highest ceiling belongs on the chart
        hi = max(hi, top * 1e12 / (bandwidth[0].value * 1e9) * 3)
    xs = [lo * (hi / lo) ** (i / 200) for i in range(201)]
    for ceiling in bandwidth:
        roof = [x * ceiling.value * 1e9 / 1e12 for x in xs]
        axes.plot(xs, [min(y, top) if top else y for y in roof], color="dimgray", linewidth=1.2)
        axes.annotate(f"{ceiling.name}: {ceiling.value:.0f} GB/s", (xs[10], roof[10]), rotation=0, fontsize=6,
                      xytext=(0, 4), textcoords="offset points", color="dimgray")
    for ceiling in compute:
        ridge = ceiling.value * 1e12 / (bandwidth[0].value * 1e9)
        axes.plot([ridge, hi], [ceiling.value, ceiling.value], color="dimgray", linewidth=0.8, linestyle=":")
        axes.annotate(f"{ceiling.name}: {ceiling.value:.1f} TFLOP/s", (hi, ceiling.value), fontsize=6,
                      ha="right", xytext=(0, 3), textcoords="offset points", color="dimgray")
    axes.set_xlim(lo, hi)
    ys = [_tflops(r.flops, r.kernel_us) for r in points] + [_tflops(r.flops, r.xla_us) for r in points if r.xla_us]
    axes.set_ylim(min(ys) / 3, (top or max(ys)) * 3)
    axes.set_xlabel("arithmetic intensity (FLOP / byte, from the task's FLOP and byte counts)")
    axes.set_ylabel("achieved TFLOP/s")
    axes.grid(which="major", linewidth=0.3, alpha=0.5)
    handles = [Line2D([], [], marker="o", color="gray", linestyle="", label="Pallas kernel"),
               Line2D([], [], marker="o", markerfacecolor="white", markeredgecolor="gray", linestyle="",
                      label="XLA reference")]
    axes.legend(handles=handles, loc="lower right", fontsize=6)
    return _svg(figure)


def ratio_text(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.2f}x"
