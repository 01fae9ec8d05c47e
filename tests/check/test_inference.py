"""Each key column's distribution: stated, or inferred from the facts with its reason, or
unknown; and the --columns file's refusals."""

from __future__ import annotations

import pytest

from loadtests.check.inference import infer, read_columns_file
from loadtests.check.schema import Column, KeyColumn, Schema, Sequence, Table
from loadtests.errors import KeybenchError

SEQUENCE = Sequence("S", {"sequence_kind": "bit_reversed_positive"})


def inferred(column: Column, stated=None):
    table = Table("T", (column,), (KeyColumn(column.name),))
    return infer(Schema((table,), (), (SEQUENCE,)), table, column, stated or {})


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


def test_a_stated_distribution_wins_over_inference(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[T]\nId = { distribution = "zipf", values = 50, exponent = 1.5 }\n')
    stated = read_columns_file(path)
    found = inferred(Column("Id", "STRING(36)", default="GENERATE_UUID()"), stated)
    assert (found.name, found.values, found.exponent, found.reason) == ("zipf", 50, 1.5, "stated in c.toml")


@pytest.mark.parametrize("text, message", [
    ('Id = "gaussian"', "unknown distribution 'gaussian'"),
    ('Id = "categorical"', "categorical needs values = N"),
    ('Id = { distribution = "time", exponent = 2 }', "exponent is for zipf only"),
    ('Id = { distribution = "time", spread = 2 }', "unknown key"),
    ("Id = ", "not valid TOML"),
])
def test_a_bad_columns_file_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "c.toml"
    path.write_text(text + "\n")
    with pytest.raises(KeybenchError, match=message):
        read_columns_file(path)
