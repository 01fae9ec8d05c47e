"""The child processes keybench starts: they die with it, and their end is told in words.

`PlainProcess` is a child process without gevent, for work that gevent makes slow: gRPC's gevent mode hands
every streamed message to a thread pool (about twice the client CPU of a Bigtable read-back),
and the split model is CPU-bound. `PlainProcess` runs one picklable call at a time in it:
`send` a module-level function and its arguments, `receive` what it returned (or the error
it raised, as `PlainProcessError`). Under gevent the wait for the answer is cooperative, so
a watchdog still runs beside it. The process is started and stopped by PID, in its own
session (a terminal's Ctrl-C is for keybench), and dies with keybench."""

from __future__ import annotations

import ctypes
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import Callable

import keybench.grpc_environment  # noqa: F401  (before anything imports grpc: grpc/grpc#43055)

HEADER = struct.Struct("!Q")


def die_with_parent() -> None:
    # Linux: the child gets SIGTERM if the keybench process that started it dies.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


def how_it_ended(returncode: int) -> str:
    """A child's return code in words: "exit code 3", or "killed by SIGKILL"."""
    if returncode >= 0:
        return f"exit code {returncode}"
    try:
        return f"killed by {signal.Signals(-returncode).name}"
    except ValueError:
        return f"killed by signal {-returncode}"


class PlainProcessError(Exception):
    """The call failed, or the process died or was cut off mid-call."""


class PlainProcess:
    def __init__(self):
        self.proc = subprocess.Popen([sys.executable, "-m", "keybench.children"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, start_new_session=True, preexec_fn=die_with_parent)
        self.pending = 0  # calls sent and not yet answered, answered in the order they were sent

    @property
    def busy(self) -> bool:
        return self.pending > 0

    @property
    def usable(self) -> bool:
        assert self.proc.stdin is not None  # stdin=PIPE
        return self.proc.poll() is None and not self.proc.stdin.closed

    def send(self, function: Callable, *args) -> None:
        """Sends a call; it may be sent while others are in flight (receive answers them in turn)."""
        try:
            write_frame(self.proc.stdin, pickle.dumps((function, args), protocol=pickle.HIGHEST_PROTOCOL))
        except OSError as exc:
            self.close()
            raise PlainProcessError(self._why(exc)) from None
        self.pending += 1

    def receive(self):
        try:
            blob = read_frame(self.proc.stdout)
        except BaseException:  # cut off mid-answer (a watchdog, Ctrl-C): its answer can no longer be matched
            self.close()
            raise
        self.pending -= 1
        if blob is None:
            why = self._why(None)
            self.close()
            raise PlainProcessError(why)
        ok, value = pickle.loads(blob)
        if not ok:
            raise PlainProcessError(value)
        return value

    def call(self, function: Callable, *args):
        if self.busy:
            raise PlainProcessError("calls are in flight: their answers come first")
        self.send(function, *args)
        return self.receive()

    def _why(self, exc: OSError | None) -> str:
        try:
            code = self.proc.wait(timeout=2)  # its pipe closed: it has ended, or is about to
        except subprocess.TimeoutExpired:
            code = None
        if code is not None:
            return f"pid {self.proc.pid} exited ({how_it_ended(code)})"
        return f"pid {self.proc.pid}: {exc or 'its output ended'}"

    def close(self) -> None:
        """Ask it to end (the end of its input), and make sure it does."""
        assert self.proc.stdin is not None and self.proc.stdout is not None  # both PIPE
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        if self.busy:
            self.proc.kill()  # mid-call: nobody will read what it is doing
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc.stdout.close()
        self.pending = 0


def write_frame(stream, blob: bytes) -> None:
    stream.write(HEADER.pack(len(blob)))
    stream.write(blob)
    stream.flush()


def read_frame(stream) -> bytes | None:
    """One frame; None at the end of the stream (or a frame cut short)."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    (size,) = HEADER.unpack(header)
    blob = stream.read(size)
    return blob if len(blob) == size else None


def main() -> int:
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # nothing but frames on the pipe
    while (blob := read_frame(source)) is not None:
        try:
            function, args = pickle.loads(blob)
            reply = (True, function(*args))
        except Exception as exc:
            reply = (False, f"{type(exc).__name__}: {exc}")
        write_frame(sink, pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL))
    return 0


if __name__ == "__main__":
    sys.exit(main())
