"""A keybench tab in Locust's web UI (`locust -f loadtests/<backend>_locustfile.py`, :8089).

Locust's extension points, as its extend_web_ui example uses them: `extended_tabs` and
`extended_tables` in the arguments index.html is rendered with, and `extended_stats` in the
/stats/requests answer the page polls every two seconds. The tab is one table of four
sections, all read live from the stage's collector:

- latency: each series' p50 and p99 in microseconds and rows per operation;
- integrity: the write ledger's acknowledged, failed and unknown (in flight) writes;
- model: the split model's verdict over the key stream so far (hot_node_share, ...);
- write heatmap: writes per key-space bucket (rows, at quantiles of the keys written) over
  time (left to right), one block character per time bin, its height the bin's writes.
"""

from __future__ import annotations

import time

import numpy as np
from flask import request

from keybench.design.byteorder import TABLE_SPACE
from keybench.measure.collector import Collector
from keybench.measure.latency import latency_figures
from keybench.model.heatmap import WRITES, intensity
from keybench.model.splitmodel import SplitParams, model_stream
from keybench.model.verdict import judge

TAB_KEY = "keybench"
COLUMNS = (("section", "Section"), ("series", "Series"), ("figure", "Figure"), ("detail", "Detail"))
SHADES = "▁▂▃▄▅▆▇█"  # block elements share one width, so the rows line up as columns of time
HEATMAP_BUCKETS = 8
HEATMAP_BINS = 48
MODEL_EVERY_S = 5.0  # the model sorts every key written: rerun it at most this often, not on every poll
MIN_MODEL_WRITES = 50  # the tab's verdict is the run's (model/verdict.py), on the writes so far


def milliseconds(us: int) -> str:
    """Microseconds as milliseconds to about 3 significant digits: 0.412, 9.87, 51.2, 1,083."""
    ms = us / 1000
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 100 else f"{ms:,.0f}"


def latency_rows(collector: Collector) -> list[dict]:
    rows = []
    for series, stats in collector.stats.items():
        done = stats.requests - stats.failures
        if not stats.requests:
            continue
        h = latency_figures(stats.histogram)
        rows.append({
            "section": "latency", "series": f"{series.request_type} {series.operation}",
            "figure": f"p50 {milliseconds(h.p50)} ms · p99 {milliseconds(h.p99)} ms",
            "detail": f"{stats.rows / done:.2f} rows per op · {stats.requests:,} requests · {stats.failures:,} failed"
            if done else f"{stats.requests:,} requests, all failed",
        })
    return rows


def integrity_rows(collector: Collector) -> list[dict]:
    ledger = collector.ledger
    return [
        {"section": "integrity", "series": "acknowledged", "figure": f"{len(ledger.acknowledged):,}",
         "detail": "writes the database confirmed; the audit at the end reads each back"},
        {"section": "integrity", "series": "failed", "figure": f"{len(ledger.failed):,}",
         "detail": "writes whose call raised: stored or not, the audit settles it"},
        {"section": "integrity", "series": "unknown", "figure": f"{len(ledger.attempted):,}",
         "detail": "writes sent and not yet answered"},
    ]


def model_rows(collector: Collector, params: SplitParams) -> list[dict]:
    writes = collector.key_stream.write_count()
    if writes < MIN_MODEL_WRITES:
        return [{"section": "model", "series": "VERDICT", "figure": "waiting",
                 "detail": f"{writes} writes so far; the model needs {MIN_MODEL_WRITES}"}]
    result = model_stream(collector.key_stream, params)
    summary, verdict = result.summary(), judge(result)
    share = summary["hot_node_share"]
    return [
        # The answer, first and in capitals: a table cell has no other emphasis to give.
        {"section": "model", "series": "VERDICT", "figure": verdict.verdict.upper(),
         "detail": f"{verdict.reason}; fair share {1 / params.nodes:.0%}, key space {summary['hot_space']!r}"},
        {"section": "model", "series": "hot_node_share", "figure": f"{share:.3f}", "detail": "modelled, not measured"},
        {"section": "model", "series": "effective_nodes", "figure": f"{summary['effective_nodes']:.2f}",
         "detail": f"of {params.nodes}"},
        {"section": "model", "series": "write_throughput_vs_ideal",
         "figure": f"{summary['write_throughput_vs_ideal']:.3f}", "detail": f"{summary['writes']:,} writes modelled"},
    ]


def heatmap_rows(collector: Collector) -> list[dict]:
    stream = collector.key_stream
    if stream.write_count(TABLE_SPACE) < HEATMAP_BUCKETS:
        return [{"section": "write heatmap", "series": "keys", "figure": "waiting", "detail": "no writes yet"}]
    matrix, t0, t1 = intensity(stream, TABLE_SPACE, WRITES, HEATMAP_BUCKETS, HEATMAP_BINS)
    peak = matrix.max() or 1.0
    levels = np.ceil(matrix / peak * (len(SHADES) - 1)).astype(int)
    recent = matrix[:, -max(1, matrix.shape[1] // 4):].sum(axis=0).sum() or 1.0
    rows = []
    for bucket in reversed(range(matrix.shape[0])):  # the highest keys on top, as in report.html
        rows.append({
            "section": "write heatmap", "series": f"keys {bucket + 1}/{matrix.shape[0]}",
            "figure": "".join(SHADES[level] for level in levels[bucket]),
            "detail": f"{matrix[bucket, -max(1, matrix.shape[1] // 4):].sum() / recent:.0%} of the latest "
                      f"quarter's writes · {t1 - t0:.0f} s shown",
        })
    return rows


class KeybenchTab:
    """The tab's rows for one stage, the model rerun at most every MODEL_EVERY_S."""

    def __init__(self, stage_of, params: SplitParams | None = None):
        self.stage_of = stage_of  # () -> the running stage, or None
        self.params = params or SplitParams()
        self._model: tuple[float, list[dict]] = (0.0, [])

    def rows(self) -> list[dict]:
        stage = self.stage_of()
        if stage is None:
            return [{"section": "keybench", "series": "", "figure": "no stage", "detail": "start a test"}]
        collector = stage.collector
        now = time.monotonic()
        if now - self._model[0] >= MODEL_EVERY_S or not self._model[1]:
            self._model = (now, model_rows(collector, self.params))
        return [*self._model[1], *latency_rows(collector), *integrity_rows(collector), *heatmap_rows(collector)]


def attach(environment, stage_of) -> None:
    """Add the keybench tab to this environment's web UI, if it has one."""
    web_ui = environment.web_ui
    if web_ui is None:
        return
    tab = KeybenchTab(stage_of)
    # template_args is what Locust renders index.html with; its own update merges into it.
    web_ui.template_args.update(
        extended_tabs=[{"title": "keybench", "key": TAB_KEY}],
        extended_tables=[{"key": TAB_KEY, "structure": [{"key": k, "title": t} for k, t in COLUMNS]}],
    )

    @web_ui.app.after_request
    def _with_keybench_rows(response):
        if request.path.rstrip("/").endswith("/stats/requests") and response.is_json:
            body = response.get_json()
            body["extended_stats"] = [*body.get("extended_stats", []), {"key": TAB_KEY, "data": tab.rows()}]
            response.set_data(web_ui.app.json.dumps(body))
        return response
