"""The `keybench` command: it translates arguments into the library's calls
(`arguments.py` declares them, `commands.py` makes the calls). The defaults and the
validation live with the options they belong to (`run.options.RunOptions`,
`drive.settings.WorkloadSettings`, `model.params.SplitParams`, ...)."""

from __future__ import annotations

import argparse
import os
import signal
import sys

import keybench.grpc_environment  # noqa: F401  (before grpc is imported)
from keybench.errors import KeybenchError
from keybench.terminal import visible, visible_output


def needs_gevent(args: argparse.Namespace) -> bool:
    """Whether the command runs Locust, which runs on gevent: `run`, and `check --load`. The
    others run without it: `record`'s proxies relay an application's calls on threads
    (greenlets cost it more per call), and patching would cost every other command a third of
    a second of its start."""
    return args.command == "run" or (args.command == "check" and args.load is not None)


def prepare_process(args: argparse.Namespace) -> None:
    """For a command that runs on gevent: gevent in place, and gRPC made cooperative, before
    any module imports grpc."""
    if needs_gevent(args):
        import keybench.infra.runtime  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    from pathlib import Path

    from keybench.cli import settings_file
    from keybench.cli.arguments import parser

    try:
        p = parser(settings_file.chosen(argv, Path.cwd()))
    except KeybenchError as exc:  # a settings file keybench cannot use: before any work
        print(f"keybench: error: {visible(str(exc))}", file=sys.stderr)
        return exc.exit_code
    # The command line is read before the process is prepared: building it imports neither gRPC
    # nor gevent, so help and bad input answer at once, and gevent still comes before gRPC.
    args = p.parse_args(argv)
    prepare_process(args)
    if args.command in args.settings_applied:
        print(f"keybench: defaults from {args.settings_file}", file=sys.stderr)
    try:
        with visible_output():
            return args.func(args)
    except KeybenchError as exc:
        print(f"keybench: error: {visible(str(exc))}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt as exc:
        signum = getattr(exc, "signum", signal.SIGINT)
        print(f"keybench: interrupted by {signal.Signals(signum).name}", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:
        # The reader went away (`keybench strategies | head`): end quietly, as a pipe expects.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


