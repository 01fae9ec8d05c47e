"""`keybench report RUN`: one self-contained `report.html` in the run directory, with its plots
also written beside it (report/*.svg). The answer comes first:

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
import json
import math
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from keybench.atomic import write_atomically
from keybench.errors import KeybenchError
from keybench.measure.console import VERDICT_TABLE_COLUMNS, verdict_rows
from keybench.measure.plots import PERCENTILES, latency_svg, throughput_svg
from keybench.measure.summary import read_results, read_summary, require_columns

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


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_EMBEDDED_PNG_BYTES = 4 * 1024 * 1024  # a heatmap is tens of kilobytes: anything far larger is no heatmap of ours


def _img(path: Path, css_class: str, alt: str, link: str | None = None) -> str:
    """A heatmap, embedded as the model process drew it (already in a palette: nothing to
    decode or convert here), and linked to its file."""
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_EMBEDDED_PNG_BYTES + 1)
    except OSError as exc:
        raise KeybenchError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    if not data.startswith(PNG_SIGNATURE) or len(data) > MAX_EMBEDDED_PNG_BYTES:
        raise KeybenchError(f"{path} is not a heatmap keybench drew (not a PNG, or larger than "
                            f"{MAX_EMBEDDED_PNG_BYTES // 2**20} MiB)")
    tag = (f'<img class="{css_class}" alt="{html.escape(alt)}" '
           f'src="data:image/png;base64,{base64.b64encode(data).decode()}">')
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


OBSERVED_TABLE_COLUMNS = ("backend", "strategy", "observed", "verdict", "observed_agrees", "observed_score",
                          "observed_space", "observed_where", "observed_write_share", "observed_range")


def _observed(designs: list[dict]) -> str:
    """A real run's observations beside the model, labelled so: what the service reported of each
    stage's minutes, and the modelled verdict it is held against. Nothing on an emulator run."""
    observed = [d for d in designs if d.get("observed")]
    if not observed:
        return ""
    return ("<h3>Observed by the service, beside the model</h3><p>What the service's own statistics "
            "(Spanner: SPANNER_SYS.SPLIT_STATS_TOP_MINUTE; Bigtable: ListHotTablets) reported of each stage's "
            "minutes: <b>observed</b>, not modelled; "
            "<code>verdict</code> is the <b>modelled</b> one it is held against.</p>"
            + _table(observed, OBSERVED_TABLE_COLUMNS, "verdicts"))


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
    try:
        out.mkdir(exist_ok=True)
    except OSError as exc:
        raise KeybenchError(f"cannot write {out}: {exc.strerror or exc}", exit_code=1) from None

    by_operation: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for r in rows:
        by_operation[(r["backend"], r["operation"])].append(r)
    latency = []
    for (backend, operation), members in by_operation.items():
        svg = latency_svg(members, f"{backend} / {operation}: latency by key strategy", _label)
        write_atomically(out / f"latency-{backend}-{operation}.svg", svg)
        latency.append(f"<figure>{svg}<figcaption>{html.escape(backend)} / {html.escape(operation)}</figcaption>"
                       "</figure>")

    per_second: dict[tuple[str, str], dict[str, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    for t in timeseries:
        group = per_second[(t["backend"], t["dialect"])][_label(t)]
        second = int(float(t["elapsed_s"]))  # finite (checked above), whole or not
        group[second] = group.get(second, 0) + int(float(t["ops"]))
    throughput = []
    for (backend, dialect), strategies in per_second.items():
        name = backend + (f"-{dialect}" if dialect else "")
        svg = throughput_svg({k: list(v.items()) for k, v in strategies.items()},
                             f"{backend}{f' ({dialect})' if dialect else ''}: throughput over time")
        write_atomically(out / f"throughput-{name}.svg", svg)
        throughput.append(f"<figure>{svg}</figure>")

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
img, svg {{ max-width: 100%; height: auto; }}
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
{_observed(designs)}
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
