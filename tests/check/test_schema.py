"""The schema's facts written back as DDL in either dialect, and PostgreSQL's types mapped
onto GoogleSQL's and back. That the emulator takes what is written is test_command's part."""

from __future__ import annotations

import pytest

from keybench.check.schema import (
    GOOGLESQL,
    POSTGRESQL,
    Column,
    Index,
    KeyColumn,
    Sequence,
    Table,
    fingerprint_shard,
    from_postgresql_type,
    quoted,
    sequence_of,
    to_postgresql_type,
)


@pytest.mark.parametrize("postgresql, googlesql, written", [
    ("bigint", "INT64", "bigint"),
    ("character varying(36)", "STRING(36)", "varchar(36)"),
    ("character varying", "STRING(MAX)", "varchar"),
    ("timestamp with time zone", "TIMESTAMP", "timestamptz"),
    ("bytea", "BYTES(MAX)", "bytea"),
    ("boolean", "BOOL", "boolean"),
    ("double precision", "FLOAT64", "double precision"),
    ("bigint[]", "ARRAY<INT64>", "bigint[]"),
    ("interval", "interval", "interval"),  # no counterpart: kept as it is
])
def test_a_postgresql_type_maps_onto_googlesqls_and_back(postgresql, googlesql, written):
    assert from_postgresql_type(postgresql) == (googlesql, False)
    assert to_postgresql_type(googlesql) == written


def test_a_postgresql_commit_timestamp_is_a_timestamp_marked_so():
    assert from_postgresql_type("spanner.commit_timestamp") == ("TIMESTAMP", True)
    column = Column("orderts", "TIMESTAMP", nullable=False, commit_timestamp=True)
    assert column.ddl(POSTGRESQL) == "orderts spanner.commit_timestamp NOT NULL"
    assert column.ddl() == "orderts TIMESTAMP NOT NULL OPTIONS (allow_commit_timestamp = true)"


ORDERS = Table("orders", (
    Column("customerid", "INT64", nullable=False),
    Column("OrderId", "STRING(36)", nullable=False, default="spanner.generate_uuid()"),
    Column("shardid", "INT64", generated="mod(spanner.farm_fingerprint(customerid::text), 16)", stored=True),
), (KeyColumn("customerid"), KeyColumn("OrderId")), parent="customers", on_delete="CASCADE")


def test_a_postgresql_table_has_its_key_inside_and_quotes_a_name_that_is_not_lower_case():
    assert ORDERS.ddl(POSTGRESQL) == (
        "CREATE TABLE orders (\n"
        "  customerid bigint NOT NULL,\n"
        '  "OrderId" varchar(36) NOT NULL DEFAULT spanner.generate_uuid(),\n'
        "  shardid bigint GENERATED ALWAYS AS (mod(spanner.farm_fingerprint(customerid::text), 16)) STORED,\n"
        '  PRIMARY KEY (customerid, "OrderId")\n'
        ") INTERLEAVE IN PARENT customers ON DELETE CASCADE")


def test_a_postgresql_index_includes_and_interleaves_and_a_sequence_takes_its_clauses():
    index = Index("ordersbyshard", "orders", (KeyColumn("shardid"), KeyColumn("customerid", descending=True)),
                  ("OrderId",), unique=True, interleaved_in="customers")
    assert index.ddl(POSTGRESQL) == ('CREATE UNIQUE INDEX ordersbyshard ON orders (shardid, customerid DESC) '
                                     'INCLUDE ("OrderId") INTERLEAVE IN customers')
    sequence = Sequence("s", {"sequence_kind": "bit_reversed_positive", "start_with_counter": "7",
                              "skip_range_min": "1", "skip_range_max": "1000"})
    assert sequence.ddl(POSTGRESQL) == "CREATE SEQUENCE s BIT_REVERSED_POSITIVE SKIP RANGE 1 1000 START COUNTER WITH 7"
    assert sequence.ddl() == ('CREATE SEQUENCE s OPTIONS (sequence_kind = "bit_reversed_positive", '
                              'start_with_counter = 7, skip_range_min = 1, skip_range_max = 1000)')


@pytest.mark.parametrize("default, sequence", [
    ("GET_NEXT_SEQUENCE_VALUE(SEQUENCE OrderSequence)", "OrderSequence"),
    ("nextval('ordersequence'::text)", "ordersequence"),
    ("spanner.generate_uuid()", None),
])
def test_the_sequence_a_default_draws_from_in_either_dialect(default, sequence):
    assert sequence_of(Column("id", "INT64", default=default)) == sequence


@pytest.mark.parametrize("name, dialect, written", [
    ("Orders", GOOGLESQL, "Orders"),
    ("Order", GOOGLESQL, "`Order`"),  # a reserved keyword, whatever its case
    ("group", GOOGLESQL, "`group`"),
    ("Order-Lines", GOOGLESQL, "`Order-Lines`"),  # not a plain identifier
    ("Status", GOOGLESQL, "Status"),  # a keyword, but not a reserved one
    ("orders", POSTGRESQL, "orders"),
    ("order", POSTGRESQL, '"order"'),
    ("user", POSTGRESQL, '"user"'),
    ("Orders", POSTGRESQL, '"Orders"'),
    ('say"hi', POSTGRESQL, '"say""hi"'),
])
def test_a_generated_name_is_quoted_when_the_dialect_needs_it(name, dialect, written):
    assert quoted(name, dialect) == written


def test_a_table_named_by_a_reserved_keyword_is_quoted_everywhere_in_its_ddl():
    """Its name, its columns, its key, its index, its interleaving and its shard expression."""
    order = Table("Order", (Column("By", "INT64", nullable=False), Column("Desc", "STRING(MAX)")),
                  (KeyColumn("By"),), parent="Group")
    assert order.ddl() == ("CREATE TABLE `Order` (\n  `By` INT64 NOT NULL,\n  `Desc` STRING(MAX),\n) "
                           "PRIMARY KEY (`By`),\n  INTERLEAVE IN PARENT `Group`")
    index = Index("Select", "Order", (KeyColumn("Desc", descending=True),), storing=("By",), interleaved_in="Group")
    assert index.ddl() == "CREATE INDEX `Select` ON `Order`(`Desc` DESC) STORING (`By`), INTERLEAVE IN `Group`"
    assert fingerprint_shard(Column("By", "INT64"), 8, GOOGLESQL) == "MOD(FARM_FINGERPRINT(CAST(`By` AS STRING)), 8)"
    in_postgresql = fingerprint_shard(Column("order", "INT64"), 8, POSTGRESQL)
    assert in_postgresql == 'mod(spanner.farm_fingerprint("order"::text), 8)'
