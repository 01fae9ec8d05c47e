"""Ctrl-C as a request, not an exception: a KeyboardInterrupt raised wherever the signal
lands (inside gRPC's gevent poller, a Locust user, the audit) can leave the clients hung.
The first Ctrl-C is noted and acted on at the next check (within a second during a stage);
a second one interrupts at once."""

from __future__ import annotations

import signal
import sys

import gevent


class CtrlC:
    def __init__(self) -> None:
        self.requested = False
        self._handler = None

    def listen(self) -> None:
        self.requested = False
        self._handler = gevent.signal_handler(signal.SIGINT, self._on_sigint)

    def ignore(self) -> None:
        if self._handler is not None:
            self._handler.cancel()
            self._handler = None

    def _on_sigint(self) -> None:
        if self.requested:
            self.ignore()  # the next Ctrl-C gets Python's own KeyboardInterrupt
            gevent.get_hub().parent.throw(KeyboardInterrupt)
        self.requested = True
        print("keybench: Ctrl-C: ending the run after this stage's audit (Ctrl-C again to stop at once)",
              file=sys.stderr, flush=True)


CTRL_C = CtrlC()
