"""Reading what a service reports of its hot key ranges: Spanner's split keys as the "Hot split
statistics" page writes them, each split attributed to its tables and indexes and placed in
their keys, and Bigtable's hot tablets; then held against the modelled verdict."""

from __future__ import annotations

import datetime as dt

import pytest

from keybench.model.observed import (
    HotSplit,
    HotTablet,
    KeyColumnText,
    Observation,
    column_kind,
    observe_split_object,
    observe_tablets,
    parse_split_key,
    row_key_text,
    split_place,
)

T0 = dt.datetime(2026, 11, 26, 21, 0, tzinfo=dt.UTC)


@pytest.mark.parametrize("text, name, values, edge", [
    ("Users(101)", "Users", ("101",), None),  # the page's own examples
    ('Threads(10, "a")', "Threads", ("10", "a"), None),
    ('Messages(631, "abc", 1)', "Messages", ("631", "abc", "1"), None),
    ('UsersByFirstName("abc")', "UsersByFirstName", ("abc",), None),
    ("Users()", "Users", (), None),
    ("<begin>", None, (), "begin"),
    ("<end>", None, (), "end"),
    ('T("a, \\"b\\")", 2)', "T", ('a, "b")', "2"), None),  # a comma, a quote and a parenthesis in a string
    ("T(2026-11-26T21:00:00Z,NULL)", "T", ("2026-11-26T21:00:00Z", "NULL"), None),
])
def test_split_keys_are_read_as_the_documentation_writes_them(text, name, values, edge):
    key = parse_split_key(text)
    assert (key.object, key.values, key.edge, key.text) == (name, values, edge, text)


@pytest.mark.parametrize("text", ['T("open', "no parentheses", "", "(1)"])
def test_an_unreadable_split_key_is_kept_as_text_and_never_guessed_at(text):
    key = parse_split_key(text)
    assert key.object is None and key.values == () and key.edge is None and key.text == text


def _split(start: str, limit: str, score: float = 100, affected=(), reasons=(), minute: int = 0) -> HotSplit:
    return HotSplit(T0 + dt.timedelta(minutes=minute), parse_split_key(start), parse_split_key(limit), score,
                    tuple(affected), tuple(reasons))


TIME_KEY = [KeyColumnText("LastAccess", "time"), KeyColumnText("UserId", "text")]


@pytest.mark.parametrize("start, limit, key, where", [
    ('S("2026-01-01")', "<end>", TIME_KEY, "the newest LastAccess values (from 2026-01-01 on)"),
    ("<begin>", 'S("2026-01-01")', TIME_KEY, "the oldest LastAccess values (up to 2026-01-01)"),
    ('S("2026-01-01")', 'S("2026-02-01")', TIME_KEY, "LastAccess from 2026-01-01 to 2026-02-01"),
    ('S("2026-01-01", "a")', 'S("2026-01-01", "b")', TIME_KEY,
     "one LastAccess value, 2026-01-01: LastAccess=2026-01-01, UserId=a to LastAccess=2026-01-01, UserId=b"),
    ("S()", "<end>", TIME_KEY, "all of it"),
    ('S("2026-01-01")', "Other(1)", [KeyColumnText("LastAccess", "time", descending=True)],
     "the oldest LastAccess values (from 2026-01-01 on)"),  # a descending key grows older towards its end
    ("S(7)", "<end>", [KeyColumnText("Id", "number")], "the highest Id values (from 7 on)"),
])
def test_a_split_is_placed_in_its_objects_key_in_words(start, limit, key, where):
    assert split_place(_split(start, limit), "S", key) == where


def test_a_split_bounded_in_an_index_is_the_indexs_not_its_tables():
    index_split = _split('ByCreated("2026")', "<end>", 72, ["ByCreated", "Users"])
    assert index_split.touches("ByCreated")
    assert not index_split.touches("Users", indexes=("ByCreated",))
    assert index_split.touches("Users")  # without its indexes named, AFFECTED_TABLES decides
    spanning = _split("Sessions(5)", 'Users("4")', 64, ["Sessions", "Users"])
    assert spanning.touches("Sessions") and spanning.touches("users")  # PostgreSQL names: either case


def test_an_objects_observation_is_its_hottest_split_over_the_minutes_it_was_warm_or_hot():
    splits = [_split("S(1)", "<end>", 100, ["S"], minute=m) for m in (1, 2)] + [
        _split("S(0)", "S(1)", 60, ["S"], ["HOT_ROW"], minute=3),
        _split("Other(0)", "<end>", 99, ["Other"], minute=4),
        _split("S(9)", "<end>", 50, ["S"], minute=5),  # 50 is not above 50: not warm
    ]
    seen = observe_split_object("S", [KeyColumnText("Id", "number")], splits)
    assert (seen.observed, seen.score, seen.minutes) == ("hotspot", 100, 3)
    assert seen.where == "the highest Id values (from 1 on)" and seen.key_range == "S(1) to <end>"
    warm = observe_split_object("S", [], splits[2:3])
    assert (warm.observed, warm.reasons) == ("warm", ("HOT_ROW",))
    assert observe_split_object("Nothing", [], splits).observed == "none"


@pytest.mark.parametrize("observed, modelled, agrees", [
    ("hotspot", "hotspot", "yes"), ("warm", "hot_row", "yes"), ("none", "spread", "yes"),
    ("none", "hotspot", "no"), ("hotspot", "spread", "no"), ("warm", "spread", "no"),
    ("hotspot", "inconclusive", "n/a"), ("none", "", "n/a"),
])
def test_observed_and_modelled_agree_when_both_see_a_hotspot_or_both_none(observed, modelled, agrees):
    assert Observation("T", observed).agreement(modelled) == agrees


def test_hot_tablets_are_named_by_the_templates_segments_and_escaped():
    tablets = [HotTablet("readings", b"1764#dev-9", b"", T0, T0, 91.5),
               HotTablet("readings", b"1760#dev-1", b"1762#dev-2", T0, T0, 55.0),
               HotTablet("other", b"", b"", T0, T0, 99.0)]
    seen = observe_tablets("readings", tablets, ["ts", "device"])
    assert (seen.observed, seen.score, seen.minutes) == ("hotspot", 91.5, 2)
    assert seen.where == "the table's last rows (from ts=1764, device=dev-9 on)"
    assert observe_tablets("other", tablets).where == "all of the table"
    assert observe_tablets("absent", tablets).observed == "none"
    assert row_key_text(b"a\x1b[31m\\\xff") == "a\\x1b[31m\\x5c\\xff"  # no escape reaches a terminal


def test_a_value_from_the_service_reaches_the_terminal_escaped():
    split = _split('S("\x1b]0;owned\x07")', "<end>")
    assert "\x1b" not in split_place(split, "S", [KeyColumnText("Name", "text")])


@pytest.mark.parametrize("spanner_type, kind", [("TIMESTAMP", "time"), ("DATE", "time"), ("INT64", "number"),
                                                ("NUMERIC", "number"), ("STRING(36)", "text"), ("BYTES(MAX)", "text")])
def test_a_columns_type_says_how_its_ends_are_named(spanner_type, kind):
    assert column_kind(spanner_type) == kind


def _decoded_int64(encoded: bytes) -> int:
    return int.from_bytes(encoded[:8], "big") - 2**63


@pytest.mark.parametrize("dialect", ["googlesql", "postgresql"])
def test_a_hot_split_is_mapped_back_onto_the_recorded_writes_it_held(dialect):
    """A split built from a simulated stream's own keys, written as the service writes them,
    holds exactly the writes from its start on: the bounds are read in the key's types and
    encoded in the database's byte order."""
    from keybench.design.byteorder import TABLE_SPACE
    from keybench.design.strategies import catalogue
    from keybench.model.observed import stage_observation
    from keybench.model.simulate import simulate_stream

    strategy = catalogue("spanner", dialect)["timestamp_first"]
    stream = simulate_stream(strategy, 2_000)
    _, raw, lengths = stream.writes(TABLE_SPACE)
    keys = sorted(bytes(k).ljust(int(n), b"\x00") for k, n in zip(raw, lengths, strict=True))
    start = keys[1_800]
    moment = dt.datetime.fromtimestamp(_decoded_int64(start) / 1e6, dt.UTC)
    user = _decoded_int64(start[8:])
    table = strategy.table
    row = (T0, f'{table}("{moment.isoformat().replace("+00:00", "Z")}", {user})', "<end>", 100, (table,), ())
    observed = stage_observation(strategy, [row], stream)
    assert observed["observed"] == "hotspot" and observed["observed_space"] == table
    assert float(observed["observed_write_share"]) == pytest.approx(200 / 2_000, abs=0.0005)
    assert observed["observed_where"].startswith(f"the newest {strategy.parts[0].column} values (from ")
    assert stage_observation(strategy, [], stream)["observed"] == "none"


def test_a_hot_tablet_is_mapped_back_onto_the_recorded_row_keys_between_its_ends():
    from keybench.design.byteorder import TABLE_SPACE
    from keybench.design.strategies import catalogue
    from keybench.model.observed import stage_observation
    from keybench.model.simulate import simulate_stream

    strategy = catalogue("bigtable")["timestamp_first"]
    stream = simulate_stream(strategy, 1_000)
    _, raw, lengths = stream.writes(TABLE_SPACE)
    keys = sorted(bytes(k).ljust(int(n), b"\x00") for k, n in zip(raw, lengths, strict=True))
    middle = ("t", keys[400], keys[599], T0, T0, 88.0)  # inclusive at both ends
    observed = stage_observation(strategy, [middle], stream)
    assert observed["observed"] == "hotspot" and observed["observed_score"] == "88"
    assert float(observed["observed_write_share"]) == pytest.approx(0.2, abs=0.001)
    assert observed["observed_where"].startswith(f"from {strategy.parts[0].name}=")


@pytest.mark.parametrize("text, type_word, value", [
    ("2026-11-26T21:00:00.5Z", "TIMESTAMP", dt.datetime(2026, 11, 26, 21, 0, 0, 500000, tzinfo=dt.UTC)),
    ("2026-11-26T21:00:00Z", "TIMESTAMPTZ", dt.datetime(2026, 11, 26, 21, 0, tzinfo=dt.UTC)),
    ("42", "INT64", 42), ("-7", "BIGINT", -7), ("1.5", "FLOAT64", 1.5), ("abc", "STRING", "abc"),
    ("true", "BOOL", True), ("2026-11-26", "DATE", dt.date(2026, 11, 26)),
    ("not a number", "INT64", None), ("QUJD", "BYTES", None), ("x", "", None),
])
def test_a_split_keys_value_is_read_in_its_columns_type_or_not_at_all(text, type_word, value):
    from keybench.model.observed import typed_value

    assert typed_value(text, type_word) == value
