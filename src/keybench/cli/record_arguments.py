"""`keybench record`'s options: which emulators to put the proxies in front of, and what to do
with the verdicts on the keys the application wrote."""

from __future__ import annotations

import argparse

from keybench.design.strategies import BACKENDS
from keybench.model.verdict import VERDICTS
from keybench.record.request import RecordRequest


def add_record(sub, model_options, commands) -> None:
    """The record subcommand on `sub`, keybench's subparsers."""
    r = sub.add_parser("record", help="run your application (or tests) through recording proxies in front of the "
                                      "emulators, and judge the keys it really wrote",
                       usage="%(prog)s [options] -- COMMAND [ARG ...]\n       %(prog)s [options] --listen")
    # (not `command`: that is the subcommand's own name, which the settings file's notice reads)
    r.add_argument("app_command", nargs=argparse.REMAINDER, metavar="COMMAND",
                   help="the command to run, after `--`; it gets SPANNER_EMULATOR_HOST and BIGTABLE_EMULATOR_HOST "
                        "naming the proxies, and its output comes through unchanged")
    r.add_argument("--listen", action="store_true",
                   help="no COMMAND: serve the proxies for an application started elsewhere until Ctrl-C or SIGTERM")
    r.add_argument("--host", default=RecordRequest.host,
                   help=f"the address the proxies listen on (default {RecordRequest.host}: this machine only; "
                        "0.0.0.0 reaches them from a container, unauthenticated)")
    r.add_argument("--backend", choices=(*BACKENDS, "all"), default="all",
                   help="the emulator(s) to record in front of (default all)")
    model_options(r, "nodes of the model: the instance's")
    r.add_argument("--results-dir", default=str(RecordRequest.results_dir),
                   help=f"where the run directory goes (default {RecordRequest.results_dir})")
    r.add_argument("--run-id", help="the run directory's name (default: the UTC time)")
    r.add_argument("--fail-on-verdict", metavar="VERDICTS",
                   help=f"exit 1 when a table's verdict is one of these (comma-separated: {', '.join(VERDICTS)})")
    r.set_defaults(func=commands.record_command)
