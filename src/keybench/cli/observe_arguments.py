"""`keybench observe`'s options: which database or cluster, which window, and what to do with
what the service saw."""

from __future__ import annotations

from keybench.check.request import CheckRequest
from keybench.cli import commands
from keybench.design.strategies import BACKENDS
from keybench.model.observed import OBSERVED
from keybench.observe.request import DEFAULT_SINCE_S, OBSERVE_FORMATS


def add_observe(sub) -> None:
    """The observe subcommand on `sub`, keybench's subparsers."""
    o = sub.add_parser("observe", help="read only: the hot key ranges a real database or cluster reported, mapped "
                                       "onto its keys, beside the modelled verdict and the fix")
    o.add_argument("--backend", choices=BACKENDS, default=BACKENDS[0], help=f"default {BACKENDS[0]}")
    o.add_argument("--project", required=True, help="Google Cloud project")
    o.add_argument("--instance", required=True, help="Spanner or Bigtable instance id")
    o.add_argument("--database", help="Spanner: the database whose hot splits to read")
    o.add_argument("--cluster", help="Bigtable: the cluster whose hot tablets to list")
    o.add_argument("--table", action="append", default=[], metavar="TABLE",
                   help="only this table (Spanner: with its indexes); repeatable; default: every table")
    o.add_argument("--template", metavar="TEMPLATE",
                   help="Bigtable: the tables' row-key template, as check takes it ('{device}#{ts}'): names the "
                        "hot keys' parts and adds the modelled verdict and its fix")
    o.add_argument("--since", default=f"{DEFAULT_SINCE_S / 60:g}m",
                   help=f"the window: this long before --end (default {DEFAULT_SINCE_S / 60:g}m; Spanner keeps "
                        "24h of minutes, a Bigtable request covers 48h)")
    o.add_argument("--end", help="the window's end, ISO 8601 (default now; without a zone: UTC)")
    o.add_argument("--endpoint", metavar="HOST:PORT",
                   help="the service's endpoint, when not Google's default; one on this machine is called without "
                        "credentials")
    o.add_argument("--nodes", type=int, default=CheckRequest.nodes,
                   help=f"nodes of the split model (default {CheckRequest.nodes}): the instance's")
    o.add_argument("--fail-on-observed", metavar="LEVELS",
                   help=f"exit 1 when a table or index was observed at one of these levels ({', '.join(OBSERVED[:2])})")
    o.add_argument("--format", choices=OBSERVE_FORMATS, default=OBSERVE_FORMATS[0],
                   help="text: observed beside modelled, per table and index; json: one document")
    o.set_defaults(func=commands.observe_command)
