"""Spanner's admin calls, each with a deadline.

The client's defaults would let a dead or paused service hold keybench for an hour: it retries
an unavailable service for up to 3,600 s on `UpdateDatabaseDdl` and `GetInstance`, and
`DropDatabase` has no deadline at all. keybench gives every admin call ADMIN_CALL_TIMEOUT_S,
its retries of an unavailable service included, and every long-running operation
DDL_TIMEOUT_S to finish once the service has accepted it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import TimeoutError as FutureTimeout
from typing import ParamSpec, TypeVar

from google.api_core import exceptions as gexc
from google.api_core.exceptions import RetryError
from google.api_core.retry import Retry, if_exception_type
from google.cloud import spanner
from google.cloud.spanner_admin_database_v1 import CreateDatabaseRequest, DatabaseDialect, UpdateDatabaseDdlRequest
from google.cloud.spanner_admin_instance_v1 import Instance as InstanceMessage
from google.cloud.spanner_v1.database import Database
from google.cloud.spanner_v1.instance import Instance

from keybench.backends.liveness import answered

P = ParamSpec("P")
R = TypeVar("R")

ADMIN_CALL_TIMEOUT_S = 30.0  # one admin call, its retries of an unavailable service included
DDL_TIMEOUT_S = 60.0  # a long-running operation (a database's creation, a DDL statement), once accepted


def _finished(operation) -> None:
    """Wait for a long-running operation; one that outlasts DDL_TIMEOUT_S is a DeadlineExceeded,
    as a call that outlasts its deadline is."""
    try:
        operation.result(DDL_TIMEOUT_S)
    except FutureTimeout:
        raise gexc.DeadlineExceeded(f"the operation did not finish within {DDL_TIMEOUT_S:g} s") from None


def _deadline_exceeded(exc: RetryError) -> gexc.DeadlineExceeded:
    """A call that kept meeting an unavailable service until its deadline, as the error a
    caller of the admin calls handles (a RetryError is no GoogleAPICallError)."""
    return gexc.DeadlineExceeded(f"unavailable for {ADMIN_CALL_TIMEOUT_S:g} s: {exc.cause or exc}")


def _bounded(call: Callable[P, R]) -> Callable[P, R]:
    @functools.wraps(call)
    def bounded(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return call(*args, **kwargs)
        except RetryError as exc:
            raise _deadline_exceeded(exc) from None

    return bounded


def _retry() -> Retry:
    """An unavailable service (an emulator restarting) is retried, but never past the call's deadline."""
    return Retry(predicate=if_exception_type(gexc.ServiceUnavailable), initial=0.25, maximum=2.0,
                 timeout=ADMIN_CALL_TIMEOUT_S)


@_bounded
def instance_exists(client: spanner.Client, instance: Instance, timeout_s: float = ADMIN_CALL_TIMEOUT_S) -> bool:
    """True if the service knows the instance; any other refusal is raised."""
    try:
        client.instance_admin_api.get_instance(name=instance.name, timeout=timeout_s, retry=_retry())
    except gexc.NotFound:
        return False
    return True


def service_answers(client: spanner.Client, instance: Instance, timeout_s: float) -> bool:
    """True if the service answers within `timeout_s`, whatever it answers: a liveness probe
    that asks nothing of a database (which may not exist yet, or be mid-DDL)."""
    return answered(lambda: client.instance_admin_api.get_instance(name=instance.name, timeout=timeout_s, retry=None))


@_bounded
def create_instance(client: spanner.Client, instance: Instance) -> None:
    """Create `instance` (its configuration and node count as set on it); one that exists already is no error."""
    message = InstanceMessage(name=instance.name, config=instance.configuration_name,
                              display_name=instance.display_name or instance.instance_id,
                              node_count=instance.node_count)
    try:
        _finished(client.instance_admin_api.create_instance(
            parent=client.project_name, instance_id=instance.instance_id, instance=message,
            timeout=ADMIN_CALL_TIMEOUT_S, retry=None))
    except gexc.AlreadyExists:
        pass


@_bounded
def create_database(client: spanner.Client, instance: Instance, database: Database) -> None:
    """Create the empty `database` (its dialect as set on it)."""
    postgresql = database.database_dialect == DatabaseDialect.POSTGRESQL
    quoted = f'"{database.database_id}"' if postgresql else f"`{database.database_id}`"
    request = CreateDatabaseRequest(parent=instance.name, create_statement=f"CREATE DATABASE {quoted}",
                                    database_dialect=database.database_dialect)
    _finished(client.database_admin_api.create_database(request=request, timeout=ADMIN_CALL_TIMEOUT_S, retry=None))


@_bounded
def update_ddl(client: spanner.Client, database: Database, statements: list[str]) -> None:
    """Apply `statements` to `database`, as one schema change."""
    request = UpdateDatabaseDdlRequest(database=database.name, statements=statements)
    _finished(client.database_admin_api.update_database_ddl(request=request, timeout=ADMIN_CALL_TIMEOUT_S,
                                                            retry=_retry()))


@_bounded
def drop_database(client: spanner.Client, database: Database) -> None:
    """Drop `database`; one that is not there is no error."""
    try:
        client.database_admin_api.drop_database(database=database.name, timeout=ADMIN_CALL_TIMEOUT_S,
                                                retry=_retry())
    except gexc.NotFound:
        pass


@_bounded
def ddl_of(client: spanner.Client, database: Database) -> list[str]:
    """The database's schema, as the DDL statements that would create it."""
    return list(client.database_admin_api.get_database_ddl(database=database.name, timeout=ADMIN_CALL_TIMEOUT_S,
                                                           retry=_retry()).statements)


@_bounded
def dialect_of(client: spanner.Client, database: Database) -> str:
    """The database's dialect, googlesql or postgresql (GetDatabase: spanner.databases.get)."""
    found = client.database_admin_api.get_database(name=database.name, timeout=ADMIN_CALL_TIMEOUT_S, retry=_retry())

    def rows(sql: str) -> list[tuple]:
        with database.snapshot() as snapshot:
            return [tuple(r) for r in snapshot.execute_sql(sql, timeout=ADMIN_CALL_TIMEOUT_S)]

    return dialect_named(found.database_dialect, rows)


SCHEMA_NAMES = "SELECT SCHEMA_NAME FROM INFORMATION_SCHEMA.SCHEMATA"


def dialect_named(database_dialect: DatabaseDialect, rows: Callable[[str], list[tuple]]) -> str:
    """googlesql or postgresql: GetDatabase's `database_dialect`, or where the emulator leaves it
    unset, what the database's schemas say (`rows(sql)` runs a query on it)."""
    if database_dialect != DatabaseDialect.DATABASE_DIALECT_UNSPECIFIED:
        return "postgresql" if database_dialect == DatabaseDialect.POSTGRESQL else "googlesql"
    # A PostgreSQL database has the `public` schema, a GoogleSQL one none; the query reads the
    # same in both (PostgreSQL folds the unquoted names).
    return "postgresql" if "public" in {row[0] for row in rows(SCHEMA_NAMES)} else "googlesql"
