"""Cloud Spanner binding: inserts as mutations, reads through the Read API (KeySet and
KeyRange), never SQL on the hot path, because the emulator's SQL and DML cost grows with
the table and would measure the emulator's scans rather than the key design."""

from __future__ import annotations

import base64
import os

from google.api_core import exceptions as gexc
from google.auth.credentials import AnonymousCredentials
from google.cloud import spanner

from loadtests.backends.base import DEFAULT_PAYLOAD_BYTES, Backend
from loadtests.errors import KeybenchError
from loadtests.keys import Event, timestamp, ts_us_of
from loadtests.plans import Span, StoredRow
from loadtests.strategies import Strategy

EMULATOR_CONFIG = "emulator-config"
READ_COLUMNS = ("UserId", "LastAccess", "WriteId")
REQUIRED_COLUMNS = ("UserId", "LastAccess", "WriteId", "Payload")
DDL_TIMEOUT_S = 60


def _wire(value):
    """The client sends BYTES values, in mutations and in keys, only base64-encoded."""
    return base64.b64encode(value) if isinstance(value, bytes) else value


def _key(values) -> list:
    return [_wire(v) for v in values]


def _client(project: str) -> spanner.Client:
    # The emulator answers on an insecure channel without credentials; the client
    # switches to it when SPANNER_EMULATOR_HOST is set.
    if os.environ.get("SPANNER_EMULATOR_HOST"):
        return spanner.Client(project=project, credentials=AnonymousCredentials())
    return spanner.Client(project=project)


def ensure_instance(client: spanner.Client, instance_id: str) -> spanner.Client:
    instance = client.instance(
        instance_id,
        configuration_name=f"projects/{client.project}/instanceConfigs/{EMULATOR_CONFIG}",
        node_count=1,
    )
    if not instance.exists():
        try:
            instance.create().result(DDL_TIMEOUT_S)
        except gexc.AlreadyExists:
            pass
    return instance


class SpannerBackend(Backend):
    name = "spanner"

    def __init__(
        self, strategy: Strategy, location: str, project: str, instance: str,
        payload_bytes: int = DEFAULT_PAYLOAD_BYTES,
    ):
        super().__init__(strategy, location, payload_bytes)
        self.client = _client(project)
        self.instance = ensure_instance(self.client, instance)
        self.database = self.instance.database(location)
        self.aborted_commits = 0
        self._count_aborted_commits()
        self.key_columns = [p.column for p in strategy.parts]
        self.columns = self.key_columns + [c for c in REQUIRED_COLUMNS if c not in self.key_columns]

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
                self.aborted_commits += 1
                raise

        api.commit = counted_commit

    def create(self) -> None:
        fixture = self.strategy.directory / f"{self.strategy.dialect}.sql"
        try:
            self.database.create().result(DDL_TIMEOUT_S)
        except gexc.GoogleAPICallError as exc:
            raise KeybenchError(f"cannot create Spanner database {self.location}: {exc.message}") from None
        # One statement at a time, so an error names the statement that caused it.
        for statement in self.strategy.ddl:
            try:
                self.database.update_ddl([statement]).result(DDL_TIMEOUT_S)
            except gexc.GoogleAPICallError as exc:
                self.drop()
                raise KeybenchError(
                    f"schema fixture {fixture} was refused by Spanner: {exc.message} "
                    f"(statement: {statement[:160]})"
                ) from None
        self._check_columns(fixture)

    def _check_columns(self, fixture) -> None:
        with self.database.snapshot() as snapshot:
            rows = snapshot.execute_sql(
                "SELECT COLUMN_NAME FROM INFORMATION_SCHEMA.COLUMNS WHERE TABLE_NAME = @t",
                params={"t": self.strategy.table},
                param_types={"t": spanner.param_types.STRING},
            )
            present = {r[0] for r in rows}
        missing = [c for c in self.columns if c not in present]
        if missing:
            self.drop()
            raise KeybenchError(
                f"schema fixture {fixture}: table {self.strategy.table} lacks column(s) {', '.join(missing)}"
            )

    def drop(self) -> None:
        try:
            self.database.drop()
        except gexc.NotFound:
            pass

    def insert(self, key: tuple, event: Event) -> None:
        values = dict(zip(self.key_columns, key))
        values.setdefault("UserId", event.entity)
        values.setdefault("LastAccess", timestamp(event.ts_us))
        values["WriteId"] = event.write_id
        values["Payload"] = self.payload
        with self.database.batch() as batch:
            if self.strategy.parent_table:
                # An interleaved row needs its parent: upsert the user in the same commit.
                batch.insert_or_update(self.strategy.parent_table, ["UserId"], [[event.entity]])
            batch.insert(self.strategy.table, self.columns, [[_wire(values[c]) for c in self.columns]])

    def read(self, spans: tuple[Span, ...] | None, limit: int | None = None, where=None) -> list[StoredRow]:
        # The Read API has no row filter: a full scan streams the whole table.
        if spans is None:
            keyset = spanner.KeySet(all_=True)
        elif all(s.lo == s.hi and len(s.lo) == len(self.key_columns) for s in spans):
            keyset = spanner.KeySet(keys=[_key(s.lo) for s in spans])
        else:
            keyset = spanner.KeySet(
                ranges=[spanner.KeyRange(start_closed=_key(s.lo), end_closed=_key(s.hi)) for s in spans]
            )
        with self.database.snapshot() as snapshot:
            rows = snapshot.read(self.strategy.table, READ_COLUMNS, keyset, limit=limit or 0)
            return [StoredRow(user, ts_us_of(ts), write_id) for user, ts, write_id in rows]

    def write_ids(self) -> list[str]:
        with self.database.snapshot() as snapshot:
            return [r[0] for r in snapshot.read(self.strategy.table, ["WriteId"], spanner.KeySet(all_=True))]

    def close(self) -> None:
        self.client.close()
