"""The `keybench` command line: every subcommand and option, with the defaults read from
the configuration objects (`RunOptions`, `WorkloadSettings`, `SplitParams`, ...)."""

from __future__ import annotations

import argparse
from pathlib import Path

from keybench import __version__
from keybench.backends.base import DEFAULT_PAYLOAD_BYTES, DEFAULT_TIMEOUT_S
from keybench.cli import commands, settings_file
from keybench.cli.check_arguments import add_check
from keybench.cli.observe_arguments import add_observe
from keybench.cli.record_arguments import add_record
from keybench.design import strategies
from keybench.design.distributions import UNIFORM
from keybench.design.keys import DEFAULT_POPULATION
from keybench.drive.settings import DEFAULT_READERS, WorkloadSettings
from keybench.model.params import DEFAULT_READS, DEFAULT_ROWS, SplitParams
from keybench.run.options import (
    DEFAULT_DURATION_S,
    DEFAULT_USERS,
    SMOKE_DURATION_S,
    SMOKE_USERS,
    RunOptions,
)

BACKEND_CHOICES = (*strategies.BACKENDS, "all")
POPULATION_HELP = "users (Spanner) or devices (Bigtable) the writes are spread over"
SKEW_HELP = ("how writes pick their user or device: uniform, or zipf:S (entity k takes a share ~ 1/k^S, "
             "e.g. zipf:1.2; default uniform)")


def model_options(p: argparse.ArgumentParser, nodes_help: str = "nodes serving the key ranges") -> None:
    """The split model's parameters, shared by run, simulate and analyze (see results/README.md)."""
    d = SplitParams()
    p.add_argument("--nodes", type=int, default=d.nodes, help=f"{nodes_help} (default {d.nodes})")
    p.add_argument("--window-writes", type=int,
                   help=f"model: writes per window (default max({d.min_window_writes}, writes / {d.target_windows}))")
    p.add_argument("--ranges-per-node", type=int, default=d.ranges_per_node,
                   help=f"model: ranges per node the key space is cut into (default {d.ranges_per_node})")


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line and exit code 2."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def _get_values(self, action, arg_strings):
        # Python 3.11's argparse drops a value of "--" (`--rate=--`) as the end of options and
        # hands the option an empty list, which no validation expects: refuse it here.
        if action.option_strings and action.nargs is None and arg_strings == ["--"]:
            self.error(f"argument {'/'.join(action.option_strings)}: expected a value, got '--'")
        return super()._get_values(action, arg_strings)


def run_argument(p: argparse.ArgumentParser) -> None:
    """A saved run to read: named, or the newest finished one under --results-dir."""
    p.add_argument("run", nargs="?", help="a run directory, e.g. results/20261122T101500Z (default: the newest "
                                          "finished run under --results-dir)")
    p.add_argument("--results-dir", default=str(RunOptions.results_dir),
                   help=f"where to look for the newest run when none is named (default {RunOptions.results_dir}/)")


def parser(settings: tuple[Path, dict] | None = None) -> argparse.ArgumentParser:
    """keybench's command line; `settings`: a settings file and its table, whose values become
    the options' defaults (cli.settings_file)."""
    p = _Parser(prog="keybench", description="Side-by-side load tests of Spanner and Bigtable key designs.")
    p.add_argument("--version", action="version", version=f"keybench {__version__}")
    p.add_argument("--config", metavar="FILE",
                   help="the settings file ([tool.keybench] of a pyproject.toml, or a keybench.toml); default: the "
                        "first found from this folder up to the project's root")
    p.add_argument("--no-config", action="store_true", help="read no settings file")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    r = sub.add_parser("run", help="run every chosen strategy under identical load and write results/<run-id>/")
    r.add_argument("--backend", choices=BACKEND_CHOICES, default="all", help="the backend(s) to run (default all)")
    r.add_argument("--strategies", "--strategy", help="comma-separated strategy names (default: the whole catalogue)")
    r.add_argument("--strategy-dir", "--designs", "--schemas", action="append", dest="strategy_dirs", default=[],
                   metavar="DIR",
                   help="your own strategy folder (DIR/strategy.toml, or DIR/<backend>/<name>/ as schemas/ and "
                        "keybench check --save-strategy lay them out), run beside the catalogue (repeatable)")
    r.add_argument("--users", type=int, help=f"Locust users per stage (default {DEFAULT_USERS}; smoke {SMOKE_USERS}), "
                                             "split into writers (only insert) and readers (only read)")
    r.add_argument("--readers", type=int,
                   help=f"how many of --users only read, choosing reads by their --mix weights; the rest only insert "
                        f"(default {DEFAULT_READERS}, 0 with one user; every user with insert weight 0, none with "
                        "every read weight 0)")
    r.add_argument("--spawn-rate", type=float, default=RunOptions.spawn_rate,
                   help="users started per second (default: all at once)")
    r.add_argument("--duration", help=f"time per stage, e.g. 30s or 2m (default {DEFAULT_DURATION_S:g}s; "
                                      f"smoke {SMOKE_DURATION_S:g}s)")
    r.add_argument("--results-dir", default=str(RunOptions.results_dir),
                   help=f"where the run directory is written (default {RunOptions.results_dir}/)")
    r.add_argument("--smoke", action="store_true",
                   help="short CI profile; exits 1 on any failure or integrity mismatch")
    r.add_argument("--seed", type=int, default=RunOptions.seed,
                   help=f"seed of every random choice (default {RunOptions.seed})")
    r.add_argument("--population", type=int, default=DEFAULT_POPULATION,
                   help=f"{POPULATION_HELP} (default {DEFAULT_POPULATION})")
    r.add_argument("--skew", default=str(UNIFORM), help=SKEW_HELP)
    r.add_argument("--run-id", help="name of the run directory (default: the UTC start time)")
    r.add_argument("--dialects", "--dialect", default=",".join(RunOptions.dialects),
                   help=f"Spanner dialects to run each strategy in (default {','.join(RunOptions.dialects)})")
    r.add_argument("--repeat", type=int, default=RunOptions.repeat,
                   help="run the whole stage list K times, interleaved (A B C, A B C); the summary shows the spread")
    r.add_argument("--rate", type=float,
                   help="open loop for the writers: inserts per second per stage, spread over the writers; the summary "
                        "adds latency from each operation's intended start (default: closed loop, each writer back "
                        "to back)")
    r.add_argument("--read-rate", type=float, default=WorkloadSettings.read_rate,
                   help="open loop for the readers: reads per second per stage, spread over the readers "
                        f"(default {WorkloadSettings.read_rate:g}: closed loop, paced by --read-share)")
    r.add_argument("--read-share", type=float, default=WorkloadSettings.read_share,
                   help="closed-loop readers rest after each read so that reading fills this share of their time: "
                        "a read that takes 10x longer is sent 10x less often (default "
                        f"{WorkloadSettings.read_share:g}; "
                        "1: back to back)")
    r.add_argument("--workers", type=int, default=RunOptions.workers,
                   help="run each stage's users in N Locust worker processes under a master (default "
                        f"{RunOptions.workers}: "
                        "in-process)")
    r.add_argument("--no-report", action="store_true", help="do not write report.html and the heatmaps at the end")
    r.add_argument("--format", choices=("text", "json"), default="text",
                   help="what goes to stdout at the end: text, the tables; json, one document of every verdict "
                        "and summary row (progress stays on stderr)")
    r.add_argument("--verbose", action="store_true",
                   help="print every column of the verdict and latency tables (expected and its source, "
                        "effective nodes, the busiest row, p90, max, rows per operation...), however wide")
    r.add_argument("--no-overlap", action="store_true",
                   help="model every design at the end of the run, not in a process of its own while the next "
                        "stage is set up (the same figures, a longer run; never during a load either way)")
    model_options(r, "nodes of the split model over the recorded keys")
    r.add_argument("--fail-on-verdict", metavar="VERDICTS",
                   help="exit 1, one line per design, when a design's modelled verdict is one of these, "
                        "e.g. hotspot,hot_row (the CI gate on key designs)")
    r.add_argument("--buckets", type=int,
                   help="shard or salt count N of hash_shard, salted, ... (default: each fixture's)")
    r.add_argument("--op-timeout", default=f"{DEFAULT_TIMEOUT_S:g}s",
                   help=f"Bigtable: deadline of one data operation, retries included (default {DEFAULT_TIMEOUT_S:g}s); "
                        "an operation cut off by it has an unknown outcome, which the audit settles by reading back")
    r.add_argument("--payload-bytes", type=int, default=DEFAULT_PAYLOAD_BYTES,
                   help=f"size of every row's non-key column (default {DEFAULT_PAYLOAD_BYTES})")
    r.add_argument("--mix", help="weight per operation, e.g. insert=8,point_read=1,latest_n=1 (operations left out "
                                 "weigh 0; default insert=8 and 1 for each read): the read weights choose each "
                                 "reader's reads; insert weight 0 makes every user a reader, all read weights 0 "
                                 "every user a writer")
    r.add_argument("--target", choices=("emulator", "real"), default=RunOptions.target,
                   help="emulator (default): only emulators, found or started; real: an existing instance named by "
                        "--project and --instance")
    r.add_argument("--project", help="Google Cloud project of the real instance (with --target real only)")
    r.add_argument("--instance", help="existing Spanner or Bigtable instance id (with --target real only)")
    r.add_argument("--endpoint", metavar="HOST:PORT",
                   help="the service's endpoint, when not Google's default (with --target real only): a regional "
                        "or private endpoint; one on this machine is called without credentials")
    r.add_argument("--observe-wait", default=f"{RunOptions.observe_wait_s:g}s", metavar="DURATION",
                   help="with --target real: after each stage, wait at most this long for the service's own "
                        "statistics of its minutes and show its hot splits beside the model (default "
                        f"{RunOptions.observe_wait_s:g}s; 0 does not read them)")
    r.add_argument("--dry-run", action="store_true",
                   help="print the stages, the names they would create and the write estimate; contact nothing")
    r.add_argument("--batch-size", type=int, default=WorkloadSettings.batch_size,
                   help="rows per insert operation: one commit (Spanner) or mutate_rows call (Bigtable) "
                        f"(default {WorkloadSettings.batch_size})")
    r.set_defaults(func=commands.run_command)

    c = sub.add_parser("compare", help="a baseline and a candidate run: settings, verdicts, and each figure's "
                                       "change when significant; --fail-on gates a CI job")
    c.add_argument("run_a", help="the baseline: a run directory or its summary.csv")
    c.add_argument("run_b", help="the candidate: a run directory or its summary.csv")
    c.add_argument("--fail-on", action="append", default=[], metavar="RULE",
                   help="exit 1 when B breaks it: 'p99_ms>+20%%' (above A by 20%%), 'rps<-10%%', 'failures>0', "
                        "or 'verdict' (a design's verdict changed); with repetitions only a significant change "
                        "breaks a relative rule")
    c.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: the tables; json: one document of every figure, test and regression")
    c.add_argument("--strict", action="store_true",
                   help="refuse two runs that differ in what changes the figures (users, duration, rate, nodes, "
                        "workload, versions, machine) instead of warning")
    c.set_defaults(func=commands.compare_command)

    a = sub.add_parser("analyze", help="re-run the split model on a saved run's key streams, e.g. with more nodes")
    run_argument(a)
    model_options(a, "nodes of the model")
    a.add_argument("--format", choices=("text", "csv"), default="text", help="text: a table; csv: its rows as CSV")
    a.set_defaults(func=commands.analyze_command)

    rp = sub.add_parser("report", help="write report.html (plots and the summary table) into a run directory")
    run_argument(rp)
    rp.set_defaults(func=commands.report_command)

    e = sub.add_parser("emulators", help="start, stop or inspect the native emulators")
    e.add_argument("action", choices=("up", "down", "status"), help="start, stop, or say where each one is")
    e.add_argument("--any-port", action="store_true",
                   help="up: when a port is held by another process, start on a free port and print it")
    e.set_defaults(func=commands.emulators_command)

    s = sub.add_parser("strategies", help="list the strategy catalogue and how each serves the reads")
    s.add_argument("names", nargs="*", metavar="NAME", help="the strategies to show in full (default: every one, "
                                                           "a line each)")
    s.add_argument("--backend", choices=BACKEND_CHOICES, default="all", help="the backend(s) to list (default all)")
    s.add_argument("--verbose", action="store_true",
                   help="every fact of each design: expected distribution, source quote, advice, reads")
    s.add_argument("--format", choices=("text", "json"), default="text",
                   help="text: a line per design (cut to the terminal's width); json: one document, every fact")
    s.set_defaults(func=commands.strategies_command)

    m = sub.add_parser("simulate", help="model splits and hotspots of one strategy's key stream, without a database")
    m.add_argument("--backend", choices=strategies.BACKENDS, required=True, help="the backend to model")
    m.add_argument("--strategy", help="canonical strategy name (see keybench strategies); "
                                      "default: every strategy of the backend, as a verdict table")
    m.add_argument("--dialect",
                   help=f"Spanner dialect whose fixture to use (default {strategies.DIALECTS['spanner'][0]})")
    m.add_argument("--rows", type=int, default=DEFAULT_ROWS, help=f"inserts to simulate (default {DEFAULT_ROWS:,})")
    model_options(m)
    m.add_argument("--seed", type=int, default=RunOptions.seed,
                   help=f"seed of every random choice (default {RunOptions.seed})")
    m.add_argument("--population", "--users", type=int, default=DEFAULT_POPULATION,
                   help=f"{POPULATION_HELP} (default {DEFAULT_POPULATION})")
    m.add_argument("--reads", type=int, default=DEFAULT_READS,
                   help=f"sample reads per read operation (default {DEFAULT_READS})")
    m.add_argument("--skew", default=str(UNIFORM), help=SKEW_HELP)
    m.add_argument("--format", choices=("text", "csv", "json"), default="text",
                   help="text: a verdict table, or with --strategy the verdict then one 'name: value' line per "
                        "figure; csv: a header row and a row per strategy; json: one document, a row per strategy")
    m.set_defaults(func=commands.simulate_command)

    add_check(sub)
    add_observe(sub)
    add_record(sub, model_options, commands)
    applied = settings_file.apply(sub.choices, *settings) if settings else []
    p.set_defaults(settings_file=str(settings[0]) if settings else None, settings_applied=applied)
    return p


