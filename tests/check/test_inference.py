"""Each key column's distribution: stated, or inferred from the facts with its reason, or
unknown; and the --columns file's refusals."""

from __future__ import annotations

import pytest

from keybench.check.inference import checked_values, infer, read_columns_file
from keybench.check.schema import (
    GOOGLESQL,
    POSTGRESQL,
    Column,
    KeyColumn,
    Schema,
    Sequence,
    Table,
)
from keybench.errors import KeybenchError

SEQUENCE = Sequence("S", {"sequence_kind": "bit_reversed_positive"})


def inferred(column: Column, stated=None, dialect: str = GOOGLESQL):
    table = Table("T", (column,), (KeyColumn(column.name),))
    return infer(Schema((table,), (), (SEQUENCE,), dialect), table, column, stated or {})


@pytest.mark.parametrize("column, name", [
    (Column("Id", "INT64", default="GET_NEXT_SEQUENCE_VALUE(SEQUENCE S)"), "bit_reversed"),
    (Column("Id", "STRING(36)", default="GENERATE_UUID()"), "uuid4"),
    (Column("Seen", "TIMESTAMP", commit_timestamp=True), "time"),
    (Column("OrderTs", "TIMESTAMP"), "time"),
    (Column("EventTimeMillis", "INT64"), "time"),
    (Column("Shard", "INT64", generated="MOD(FARM_FINGERPRINT(Id), 8)", stored=True), "categorical"),
    (Column("CustomerId", "INT64"), "unknown"),
    (Column("Birthday", "TIMESTAMP"), "unknown"),
    (Column("Payload", "BYTES(MAX)"), "unknown"),
])
def test_a_column_is_inferred_from_its_facts_or_left_unknown(column, name):
    assert inferred(column).name == name


@pytest.mark.parametrize("generated, values", [
    ("MOD(FARM_FINGERPRINT(Id), 8)", 15),  # the hash's sign kept: -7 to 7
    ("ABS(MOD(FARM_FINGERPRINT(CAST(Id AS STRING)), 64))", 64),  # cross-media-measurement's Kingdom
    ("MOD(ABS(FARM_FINGERPRINT(id)), 10)", 10),  # causa-io's ordering example
    ("abs( mod(spanner.farm_fingerprint(id), '16'::bigint) )", 16),
])
def test_a_fingerprint_shard_is_a_hash_of_so_many_values_whether_or_not_an_abs_drops_its_sign(generated, values):
    found = inferred(Column("Shard", "INT64", generated=generated, stored=True))
    assert (found.name, found.values) == ("categorical", values), found
    assert "a hash" in found.reason, found


# What an engineer reading the schema would say, written down before the rule was: the
# write's time only where the name says the write (or the record's own time), never another
# moment the row describes; an id of 36 characters or 16 bytes is a UUID; names and addresses
# are many values in no key order. Every one of them is a guess, marked so.
@pytest.mark.parametrize("column, name", [
    (Column("CreatedAt", "TIMESTAMP"), "time"),
    (Column("created_date", "DATE"), "time"),
    (Column("LastAccess", "TIMESTAMP"), "time"),
    (Column("UpdateTime", "TIMESTAMP"), "time"),
    (Column("EventTime", "TIMESTAMP"), "time"),
    (Column("timestamp", "TIMESTAMP"), "time"),
    (Column("ReadAt", "TIMESTAMP"), "time"),  # a sensor reading's
    (Column("expires_at", "TIMESTAMP"), "unknown"),
    (Column("Birthday", "DATE"), "unknown"),
    (Column("StartTime", "TIMESTAMP"), "unknown"),  # a concert's
    (Column("EventDate", "DATE"), "unknown"),
    (Column("StartTimestamp", "TIMESTAMP"), "unknown"),  # a change-stream partition's
    (Column("ExpiryTime", "TIMESTAMP"), "unknown"),
    (Column("ExpiryTimeMillis", "INT64"), "unknown"),
    (Column("playerUUID", "STRING(36)"), "uuid4"),
    (Column("itemUUID", "STRING(36)"), "uuid4"),
    (Column("CustomerId", "BYTES(16)"), "uuid4"),
    (Column("CustomerId", "STRING(36)"), "uuid4"),
    (Column("CustomerId", "STRING(MAX)"), "unknown"),
    (Column("email", "STRING(MAX)"), "random"),
    (Column("player_name", "STRING(64)"), "random"),
])
def test_a_name_tells_what_an_engineer_would_take_it_for_and_says_it_is_a_guess(column, name):
    found = inferred(column)
    assert found.name == name, found
    assert found.guessed == (name != "unknown"), found
    if found.guessed:
        assert "(a guess from its name: state it with --columns if it is wrong)" in found.describe()


def test_strict_takes_no_guess_from_a_name_but_every_fact():
    schema_of = lambda *columns: Schema((Table("T", columns, (KeyColumn(columns[0].name),)),), (), (SEQUENCE,))  # noqa: E731
    for column in (Column("CreatedAt", "TIMESTAMP"), Column("playerUUID", "STRING(36)"), Column("email", "STRING(64)")):
        schema = schema_of(column)
        found = infer(schema, schema.tables[0], column, {}, strict=True)
        assert found.name == "unknown" and found.reason.startswith("--strict takes no guess from a name"), found
    for column in (Column("Seen", "TIMESTAMP", commit_timestamp=True), Column("Id", "STRING(36)",
                                                                              default="GENERATE_UUID()")):
        schema = schema_of(column)
        assert infer(schema, schema.tables[0], column, {}, strict=True).known


def test_an_application_filled_id_beside_a_sequence_named_for_it_takes_the_sequence():
    venue_id = Column("VenueId", "INT64")
    table = Table("Venues", (venue_id,), (KeyColumn("VenueId"),))
    schema = Schema((table,), (), (Sequence("venue_id_sequence", {"sequence_kind": "bit_reversed_positive"}),))
    found = infer(schema, table, venue_id, {})
    assert (found.name, found.sequence, found.guessed) == ("bit_reversed", "venue_id_sequence", True)
    assert "filled by the application, from sequence venue_id_sequence (no DEFAULT uses it" in found.reason
    unrelated = Column("TicketId", "INT64")
    assert infer(schema, table, unrelated, {}).name == "unknown"


IDENTITY = "GENERATED BY DEFAULT AS IDENTITY (BIT_REVERSED_POSITIVE)"


@pytest.mark.parametrize("column, name, reason", [
    (Column("id", "INT64", default="nextval('s'::text)"), "bit_reversed",
     "DEFAULT from sequence S, bit_reversed_positive"),
    (Column("id", "INT64", default="nextval('other'::text)"), "sequential",
     "DEFAULT from sequence other, not bit-reversed"),
    (Column("id", "STRING(36)", default="spanner.generate_uuid()"), "uuid4", "DEFAULT (spanner.generate_uuid())"),
    (Column("seen", "TIMESTAMP", commit_timestamp=True), "time", "spanner.commit_timestamp: the commit time"),
    (Column("shard", "INT64", generated="mod(spanner.farm_fingerprint((createdat)::text), '16'::bigint)", stored=True),
     "categorical", "31 values"),
    (Column("id", "INT64", identity=IDENTITY), "bit_reversed", IDENTITY),
    (Column("customerid", "INT64"), "unknown", "a bigint with no default"),
    (Column("orderts", "TIMESTAMP"), "time", "a timestamptz named for the write's time"),
])
def test_postgresql_forms_as_the_emulator_returns_them_infer_as_googlesqls_do(column, name, reason):
    found = inferred(column, dialect=POSTGRESQL)
    assert found.name == name and reason in found.reason, found


def test_a_stated_distribution_wins_over_inference(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[T]\nId = { distribution = "zipf", values = 50, exponent = 1.5 }\n')
    stated = read_columns_file(path)
    found = inferred(Column("Id", "STRING(36)", default="GENERATE_UUID()"), stated)
    assert (found.name, found.values, found.exponent, found.reason) == ("zipf", 50, 1.5, "stated in c.toml")


@pytest.mark.parametrize("text, message", [
    ('Id = "gaussian"', "unknown distribution 'gaussian'"),
    ('Id = "categorical"', "categorical needs values = N"),
    ('Id = { distribution = "categorical", values = 10000000000000 }', r"from 1 to 1,000,000,000,000\), got 10+$"),
    ('Id = { distribution = "zipf", values = 0 }', "zipf needs values = N"),
    ('Id = { distribution = "time", exponent = 2 }', "exponent is for zipf only"),
    ('Id = { distribution = "time", spread = 2 }', "unknown key"),
    ("Id = ", "not valid TOML"),
])
def test_a_bad_columns_file_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    with pytest.raises(KeybenchError, match=message):
        read_columns_file(path)


@pytest.mark.parametrize("clause, name, values", [
    ("Kind IN ('root', 'managed', 'federated')", "Kind", 3),  # GoogleSQL, as the emulator writes it
    ("(kind = ANY (ARRAY['root'::text, 'managed'::text]))", "kind", 2),  # PostgreSQL's IN
    ("(status)::text = ANY ((ARRAY['a'::character varying, 'b'::character varying])::text[])", "status", 2),
    ("N = 1 OR N = 2", "N", 2),
    ("((n = '1'::bigint) OR (n = '2'::bigint) OR (n = '1'::bigint))", "n", 2),  # a value twice counts once
    ("Tier BETWEEN 1 AND 3", "Tier", 3),
    ("Kind IN ('it''s', 'b')", "Kind", 2),
    ("Flag = TRUE OR Flag = FALSE", "Flag", 2),
    # what bounds no count of values, or names more than the column
    ("N > 0", "N", None), ("Kind LIKE 'a%'", "Kind", None), ("Kind IN ('a', Other)", "Kind", None),
    ("N = 1 OR M = 2", "N", None), ("Tier BETWEEN 3 AND 1", "Tier", None), ("Kind IN ('a')", "Other", None),
])
def test_a_check_clause_that_lists_a_columns_values_says_how_many(clause, name, values):
    assert checked_values(clause, name) == values


def test_a_checked_column_is_categorical_before_any_guess_from_its_name():
    column = Column("CreatedAt", "STRING(MAX)", checks=("CreatedAt IN ('a', 'b')",))
    table = Table("T", (column,), (KeyColumn("CreatedAt"),))
    found = infer(Schema((table,), ()), table, column, {})
    assert (found.name, found.values, found.guessed) == ("categorical", 2, False)
    assert found.reason == "CHECK (CreatedAt IN ('a', 'b')): 2 values"
