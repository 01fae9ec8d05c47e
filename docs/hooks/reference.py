"""MkDocs hook: the reference pages generated from keybench's own code at every build, so
they cannot drift from it: the command line (from the argument parser), the strategy
catalogue (from the strategy folders) and the result columns (from keybench.columns).
Nothing generated is committed; `mkdocs build --strict` fails when a column has no
description."""

from __future__ import annotations

import argparse
from typing import Any

from mkdocs.structure.files import File, Files

from keybench import columns
from keybench.cli import arguments
from keybench.design import strategies

GENERATED = {
    "reference/cli.md": "cli_page",
    "reference/catalogue.md": "catalogue_page",
    "reference/columns.md": "columns_page",
}
NOTICE = "<!-- generated at build time by docs/hooks/reference.py: edit the code, not this page -->\n"


def _cell(text: object) -> str:
    """Text as one Markdown table cell: `|` escaped, and `<run-id>` shown, not taken for HTML."""
    return str(text).replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|").replace("\n", " ")


def _option_row(action: argparse.Action) -> str:
    if action.option_strings:
        names = ", ".join(f"`{o}`" for o in action.option_strings)
        if action.nargs != 0:
            value = action.metavar or (("{" + ",".join(map(str, action.choices)) + "}") if action.choices
                                       else action.dest.upper())
            names += f" `{value}`"
    else:
        names = f"`{action.metavar or action.dest}`" + (" (optional)" if action.nargs == "?" else "")
        if action.choices:
            names += " one of " + ", ".join(f"`{c}`" for c in action.choices)
    text = (action.help or "").replace("%%", "%")
    if action.required:
        text += " (required)"
    return f"| {names} | {_cell(text)} |"


def cli_page() -> str:
    top = arguments.parser()
    [commands] = [a for a in top._actions if isinstance(a, argparse._SubParsersAction)]
    helps = {a.dest: a.help for a in commands._choices_actions}
    lines = [NOTICE, "# Command line", "",
             f"`{top.prog}`: {top.description} `keybench --version` prints the version; every command "
             "answers `--help`. The options below are read from keybench's own argument parser.", ""]
    lines += ["| command | what it does |", "|---|---|"]
    lines += [f"| [`{name}`](#keybench-{name}) | {_cell(helps.get(name, ''))} |" for name in commands.choices]
    for name, sub in commands.choices.items():
        lines += ["", f"## keybench {name}", "", _cell(helps.get(name, "") or ""), "", "```text",
                  sub.format_usage().strip(),
                  "```", "", "| argument | meaning |", "|---|---|"]
        lines += [_option_row(a) for a in sub._actions if not isinstance(a, argparse._HelpAction)]
    return "\n".join(lines) + "\n"


def catalogue_page() -> str:
    lines = [NOTICE, "# The strategy catalogue", "",
             "Every strategy keybench ships, read from its folders under `schemas/` at build time. "
             "`expected` is the key distribution the strategy should show, and whose expectation it is: "
             "`documented` when a document states it, otherwise keybench's, with the reason. `source` is "
             "the document, section and phrase the design comes from (Google's documents are cited by "
             "title), or why keybench adds a design no document describes. See "
             "[Strategy folders](strategy-folders.md) for the format, and "
             "[The verdict](../concepts/verdict.md) for how a run checks the expectation. "
             "`keybench strategies` prints the same catalogue with each design's read plans.", ""]
    for backend in strategies.BACKENDS:
        dialects = strategies.DIALECTS[backend]
        by_dialect = {d: strategies.catalogue(backend, d) for d in dialects}
        names = list(dict.fromkeys(n for c in by_dialect.values() for n in c))
        lines += ["", f"## {backend.capitalize()}", "", f"{len(names)} strategies.", "",
                  "| strategy | key | expected | source | advice |", "|---|---|---|---|---|"]
        for name in names:
            found = [by_dialect[d][name] for d in dialects if name in by_dialect[d]]
            first = found[0]
            where = "" if len(found) == len(dialects) or backend != "spanner" else \
                f" ({', '.join(s.dialect for s in found)} only)"
            if not (first.summary and first.claim and first.source.text()):
                raise ValueError(f"strategy {backend}/{name}: no summary, claim or source to list in the catalogue")
            lines.append(f"| `{name}`{where} | {_cell(first.summary)} | {_cell(first.expectation)} | "
                         f"{_cell(first.source.text())} | {_cell(first.advice)} |")
    return "\n".join(lines) + "\n"


def columns_page() -> str:
    """Every column of every result file, from keybench.columns, each with its description."""
    lines = [NOTICE, "# Result columns", "",
             "The columns of the files a run writes (see [Result files](results.md)), in file order, "
             "as `keybench.columns` defines them.", ""]
    for title, names, meanings in (
            ("summary.csv", columns.SUMMARY_COLUMNS, columns.SUMMARY_DESCRIPTIONS),
            ("verdicts.csv", columns.VERDICTS_FILE_COLUMNS, columns.SUMMARY_DESCRIPTIONS),
            ("timeseries.csv", columns.TIMESERIES_COLUMNS, columns.TIMESERIES_DESCRIPTIONS),
            ("repetitions.csv", columns.REPETITION_COLUMNS, columns.REPETITION_DESCRIPTIONS),
            ("keybench analyze --format csv", columns.ANALYSIS_COLUMNS, columns.ANALYSIS_DESCRIPTIONS)):
        missing = [n for n in names if n not in meanings]
        if missing:
            raise ValueError(f"keybench.columns: no description of {', '.join(missing)} ({title})")
        lines += ["", f"## {title}", "", "| column | meaning |", "|---|---|"]
        lines += [f"| `{n}` | {_cell(meanings[n])} |" for n in names]
    return "\n".join(lines) + "\n"


def on_files(files: Files, config: Any) -> Files:
    for path, maker in GENERATED.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=globals()[maker]()))
    return files
