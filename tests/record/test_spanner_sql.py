"""record.spanner_sql: the table a statement names and what a query's WHERE says of each column,
from its text alone."""

from __future__ import annotations

import pytest

from keybench.record.spanner_sql import Bound, ColumnCondition, Param, dml_rows, query_keys


def test_equalities_lists_and_ranges_joined_by_and_are_read_and_other_conditions_left_out():
    found = query_keys("SELECT * FROM Orders WHERE (Shard IN (1, 2) AND 'x' < Ts) AND Ts <= @hi AND Note LIKE 'a%' "
                       "AND Amount = Price * 2", "googlesql")
    assert found is not None and found.table == "Orders"
    assert found.columns == {"shard": ColumnCondition(equal=[1, 2]),
                             "ts": ColumnCondition(low=Bound("x", False), high=Bound(Param("hi"), True))}


def test_between_and_postgresql_parameters():
    found = query_keys("SELECT * FROM orders WHERE orderid = $1 AND day BETWEEN 3 AND 5", "postgresql")
    assert found is not None and found.columns == {
        "orderid": ColumnCondition(equal=[Param("p1")]),
        "day": ColumnCondition(low=Bound(3, True), high=Bound(5, True))}


def test_a_query_without_where_reads_its_table_with_no_condition():
    found = query_keys("SELECT COUNT(*) FROM Events", "googlesql")
    assert found is not None and (found.table, found.columns) == ("Events", {})


def test_a_named_schemas_table_is_named_with_its_schema_as_the_schema_read_back_names_it():
    found = query_keys("SELECT * FROM sales.Orders WHERE Id = 1", "googlesql")
    assert found is not None and (found.table, found.columns) == ("sales.Orders", {"id": ColumnCondition(equal=[1])})
    assert query_keys('SELECT * FROM sales."orders"', "postgresql").table == "sales.orders"  # type: ignore[union-attr]
    for dml in ("INSERT INTO `sales`.`Orders` (Id) VALUES (1)", "UPDATE sales.Orders SET Note = 'x' WHERE Id = 1"):
        assert dml_rows(dml, "googlesql").table == "sales.Orders"  # type: ignore[union-attr]


@pytest.mark.parametrize("sql", [
    "SELECT * FROM A JOIN B ON A.x = B.x",
    "SELECT * FROM T WHERE a = 1 OR a = 2",
    "SELECT * FROM (SELECT * FROM T) WHERE a = 1",
    "SELECT 1",
    "SELECT * FROM T WHERE",
    "INSERT INTO T (a) VALUES (1)",
    # a WHERE that gives no column's values: the rows it reads are not the whole table
    "SELECT * FROM Singers WHERE SingerId IN UNNEST(@ids)",
    "SELECT * FROM T WHERE a IN (SELECT a FROM U)",
    "SELECT * FROM T WHERE NOT a = 5",
    "SELECT * FROM T WHERE Info.a = 5",
])
def test_a_query_keybench_cannot_place_is_none(sql):
    assert query_keys(sql, "googlesql") is None


def test_columns_qualified_by_the_table_or_its_alias_count_and_other_qualifiers_do_not():
    found = query_keys("SELECT * FROM Singers AS s WHERE s.SingerId = 5 AND Info.Id = 7 AND Singers.Region > 'a'",
                       "googlesql")
    assert found is not None and found.columns == {"singerid": ColumnCondition(equal=[5]),
                                                   "region": ColumnCondition(low=Bound("a", False))}


def test_between_symmetric_narrows_nothing():
    # SYMMETRIC reads between the two whichever is larger: not a low and a high bound
    found = query_keys("SELECT * FROM t WHERE id BETWEEN SYMMETRIC 10 AND 1 AND k = 2", "postgresql")
    assert found is not None and found.columns == {"k": ColumnCondition(equal=[2])}
