"""A Spanner database reached through a recording proxy, for the record tests."""

from __future__ import annotations

import uuid
from contextlib import contextmanager

from keybench.record.recorder import Recorder
from keybench.record.taps import recording_proxy


@contextmanager
def proxied_database(emulator: str, monkeypatch, ddl: list[str], prefix: str, postgresql: bool = False):
    """(database, recorder): a new database of `ddl` on the emulator at `emulator` (in the
    PostgreSQL dialect with `postgresql`), with this process's Spanner clients reaching it
    through a recording proxy; dropped afterwards."""
    from google.cloud.spanner_admin_database_v1 import DatabaseDialect

    from keybench.backends import spanner_admin as admin
    from keybench.backends.spanner import client_for, ensure_instance, instance_of
    from keybench.infra.target import INSTANCE, PROJECT

    recorder = Recorder()
    proxy = recording_proxy("spanner", recorder, emulator)
    monkeypatch.setenv("SPANNER_EMULATOR_HOST", proxy.address)
    client = client_for(PROJECT)
    try:
        instance = ensure_instance(client, instance_of(client, INSTANCE))
        dialect = DatabaseDialect.POSTGRESQL if postgresql else DatabaseDialect.GOOGLE_STANDARD_SQL
        db = instance.database(prefix + uuid.uuid4().hex[:12], database_dialect=dialect)
        admin.create_database(client, instance, db)
        if ddl:
            db.update_ddl(ddl).result(60)
        try:
            yield db, recorder
        finally:
            admin.drop_database(client, db)
    finally:
        client.close()
        proxy.close()
