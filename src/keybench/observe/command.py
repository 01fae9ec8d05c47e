"""`keybench observe`: what the service itself saw, read only, beside what the model says.

Spanner: the database's schema as `check` reads it (its INFORMATION_SCHEMA and DDL, read from
the database itself), the warm and hot splits of the window (SPANNER_SYS.SPLIT_STATS_TOP_MINUTE),
each table's and index's hottest split mapped onto its key columns, the modelled verdict of
its key, and for a hot key the documented fix as `check` writes it. Bigtable: the hot tablets
of a cluster in the window (ListHotTablets), per table, their row-key range named by the
row-key template when one is given, and that template's modelled verdict and fix.

Every call reads: nothing is created, written or dropped (the permissions each needs:
backends.service_stats)."""

from __future__ import annotations

import datetime as dt
import os
from dataclasses import dataclass, field
from pathlib import Path

from keybench.design.strategies import BACKENDS
from keybench.errors import KeybenchError, check_range
from keybench.infra import emulators
from keybench.infra.target import ENDPOINT, need_credentials
from keybench.model.observed import (
    OBSERVED,
    WARM_SCORE,
    HotSplit,
    HotTablet,
    KeyColumnText,
    Observation,
    column_kind,
    observe_split_object,
)
from keybench.model.params import MAX_NODES
from keybench.observe.observe_text import bigtable_lines, spanner_lines
from keybench.observe.request import ObserveRequest
from keybench.terminal import visible

SPANNER_KEPT_S = 24 * 3600.0  # SPLIT_STATS_TOP_MINUTE keeps the previous 24 hours
BIGTABLE_KEPT_S = 14 * 24 * 3600.0  # ListHotTablets: between now and 14 days ago
BIGTABLE_WINDOW_S = 48 * 3600.0  # ... and at most 48 hours per request


@dataclass
class ObserveReport:
    lines: list[str]
    objects: list[dict]  # per table or index: observed beside modelled (the JSON document's rows)
    window: tuple[dt.datetime, dt.datetime]
    exit_code: int = 0
    notes: list[str] = field(default_factory=list)

    def document(self) -> dict:
        return {"window": {"start": self.window[0].isoformat(), "end": self.window[1].isoformat()},
                "objects": self.objects, "notes": self.notes, "exit_code": self.exit_code}


def observe(request: ObserveRequest) -> ObserveReport:
    start, end = _window(request)
    check_range("--nodes", request.nodes, 1, MAX_NODES)
    unknown = [v for v in request.fail_on if v not in OBSERVED]
    if unknown:
        raise KeybenchError(f"--fail-on-observed: unknown level {', '.join(map(repr, unknown))}; valid: "
                            f"{', '.join(OBSERVED)}")
    report = _spanner(request, start, end) if request.backend == "spanner" else _bigtable(request, start, end)
    failing = [o for o in report.objects if o["observed"] in request.fail_on]
    if failing:
        report.exit_code = 1
        report.lines += ["", *(f"keybench: --fail-on-observed: {o['kind']} {o['object']} observed {o['observed']}"
                               for o in failing)]
    return report


def _window(request: ObserveRequest) -> tuple[dt.datetime, dt.datetime]:
    if request.backend not in BACKENDS:
        raise KeybenchError(f"--backend: unknown backend {request.backend!r}; valid: {', '.join(BACKENDS)}")
    if request.backend == "spanner" and not request.database:
        raise KeybenchError("keybench observe --backend spanner needs --database")
    if request.backend == "bigtable" and not request.cluster:
        raise KeybenchError("keybench observe --backend bigtable needs --cluster (ListHotTablets is per cluster)")
    if request.endpoint is not None and not ENDPOINT.fullmatch(request.endpoint):
        raise KeybenchError(f"--endpoint {visible(request.endpoint)!r} is not HOST:PORT (e.g. "
                            "spanner.us-central1.rep.googleapis.com:443)")
    emulator_var = emulators.ENV_VARS[request.backend]
    if os.environ.get(emulator_var):
        if request.endpoint is not None:
            raise KeybenchError(f"--endpoint, but {emulator_var} is set: ambiguous, the client would go to that "
                                "emulator; unset it, or drop --endpoint")
    else:
        need_credentials(request.endpoint, "keybench observe")
    if request.template is not None and request.backend != "bigtable":
        raise KeybenchError("--template applies to Bigtable; a Spanner database's keys come from its schema")
    kept, longest = ((SPANNER_KEPT_S, SPANNER_KEPT_S) if request.backend == "spanner"
                     else (BIGTABLE_KEPT_S, BIGTABLE_WINDOW_S))
    if not 60 <= request.since_s <= longest:
        limit = "what SPLIT_STATS_TOP_MINUTE keeps" if request.backend == "spanner" else "one ListHotTablets request"
        raise KeybenchError(f"--since: {request.since_s:g} s is outside 1 minute to {longest / 3600:g} hours "
                            f"({limit})")
    now = dt.datetime.now(dt.UTC)
    end = request.end.astimezone(dt.UTC) if request.end is not None else now
    if end > now + dt.timedelta(minutes=5) or (now - end).total_seconds() > kept:
        raise KeybenchError(f"--end: {end.isoformat()} is outside what the service keeps (the last "
                            f"{kept / 3600:g} hours)")
    return end - dt.timedelta(seconds=request.since_s), end


def _spanner(request: ObserveRequest, start: dt.datetime, end: dt.datetime) -> ObserveReport:
    from google.api_core import exceptions as gexc

    from keybench.backends import spanner_admin as admin
    from keybench.backends.service_stats import SPANNER_PERMISSIONS, spanner_hot_splits
    from keybench.backends.spanner import client_for
    from keybench.check.fixes import propose_all
    from keybench.check.keyspaces import check_schema
    from keybench.check.reader import Scratch, read_schema

    client = client_for(request.project, request.endpoint)
    try:
        database = client.instance(request.instance).database(request.database)
        try:
            dialect = admin.dialect_of(client, database)
            schema = read_schema(Scratch(client, database), dialect)
            statements = admin.ddl_of(client, database)
        except gexc.NotFound as exc:
            raise KeybenchError(f"no such database: {database.name} ({exc.message})") from None
        except gexc.PermissionDenied as exc:
            raise KeybenchError(f"permission denied reading the schema of {database.name} ({exc.message}); it needs "
                                f"spanner.databases.get and {SPANNER_PERMISSIONS}") from None
        except (gexc.GoogleAPICallError, gexc.RetryError) as exc:
            raise KeybenchError(f"cannot read the schema of {database.name}: {exc}".splitlines()[0]) from None
        rows, cut = spanner_hot_splits(database, dialect, start, end)
    finally:
        client.close()
    splits = [HotSplit.of(row) for row in rows]
    wanted = {t.lower() for t in request.tables}
    missing = wanted - {t.name.lower() for t in schema.tables}
    if missing:
        raise KeybenchError(f"--table: no such table in {database.name}: {', '.join(sorted(missing))}")
    checks = check_schema(schema, {}, Path(request.database or "database"), request.rows, request.nodes)
    checks = [c for c in checks if not wanted or c.table.lower() in wanted]
    fixes = propose_all(checks, schema, request.nodes)
    seen: list[tuple] = []
    for check in checks:
        table = schema.table(check.table)
        key = [KeyColumnText(k.name, column_kind(table.column(k.name).type), k.descending) for k in check.key]
        indexes = () if check.index else tuple(i.name for i in schema.indexes_of(check.table))
        seen.append((check, observe_split_object(check.index or check.table, key, splits, indexes)))
    known = {(c.index or c.table).lower() for c, _ in seen}
    others = sorted({a for s in splits if s.score > WARM_SCORE for a in s.affected if a.lower() not in known}
                    if not wanted else set())
    lines, notes = spanner_lines(database.name, dialect, (start, end), splits, cut, seen, fixes, statements,
                                 request.rows, request.nodes, others)
    return ObserveReport(lines, [_row(c.kind, c.name, o, c.verdict.verdict) for c, o in seen], (start, end),
                         notes=notes)


def _bigtable(request: ObserveRequest, start: dt.datetime, end: dt.datetime) -> ObserveReport:
    from keybench.backends.service_stats import bigtable_hot_tablets
    from keybench.model.observed import observe_tablets

    judged = None
    segments = None
    if request.template is not None:
        from keybench.check.template import check_template, parse_template

        segments = [s.text.strip("{}").split(":")[0] for s in parse_template(request.template)]
        judged = check_template(request.template, (), request.rows, request.nodes)
    listed = bigtable_hot_tablets(request.project, request.instance, request.cluster or "", start, end,
                                  request.endpoint)
    tablets = [HotTablet(*row) for row in listed]
    tables = list(request.tables) or sorted({t.table for t in tablets})
    modelled = judged.spaces[0].verdict if judged is not None else ""
    seen = [observe_tablets(table, tablets, segments) for table in tables]
    parent = f"projects/{request.project}/instances/{request.instance}/clusters/{request.cluster}"
    lines, notes = bigtable_lines(parent, (start, end), tablets, seen, judged, request.rows, request.nodes)
    return ObserveReport(lines, [_row("table", o.name, o, str(modelled)) for o in seen], (start, end), notes=notes)


def _row(kind: str, name: str, seen: Observation, modelled: str) -> dict:
    return {"kind": kind, "object": name, "observed": seen.observed, "score": seen.score, "minutes": seen.minutes,
            "where": seen.where, "key_range": seen.key_range, "reasons": list(seen.reasons),
            "modelled": modelled, "agrees": seen.agreement(modelled)}
