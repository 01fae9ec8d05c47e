"""The corpus of real public schemas and row keys (tests/check/corpus/), with the verdicts
written for each before keybench was run on it; read and run the same way by the tests
(test_corpus.py) and by the benchmark that counts the answers (benchmarks/check_corpus.py).

Each Spanner input is a DDL file or a migration folder whose files start with the line
`-- source: <repository, commit and path>`; beside it, `<input>.expected.toml` holds per key
space the expected verdict by default and under --strict, and why. Every Bigtable key in
bigtable/keys.toml carries its source, its quote, its template and its expected verdict."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from keybench.check.command import check_result
from keybench.check.request import CheckRequest
from keybench.errors import KeybenchError

CORPUS = Path(__file__).resolve().parent / "corpus"
MODES = ("default", "strict")


@dataclass(frozen=True)
class Outcome:
    """What keybench answered for one input in one mode, against what was expected."""

    name: str
    mode: str
    verdicts: dict[str, str]  # key space -> verdict keybench gave
    guessed: dict[str, tuple[str, ...]]  # key space -> the columns its verdict rests on by guess
    managed: tuple[str, ...]  # Spanner's own foreign-key indexes
    fixed: dict[str, str | None]  # key space -> its verdict after the fix (None: no fix)
    error: str | None  # the one line of a refused input
    mismatches: tuple[str, ...]  # each expectation not met, in words


def spanner_inputs() -> list[str]:
    return sorted(p.name.removesuffix(".expected.toml") for p in (CORPUS / "spanner").glob("*.expected.toml"))


def spanner_path(name: str) -> Path:
    folder = CORPUS / "spanner" / name
    return folder if folder.is_dir() else CORPUS / "spanner" / f"{name}.sql"


def expected(name: str) -> dict:
    return tomllib.loads((CORPUS / "spanner" / f"{name}.expected.toml").read_text())


def run_spanner(name: str, mode: str, same_as: Outcome | None = None) -> Outcome:
    """The check of one input in one mode. `same_as`: the default mode's outcome, which --strict
    repeats when no verdict of it rested on a guess (--strict changes only guessed columns), so
    only its expectations are held against it."""
    wanted = expected(name)
    if same_as is not None and not same_as.guessed and not same_as.error:
        problems = [f"{space}: expected {want[mode]}, got {same_as.verdicts.get(space, 'no such key space')}"
                    for space, want in wanted.items() if same_as.verdicts.get(space) != want[mode]]
        return Outcome(name, mode, same_as.verdicts, {}, same_as.managed, same_as.fixed, None, tuple(problems))
    refused = wanted.pop("refused", None)
    try:
        result = check_result(CheckRequest(schema=spanner_path(name), strict=mode == "strict"))
    except KeybenchError as exc:
        error = str(exc)
        problems = [] if refused and refused["label"] in error and refused["message"] in error and "\n" not in error \
            else [f"refused: {error}"]
        return Outcome(name, mode, {}, {}, (), {}, error, tuple(problems))
    if refused:
        return Outcome(name, mode, {}, {}, (), {}, None, (f"expected a refusal at {refused['label']}",))
    own = [s for s in result.spaces if not s.managed]
    verdicts = {s.name: str(s.verdict) for s in own}
    problems = [f"{space}: expected {want[mode]}, got {verdicts.get(space, 'no such key space')}"
                for space, want in wanted.items() if verdicts.get(space) != want[mode]]
    problems += [f"{space}: not expected" for space in verdicts if space not in wanted]
    return Outcome(name, mode, verdicts, {s.name: s.guessed for s in own if s.guessed},
                   tuple(s.name for s in result.spaces if s.managed), {s.name: s.fixed_verdict for s in own}, None,
                   tuple(problems))


def bigtable_keys() -> list[dict]:
    return tomllib.loads((CORPUS / "bigtable" / "keys.toml").read_text())["key"]


def run_bigtable(key: dict) -> Outcome:
    result = check_result(CheckRequest(bigtable=key["template"], device_rate=key.get("device_rate")))
    space = result.spaces[0]
    problems = () if space.verdict == key["expected"] else (f"expected {key['expected']}, got {space.verdict}",)
    return Outcome(key["name"], "default", {key["template"]: str(space.verdict)}, {}, (),
                   {key["template"]: space.fixed_verdict}, None, problems)
