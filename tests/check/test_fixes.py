"""A fix's DDL takes the place of the statement it rewrites; in PostgreSQL the rewritten index
keeps the user's WHERE clause, which the emulator does not keep for keybench to read back."""

from __future__ import annotations

import dataclasses

from keybench.check.fixes import fixed_statements
from keybench.check.schema import POSTGRESQL, Column, Index, KeyColumn, Schema, Table

EVENTS = Table("events", (Column("eventid", "STRING(36)", nullable=False), Column("createdat", "TIMESTAMP")),
               (KeyColumn("eventid"),))
BY_TIME = Index("eventsbycreatedat", "events", (KeyColumn("shardid"), KeyColumn("createdat")), ("eventid",))
USER_DDL = ["CREATE TABLE events (eventid varchar(36) NOT NULL, createdat timestamptz, PRIMARY KEY (eventid))",
            "CREATE INDEX EventsByCreatedAt ON events (createdat)\n  INCLUDE (eventid) WHERE createdat IS NOT NULL"]


def test_a_rewritten_postgresql_index_keeps_the_users_where_clause():
    schema = Schema((EVENTS,), (BY_TIME,), (), POSTGRESQL)
    assert fixed_statements(USER_DDL, schema, ["eventsbycreatedat"]) == [
        USER_DDL[0],
        "CREATE INDEX eventsbycreatedat ON events (shardid, createdat) INCLUDE (eventid) WHERE createdat IS NOT NULL"]


def test_a_googlesql_index_is_written_from_its_facts_alone():
    schema = Schema((EVENTS,), (dataclasses.replace(BY_TIME, null_filtered=True),), ())
    statements = ["CREATE TABLE events (eventid STRING(36) NOT NULL, createdat TIMESTAMP) PRIMARY KEY (eventid)",
                  "CREATE NULL_FILTERED INDEX eventsbycreatedat ON events(createdat) STORING (eventid)"]
    assert fixed_statements(statements, schema, ["eventsbycreatedat"])[1] == (
        "CREATE NULL_FILTERED INDEX eventsbycreatedat ON events(shardid, createdat) STORING (eventid)")
