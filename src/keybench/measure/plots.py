"""The report's latency and throughput plots, as SVG a browser draws: the text is the page's own
(crisp at any zoom, any script, searchable), each mark names its figure on hover, and the
whole catalogue's plots take tens of kilobytes and milliseconds where PNGs took half a
megabyte and most of the report's time.

Both take rows as summary.csv and timeseries.csv hold them (strings) and return the markup of
one `<svg>` element, ready to inline in report.html or to save as a file.
"""

from __future__ import annotations

import html
import math

WIDTH = 900
FONT_PX = 12
CHAR_PX = 6.8  # the width of an average character at FONT_PX in a sans-serif font: the margins' unit
ROW_PX = 18
PERCENTILES = (("p50_ms", "p50", "#1f77b4"), ("p90_ms", "p90", "#2ca02c"), ("p99_ms", "p99", "#ff7f0e"),
               ("max_ms", "max", "#d62728"))
# Ten distinct colours, then the same ten dashed: a throughput plot holds one line per design.
LINE_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
                "#17becf")
DASHES = ("", "6 3", "2 2", "8 3 2 3")


def _text(x: float, y: float, text: str, anchor: str = "start", size: int = FONT_PX, extra: str = "") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}"{extra}>'
            f"{html.escape(text)}</text>")


def _svg(css_class: str, width: float, height: float, title: str, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="{css_class}" role="img" width="{width:.0f}" '
            f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif">'
            f"<title>{html.escape(title)}</title>" + _text(width / 2, 18, title, "middle", FONT_PX + 2)
            + "".join(body) + "</svg>")


def log_ticks(low: float, high: float) -> list[float]:
    """1, 2 and 5 of each decade, from the last at or below `low` to the first above `high`
    (at least two, so that the axis has a length). Both must be positive."""
    candidates = [step * 10.0 ** decade for decade in range(math.floor(math.log10(low)) - 1,
                                                           math.ceil(math.log10(high)) + 2) for step in (1, 2, 5)]
    first = max(c for c in candidates if c <= low * (1 + 1e-9))
    last = min(c for c in candidates if c > first and c >= high * (1 - 1e-9))
    return [c for c in candidates if first <= c <= last]


def linear_ticks(high: float, count: int = 5) -> list[float]:
    """0 and steps of 1, 2 or 5 times a power of ten up to the first at or above `high`."""
    if high <= 0:
        return [0.0, 1.0]
    rough = high / count
    power = 10.0 ** math.floor(math.log10(rough))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= rough)
    return [i * step for i in range(math.ceil(high / step - 1e-9) + 1)]


def _figure(value: float) -> str:
    return f"{value:g}" if value >= 1 else f"{value:.2g}"


def _marker(name: str, x: float, y: float, colour: str, hollow: bool, hover: str) -> str:
    fill = "none" if hollow else colour
    shape = {
        "p50": f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4"',
        "p90": f'<rect x="{x - 3.5:.1f}" y="{y - 3.5:.1f}" width="7" height="7"',
        "p99": f'<path d="M{x:.1f} {y - 4.5:.1f}L{x + 4.5:.1f} {y + 3.5:.1f}L{x - 4.5:.1f} {y + 3.5:.1f}Z"',
        "max": (f'<path d="M{x - 4:.1f} {y - 4:.1f}L{x + 4:.1f} {y + 4:.1f}'
                f'M{x - 4:.1f} {y + 4:.1f}L{x + 4:.1f} {y - 4:.1f}"'),
    }[name]
    return f'{shape} fill="{fill}" stroke="{colour}" stroke-width="1.5"><title>{html.escape(hover)}</title>' + (
        "</circle>" if name == "p50" else "</rect>" if name == "p90" else "</path>")


def latency_svg(rows: list[dict], title: str, label) -> str:
    """One row per design (`label(row)` names it, with its n), its p50, p90, p99 and max on a log
    axis, joined by a grey line. A hollow mark is a percentile of too few operations to mean
    anything (summary.csv's too_few_samples); every mark gives its figure on hover."""
    rows = [r for r in rows if r["p50_ms"] != ""]
    names = [f"{label(r)} (n={r.get('requests', '?')})" for r in rows]
    left = 12 + CHAR_PX * max((len(n) for n in names), default=10)
    right, top = 60, 48
    height = top + ROW_PX * max(len(rows), 1) + 46
    body: list[str] = []
    if not rows:
        body.append(_text(WIDTH / 2, top + 14, "no operation completed", "middle"))
        return _svg("latency", WIDTH, height, title, body)
    values = [float(r[c]) for r in rows for c, _, _ in PERCENTILES if r.get(c, "") != ""]
    positive = [v for v in values if v > 0] or [1.0]
    ticks = log_ticks(min(positive), max(positive))
    low, high = math.log10(ticks[0]), math.log10(ticks[-1])

    def x_of(value: float) -> float:
        share = (math.log10(max(value, ticks[0])) - low) / max(high - low, 1e-9)
        return left + share * (WIDTH - left - right)

    bottom = top + ROW_PX * len(rows)
    for tick in ticks:
        x = x_of(tick)
        body.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#e0e0e0"/>')
        body.append(_text(x, bottom + 15, _figure(tick), "middle", FONT_PX - 1))
    body.append(_text((left + WIDTH - right) / 2, bottom + 34,
                      "latency, ms (emulator, log scale); hollow: too few operations for that percentile", "middle"))
    for i, (row, name) in enumerate(zip(rows, names, strict=True)):
        y = top + ROW_PX * i + ROW_PX / 2
        body.append(_text(left - 8, y + 4, name, "end"))
        figures = {c: float(row[c]) for c, _, _ in PERCENTILES if row.get(c, "") != ""}
        body.append(f'<line x1="{x_of(figures["p50_ms"]):.1f}" y1="{y:.1f}" '
                    f'x2="{x_of(figures.get("max_ms", figures["p50_ms"])):.1f}" y2="{y:.1f}" stroke="#bbbbbb"/>')
        too_few = row.get("too_few_samples", "").split()
        for column, percentile, colour in PERCENTILES:
            if column in figures:
                hollow = percentile in too_few and percentile != "max"  # max needs no samples
                hover = f"{name}: {percentile} {figures[column]:.4g} ms" + (" (too few operations)" if hollow else "")
                body.append(_marker(percentile, x_of(figures[column]), y, colour, hollow, hover))
    for j, (_, percentile, colour) in enumerate(PERCENTILES):  # the legend, above the plot's top right
        x = WIDTH - right - 4 * 52 + j * 52
        body.append(_marker(percentile, x, top - 12, colour, False, percentile) + _text(x + 9, top - 8, percentile))
    return _svg("latency", WIDTH, height, title, body)


def throughput_svg(series: dict[str, list[tuple[float, float]]], title: str) -> str:
    """Operations per second against seconds into the stage, one line per design, the legend
    beside it; each line names its design on hover."""
    labels = sorted(series)
    legend_width = 24 + CHAR_PX * max((len(label) for label in labels), default=8)
    left, top, plot_height = 64, 34, 300
    height = max(top + plot_height + 48, top + 16 * len(labels) + 12)
    right = WIDTH - legend_width - 12
    points = [p for label in labels for p in series[label]]
    x_ticks = linear_ticks(max((p[0] for p in points), default=1.0), 8)
    y_ticks = linear_ticks(max((p[1] for p in points), default=1.0))

    def xy(second: float, ops: float) -> str:
        x = left + second / x_ticks[-1] * (right - left)
        return f"{x:.1f},{top + plot_height - ops / y_ticks[-1] * plot_height:.1f}"

    body: list[str] = []
    for tick in y_ticks:
        y = top + plot_height - tick / y_ticks[-1] * plot_height
        body.append(f'<line x1="{left}" y1="{y:.1f}" x2="{right:.1f}" y2="{y:.1f}" stroke="#e0e0e0"/>')
        body.append(_text(left - 6, y + 4, f"{tick:g}", "end", FONT_PX - 1))
    for tick in x_ticks:
        x = left + tick / x_ticks[-1] * (right - left)
        body.append(_text(x, top + plot_height + 15, f"{tick:g}", "middle", FONT_PX - 1))
    body.append(_text((left + right) / 2, top + plot_height + 34, "seconds into the stage", "middle"))
    body.append(_text(14, top + plot_height / 2, "operations per second (all operations)", "middle",
                      extra=f' transform="rotate(-90 14 {top + plot_height / 2:.1f})"'))
    for i, label in enumerate(labels):
        colour, dash = LINE_COLOURS[i % len(LINE_COLOURS)], DASHES[i // len(LINE_COLOURS) % len(DASHES)]
        style = f'fill="none" stroke="{colour}" stroke-width="1.5"' + (f' stroke-dasharray="{dash}"' if dash else "")
        path = " ".join(xy(s, o) for s, o in sorted(series[label]))
        body.append(f'<polyline points="{path}" {style}><title>{html.escape(label)}</title></polyline>')
        y = top + 16 * i + 8
        body.append(f'<line x1="{right + 12:.1f}" y1="{y}" x2="{right + 32:.1f}" y2="{y}" {style}/>'
                    + _text(right + 38, y + 4, label, size=FONT_PX - 1))
    return _svg("throughput", WIDTH, height, title, body)
