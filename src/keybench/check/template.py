"""`keybench check --bigtable '{device_type}#{device}#{ts}'`: a row-key template whose
segments are words of keybench's Bigtable key-part vocabulary (design/keys.py), judged by
the split model, with the documented rule and fix, and the reads the user names planned
over it (`prefix:{device_type}#{device}`, `range:ts`)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from keybench.backends.base import DEFAULT_PAYLOAD_BYTES
from keybench.check.check_result import CheckResult, SpaceResult
from keybench.check.check_text import INDENT, figures
from keybench.check.rules import cost_text, rule_text
from keybench.design.events import BUCKET, DERIVED, ENTITY, NUMBER, OPAQUE, TIME
from keybench.design.keys import BIGTABLE_VALUES, DEFAULT_POPULATION, Part, bigtable_part
from keybench.design.limits import check_row_key
from keybench.design.plans import DEFAULT_LATEST_N, strategy_plans
from keybench.design.strategies import Strategy
from keybench.errors import KeybenchError
from keybench.model.params import SplitParams
from keybench.model.shape import key_shape
from keybench.model.simulate import simulate_stream
from keybench.model.splitmodel import model_stream
from keybench.model.verdict import Verdict, judge

SEPARATOR = "#"
ALIASES = {"device_id": "device", "timestamp": "ts"}  # the words a user is likely to write for the vocabulary's
# The setting a segment's `:N` or `:text` gives, per vocabulary word.
ARGUMENTS = {"salt": "buckets", "sequence": "width", "reversed_sequence": "width", "interval": "seconds",
             "tenant": "tenants", "reverse_domain": "domains", "label": "text"}
DEFAULT_SALT_BUCKETS = 8  # the salted catalogue design's
READS_PER_OPERATION = 50  # sample reads per read the user names
MAX_FIXES = 3  # documented fixes applied one after another to a row key, at most
SEGMENT = re.compile(r"^\{(\w+)(?::([^}]*))?\}$")
ROLE_TEXT = {ENTITY: "one device (or user) of many", DERIVED: "follows from the device", TIME: "the write's time",
             NUMBER: "the insert number", BUCKET: "one of a few values", OPAQUE: "random or hashed"}
# Bigtable catalogue drafts whose sources state the rule broken and the fix.
MONOTONIC_RULE = {TIME: "timestamp_first", NUMBER: "sequential_id"}


@dataclass(frozen=True)
class Segment:
    text: str  # as the user wrote it: {ts}, {salt:8}, memusage
    spec: dict  # its bigtable_part declaration


def parse_template(template: str) -> list[Segment]:
    """Segments between `#`: `{word}`, `{word:setting}`, or fixed text (a label)."""
    if not template.strip():
        raise KeybenchError("--bigtable needs a row-key template, e.g. '{device_type}#{device}#{ts}'")
    segments = []
    for text in template.split(SEPARATOR):
        found = SEGMENT.match(text)
        if found is None:
            if not text or "{" in text or "}" in text:
                raise KeybenchError(f"--bigtable {_shown(template)}: segment {text!r} is neither {{word}}, "
                                    "{word:setting} nor fixed text")
            word = ALIASES.get(text.lower(), text.lower())
            if word in BIGTABLE_VALUES and word != "label":
                # `ts#device`: braces forgotten, which would write the word itself into every key.
                raise KeybenchError(f"--bigtable {_shown(template)}: segment {text!r} is fixed text, the same in "
                                    f"every row key; did you mean {{{word}}}? (for the text itself: "
                                    f"{{label:{text}}})")
            segments.append(Segment(text, {"value": "label", "text": text}))
            continue
        word, setting = ALIASES.get(found.group(1), found.group(1)), found.group(2)
        if word not in BIGTABLE_VALUES:
            raise KeybenchError(f"--bigtable {_shown(template)}: unknown segment {{{found.group(1)}}}; valid: "
                                f"{', '.join(BIGTABLE_VALUES)} (aliases: "
                                f"{', '.join(f'{a} = {w}' for a, w in ALIASES.items())})")
        spec: dict[str, str | int] = {"value": word}
        if word == "salt" and setting is None:
            setting = str(DEFAULT_SALT_BUCKETS)
        if setting is not None:
            if word not in ARGUMENTS:
                raise KeybenchError(f"--bigtable {_shown(template)}: {{{word}}} takes no setting")
            setting_key = ARGUMENTS[word]
            spec[setting_key] = setting if setting_key == "text" else _whole(template, word, setting)
        segments.append(Segment(text, spec))
    return segments


def _whole(template: str, word: str, text: str) -> int:
    if not text.isdigit():
        raise KeybenchError(f"--bigtable {_shown(template)}: {{{word}:{text}}}: the setting is a whole number")
    return int(text)


def template_strategy(template: str, segments: list[Segment]) -> Strategy:
    try:
        parts = tuple(bigtable_part(s.spec) for s in segments)
    except ValueError as exc:
        raise KeybenchError(f"--bigtable {_shown(template)}: {exc}") from None
    strategy = Strategy(backend="bigtable", name="template", dialect="", directory=Path("."), summary=template,
                        claim="", table="template", parts=parts, separator=SEPARATOR, column_families={"cf": {}})
    check_row_key(strategy, DEFAULT_POPULATION, f"--bigtable {_shown(template)}")
    return strategy


def _shown(template: str) -> str:
    """The template as an error line quotes it: a long one cut, so that the line stays one line."""
    return repr(template if len(template) <= 120 else template[:100] + "...")


@dataclass(frozen=True)
class TemplateFix:
    template: str
    problem_rule: str
    fix_rule: str
    what: str


def propose_template_fix(segments: list[Segment], parts: tuple[Part, ...], verdict: Verdict) -> TemplateFix | None:
    """The Bigtable document's fixes: a high-cardinality value in front of the time (field
    promotion), a reversed id for a sequential one, a salt where no such value exists, and a
    new row per write for a row every write rewrites."""
    texts = [s.text for s in segments]
    if verdict.verdict == "hot_row":
        return TemplateFix(SEPARATOR.join([*texts, "{ts}"]), "single_row_counter", "new_row_per_reading",
                           "store each write in a new row: end the key with the time")
    at = next((i for i, p in enumerate(parts) if p.role in (TIME, NUMBER)), None)
    if at is None:
        return None
    problem = MONOTONIC_RULE[parts[at].role]
    if parts[at].name == "sequence":
        width = segments[at].spec.get("width")
        fixed = texts[:at] + [f"{{reversed_sequence:{width}}}" if width else "{reversed_sequence}"] + texts[at + 1:]
        return TemplateFix(SEPARATOR.join(fixed), problem, "reversed_id", "reverse the sequential id's digits")
    entity = next((i for i, p in enumerate(parts) if p.role == ENTITY and i > at), None)
    if entity is not None:
        fixed = texts[:at] + texts[at + 1:entity + 1] + [texts[at]] + texts[entity + 1:]
        return TemplateFix(SEPARATOR.join(fixed), problem, "field_promoted",
                           f"promote {texts[entity]} in front of {texts[at]}: general values first, the time last")
    fixed = [f"{{salt:{DEFAULT_SALT_BUCKETS}}}", *texts]
    return TemplateFix(SEPARATOR.join(fixed), problem, "salted", f"put a salt of {DEFAULT_SALT_BUCKETS} buckets first")


@dataclass(frozen=True)
class ReadRequestText:
    text: str  # as the user wrote it
    operation: str | None  # the keybench read it is: prefix_scan, time_window, number_range; None: not one
    note: str  # what it is when no keybench read models it


def parse_read(text: str, segments: list[Segment], parts: tuple[Part, ...]) -> ReadRequestText:
    kind, _, what = text.partition(":")
    names = [s.text.strip("{}").split(":")[0] for s in segments]
    names = [ALIASES.get(n, n) for n in names]
    if kind == "prefix":
        asked = [ALIASES.get(w.strip("{}"), w.strip("{}")) for w in what.split(SEPARATOR)]
        if asked != names[:len(asked)]:
            return ReadRequestText(text, None, "not a leading run of the row key's segments: a full table scan")
        if parts[len(asked) - 1].role == ENTITY:
            return ReadRequestText(text, "prefix_scan", "")
        return ReadRequestText(text, None, f"one row range: the first {len(asked)} segment(s) of the key")
    if kind == "range":
        word = ALIASES.get(what.strip("{}"), what.strip("{}"))
        if word not in names:
            raise KeybenchError(f"--read {text!r}: the row key has no segment {what!r}; it has {', '.join(names)}")
        role = parts[names.index(word)].role
        if role not in (TIME, NUMBER):
            raise KeybenchError(f"--read {text!r}: a range read bounds a time or number segment; {what} is neither")
        return ReadRequestText(text, "time_window" if role == TIME else "number_range", "")
    raise KeybenchError(f"--read {text!r}: a read is 'prefix:{{segment}}#{{segment}}' or 'range:segment'")


def _judge_template(template: str, reads: tuple[str, ...], rows: int, nodes: int,
                    device_rate: float | None = None) -> tuple[Verdict, list[str], list[Segment], Strategy]:
    segments = parse_template(template)
    strategy = template_strategy(template, segments)
    planned = [parse_read(r, segments, strategy.parts) for r in reads]
    stream = simulate_stream(strategy, rows, reads_per_operation=READS_PER_OPERATION if reads else 0)
    result = model_stream(stream, SplitParams(nodes=nodes), key_shape(strategy, DEFAULT_PAYLOAD_BYTES, device_rate))
    verdict = judge(result)
    plans = strategy_plans(strategy, DEFAULT_LATEST_N)
    touched = result.read_ranges_by_operation()
    read_lines = []
    for read in planned:
        if read.operation is None:
            read_lines.append(f"read {read.text}: {read.note}")
            continue
        plan = plans[read.operation]
        modelled = touched.get(read.operation)
        figure = "" if modelled is None else f", {modelled:.2f} modelled ranges touched"
        read_lines.append(f"read {read.text}: {plan.access.replace('_', ' ')} ({plan.fanout} request range(s)){figure}")
    return verdict, read_lines, segments, strategy


def check_template(template: str, reads: tuple[str, ...], rows: int, nodes: int,
                   device_rate: float | None = None) -> CheckResult:
    verdict, read_lines, segments, strategy = _judge_template(template, reads, rows, nodes, device_rate)
    lines = [f"keybench check --bigtable {template}: verdict from the split model over {rows:,} simulated writes "
             f"on {nodes} nodes (modelled, not measured)", "",
             f"row key {template}",
             f"{INDENT}verdict: {verdict.verdict} ({figures(verdict)} of {verdict.nodes} nodes): {verdict.reason}"]
    roles = [(segment.text, f"{part.name}: {ROLE_TEXT[part.role]}")
             for segment, part in zip(segments, strategy.parts, strict=True)]
    lines += [f"{INDENT}segment {text} = {role}" for text, role in roles]
    lines += [f"{INDENT}{line}" for line in read_lines]
    # A fix may leave another documented problem behind (a new row per write behind a few
    # values is a hotspot): the next fix applies to the fixed key, until it spreads.
    fixes: list[TemplateFix] = []
    fixed_reads: list[str] = []
    fixed_verdict, now, now_segments, now_parts = None, verdict, segments, strategy.parts
    while now.verdict in ("hotspot", "hot_row") and len(fixes) < MAX_FIXES:
        fix = propose_template_fix(now_segments, now_parts, now)
        if fix is None:
            break
        fixes.append(fix)
        now, fixed_reads, now_segments, fixed = _judge_template(fix.template, reads, rows, nodes, device_rate)
        now_parts, fixed_verdict = fixed.parts, now
        lines += [f"{INDENT}rule: {rule_text(fix.problem_rule, 'bigtable')}",
                  f"{INDENT}fix: {fix.template}: {fix.what}",
                  f"{INDENT}{INDENT}per {rule_text(fix.fix_rule, 'bigtable')}",
                  f"{INDENT}{INDENT}read cost: {cost_text(fix.fix_rule, 'bigtable')}"]
    if fixed_verdict is not None:
        lines += ["", "after the fix:",
                  f"{INDENT}row key {fixes[-1].template}: {fixed_verdict.verdict} ({figures(fixed_verdict)} of "
                  f"{fixed_verdict.nodes} nodes)", *(f"{INDENT}{line}" for line in fixed_reads)]
    space = SpaceResult.of("row key", template, verdict, dict(roles),
                           fix="; then ".join(f.what for f in fixes) if fixes else None,
                           fixed_key=fixes[-1].template if fixes else None,
                           fixed_verdict=fixed_verdict.verdict if fixed_verdict else None)
    return CheckResult(template, tuple(lines), (space,))
