"""`keybench check`'s options: a schema or a row-key template, what to assume of its columns,
the model's size, and what to do with the verdicts (gate, formats, save, load)."""

from __future__ import annotations

from keybench.check.request import AUTO_DIALECT, CHECK_FORMATS, CheckRequest
from keybench.cli import commands
from keybench.design import strategies
from keybench.run.options import RunOptions


def add_check(sub) -> None:
    """The check subcommand on `sub`, keybench's subparsers."""
    k = sub.add_parser("check", help="judge your own Spanner DDL or Bigtable row-key template: verdict, rule, fix")
    k.add_argument("schema", nargs="*", help="a Spanner DDL file (GoogleSQL or PostgreSQL), a folder of migrations "
                                             "applied in their tool's order, or a Terraform file's "
                                             "google_spanner_database ddl; several are applied in the order given; "
                                             "the emulator reads them")
    k.add_argument("--dialect", choices=(AUTO_DIALECT, *strategies.DIALECTS["spanner"]), default=CheckRequest.dialect,
                   help=f"the DDL's Spanner dialect (default {CheckRequest.dialect}: GoogleSQL, else PostgreSQL "
                        "when the emulator refuses it as GoogleSQL)")
    k.add_argument("--bigtable", metavar="TEMPLATE",
                   help="a Bigtable row-key template, e.g. '{device_type}#{device}#{ts}'")
    k.add_argument("--read", action="append", default=[], metavar="READ",
                   help="Bigtable: a read to plan, 'prefix:{device_type}#{device}' or 'range:ts' (repeatable)")
    k.add_argument("--columns", help="TOML file stating key columns' distributions, e.g. CustomerId = "
                                     "{ distribution = \"categorical\", values = 100000 }")
    k.add_argument("--nodes", type=int, default=CheckRequest.nodes,
                   help=f"nodes of the split model (default {CheckRequest.nodes})")
    k.add_argument("--rows", type=int, default=CheckRequest.rows,
                   help=f"simulated inserts per table (default {CheckRequest.rows:,})")
    k.add_argument("--shards", type=int, default=CheckRequest.shards,
                   help=f"modulus of a proposed shard column (default {CheckRequest.shards})")
    k.add_argument("--device-rate", type=float, metavar="WRITES_PER_S",
                   help="Bigtable: writes per second one device (the key's entity) makes, which sizes a time-bucketed "
                        "row at its bucket's end, e.g. 0.0167 for a reading a minute (default: the modelled load's, "
                        "about 1)")
    k.add_argument("--fail-on-verdict", default="", metavar="VERDICTS",
                   help="exit 1 when a table or index gets one of these verdicts, e.g. hotspot,hot_row")
    k.add_argument("--format", choices=CHECK_FORMATS, default="text",
                   help="text: the report; json: one document of every verdict; sarif: SARIF 2.1.0 for code "
                        "scanning (each finding on the statement that creates its table or index); junit: JUnit "
                        "XML, a test case per table and index")
    k.add_argument("--write-columns", metavar="FILE",
                   help="Spanner: write the key columns the verdicts depend on (unknown, guessed or stated) as a "
                        "--columns file to edit, each with its reason; FILE must be new, or the --columns file")
    k.add_argument("--strict", action="store_true",
                   help="take nothing from a column's name (CreatedAt as the write's time, a STRING(36) id as a "
                        "UUID): such a column is unknown unless a fact or --columns says it, for a CI gate "
                        "that must not rest on a guess")
    k.add_argument("--save-strategy", metavar="DIR",
                   help="write each checked table (or the template) as a strategy folder DIR/<backend>/<name>/, "
                        "for keybench run --strategy-dir DIR; DIR must be new or empty")
    k.add_argument("--load", metavar="DURATION",
                   help="after the verdicts, run the design under keybench run's insert and read load on the emulator "
                        "for this long, e.g. 30s: integrity audit and latency table, results in --results-dir")
    k.add_argument("--results-dir", default=str(RunOptions.results_dir),
                   help=f"with --load: where the run directory is written (default {RunOptions.results_dir}/)")
    k.set_defaults(func=commands.check_command)
