"""The `keybench` command: it translates arguments into the library's calls
(`arguments.py` declares them, `commands.py` makes the calls). The defaults and the
validation live with the options they belong to (`run.options.RunOptions`,
`drive.settings.WorkloadSettings`, `model.params.SplitParams`, ...)."""

from __future__ import annotations

import os
import signal
import sys

import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)
from keybench.errors import KeybenchError
from keybench.terminal import visible, visible_output


def main(argv: list[str] | None = None) -> int:
    from keybench.cli.arguments import parser

    args = parser().parse_args(argv)
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


