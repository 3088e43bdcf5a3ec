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
    # The ceilings' labels are fixed (font 6, at the left of the bandwidth line, right-aligned at
    # the right end of each compute line): the points' labels keep clear of them.
    fixed = [(f"{c.name}: {c.value:.0f} GB/s", xs[10], xs[10] * c.value * 1e9 / 1e12, 4.0, False) for c in bandwidth]
    fixed += [(f"{c.name}: {c.value:.1f} TFLOP/s", hi, c.value, 3.0, True) for c in compute]
    _place_labels(figure, axes, [(_label(r), r.intensity, _tflops(r.flops, r.kernel_us)) for r in points], fixed)
    axes.set_xlabel("arithmetic intensity (FLOP / byte, from the task's FLOP and byte counts)")
    axes.set_ylabel("achieved TFLOP/s")
    axes.grid(which="major", linewidth=0.3, alpha=0.5)
    handles = [Line2D([], [], marker="o", color="gray", linestyle="", label="Pallas kernel"),
               Line2D([], [], marker="o", markerfacecolor="white", markeredgecolor="gray", linestyle="",
                      label="XLA reference")]
    axes.legend(handles=handles, loc="lower right", fontsize=6)
    return _svg(figure)


LABEL_POINTS = 5.0  # the roofline labels' font size


def label_box(x: float, y: float, text: str) -> tuple[float, float, float, float]:
    """A label's box in display points from its anchor (left, baseline): an upper bound on its
    extent for a font of LABEL_POINTS (a character is at most 0.62 em wide)."""
    return x, y - 0.25 * LABEL_POINTS, x + 0.62 * LABEL_POINTS * len(text), y + LABEL_POINTS


def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _place_labels(figure: Figure, axes, labels: list[tuple[str, float, float]], fixed: list[tuple]) -> None:
    """Each point's label where it overlaps no label placed before nor a fixed one (text, x, y,
    offset up in points, right-aligned; font 6): the first free spot of a spiral of offsets around
    the point, then of a column beside it, joined to it by a thin line when moved away."""
    to_points = axes.transData + figure.dpi_scale_trans.inverted()  # data -> inches
    placed: list[tuple[float, float, float, float]] = []
    for text, x, y, up, right in fixed:
        px, py = (v * 72 for v in to_points.transform((x, y)))
        width = 0.62 * 6 * len(text)
        placed.append((px - width if right else px, py + up - 1.5, px if right else px + width, py + up + 6))
    # Near the point first, then a column of slots beside it (many candidates of one task share
    # one intensity: their labels stack there).
    offsets = [(3.0, 2.0)] + [(dx * r, dy * r) for r in (6, 12, 18, 26, 36, 48)
                              for dx, dy in ((1, 1), (1, -1.4), (-1, 1), (-1, -1.4), (0.3, 2), (0.3, -2.5))]
    offsets += [(side * 40.0, step * sign * 1.3 * LABEL_POINTS) for step in range(1, 200)
                for side in (1, -1) for sign in (1, -1)]
    for text, x, y in sorted(labels, key=lambda item: (item[1], item[2])):
        px, py = (v * 72 for v in to_points.transform((x, y)))
        width = 0.62 * LABEL_POINTS * len(text)
        for dx, dy in offsets:
            left = px + dx if dx >= 0 else px + dx - width
            box = label_box(left, py + dy, text)
            if not any(_overlaps(box, other) for other in placed):
                break
        placed.append(box)
        moved = (dx, dy) != offsets[0]
        axes.annotate(text, (x, y), xytext=(left - px, py + dy - py), textcoords="offset points",
                      fontsize=LABEL_POINTS, gid="roofline-label",
                      arrowprops={"arrowstyle": "-", "color": "gray", "linewidth": 0.3} if moved else None)


SIZE_ORDER = ("tiny", "small", "medium", "large", "xlarge")


def sizes_chart(rows: list[Row]) -> str | None:
    """One task's kernel time over sizes, a line per backend and dtype (mosaic_gpu and triton side
    by side), XLA's dashed; None unless its timed rows span several sizes or backends."""
    timed = [r for r in rows if r.kernel_us and r.candidate == "suite"]
    series: dict[str, list[Row]] = {}
    for row in timed:
        parts = row.size.split("/")
        backend = "mosaic_gpu" if "mosaic_gpu" in parts else "triton"
        dtype = next((p for p in parts[1:] if p != "mosaic_gpu"), "float32")
        series.setdefault(f"{backend} {dtype}", []).append(row)
    sizes = sorted({r.size.split("/")[0] for r in timed},
                   key=lambda s: SIZE_ORDER.index(s) if s in SIZE_ORDER else len(SIZE_ORDER))
    if len(sizes) < 2 and len(series) < 2:
        return None
    figure = Figure(figsize=(4.6, 2.4))
    axes = figure.add_subplot()
    axes.set_yscale("log")
    for index, (name, found) in enumerate(sorted(series.items())):
        found = sorted(found, key=lambda r: sizes.index(r.size.split("/")[0]))
        xs = [sizes.index(r.size.split("/")[0]) + (index - (len(series) - 1) / 2) * 0.08 for r in found]
        colour = f"C{index}"
        axes.plot(xs, [r.kernel_us for r in found], marker="o", color=colour, label=f"{name} kernel")
        xla = [(x, r.xla_us) for x, r in zip(xs, found) if r.xla_us]
        if xla:
            axes.plot(*zip(*xla), marker="x", linestyle="--", color=colour, linewidth=0.8, label=f"{name} XLA")
    axes.set_xticks(range(len(sizes)), sizes)
    axes.set_xlim(-0.5, len(sizes) - 0.5)
    axes.set_ylabel("median µs")
    axes.grid(axis="y", which="both", linewidth=0.3, alpha=0.5)
    axes.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _svg(figure)


def ratio_text(value: float | None) -> str:
    return "-" if value is None or not math.isfinite(value) else f"{value:.2f}x"
