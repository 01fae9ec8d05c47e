"""`keybench check --bigtable TEMPLATE`: the template's segments are the key-part vocabulary's,
the verdict follows the design, the fix is the document's and is judged again."""

from __future__ import annotations

from pathlib import Path

import pytest

from keybench.check.command import check
from keybench.check.request import CheckRequest
from keybench.errors import KeybenchError
from tests.conftest import keybench


@pytest.mark.slow
def test_a_timestamp_first_row_key_hotspots_and_field_promotion_spreads_it():
    report = check(CheckRequest(bigtable="{ts}#{device}", reads=("prefix:{device}", "range:ts"),
                                fail_on=("hotspot",)))
    text = "\n".join(report.lines)
    assert "verdict: hotspot (hot_node_share 1.000" in text
    assert 'rule: Bigtable: Schema design best practices, section "Row keys to avoid"' in text
    assert "fix: {device}#{ts}: promote {device} in front of {ts}" in text
    assert "read prefix:{device}: not a leading run of the row key's segments: a full table scan" in text
    after = report.lines[report.lines.index("after the fix:") + 1:]
    assert after[0].startswith("  row key {device}#{ts}: spread")
    prefix = next(line for line in after if line.startswith("  read prefix:{device}: prefix (1 request range(s)), "))
    assert 1.0 <= float(prefix.split(", ")[-1].split()[0]) <= 1.25, prefix  # one device's rows: one range or two
    assert report.lines[-1].startswith("FAIL row key {ts}#{device}: hotspot")
    assert report.exit_code == 1


@pytest.mark.slow
def test_device_type_device_time_spreads_and_its_reads_are_planned():
    report = check(CheckRequest(bigtable="{device_type}#{device_id}#{ts}",
                                reads=("prefix:{device_type}#{device_id}", "range:ts"), fail_on=("hotspot",)))
    text = "\n".join(report.lines)
    assert "verdict: spread" in text and "\n  fix:" not in text
    assert "segment {device_id} = device: one device (or user) of many" in text
    assert "read prefix:{device_type}#{device_id}: prefix (1 request range(s))" in text
    assert "read range:ts: full scan" in text
    assert report.exit_code == 0


def test_a_sequential_id_gets_the_reversed_id_fix():
    text = "\n".join(check(CheckRequest(bigtable="{sequence:8}")).lines)
    assert "verdict: hotspot" in text and "fix: {reversed_sequence:8}: reverse the sequential id's digits" in text
    assert "row key {reversed_sequence:8}: spread" in text


@pytest.mark.parametrize("template, reads, message", [
    ("{ts}#{foo}", (), r"unknown segment \{foo\}; valid: device, device_type, tenant"),
    ("{ts}#{device}", ("range:device",), "a range read bounds a time or number segment"),
    ("{ts}#{device}", ("scan:all",), "a read is 'prefix:"),
    ("{ts:3}", (), r"\{ts\} takes no setting"),
    # braces forgotten: the word would be written into every key as it stands
    ("ts#{device}", (), r"segment 'ts' is fixed text, the same in every row key; did you mean \{ts\}\? "
                        r"\(for the text itself: \{label:ts\}\)"),
    ("{device}#Timestamp", (), r"did you mean \{ts\}\?"),
    # numbers and sizes are bounded before anything is generated or allocated
    ("{sequence:20000000000}#{device}", (), r"part 'sequence' needs 'width', a whole number from 1 to 65,536, "
                                            r"got 20000000000"),
    ("{reverse_domain:1000000000000}#{ts}", (), r"part 'reverse_domain' needs 'domains', a whole number from 1 "
                                                r"to 100,000"),
    ("x" * 100_000 + "#{ts}", (), r"part 'label': its text is 100,000 bytes, more than any key may hold"),
    ("#".join(["x" * 4000] * 3) + "#{ts}", (), r"row keys of 12,\d{3} bytes; Bigtable's rule is a row key of at "
                                               r"most 4 KB"),
])
def test_bad_templates_and_reads_are_one_clear_error(template, reads, message):
    with pytest.raises(KeybenchError, match=message):
        check(CheckRequest(bigtable=template, reads=reads))


def test_a_fixed_text_segment_named_like_a_word_is_still_written_as_a_label():
    result = check(CheckRequest(bigtable="{label:ts}#{device}#{ts}", rows=5_000))
    assert result.exit_code == 0 and "verdict: spread" in "\n".join(result.lines)


def test_an_unknown_segment_exits_2_with_one_line_naming_the_valid_ones():
    result = keybench("check", "--bigtable", "{ts}#{sensor}", timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    [line] = result.stderr.splitlines()
    assert "unknown segment {sensor}; valid: device, device_type" in line and "salt" in line


@pytest.mark.slow
def test_a_row_per_device_and_day_spreads_and_says_its_size_at_the_end_of_the_day():
    result = check(CheckRequest(bigtable="{device_type}#{device}#{interval:86400}"))
    text = "\n".join(result.lines)
    assert "verdict: spread" in text and "at the end of its 86,400-s bucket" in text and "\n  fix:" not in text
    fast = check(CheckRequest(bigtable="{device_type}#{device}#{interval:86400}", device_rate=1000.0))
    assert "verdict: hot_row" in "\n".join(fast.lines), "a device that writes 1,000 times a second fills its day's row"


@pytest.mark.slow
def test_an_hourly_bucket_behind_few_device_types_is_a_hotspot_per_type():
    text = "\n".join(check(CheckRequest(bigtable="{device_type}#{interval:3600}#{device}")).lines)
    assert "verdict: hotspot" in text and "new keys start under 3 prefix(es) only" in text


@pytest.mark.slow
def test_a_fix_that_leaves_a_hotspot_behind_is_followed_by_the_next_fix():
    report = check(CheckRequest(bigtable="{reverse_domain:2}"))
    text = "\n".join(report.lines)
    assert "fix: {reverse_domain:2}#{ts}: store each write in a new row" in text
    assert "fix: {salt:8}#{reverse_domain:2}#{ts}: put a salt of 8 buckets first" in text
    assert "  row key {salt:8}#{reverse_domain:2}#{ts}: spread" in text
    assert "read cost: a time-range read becomes one scan per salt value" in text


def test_the_device_rate_is_for_templates_and_a_finite_positive_number():
    with pytest.raises(KeybenchError, match="--device-rate applies to --bigtable templates only"):
        check(CheckRequest(schema=Path("x.sql"), device_rate=1.0))
    with pytest.raises(KeybenchError, match="--device-rate must be between"):
        check(CheckRequest(bigtable="{device}#{ts}", device_rate=0.0))
