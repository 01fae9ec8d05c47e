"""A check's typed result: a Bigtable row key answers for itself, Spanner spaces are found
by table or index name (case aside), an unknown name lists the known ones, and `keybench
check`'s printed lines and FAIL lines come from the same values."""

from __future__ import annotations

import pytest

from keybench.check.check_result import (
    CheckResult,
    SpaceResult,
    SpaceVerdict,
    UnknownSpace,
)
from keybench.check.command import check, check_result
from keybench.check.request import CheckRequest
from keybench.model.verdict import Verdict


def space(kind: str, name: str, verdict: str) -> SpaceResult:
    return SpaceResult.of(kind, name, Verdict(verdict, 0.5, 0.01, 2.0, 0.0, 8, "a test's figure"), {"Id": "uuid4"})


SHOP = CheckResult("shop.sql", ("(the report)",), (
    space("table", "Orders", "spread"), space("index", "Orders.OrdersByCreatedAt", "hotspot"),
    space("table", "Customers", "spread")))


def test_a_row_key_answers_for_itself_with_the_fix_and_its_verdict():
    result = check_result(CheckRequest(bigtable="{ts}#{device}", rows=1_000))
    assert (result.verdict, result.fixed_key, result.fixed_verdict) == ("hotspot", "{device}#{ts}", "spread")
    assert result.assumptions == {"{ts}": "ts: the write's time", "{device}": "device: one device (or user) of many"}
    assert result.hot_node_share > 0.9 and result.effective_nodes < 1.5
    assert isinstance(result.verdict, SpaceVerdict) and result.verdict.space is result.spaces[0]
    assert "\n".join(check(CheckRequest(bigtable="{ts}#{device}", rows=1_000)).lines).startswith(result.text)


def test_fail_lines_come_from_the_spaces():
    report = check(CheckRequest(bigtable="{ts}#{device}", rows=1_000, fail_on=("hotspot",)))
    assert report.lines[-1].startswith("FAIL row key {ts}#{device}: hotspot (hot_node_share 1.000")
    assert report.exit_code == 1


@pytest.mark.parametrize("find", [
    lambda r: r.index("Orders", "OrdersByCreatedAt"), lambda r: r.index("Orders.OrdersByCreatedAt"),
    lambda r: r.index("ordersbycreatedat"), lambda r: r.index("ORDERS", "OrdersByCreatedAt")])
def test_an_index_is_found_by_table_and_name_qualified_or_alone(find):
    found = find(SHOP)
    assert (found.kind, found.table, found.index, found.verdict) == ("index", "Orders", "OrdersByCreatedAt", "hotspot")


def test_a_table_is_found_by_name_whatever_its_case():
    assert SHOP.table("customers").name == "Customers"


@pytest.mark.parametrize("find, message", [
    (lambda r: r.table("Order"), "shop.sql has no table 'Order'; its tables: Orders, Customers"),
    (lambda r: r.index("Orders", "ByTime"),
     "shop.sql has no index 'Orders.ByTime'; its indexes: Orders.OrdersByCreatedAt"),
    (lambda r: r.table("OrdersByCreatedAt"), "its tables: Orders, Customers"),
])
def test_an_unknown_name_lists_the_known_ones(find, message):
    with pytest.raises(UnknownSpace, match=message.replace(".", r"\.")):
        find(SHOP)


def test_a_schema_has_no_single_verdict():
    with pytest.raises(AttributeError, match="shop.sql has 3 key spaces, each with its own verdict: ask .table"):
        _ = SHOP.verdict


def test_the_reprs_name_each_space_with_its_verdict_and_figures():
    assert repr(SHOP) == ("<keybench check shop.sql: table Orders: spread; index Orders.OrdersByCreatedAt: hotspot; "
                          "table Customers: spread>")
    assert repr(SHOP.table("Orders")) == ("<table Orders: spread (hot_node_share 0.500, effective_nodes 2.00 of 8 "
                                          "nodes): a test's figure; assumes Id = uuid4>")
