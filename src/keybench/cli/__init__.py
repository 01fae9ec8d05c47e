"""The `keybench` command: it translates arguments into the library's calls
(`arguments.py` declares them, `commands.py` makes the calls). The defaults and the
validation live with the options they belong to (`run.options.RunOptions`,
`drive.settings.WorkloadSettings`, `model.params.SplitParams`, ...)."""

from __future__ import annotations

import os
import signal
import sys

import keybench.grpc_environment  # noqa: F401  (before grpc is imported)
from keybench.errors import KeybenchError
from keybench.terminal import visible, visible_output

# Commands whose work runs on threads, in a process without gevent: `record`'s proxies relay
# an application's calls, and greenlets cost it more per call than threads do.
THREADED_COMMANDS = frozenset({"record"})
VALUED_GLOBAL_OPTIONS = frozenset({"--config"})  # the options before the command that take a value


def command_word(argv: list[str]) -> str | None:
    """The command `argv` names (`record` in `keybench --config f.toml record -- app`), if any."""
    words = iter(argv)
    for word in words:
        if word in VALUED_GLOBAL_OPTIONS:
            next(words, None)
        elif not word.startswith("-"):
            return word
    return None


def prepare_process(argv: list[str]) -> None:
    """gevent in place, and gRPC made cooperative, before any module imports grpc; except
    for the commands that run on threads."""
    if command_word(argv) not in THREADED_COMMANDS:
        import keybench.infra.runtime  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    prepare_process(argv)
    from pathlib import Path

    from keybench.cli import settings_file
    from keybench.cli.arguments import parser

    try:
        p = parser(settings_file.chosen(argv, Path.cwd()))
    except KeybenchError as exc:  # a settings file keybench cannot use: before any work
        print(f"keybench: error: {visible(str(exc))}", file=sys.stderr)
        return exc.exit_code
    args = p.parse_args(argv)
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


