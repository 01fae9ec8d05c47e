"""The signals keybench takes as an interrupt, and the interrupt of a command that has no
stage to finish (`check`), for code that must not import gevent.

The signal only notes the request; the command raises `Interrupted` at its next
`interrupt_point()` (between two DDL statements, two objects modelled), where no gRPC call is
in flight, and leaves through its cleanup (the scratch database is dropped). An exception
raised wherever the signal lands (inside gRPC's gevent poller) would leave the client hung.
A second signal raises at once. The CLI exits 128 + the signal's number."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

# SIGINT (Ctrl-C), SIGTERM (CI cancellation, `docker stop`, Kubernetes), SIGHUP (a closed
# terminal), SIGQUIT (Ctrl-\) and SIGUSR1/SIGUSR2, to which keybench gives no meaning of its
# own: their default action would end it without a word.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)

_requested: list[int] = []


class Interrupted(KeyboardInterrupt):
    """The interrupt a signal asked for, raised where the program can leave cleanly."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _note(signum: int, _frame: object) -> None:
    if _requested:
        raise Interrupted(_requested[0])
    _requested.append(signum)


def interrupt_point() -> None:
    """Raise the interrupt a signal asked for, if one did."""
    if _requested:
        raise Interrupted(_requested[0])


@contextmanager
def interruptible() -> Iterator[None]:
    """While the block runs, SIGNALS ask for an interrupt at its next `interrupt_point()`."""
    _requested.clear()
    saved = {s: signal.signal(s, _note) for s in SIGNALS}
    try:
        yield
        interrupt_point()  # a signal during the block's last stretch still ends the command
    finally:
        for s, handler in saved.items():
            signal.signal(s, handler)
        _requested.clear()
