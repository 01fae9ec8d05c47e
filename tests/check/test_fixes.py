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


PLAYLISTS = Table("Playlists", (Column("Id", "INT64", nullable=False, default="GET_NEXT_SEQUENCE_VALUE(SEQUENCE S)"),),
                  (KeyColumn("Id"),))


def test_a_renamed_table_is_rewritten_where_it_was_created_and_renamed_as_the_user_renamed_it():
    statements = ["CREATE TABLE Mixtapes (Id INT64 NOT NULL) PRIMARY KEY (Id)",
                  "ALTER TABLE Mixtapes ADD COLUMN Title STRING(MAX)",
                  "ALTER TABLE Mixtapes RENAME TO Playlists", "CREATE INDEX ById ON Playlists(Id)"]
    fixed = fixed_statements(statements, Schema((PLAYLISTS,), (), ()), ["Playlists"])
    assert fixed == [dataclasses.replace(PLAYLISTS, name="Mixtapes").ddl(), *statements[2:]]  # no second Playlists


def test_a_table_dropped_and_created_again_is_rewritten_where_it_was_created_last():
    statements = ["CREATE TABLE Playlists (Id STRING(36) NOT NULL) PRIMARY KEY (Id)", "DROP TABLE Playlists",
                  "CREATE TABLE Playlists (Id INT64 NOT NULL) PRIMARY KEY (Id)"]
    assert fixed_statements(statements, Schema((PLAYLISTS,), (), ()), ["Playlists"]) == [
        *statements[:2], PLAYLISTS.ddl()]


def test_a_postgresql_index_of_a_named_schema_is_created_without_its_schema_and_replaces_the_users():
    table = dataclasses.replace(EVENTS, name="sales.events")
    index = dataclasses.replace(BY_TIME, name="sales.eventsbycreatedat", table="sales.events", storing=())
    statements = ["CREATE TABLE sales.events (eventid varchar(36) NOT NULL, createdat timestamptz, "
                  "PRIMARY KEY (eventid))", "CREATE INDEX eventsbycreatedat ON sales.events (createdat)"]
    assert fixed_statements(statements, Schema((table,), (index,), (), POSTGRESQL), ["sales.eventsbycreatedat"]) == [
        statements[0], "CREATE INDEX eventsbycreatedat ON sales.events (shardid, createdat)"]
