"""Cloud Spanner binding: inserts as mutations, reads through the Read API (KeySet and
KeyRange), never SQL on the hot path, because the emulator's SQL and DML cost grows with
the table and would measure the emulator's scans rather than the key design."""

from __future__ import annotations

import base64
import os
import random
import time
from collections.abc import Callable, Iterable
from typing import TypeVar

from google.api_core import exceptions as gexc
from google.auth.credentials import AnonymousCredentials
from google.cloud import spanner
from google.cloud.spanner_admin_database_v1 import DatabaseDialect
from google.cloud.spanner_v1 import JsonObject
from google.cloud.spanner_v1.instance import Instance

from keybench.backends import spanner_admin as admin
from keybench.backends.base import (
    DEFAULT_PAYLOAD_BYTES,
    DEFAULT_TIMEOUT_S,
    Backend,
    KeyCollision,
)
from keybench.backends.connection import client_settings, is_local
from keybench.design.events import WriteEvent, timestamp, ts_us_of
from keybench.design.keys import Part
from keybench.design.plans import Span, StoredRow, row_columns
from keybench.design.strategies import Strategy
from keybench.design.typed import parse_type
from keybench.errors import FixtureError, KeybenchError

T = TypeVar("T")

EMULATOR_CONFIG = "emulator-config"
# keybench retries an ABORTED commit or transaction itself, after a jittered pause that doubles
# from 50 ms to 1 s, until the operation's deadline. The client would sleep as long as the server
# says (RetryInfo, in every ABORTED of the service), but the emulator, which aborts every
# transaction but one, says nothing, and the client then sleeps 2^attempt + rand seconds: 2-3 s
# at the first retry. That parked writers for seconds at random (the stage's load was no longer
# the same for every design), filled the tail of Spanner inserts with an emulator artifact, and
# kept each stage's end waiting on writers asleep in it.
ABORT_BACKOFF_S, ABORT_BACKOFF_MAX_S = 0.05, 1.0
PARAM_TYPES = {
    "user": spanner.param_types.INT64, "ts": spanner.param_types.TIMESTAMP, "shard": spanner.param_types.INT64,
    "uuid4_string": spanner.param_types.STRING, "uuid1": spanner.param_types.STRING,
    "uuid7": spanner.param_types.STRING, "uuid4_bytes": spanner.param_types.BYTES,
    "sequence": spanner.param_types.INT64, "bit_reversed_sequence": spanner.param_types.INT64,
    "label": spanner.param_types.STRING, "uuid4_high": spanner.param_types.INT64,
    "uuid4_low": spanner.param_types.INT64, "unread": spanner.param_types.BOOL,
    "last_access": spanner.param_types.TIMESTAMP,
    "category": spanner.param_types.INT64, "zipf": spanner.param_types.INT64,
}


def _wire(value):
    """The client sends BYTES values, in mutations and in keys, only base64-encoded; JSON as its JsonObject."""
    if isinstance(value, list):
        return [_wire(v) for v in value]
    if isinstance(value, dict):
        return JsonObject(value)
    return base64.b64encode(value) if isinstance(value, bytes) else value


SCALAR_PARAM_TYPES = {
    "INT64": spanner.param_types.INT64, "STRING": spanner.param_types.STRING, "BYTES": spanner.param_types.BYTES,
    "BOOL": spanner.param_types.BOOL, "FLOAT64": spanner.param_types.FLOAT64, "FLOAT32": spanner.param_types.FLOAT32,
    "DATE": spanner.param_types.DATE, "TIMESTAMP": spanner.param_types.TIMESTAMP,
    "NUMERIC": spanner.param_types.NUMERIC, "JSON": spanner.param_types.JSON,
}


# A PostgreSQL-dialect database refuses the GoogleSQL NUMERIC and JSON parameter types of its columns.
POSTGRESQL_PARAM_TYPES = {"NUMERIC": spanner.param_types.PG_NUMERIC, "JSON": spanner.param_types.PG_JSONB}


def param_type(sql_type: str, postgresql: bool = False):
    """The parameter type of a user's column (a DML insert names every value's type); the
    type is in GoogleSQL's vocabulary in either dialect."""
    base, _, element = parse_type(sql_type)
    if base == "ARRAY":
        assert element is not None  # parse_type gives an ARRAY its element
        return spanner.param_types.Array(param_type(element, postgresql))
    return (postgresql and POSTGRESQL_PARAM_TYPES.get(base)) or SCALAR_PARAM_TYPES[base]


# The read's (user, time, WriteId) column that a full scan's `where` field names.
_WHERE_COLUMNS = {"entity": 0, "ts_us": 1}


def _within(rows, where: tuple[str, int, int]):
    """The rows of a full scan that `where` wants, tested on the column values as the client
    returns them: a scan streams the whole table, and turning every row into a StoredRow
    costs the load process more than the read does (the caller filters again either way)."""
    field, lo, hi = where
    column = _WHERE_COLUMNS.get(field)
    if column is None:
        return rows
    if field == "ts_us":
        first, last = timestamp(lo), timestamp(hi)
        return (row for row in rows if first <= row[column] <= last)
    return (row for row in rows if lo <= row[column] <= hi)


def _key(values) -> list:
    return [_wire(v) for v in values]


def retrying_aborts(attempt: Callable[[], T], timeout_s: float) -> T:
    """attempt() again while the database aborts it, after a jittered pause that doubles
    (ABORT_BACKOFF_S), until `timeout_s` has passed; then the ABORTED is raised. An aborted
    commit or transaction wrote nothing, so a retry never writes twice."""
    deadline = time.monotonic() + timeout_s
    pause = ABORT_BACKOFF_S
    while True:
        try:
            return attempt()
        except gexc.Aborted:
            wait = random.uniform(0, pause)
            if time.monotonic() + wait >= deadline:
                raise
            time.sleep(wait)
            pause = min(2 * pause, ABORT_BACKOFF_MAX_S)


def client_for(project: str, endpoint: str | None = None) -> spanner.Client:
    # The emulator answers on an insecure channel without credentials; the client
    # switches to it when SPANNER_EMULATOR_HOST is set.
    if os.environ.get("SPANNER_EMULATOR_HOST"):
        return spanner.Client(project=project, credentials=AnonymousCredentials())
    # A local endpoint (a test's server, an emulator behind a proxy) has no Cloud Monitoring to
    # export the client's built-in metrics to: the exporter would hold the process's exit ~30 s.
    return spanner.Client(project=project, disable_builtin_metrics=bool(endpoint and is_local(endpoint)),
                          **client_settings(endpoint))


def _column(part: Part) -> str:
    """A Spanner key part's column (only Bigtable's parts have none)."""
    assert part.column is not None
    return part.column


def instance_of(client: spanner.Client, instance_id: str) -> Instance:
    """The instance keybench creates databases in, as an object (no call is made): on the
    emulator with the configuration keybench creates it with (see `ensure_instance`)."""
    if not os.environ.get("SPANNER_EMULATOR_HOST"):
        return client.instance(instance_id)
    config = f"projects/{client.project}/instanceConfigs/{EMULATOR_CONFIG}"
    return client.instance(instance_id, configuration_name=config, node_count=1)


def ensure_instance(client: spanner.Client, instance: Instance) -> Instance:
    """The instance, there to create databases in. keybench creates it only on the emulator:
    on a real target (the client goes where SPANNER_EMULATOR_HOST says, else to Google) an
    instance costs money and belongs to someone, so it must already exist."""
    if admin.instance_exists(client, instance):
        return instance
    if not os.environ.get("SPANNER_EMULATOR_HOST"):
        raise KeybenchError(f"Spanner instance {instance.name} does not exist; "
                            "keybench never creates an instance on a real target: create it first")
    admin.create_instance(client, instance)
    return instance


class SpannerBackend(Backend):
    name = "spanner"

    def __init__(
        self, strategy: Strategy, location: str, project: str, instance: str,
        payload_bytes: int = DEFAULT_PAYLOAD_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S, endpoint: str | None = None,
    ):
        super().__init__(strategy, location, project, instance, payload_bytes, endpoint)
        self.timeout_s = timeout_s  # a DML insert's deadline, its retries of ABORTED included
        self.client = client_for(project, endpoint)
        self.instance = instance_of(self.client, instance)  # made sure of by create(): no call before the set-up
        self.postgresql = strategy.dialect == "postgresql"
        self.database = self.instance.database(
            location,
            database_dialect=DatabaseDialect.POSTGRESQL if self.postgresql else DatabaseDialect.GOOGLE_STANDARD_SQL,
        )
        self.commit_aborts = 0
        self.aborted_transactions = 0
        self._count_aborted_commits()
        self.key_columns = [_column(p) for p in strategy.parts]
        self.generated = [_column(p) for p in strategy.parts if p.generated]
        # Stored generated columns are the database's to write: inserts leave them out.
        computed = {p.column for p in strategy.parts if p.computed_by_database}
        self.emulator_bound_inserts = bool(self.generated)
        self.read_columns = row_columns(strategy)  # UserId, the write's time, WriteId
        self.param_types = {
            strategy.user_column: spanner.param_types.INT64, strategy.time_column: spanner.param_types.TIMESTAMP,
            strategy.write_id_column: spanner.param_types.STRING, strategy.payload_column: spanner.param_types.STRING,
            **{p.column: param_type(p.sql_type, self.postgresql) if p.sql_type else PARAM_TYPES[p.name]
               for p in (*strategy.parts, *strategy.extra_parts)
               if not p.generated and (p.sql_type or p.name in PARAM_TYPES)},
        }
        self.columns = [c for c in self.key_columns if c not in computed]
        self.columns += [c for c in (*self.read_columns, strategy.payload_column) if c not in self.columns]
        self.columns += [_column(p) for p in strategy.extra_parts]
        self._extra_rng = random.Random(0)  # extra columns' random parts (a user's index on a UUID column)

    def _n(self, name: str | None) -> str:
        """A table, column or index name as this dialect stores it: PostgreSQL folds to lower case.
        A Spanner strategy always names its table (`Strategy.table` is None for Bigtable only)."""
        assert name is not None
        return name.lower() if self.postgresql else name

    def _names(self, names: Iterable[str | None]) -> list[str]:
        return [self._n(n) for n in names]

    def _sql(self, text: str, names: list[str], values: dict) -> tuple[str, dict, dict]:
        """A statement with its parameters: @Name in GoogleSQL, $1.. (p1..) in PostgreSQL."""
        if not self.postgresql:
            return text.format(*(f"@{n}" for n in names)), {n: values[n] for n in names}, {
                n: self.param_types[n] for n in names}
        keys = [f"p{i}" for i in range(1, len(names) + 1)]
        return (text.format(*(f"${i}" for i in range(1, len(names) + 1))),
                {k: values[n] for k, n in zip(keys, names, strict=True)},
                {k: self.param_types[n] for k, n in zip(keys, names, strict=True)})

    counts_aborts = True

    def take_aborts(self) -> int:
        """Retried ABORTED work since the last call: commits of mutation inserts, or whole DML
        transactions (whose commits the commit counter also sees, so it is not added)."""
        taken = self.aborted_transactions if self.generated else self.commit_aborts
        self.aborted_transactions = self.commit_aborts = 0
        return taken

    def _count_aborted_commits(self) -> None:
        """The client retries an ABORTED commit inside `database.batch()`, with seconds of
        backoff and without a word; wrapping this database's commit RPC makes each retry
        visible, so the results can count them instead of hiding them in the latency."""
        api = self.database.spanner_api
        commit = api.commit

        def counted_commit(*args, **kwargs):
            try:
                return commit(*args, **kwargs)
            except gexc.Aborted:
                self.commit_aborts += 1
                raise

        api.commit = counted_commit

    def create(self) -> None:
        fixture = self.strategy.directory / f"{self.strategy.dialect}.sql"
        try:
            ensure_instance(self.client, self.instance)
            admin.create_database(self.client, self.instance, self.database)
        except gexc.GoogleAPICallError as exc:
            raise KeybenchError(f"cannot create Spanner database {self.location}: {exc.message}") from None
        # One statement at a time, so an error names the statement that caused it.
        for statement in self.strategy.ddl:
            try:
                admin.update_ddl(self.client, self.database, [statement])
            except gexc.GoogleAPICallError as exc:
                self.drop()
                raise FixtureError(
                    f"schema fixture {fixture} was refused by Spanner: {exc.message} "
                    f"(statement: {statement[:160]})"
                ) from None
        self._check_columns(fixture)

    def _check_columns(self, fixture) -> None:
        self.param_types.setdefault("TableName", spanner.param_types.STRING)
        self.param_types.setdefault("TableSchema", spanner.param_types.STRING)
        # A table of a named schema is named with it (sales.Orders); the default schema is unnamed
        # in GoogleSQL, public in PostgreSQL.
        schema, _, table = self._n(self.strategy.table).rpartition(".")
        sql, params, types = self._sql(
            "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_SCHEMA = {0} AND TABLE_NAME = {1}",
            ["TableSchema", "TableName"],
            {"TableSchema": schema or ("public" if self.postgresql else ""), "TableName": table})
        with self.database.snapshot() as snapshot:
            present = {r[0] for r in snapshot.execute_sql(sql.lower() if self.postgresql else sql,
                                                          params=params, param_types=types)}
        missing = [c for c in self.columns if self._n(c) not in present]
        if missing:
            self.drop()
            raise KeybenchError(
                f"schema fixture {fixture}: table {self.strategy.table} lacks column(s) {', '.join(missing)}"
            )

    def statistics_until(self):
        from keybench.backends.service_stats import spanner_statistics_until

        return spanner_statistics_until(self.database, self.strategy.dialect or "googlesql")

    def hot_ranges(self, start, end) -> list[tuple]:
        from keybench.backends.service_stats import spanner_hot_splits

        return spanner_hot_splits(self.database, self.strategy.dialect or "googlesql", start, end)[0]

    def drop(self) -> None:
        admin.drop_database(self.client, self.database)

    def _row(self, key: tuple, event: WriteEvent) -> dict:
        values = dict(zip(self.key_columns, key, strict=True))
        values.update((_column(p), p.compute(event, self._extra_rng)) for p in self.strategy.extra_parts)
        values.setdefault(self.strategy.user_column, event.entity)
        values.setdefault(self.strategy.time_column, timestamp(event.ts_us))
        values[self.strategy.write_id_column] = event.write_id
        values[self.strategy.payload_column] = self.payload
        return values

    def insert(self, key: tuple, event: WriteEvent) -> tuple:
        if self.generated:
            return self._insert_returning(key, event)
        return self.insert_batch([(key, event)])[0]

    def insert_batch(self, rows: list[tuple[tuple, WriteEvent]]) -> list[tuple]:
        """All rows in one mutation commit, which the database applies whole or not at all."""
        if self.generated:
            raise KeybenchError(f"{self.strategy.name}: keys the database generates cannot be batch-inserted")
        values = [self._row(k, e) for k, e in rows]
        try:
            retrying_aborts(lambda: self._commit_rows(rows, values), self.timeout_s)
        except gexc.AlreadyExists as exc:
            raise KeyCollision(exc.message) from None
        return [k for k, _ in rows]

    def _commit_rows(self, rows: list[tuple[tuple, WriteEvent]], values: list[dict]) -> None:
        """One mutation commit of the rows, with the parent rows they need; an ABORTED is
        raised, not retried by the client (see ABORT_BACKOFF_S)."""
        with self.database.batch(timeout_secs=0) as batch:
            if self.strategy.parent_table:
                # An interleaved row needs its parent: upsert the users in the same commit.
                users = sorted({e.entity for _, e in rows})
                batch.insert_or_update(self._n(self.strategy.parent_table), [self._n("UserId")], [[u] for u in users])
            if self.strategy.parent_rows:
                self._upsert_parents(batch, rows)
            batch.insert(self._n(self.strategy.table), self._names(self.columns),
                         [[_wire(v[c]) for c in self.columns] for v in values])

    def _upsert_parents(self, batch, rows: list[tuple[tuple, WriteEvent]]) -> None:
        """The parent row of each child row, named by the child key's leading columns."""
        parent = self.strategy.parent_rows
        assert parent is not None  # called only for a design with parent rows
        columns = [*self.key_columns[:parent.key_columns], *(p.column for p in parent.columns)]
        values = {key[:parent.key_columns]: [*key[:parent.key_columns],
                                             *(p.compute(e, self._extra_rng) for p in parent.columns)]
                  for key, e in rows}
        batch.insert_or_update(self._n(parent.table), self._names(columns),
                               [[_wire(v) for v in row] for row in values.values()])

    def _insert_returning(self, key: tuple, event: WriteEvent) -> tuple:
        """A key the database generates is known only from the insert itself, so this
        insert is DML with THEN RETURN in a read-write transaction. On the emulator DML
        cost grows with the table and transactions run one at a time: the results mark
        these inserts emulator-bound and count every retried transaction as an abort."""
        values = {c: _wire(v) for c, v in self._row(key, event).items()}
        given = [c for c in self.columns if c not in self.generated]
        returning = "RETURNING" if self.postgresql else "THEN RETURN"
        sql, params, types = self._sql(
            f"INSERT INTO {self._n(self.strategy.table)} ({', '.join(self._names(given))}) "
            f"VALUES ({', '.join('{' + str(i) + '}' for i in range(len(given)))}) "
            f"{returning} {', '.join(self._names(self.generated))}",
            given, values,
        )
        def work(transaction):
            return list(transaction.execute_sql(sql, params=params, param_types=types))

        def attempt():
            try:
                # timeout_secs=0: the client raises an ABORTED at once, for retrying_aborts
                return self.database.run_in_transaction(work, timeout_secs=0)
            except gexc.Aborted:
                self.aborted_transactions += 1
                raise

        try:
            [returned] = retrying_aborts(attempt, self.timeout_s)
        except gexc.AlreadyExists as exc:
            raise KeyCollision(exc.message) from None
        made = dict(zip(self.generated, returned, strict=True))
        return tuple(made.get(c, v) for c, v in zip(self.key_columns, key, strict=True))

    def preload(self, rows: list[tuple[tuple, WriteEvent]]) -> None:
        for start in range(0, len(rows), 500):
            with self.database.batch() as batch:
                batch.insert(self._n(self.strategy.table), self._names(self.columns), [
                    [_wire(v[c]) for c in self.columns] for v in (self._row(k, e) for k, e in rows[start:start + 500])
                ])

    def read(
        self, spans: tuple[Span, ...] | None, limit: int | None = None, where=None,
        index: str | None = None, join: bool = False, parent: bool = False,
    ) -> list[StoredRow]:
        # The Read API has no row filter: a full scan streams the whole table.
        if spans is None:
            keyset = spanner.KeySet(all_=True)
        elif index is None and all(s.lo == s.hi and len(s.lo) == len(self.key_columns) for s in spans):
            keyset = spanner.KeySet(keys=[_key(s.lo) for s in spans])
        else:
            keyset = spanner.KeySet(
                ranges=[spanner.KeyRange(start_closed=_key(s.lo), end_closed=_key(s.hi)) for s in spans]
            )
        if join:
            # The index holds the primary key; the row's other columns live in the table. Two
            # single-use reads: rows are never deleted during a stage, so the second finds them.
            with self.database.snapshot() as snapshot:
                keys = [list(r) for r in snapshot.read(
                    self._n(self.strategy.table), self._names(self.key_columns), keyset, index=self._n(index),
                    limit=limit or 0)]
            if not keys:
                return []
            keyset, index, limit = spanner.KeySet(keys=[_key(k) for k in keys]), None, None
        if parent:
            # The user's row, then its newest children, from one row tree. Two single-use reads, as
            # for a join: the emulator loses multi-use read-only transactions on multiplexed
            # sessions ("Transaction not found"), and no row is deleted during a stage.
            assert spans is not None  # a parent join reads one user's spans
            user = spans[0].lo[0]
            with self.database.snapshot() as snapshot:
                if not list(snapshot.read(self._n(self.strategy.parent_table), [self._n("UserId")],
                                          spanner.KeySet(keys=[[user]]))):
                    raise KeybenchError(f"{self.strategy.label}: user {user} has rows but no parent row")
        with self.database.snapshot() as snapshot:
            rows = snapshot.read(self._n(self.strategy.table), self._names(self.read_columns), keyset,
                                 index=self._n(index or ""), limit=limit or 0)
            if spans is None and where is not None:
                rows = _within(rows, where)
            return [StoredRow(user, ts_us_of(ts), write_id) for user, ts, write_id in rows]

    def answers(self, timeout_s: float) -> bool:
        return admin.service_answers(self.client, self.instance, timeout_s)

    def write_ids(self) -> list[str]:
        with self.database.snapshot() as snapshot:
            return [r[0] for r in snapshot.read(self._n(self.strategy.table), [self._n(self.strategy.write_id_column)],
                                                spanner.KeySet(all_=True))]

    def close(self) -> None:
        self.client.close()
