"""`keybench report RUN`: one self-contained `report.html` in the run directory, with the
PNGs it embeds written beside it. The answer comes first:

- the verdicts: each design's expected distribution, its modelled verdict and whether they
  agree, with its insert rate and latency and what each read costs; then a grid of the write
  heatmaps, one per design and key space (modelled, see results/README.md);
- latency percentiles per (backend, operation): one row per strategy, its p50, p90, p99
  and max on a log scale (measured on the emulator);
- throughput over time per backend and dialect: one line per strategy;
- key-space heatmaps of reads;
- each strategy's expected key distribution, its provenance and the documents' advice;
- the summary table.
"""

from __future__ import annotations

import base64
import html
import io
import json
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from keybench.atomic import save_figure, write_atomically
from keybench.errors import KeybenchError
from keybench.measure.console import VERDICT_TABLE_COLUMNS, verdict_rows
from keybench.measure.summary import read_results, read_summary, require_columns

PERCENTILES = (("p50_ms", "p50", "o"), ("p90_ms", "p90", "s"), ("p99_ms", "p99", "^"), ("max_ms", "max", "x"))
TABLE_COLUMNS = ("backend", "strategy", "dialect", "operation", "access", "requests", "failures", "rps", "p50_ms",
                 "p99_ms", "p50_intended_ms", "p99_intended_ms", "fanout", "rows_scanned_per_op", "wrong_rows",
                 "missing_rows", "integrity", "documented")
# One row per strategy: these are the same in every row of a strategy's stage.
DESIGN_COLUMNS = ("backend", "strategy", "dialect", "expected", "documented", "source", "advice")
# What the page reads of each file by name: a file without one of them is refused, not half-drawn.
SUMMARY_NEEDS = ("backend", "strategy", "dialect", "operation", "access", "rps", *(c for c, _, _ in PERCENTILES),
                 "expected", "documented", "read_ranges_touched")
TIMESERIES_NEEDS = ("backend", "strategy", "dialect", "elapsed_s", "ops")
# Figures the page turns into numbers: finite (or empty), else one line naming the file and line.
SUMMARY_NUMBERS = (*(c for c, _, _ in PERCENTILES), "max_row_writes", "row_mb_per_hour")


def _label(row: dict) -> str:
    return row["strategy"] + (f" [{row['dialect']}]" if row["dialect"] not in ("", "googlesql") else "")


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def latency_plot(rows: list[dict], title: str, path: Path) -> Path:
    plt = _pyplot()
    # The verdict table's order, the first design on top: every part of the page lists them alike.
    rows = [r for r in rows if r["p50_ms"] != ""][::-1]
    fig, ax = plt.subplots(figsize=(9, 1.8 + 0.28 * len(rows)))
    ys = list(range(len(rows)))
    # One line collection and one scatter per percentile: a call per point took most of the report's time.
    if rows:
        ax.hlines(ys, [float(r["p50_ms"]) for r in rows], [float(r["max_ms"] or r["p50_ms"]) for r in rows],
                  color="0.75", zorder=1)
    for column, name, marker in PERCENTILES if rows else ():
        colour = {"p50": "tab:blue", "p90": "tab:green", "p99": "tab:orange", "max": "tab:red"}[name]
        values = [float(r[column]) for r in rows]
        if marker == "x":  # a line-drawn marker has no face to leave hollow (and max needs no samples)
            ax.scatter(values, ys, marker=marker, label=name, zorder=2, color=colour)
            continue
        # hollow: a percentile of too few operations to mean anything (summary.csv's too_few_samples)
        faces = ["none" if name in r.get("too_few_samples", "").split() else colour for r in rows]
        ax.scatter(values, ys, marker=marker, label=name, zorder=2, edgecolors=colour, facecolors=faces)
    ax.set_yticks(range(len(rows)), [f"{_label(r)} (n={r.get('requests', '?')})" for r in rows], fontsize=8)
    ax.set_xscale("log")
    # Plain numbers at 1, 2 and 5 of each decade: matplotlib's own log labels (2×10¹, 3×10⁴) overlap.
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    if rows:  # an operation that never completed has no axis to label
        ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlabel("latency, ms (emulator, log scale); hollow: too few operations for that percentile")
    ax.set_title(title)
    ax.grid(axis="x", which="both", alpha=0.3)
    if rows:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    else:
        ax.text(0.5, 0.5, "no operation completed", ha="center", va="center", transform=ax.transAxes)
    # Margins from the longest label, not tight_layout: that measures every label by drawing the
    # whole figure once more (a third of the report's time for the catalogue).
    width_in, height_in = fig.get_size_inches()
    longest = max((len(label.get_text()) for label in ax.get_yticklabels()), default=10)
    fig.subplots_adjust(left=min(0.6, (0.15 + longest * 0.062) / width_in), right=0.88,
                        bottom=0.6 / height_in, top=1 - 0.45 / height_in)
    save_figure(fig, path, dpi=90)
    plt.close(fig)
    return path


def throughput_plot(series: dict[str, list[tuple[int, int]]], title: str, path: Path) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for label, points in sorted(series.items()):
        points.sort()
        ax.plot([p[0] for p in points], [p[1] for p in points], label=label, linewidth=1)
    ax.set_xlabel("seconds into the stage")
    ax.set_ylabel("operations per second (all operations)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    save_figure(fig, path, dpi=90)
    plt.close(fig)
    return path


PALETTE_COLOURS = 96  # a plot is lines, text and a colour map: 96 colours keep it, at a quarter of the bytes


def _compact_png(path: Path, width: int | None = None) -> bytes:
    """A PNG as the page embeds it: in a palette of PALETTE_COLOURS (and `width` px wide, if
    given), so that the report of the whole catalogue stays about 2 MB, not 13."""
    from PIL import Image

    with Image.open(path) as image:
        picture = image.convert("RGB")
    if width is not None and picture.width > width:
        picture = picture.resize((width, round(picture.height * width / picture.width)), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.quantize(PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT).save(buffer, format="PNG")
    return buffer.getvalue()


def _img(path: Path, css_class: str, alt: str, width: int | None = None, link: str | None = None) -> str:
    data = base64.b64encode(_compact_png(path, width)).decode()
    tag = f'<img class="{css_class}" alt="{html.escape(alt)}" src="data:image/png;base64,{data}">'
    return f'<a href="{html.escape(link)}">{tag}</a>' if link else tag


# A quoted phrase in a script a machine may have no font for (Chinese in the documents):
# the English gloss shows, the original is the cell's hover text.
QUOTE = re.compile(r'^(?P<head>.*?: )"(?P<phrase>[^"]*)" \((?P<gloss>.*)\)$')


def _cell(column: str, value: object) -> str:
    text = str(value)
    quote = QUOTE.match(text) if column == "source" else None
    if quote and any(ord(ch) > 0x2000 for ch in quote["phrase"]):
        return (f'<td title="{html.escape(quote["phrase"])}">{html.escape(quote["head"])}'
                f'"{html.escape(quote["gloss"])}" (in English; hover for the original)</td>')
    return f"<td>{html.escape(text)}</td>"


def _table(rows: list[dict], columns=TABLE_COLUMNS, css_class: str = "summary") -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(c, r.get(c, "")) for c in columns) + "</tr>" for r in rows)
    # In a box of its own that scrolls sideways: a wide table never runs off the page.
    return (f'<div class="scroll"><table class="{css_class}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
            "</table></div>")


def _design_order(designs: list[dict]):
    """A heatmap file's place: its design's place in the verdict table, so that every part of
    the page lists the designs in the same order (then its key space, writes before reads)."""
    prefixes = [f"{d['backend']}-{d['strategy'].split('[')[0]}" + (f"-{d['dialect']}" if d["dialect"] else "")
                for d in designs]

    def place(path: Path) -> tuple:
        matches = [i for i, p in enumerate(prefixes) if path.stem == p or path.stem.startswith(p + "-")]
        best = max(matches, key=lambda i: len(prefixes[i]), default=len(prefixes))
        return best, not path.stem.endswith("-writes"), path.stem

    return place


def _designs(rows: list[dict]) -> list[dict]:
    """The first row of each (backend, strategy, dialect): its provenance columns."""
    first: dict[tuple, dict] = {}
    for r in rows:
        first.setdefault((r["backend"], r["strategy"], r["dialect"]), r)
    return list(first.values())


def _checked(rows: list[dict], path: Path, numeric: Sequence[str]) -> list[dict]:
    """Rows whose plotted figures are finite numbers (or empty), else one KeybenchError."""
    for i, row in enumerate(rows, 2):
        for column in numeric:
            value = row.get(column, "")
            try:
                if value != "" and not math.isfinite(float(value)):
                    raise ValueError
            except ValueError:
                raise KeybenchError(f"{path} line {i}: {column}={value!r} is not a finite number") from None
    return rows


# A run directory is data: the names a page and its file names are built from must be names
# keybench itself writes (letters, digits, underscores), never markup or a path.
NAME = re.compile(r"[A-Za-z0-9_]*")
NAME_COLUMNS = ("backend", "strategy", "dialect", "operation")


def _named(rows: list[dict], path: Path) -> list[dict]:
    """Rows whose name columns are plain names, else one KeybenchError."""
    for i, row in enumerate(rows, 2):
        for column in NAME_COLUMNS:
            value = row.get(column, "")
            if not isinstance(value, str) or not NAME.fullmatch(value):
                raise KeybenchError(f"{path} line {i}: {column}={str(value)[:60]!r} is not a name keybench writes "
                                    "(letters, digits and underscores)")
    return rows


def _run_json(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        meta = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, ValueError):
        raise KeybenchError(f"{path} is not a readable run.json") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("settings", {}), dict):
        raise KeybenchError(f"{path} is not a readable run.json (not an object, or its settings are not one)")
    return meta


def status_of(run_dir: Path) -> str:
    """What a run directory holds: complete, interrupted, running (cut off) or failed."""
    run_dir = Path(run_dir)
    return run_status(run_dir, _run_json(run_dir / "run.json"))


def run_status(run_dir: Path, meta: dict) -> str:
    """complete, interrupted, running (a run cut off while running) or failed."""
    if run_dir.name.endswith(".failed"):
        return "failed"
    status = str(meta.get("status", "complete" if not run_dir.name.endswith(".partial") else "running"))
    return "running" if status == "complete" and run_dir.name.endswith(".partial") else status


def _status_note(status: str) -> str:
    if status == "complete":
        return ""
    return (f'<p class="partial"><b>Incomplete run ({html.escape(status)})</b>: the figures cover only the '
            "stages it finished.</p>")


def write_report(run_dir: Path, status: str | None = None) -> Path:
    """Build report.html (and its PNGs) from a finished run directory. `status` is the run's
    final status when the caller knows it: a run writes its report into its `.partial`
    directory just before it gives the directory its final name, and a `.partial` directory
    otherwise reads as a run cut off."""
    run_dir = Path(run_dir)
    summary = run_dir / "summary.csv"
    if not summary.is_file():
        raise KeybenchError(f"{run_dir} is not a keybench run directory (no summary.csv)")
    rows = _named(_checked(require_columns(read_results(summary), summary, SUMMARY_NEEDS), summary, SUMMARY_NUMBERS),
                  summary)
    timeseries_path = run_dir / "timeseries.csv"
    timeseries = (_named(_checked(require_columns(read_summary(timeseries_path), timeseries_path, TIMESERIES_NEEDS,
                                                  "timeseries.csv"),
                                  timeseries_path, ["elapsed_s", "ops"]), timeseries_path)
                  if timeseries_path.is_file() else [])
    meta = _run_json(run_dir / "run.json")
    status = status or run_status(run_dir, meta)
    out = run_dir / "report"
    out.mkdir(exist_ok=True)

    by_operation: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by_operation[(r["backend"], r["operation"])].append(r)
    latency = []
    for (backend, operation), members in by_operation.items():
        png = latency_plot(members, f"{backend} / {operation}: latency by key strategy",
                           out / f"latency-{backend}-{operation}.png")
        latency.append(f'<figure>{_img(png, "latency", f"{backend} {operation} latency")}'
                       f"<figcaption>{html.escape(backend)} / {html.escape(operation)}</figcaption></figure>")

    per_second: dict[tuple[str, str], dict[str, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    for t in timeseries:
        group = per_second[(t["backend"], t["dialect"])][_label(t)]
        second = int(float(t["elapsed_s"]))  # finite (checked above), whole or not
        group[second] = group.get(second, 0) + int(float(t["ops"]))
    throughput = []
    for (backend, dialect), strategies in per_second.items():
        name = backend + (f"-{dialect}" if dialect else "")
        png = throughput_plot({k: list(v.items()) for k, v in strategies.items()},
                              f"{backend}{f' ({dialect})' if dialect else ''}: throughput over time",
                              out / f"throughput-{name}.png")
        throughput.append(f"<figure>{_img(png, 'throughput', f'{name} throughput')}</figure>")

    designs = verdict_rows(rows)
    pngs = sorted((run_dir / "heatmaps").glob("*.png"), key=_design_order(designs)) \
        if (run_dir / "heatmaps").is_dir() else []
    grid = [f"<figure>{_img(p, 'heatmap', p.stem, link=f'heatmaps/{p.name}')}"
            f"<figcaption>{html.escape(p.stem)}</figcaption></figure>" for p in pngs if p.stem.endswith("-writes")]
    # Linked, not embedded: one per design and key space would double the page for the rarer question.
    heatmaps = [f'<li><a href="heatmaps/{html.escape(p.name)}">{html.escape(p.stem)}</a></li>'
                for p in pngs if not p.stem.endswith("-writes")]
    nodes = sorted({str(d["nodes"]) for d in designs if d["nodes"] != ""})

    settings = meta.get("settings", {})
    facts = ", ".join(f"{k} {settings[k]}" for k in ("users", "duration_s", "rate", "workers", "repeat", "seed")
                      if k in settings)
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>keybench report {html.escape(str(meta.get('run_id', run_dir.name)))}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; }}
figure {{ margin: 1em 0; }}
img {{ max-width: 100%; }}
table {{ border-collapse: collapse; font-size: 12px; }}
td, th {{ border: 1px solid #ccc; padding: 2px 6px; text-align: right; }}
td:nth-child(-n+5) {{ text-align: left; }}
table.designs td {{ text-align: left; max-width: 40em; }}
table.verdicts td {{ text-align: left; }}
.grid {{ display: grid; grid-template-columns: repeat(auto-fill, minmax(30em, 1fr)); gap: 0.5em; }}
.grid figure {{ margin: 0; font-size: 12px; }}
.scroll {{ overflow-x: auto; max-width: 100%; }}
ul.links {{ columns: 3 20em; font-size: 12px; }}
.note {{ background: #fff8e0; padding: 0.6em; border-left: 4px solid #e0b000; }}
.partial {{ background: #ffe8e8; padding: 0.6em; border-left: 4px solid #c00000; }}
</style></head><body>
<h1>keybench run {html.escape(str(meta.get('run_id', run_dir.name)))}</h1>
{_status_note(status)}
<section id="verdicts">
<h2>Verdicts: which designs hotspot (modelled at {html.escape(', '.join(nodes) or '?')} nodes)</h2>
<p>Each design's verdict (hotspot, hot_row, spread or inconclusive) from the split model over the keys its stage
wrote, and whether it agrees with what the design is expected to do; then what it cost on the emulator.</p>
{_table(designs, ("backend", *VERDICT_TABLE_COLUMNS), "verdicts")}
<div class="grid">{''.join(grid)}</div>
</section>
<p>{html.escape(str(meta.get('started', '')))} to {html.escape(str(meta.get('finished', '')))};
{html.escape(facts)}.</p>
<p class="note">Latency and throughput are <b>measured</b> on the emulators, which never split data: they show the
cost of each operation and read fan-out, not a hotspot. Hotspot figures (heatmaps, split model) are
<b>modelled</b> from the recorded key stream; see results/README.md.</p>
<h2>Latency percentiles per operation</h2>
{''.join(latency)}
<h2>Throughput over time</h2>
{''.join(throughput)}
{'<h2>Read heatmaps (modelled)</h2><p>One per design and key space, beside this page in heatmaps/:</p><ul '
 'class="links">' + ''.join(heatmaps) + '</ul>' if heatmaps else ''}
<h2>Expected behaviour and where it comes from</h2>
<p>"documented" is filled where a source document states the distribution; "source" quotes the
document's phrase, or says the design is keybench's own addition and why.</p>
{_table(_designs(rows), DESIGN_COLUMNS, "designs")}
<h2>Summary</h2>
{_table(rows)}
<script>
// A plot that fails to decode is a console error, so a browser check can see it.
window.addEventListener("load", () => {{
  for (const img of document.images) {{
    if (!img.complete || img.naturalWidth === 0) console.error("plot failed to load: " + img.alt);
  }}
}});
</script>
</body></html>
"""
    return write_atomically(run_dir / "report.html", page)
