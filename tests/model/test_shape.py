"""What a row key says past the modelled stream's end (model/shape.py), and how the verdict
takes it: a time bucket closes a row, whose size at the bucket's end is held against the
documented 100 MB; a time part behind few values starts every new key at those few places."""

from __future__ import annotations

import pytest

from keybench.check.template import parse_template, template_strategy
from keybench.model.shape import NO_SHAPE, KeyShape, key_shape, size_text
from keybench.model.verdict import HOT_ROW, HOTSPOT, SPREAD, decide


def shape(template: str, device_rate: float | None = None) -> KeyShape:
    return key_shape(template_strategy(template, parse_template(template)), 100, device_rate)


@pytest.mark.parametrize(("template", "life", "prefixes"), [
    ("{device_type}#{device}#{interval:86400}", 86_400, None),   # a row per device and day
    ("{device}#{interval:60}#{interval:3600}", 60, None),        # the finer bucket closes the row
    ("{device}#memusage", None, None),                            # no time: no end
    ("{device}#{ts}", None, None),                                # a row per write: no bucket
    ("{device_type}#{interval:3600}#{device}", 3_600, 3),         # three device types ahead of the bucket
    ("{salt:4}#foo#{sequence}", None, 4),                         # an insert number behind four salts
    ("{device}#{device_type}#{ts}", None, None),                  # a device of many ahead: no few prefixes
])
def test_a_row_key_says_how_long_a_row_lives_and_how_few_places_new_keys_start(template, life, prefixes):
    found = shape(template)
    assert (found.row_life_s, found.bucket_prefixes) == (life, prefixes)


def test_a_spanner_design_has_no_such_shape():
    class Spanner:
        backend = "spanner"
    assert key_shape(Spanner(), 100) == KeyShape(payload_bytes=0) == NO_SHAPE


def decided(found: KeyShape, rate: float = 1.5, rewrite_share: float = 0.9, lifetime: float = 0.9,
            hot_node_share: float = 0.13) -> tuple[str, str]:
    return decide(hot_node_share, 0.002, 0.001, rewrite_share, lifetime, 8, True, found, rate, 30)


def test_a_bucketed_row_is_judged_by_its_size_when_the_bucket_closes():
    day = shape("{device_type}#{device}#{interval:86400}")
    verdict, reason = decided(day)  # 1.5 writes/s * 86,400 s * 130 bytes = 16.8 MB
    assert verdict == SPREAD and "holds 16.8 MB at the end of its 86,400-s bucket" in reason
    verdict, reason = decided(day, rate=10.0)  # 112 MB
    assert verdict == HOT_ROW and "> 100 MB, the documented row size" in reason
    stated = shape("{device_type}#{device}#{interval:86400}", device_rate=100.0)
    assert decided(stated, rate=0.001)[0] == HOT_ROW, "a stated device rate sizes the row, not the modelled one"


def test_a_row_with_no_end_that_writes_keep_rewriting_is_a_hot_row_and_one_written_once_is_not():
    assert decided(shape("{device}#memusage"))[0] == HOT_ROW
    assert decided(shape("{device}#memusage"), rewrite_share=0.0)[0] == SPREAD


def test_new_keys_behind_few_prefixes_are_a_hotspot_up_to_half_the_nodes():
    verdict, reason = decided(shape("{device_type}#{interval:3600}#{device}"))
    assert verdict == HOTSPOT and "new keys start under 3 prefix(es) only ({device_type}#{interval})" in reason
    assert decided(shape("{salt:4}#{interval:60}#{device}"))[0] == HOTSPOT  # 4 <= 8 / 2
    assert decided(shape("{salt:5}#{interval:60}#{device}"))[0] == SPREAD  # 5 > 8 / 2: the model decides


@pytest.mark.parametrize(("size", "text"), [(420, "420 bytes"), (3_100, "3.1 KB"), (17_200_000, "17.2 MB"),
                                            (2.5e9, "2.5 GB")])
def test_a_size_reads_as_a_person_would_write_it(size, text):
    assert size_text(size) == text
