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

The model and the heatmap sort every key written: they run in a process of their own
(keybench.children), at most every MODEL_EVERY_S while someone watches, never in the process
whose users make the load. That process keeps its own copy of the stage's keys; the load
process encodes what its users recorded a slice at a time, letting them run in between, and
sends only the writes since it last asked. The tab shows the latest answer and its age.
"""

from __future__ import annotations

import time

import gevent
import numpy as np
from flask import request

from keybench.children import PlainProcess, PlainProcessError
from keybench.design.byteorder import TABLE_SPACE
from keybench.measure.collector import Collector
from keybench.measure.latency import latency_figures
from keybench.model.heatmap import WRITES, intensity
from keybench.model.keystream import KeyStream
from keybench.model.splitmodel import SplitParams, model_stream
from keybench.model.verdict import judge

TAB_KEY = "keybench"
COLUMNS = (("section", "Section"), ("series", "Series"), ("figure", "Figure"), ("detail", "Detail"))
SHADES = "▁▂▃▄▅▆▇█"  # block elements share one width, so the rows line up as columns of time
HEATMAP_BUCKETS = 8
HEATMAP_BINS = 48
MODEL_EVERY_S = 5.0  # the model sorts every key written: rerun it at most this often, not on every poll
ENCODE_SLICE = 500  # recorded writes encoded at a time in the load process, its users running in between
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


def model_rows(stream: KeyStream, params: SplitParams) -> list[dict]:
    writes = stream.write_count()
    if writes < MIN_MODEL_WRITES:
        return [{"section": "model", "series": "VERDICT", "figure": "waiting",
                 "detail": f"{writes} writes so far; the model needs {MIN_MODEL_WRITES}"}]
    result = model_stream(stream, params)
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


def heatmap_rows(stream: KeyStream) -> list[dict]:
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


_WATCHED: list[KeyStream] = []  # in the model process: its copy of the watched stage's keys


def modelled_rows(fresh: bool, writes: dict, initial: dict, params: SplitParams) -> list[dict]:
    """The model's and the heatmap's rows, in the model process, over its copy of the stage's
    keys: a new copy when `fresh` (a new stage, or a new process), then `writes` added to it
    (per space, the arrays KeyStream.add_writes takes; `initial`: the rows the table held)."""
    if fresh or not _WATCHED:
        _WATCHED[:] = [KeyStream()]
        for space, (keys, lengths, units) in initial.items():
            _WATCHED[0].add_initial(space, keys, lengths, units)
    stream = _WATCHED[0]
    for space, (times, keys, lengths, units) in writes.items():
        if len(times):
            stream.add_writes(space, times, keys, lengths, units)
    return [*model_rows(stream, params), *heatmap_rows(stream)]


class KeybenchTab:
    """The tab's rows for one stage. The model's rows come from a process of its own, asked
    again at most every MODEL_EVERY_S once its last answer is in; the latency and integrity
    rows are read from the collector at every poll (they cost nothing to read)."""

    def __init__(self, stage_of, params: SplitParams | None = None):
        self.stage_of = stage_of  # () -> the running stage, or None
        self.params = params or SplitParams()
        self._helper: PlainProcess | None = None
        self._asking: gevent.Greenlet | None = None
        self._asked_at = -MODEL_EVERY_S
        self._answer: tuple[object, float, list[dict]] | None = None  # (stage, when asked, rows)
        self._sent: tuple[object, dict[str, int]] | None = None  # (stage, writes per space) the model process holds

    def rows(self) -> list[dict]:
        stage = self.stage_of()
        if stage is None:
            return [{"section": "keybench", "series": "", "figure": "no stage", "detail": "start a test"}]
        collector = stage.collector
        now = time.monotonic()
        if (self._asking is None or self._asking.dead) and now - self._asked_at >= MODEL_EVERY_S:
            self._asked_at = now
            self._asking = gevent.spawn(self._ask, stage, now)
        modelled = self._modelled(stage, now)
        return [*(r for r in modelled if r["section"] == "model"), *latency_rows(collector),
                *integrity_rows(collector), *(r for r in modelled if r["section"] != "model")]

    def _modelled(self, stage, now: float) -> list[dict]:
        if self._answer is None or self._answer[0] is not stage:
            return [{"section": "model", "series": "VERDICT", "figure": "modelling",
                     "detail": "the model of the keys written so far is on its way"}]
        _, asked_at, rows = self._answer
        age = f" (keys as of {now - asked_at:.0f} s ago)"
        return [{**row, "detail": row["detail"] + age} if row["series"] == "VERDICT" else row for row in rows]

    def _ask(self, stage, asked_at: float) -> None:
        stream = stage.collector.key_stream
        while stream.encode_some(ENCODE_SLICE):
            gevent.sleep(0)  # the users run between slices
        if self._helper is None or not self._helper.usable:
            self._sent = None
        fresh = self._sent is None or self._sent[0] is not stage
        marks = {} if fresh or self._sent is None else self._sent[1]
        writes = stream.writes_after(marks)
        initial = {space: stream.initial(space) for space in stream.initial_spaces()} if fresh else {}
        try:
            if self._helper is None or not self._helper.usable:
                self._helper = PlainProcess()
            rows = self._helper.call(modelled_rows, fresh, writes, initial, self.params)
            self._sent = stage, {space: marks.get(space, 0) + len(w[0]) for space, w in writes.items()}
        except PlainProcessError as exc:
            self._helper, self._sent = None, None
            rows = [{"section": "model", "series": "VERDICT", "figure": "unavailable",
                     "detail": f"the model process failed ({exc}); asked again in {MODEL_EVERY_S:.0f} s"}]
        self._answer = (stage, asked_at, rows)

    def close(self) -> None:
        if self._asking is not None:
            self._asking.kill()
        if self._helper is not None:
            self._helper.close()
            self._helper = None


def attach(environment, stage_of) -> None:
    """Add the keybench tab to this environment's web UI, if it has one."""
    web_ui = environment.web_ui
    if web_ui is None:
        return
    tab = KeybenchTab(stage_of)
    environment.events.quitting.add_listener(lambda **_: tab.close())
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
