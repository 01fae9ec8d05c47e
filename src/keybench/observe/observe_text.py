"""`keybench observe` as the user reads it: per table and index what the service observed
(labelled so) beside what keybench models (labelled so), whether they agree, where in the key
the hottest range lies, and for a hot key the check's rule and fix."""

from __future__ import annotations

import datetime as dt

from keybench.check.check_text import INDENT, space_lines
from keybench.model.observed import OBSERVED_NONE, WARM_SCORE, HotSplit, HotTablet, Observation
from keybench.model.verdict import HOT_ROW, HOTSPOT

HOT = (HOTSPOT, HOT_ROW)
AGREEMENT_TEXT = {"yes": "they agree", "no": "they DISAGREE", "n/a": "nothing to hold it against"}


def window_text(window: tuple[dt.datetime, dt.datetime]) -> str:
    start, end = window
    shown = "%Y-%m-%d %H:%M" if start.date() != end.date() else "%H:%M"
    return f"{start:%Y-%m-%d %H:%M} to {end.strftime(shown)} UTC"


def object_lines(kind: str, name: str, seen: Observation, modelled: str, measure: str,
                 unit: tuple[str, str] = ("minute", "minutes")) -> list[str]:
    """The observed-beside-modelled line of one table or index, and where its hottest range lies.
    `measure`: what the score is; `unit`: what `minutes` counts, singular and plural."""
    detail = (f" ({measure} {seen.score:g}, {seen.minutes} {unit[seen.minutes != 1]})"
              if seen.score is not None else "")
    lines = [f"{kind} {name}: observed {seen.observed}{detail}, modelled {modelled or 'n/a'}: "
             f"{AGREEMENT_TEXT[seen.agreement(modelled)]}"]
    if seen.observed != OBSERVED_NONE:
        lines += [f"{INDENT}where: {seen.where}", f"{INDENT}hottest range: {seen.key_range}"]
        if seen.reasons:
            lines.append(f"{INDENT}unsplittable, the service says: {', '.join(seen.reasons)}")
    if seen.agreement(modelled) == "no":
        lines.append(f"{INDENT}" + (
            "the model expects a hotspot once the load saturates a split; this window's load did not"
            if seen.observed == OBSERVED_NONE else
            "the service saw what the model did not: state how the key columns are filled (check --columns) "
            "and check again"))
    return lines


def spanner_lines(database: str, dialect: str, window: tuple[dt.datetime, dt.datetime], splits: list[HotSplit],
                  cut: bool, seen: list[tuple], fixes, statements: list[str], rows: int, nodes: int,
                  others: list[str]) -> tuple[list[str], list[str]]:
    warm = [s for s in splits if s.score > WARM_SCORE]
    lines = [f"keybench observe {database}: {len(warm)} warm or hot split row(s) in {window_text(window)} "
             "(observed: SPANNER_SYS.SPLIT_STATS_TOP_MINUTE, as the service reports it; modelled: keybench's split "
             f"model over {rows:,} simulated inserts per table on {nodes} nodes)", ""]
    if not warm:
        lines += ["no warm or hot split in the window: the service saw no hotspot in this database", ""]
    for check, observation in seen:
        lines += object_lines(check.kind, check.name, observation, check.verdict.verdict, "CPU_USAGE_SCORE")
        if observation.observed != OBSERVED_NONE or check.verdict.verdict in HOT:
            block = space_lines(check, fixes.by_space.get(check.name), statements, dialect, frozenset(fixes.by_space))
            lines += [block[1].replace("verdict:", "modelled verdict:", 1), *block[2:]]
    notes = []
    if others:
        notes.append(f"also warm or hot in the statistics, and no table or index of the schema read: "
                     f"{', '.join(others)}")
    if cut:
        notes.append(f"the statistics were cut at {len(splits):,} rows: choose a shorter --since")
    notes.append("a minute's statistics appear a few minutes after it ends; SPLIT_STATS_TOP_MINUTE keeps 24 hours")
    return lines + [""] + [f"note: {n}" for n in notes], notes


def bigtable_lines(cluster: str, window: tuple[dt.datetime, dt.datetime], tablets: list[HotTablet],
                   seen: list[Observation], judged, rows: int, nodes: int) -> tuple[list[str], list[str]]:
    modelled = str(judged.spaces[0].verdict) if judged is not None else ""
    lines = [f"keybench observe {cluster}: {len(tablets)} hot tablet(s) listed in {window_text(window)} "
             "(observed: ListHotTablets, as the service reports it"
             + (f"; modelled: keybench's split model over {rows:,} simulated writes on {nodes} nodes)"
                if judged is not None else ")"), ""]
    if not tablets:
        lines += ["no hot tablet in the window: the service saw no hotspot on this cluster", ""]
    for observation in seen:
        lines += object_lines("table", observation.name, observation, modelled, "node CPU %", ("entry", "entries"))
    notes = []
    if judged is not None and (modelled in HOT or any(o.observed != OBSERVED_NONE for o in seen)):
        lines += ["", "what check says of the row key:", *(f"{INDENT}{line}" for line in judged.lines[2:])]
    elif judged is None and tablets:
        notes.append("give --template (the row-key template, as check takes it) to name the key's parts and get "
                     "the modelled verdict and its fix")
    notes.append("ListHotTablets keeps 14 days and lists at most one entry per tablet per 15 minutes")
    return lines + [""] + [f"note: {n}" for n in notes], notes
