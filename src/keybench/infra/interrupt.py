"""SIGINT (Ctrl-C), SIGTERM (CI cancellation, `docker stop`, Kubernetes), SIGHUP (a closed
terminal), SIGQUIT (Ctrl-\\) and SIGUSR1/SIGUSR2 (which keybench gives no meaning of its own:
their default action would end it without a word) are one interrupt, taken as a request, not
an exception: a KeyboardInterrupt raised wherever a signal lands (inside gRPC's gevent poller,
a Locust user, the audit) can leave the clients hung. The first signal is noted and acted on
at the next check (within a second during a stage): the run stops its users, audits what they
wrote, writes its results with status `interrupted`, stops what it started, and exits 128 +
the signal's number. A second signal interrupts at once."""

from __future__ import annotations

import signal

import gevent

from keybench.infra.progress import progress
from keybench.infra.signals import SIGNALS


class Interrupt:
    def __init__(self) -> None:
        self.signum: int | None = None
        self._handlers: list = []

    @property
    def requested(self) -> bool:
        return self.signum is not None

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name if self.signum else ""

    @property
    def exit_code(self) -> int:
        return 128 + (self.signum or signal.SIGINT)

    def listen(self) -> None:
        self.signum = None
        self._handlers = [gevent.signal_handler(s, self._on_signal, s) for s in SIGNALS]

    def ignore(self) -> None:
        for handler in self._handlers:
            handler.cancel()
        self._handlers = []

    def _on_signal(self, signum: int) -> None:
        if self.requested:
            self.ignore()  # a third signal gets the default action
            gevent.get_hub().parent.throw(KeyboardInterrupt)
        self.signum = signum
        progress(f"keybench: {self.name}: ending the run after this stage's audit (send it again to stop at once)")


INTERRUPT = Interrupt()

