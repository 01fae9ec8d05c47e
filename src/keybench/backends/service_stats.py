"""The services' own reports of hot key ranges, read only: Spanner's hot and warm splits from
SPANNER_SYS.SPLIT_STATS_TOP_MINUTE ("Hot split statistics", readable by SQL alone) and
Bigtable's hot tablets from the instance admin API's ListHotTablets. Every call has a
deadline; a refusal is one line that names the permission it needs."""

from __future__ import annotations

import datetime as dt

from google.api_core import exceptions as gexc

from keybench.backends.spanner_admin import ADMIN_CALL_TIMEOUT_S
from keybench.design.strategies import DIALECTS
from keybench.errors import KeybenchError

GOOGLESQL, POSTGRESQL = DIALECTS["spanner"]
SPLIT_STATS = {
    GOOGLESQL: ("SELECT INTERVAL_END, SPLIT_START, SPLIT_LIMIT, CPU_USAGE_SCORE, AFFECTED_TABLES, "
                "UNSPLITTABLE_REASONS FROM SPANNER_SYS.SPLIT_STATS_TOP_MINUTE "
                "WHERE INTERVAL_END > @start AND INTERVAL_END <= @end ORDER BY INTERVAL_END, CPU_USAGE_SCORE DESC"),
    POSTGRESQL: ("SELECT interval_end, split_start, split_limit, cpu_usage_score, affected_tables, "
                 "unsplittable_reasons FROM spanner_sys.split_stats_top_minute "
                 "WHERE interval_end > $1 AND interval_end <= $2 ORDER BY interval_end, cpu_usage_score DESC"),
}
# What reading them needs: the hot-split page names SQL access to SPANNER_SYS; "Find hotspots
# in your database" asks for these roles.
SPANNER_PERMISSIONS = ("spanner.databases.select, spanner.databases.beginReadOnlyTransaction, spanner.sessions.create "
                       "and spanner.databases.getDdl (roles/spanner.databaseReader; with fine-grained access "
                       "control, the spanner_sys_reader role too)")
BIGTABLE_PERMISSION = "bigtable.clusters.listHotTablets (roles/bigtable.viewer)"
MAX_SPLIT_ROWS = 100_000  # a day of minutes holds far fewer; a larger answer is cut, and said so


SplitRow = tuple[dt.datetime, str, str, float, tuple[str, ...], tuple[str, ...]]
TabletRow = tuple[str, bytes, bytes, dt.datetime, dt.datetime, float]


def spanner_hot_splits(database, dialect: str, start: dt.datetime, end: dt.datetime) -> tuple[list[SplitRow], bool]:
    """The warm and hot splits of every minute ending in (start, end], as rows of INTERVAL_END,
    SPLIT_START, SPLIT_LIMIT, CPU_USAGE_SCORE, AFFECTED_TABLES and UNSPLITTABLE_REASONS, and
    whether the answer was cut at MAX_SPLIT_ROWS."""
    from google.cloud.spanner_v1 import param_types

    if dialect == POSTGRESQL:
        params, types = {"p1": start, "p2": end}, {"p1": param_types.TIMESTAMP, "p2": param_types.TIMESTAMP}
    else:
        params, types = {"start": start, "end": end}, {"start": param_types.TIMESTAMP, "end": param_types.TIMESTAMP}
    splits: list[SplitRow] = []
    try:
        with database.snapshot() as snapshot:
            for row in snapshot.execute_sql(SPLIT_STATS[dialect], params=params, param_types=types,
                                            timeout=ADMIN_CALL_TIMEOUT_S):
                if len(splits) == MAX_SPLIT_ROWS:
                    return splits, True
                interval_end, split_start, split_limit, score, affected, reasons = row
                splits.append((interval_end, str(split_start), str(split_limit), float(score or 0),
                               tuple(map(str, affected or ())), tuple(map(str, reasons or ()))))
    except gexc.PermissionDenied as exc:
        raise KeybenchError(f"permission denied reading SPANNER_SYS.SPLIT_STATS_TOP_MINUTE ({exc.message}); "
                            f"it needs {SPANNER_PERMISSIONS}") from None
    except (gexc.InvalidArgument, gexc.NotFound) as exc:
        raise KeybenchError(f"{database.name} has no SPANNER_SYS.SPLIT_STATS_TOP_MINUTE ({_first_line(exc)}): "
                            "an emulator keeps no split statistics; observe reads a Cloud Spanner database") from None
    except (gexc.GoogleAPICallError, gexc.RetryError) as exc:
        raise KeybenchError(f"cannot read SPANNER_SYS.SPLIT_STATS_TOP_MINUTE: {_first_line(exc)}") from None
    return splits, False


STATISTICS_UNTIL = {
    GOOGLESQL: "SELECT MAX(INTERVAL_END) FROM SPANNER_SYS.TXN_STATS_TOTAL_MINUTE",
    POSTGRESQL: "SELECT MAX(interval_end) FROM spanner_sys.txn_stats_total_minute",
}


def spanner_statistics_until(database, dialect: str) -> dt.datetime | None:
    """The end of the newest minute the database's statistics cover: TXN_STATS_TOTAL_MINUTE has a
    row for every minute with a commit, so a stage's writes mark it (SPLIT_STATS has rows only
    for warm and hot splits, and cannot tell "none" from "not yet")."""
    try:
        with database.snapshot() as snapshot:
            rows = list(snapshot.execute_sql(STATISTICS_UNTIL[dialect], timeout=ADMIN_CALL_TIMEOUT_S))
    except gexc.PermissionDenied as exc:
        raise KeybenchError(f"permission denied reading SPANNER_SYS ({exc.message}); it needs "
                            f"{SPANNER_PERMISSIONS}") from None
    except (gexc.GoogleAPICallError, gexc.RetryError) as exc:
        raise KeybenchError(f"cannot read SPANNER_SYS.TXN_STATS_TOTAL_MINUTE: {_first_line(exc)}") from None
    return rows[0][0] if rows and rows[0] else None


def bigtable_clusters(project: str, instance: str, endpoint: str | None = None) -> list[str]:
    """The ids of the instance's clusters (ListHotTablets answers per cluster)."""
    from google.cloud.bigtable_admin_v2 import BigtableInstanceAdminClient

    from keybench.backends.connection import client_settings

    client = BigtableInstanceAdminClient(**client_settings(endpoint))
    parent = f"projects/{project}/instances/{instance}"
    try:
        found = client.list_clusters(request={"parent": parent}, timeout=ADMIN_CALL_TIMEOUT_S)
        return [c.name.rsplit("/", 1)[-1] for c in found.clusters]
    except gexc.PermissionDenied as exc:
        raise KeybenchError(f"permission denied listing the clusters of {parent} ({exc.message}); it needs "
                            "bigtable.clusters.list (roles/bigtable.viewer)") from None
    except (gexc.GoogleAPICallError, gexc.RetryError) as exc:
        raise KeybenchError(f"cannot list the clusters of {parent}: {_first_line(exc)}") from None
    finally:
        client.transport.close()


def bigtable_hot_tablets(project: str, instance: str, cluster: str, start: dt.datetime, end: dt.datetime,
                         endpoint: str | None = None) -> list[TabletRow]:
    """The hot tablets of `cluster` listed for (start, end], every page of them: table id, start
    and end keys, start and end time, node CPU percent."""
    from google.cloud.bigtable_admin_v2 import BigtableInstanceAdminClient

    from keybench.backends.connection import client_settings

    client = BigtableInstanceAdminClient(**client_settings(endpoint))
    parent = f"projects/{project}/instances/{instance}/clusters/{cluster}"
    try:
        pages = client.list_hot_tablets(request={"parent": parent, "start_time": start, "end_time": end},
                                        timeout=ADMIN_CALL_TIMEOUT_S)
        return [(t.table_name.rsplit("/", 1)[-1], _key_bytes(t.start_key), _key_bytes(t.end_key), t.start_time,
                 t.end_time, float(t.node_cpu_usage_percent)) for t in pages]
    except gexc.PermissionDenied as exc:
        raise KeybenchError(f"permission denied listing the hot tablets of {parent} ({exc.message}); "
                            f"it needs {BIGTABLE_PERMISSION}") from None
    except gexc.NotFound as exc:
        raise KeybenchError(f"no such cluster: {parent} ({exc.message})") from None
    except (gexc.GoogleAPICallError, gexc.RetryError) as exc:
        raise KeybenchError(f"cannot list the hot tablets of {parent}: {_first_line(exc)}") from None
    finally:
        client.transport.close()


def _key_bytes(key) -> bytes:
    """ListHotTablets gives row keys as proto strings (the API's type), bytes as they are."""
    return key if isinstance(key, bytes) else str(key).encode("utf-8", "surrogateescape")


def _first_line(exc: Exception) -> str:
    text = getattr(exc, "message", None) or str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
