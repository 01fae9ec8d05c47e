"""`keybench record -- COMMAND`: the verdict on the keys an application really writes.

keybench finds or starts the emulators, puts a recording proxy (proxy.py) in front of each
on a free port of 127.0.0.1, and runs COMMAND with SPANNER_EMULATOR_HOST and
BIGTABLE_EMULATOR_HOST naming the proxies. COMMAND's output comes through unchanged. When it
ends, each table it wrote is judged by the split model and the verdict rule of `keybench run`
(verdicts.py), the verdicts are printed first, and the run directory gets record.csv and each
table's key stream. With `--listen` there is no COMMAND: the proxies serve an application
started elsewhere until Ctrl-C or SIGTERM.

Exit status: 0; 1 when COMMAND failed, the emulator died, or a verdict is one of
--fail-on-verdict; 2 for bad input; 128 + n after signal n (COMMAND gets it first).
"""

from __future__ import annotations

import datetime as dt
import os
import re
import signal
import subprocess
import threading
from contextlib import contextmanager

from keybench.errors import KeybenchError
from keybench.infra import emulators
from keybench.infra.progress import progress
from keybench.infra.signals import SIGNALS
from keybench.measure.rundir import RunDirectory
from keybench.measure.summary import to_csv
from keybench.record.proxy import ForwardingProxy
from keybench.record.recorder import Recorder
from keybench.record.request import RecordRequest
from keybench.record.taps import recording_proxy
from keybench.record.verdicts import COLUMNS, labels, record_rows, table_labels, verdict_table
from keybench.terminal import visible

ALIVE_CHECK_S = 1.0  # how often the emulators are checked while COMMAND runs
# The main thread waits in steps of this: the kernel may hand a signal to any thread, and
# Python runs its handler only when the main thread next runs Python code.
WAIT_STEP_S = 0.5


class _Session:
    """The emulators, proxies and recorder of one recording, and what ended it."""

    def __init__(self, request: RecordRequest):
        self.request = request
        self.recorder = Recorder()
        self.endpoints: list[emulators.Endpoint] = []
        self.proxies: dict[str, ForwardingProxy] = {}
        self.signum: int | None = None
        self.emulator_died: str | None = None
        self.stopped = threading.Event()

    def start(self) -> dict[str, str]:
        """The proxies, in front of the emulators; the environment COMMAND gets."""
        env = dict(os.environ)
        for backend in self.request.backends:
            endpoint = emulators.resolve(backend)
            self.endpoints.append(endpoint)
            try:
                proxy = self.proxies[backend] = recording_proxy(backend, self.recorder, endpoint.address,
                                                                self.request.host)
            except OSError as exc:
                raise KeybenchError(f"--host {visible(self.request.host)}: {exc}") from None
            env[emulators.ENV_VARS[backend]] = proxy.address
            progress(f"keybench record: {emulators.TITLES[backend]} calls go through {proxy.address} to the emulator "
                     f"at {endpoint.address} ({endpoint.source})")
        return env

    def watch_emulators(self, on_death) -> None:
        """Until `stopped`: an emulator that no longer answers ends the recording."""
        while not self.stopped.wait(ALIVE_CHECK_S):
            for endpoint in self.endpoints:
                dead = (endpoint.emulator is not None and not endpoint.emulator.alive()) or \
                    emulators.connect_error(endpoint.address) is not None
                if dead:
                    self.emulator_died = f"the {emulators.TITLES[endpoint.backend]} emulator at {endpoint.address}"
                    on_death()
                    return

    def close(self) -> None:
        self.stopped.set()
        for proxy in self.proxies.values():
            proxy.close()
        for endpoint in self.endpoints:
            endpoint.stop()  # only what this recording started


def record(request: RecordRequest) -> int:
    request.validate()
    RunDirectory.check_writable(request.results_dir)
    run_dir = RunDirectory(request.results_dir, request.run_id or dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%SZ"))
    run_dir.open()
    session = _Session(request)
    status = None
    try:
        env = session.start()
        if request.command:
            status = _run_command(session, env)
        else:
            _listen(session, env)
    except BaseException:
        run_dir.discard()
        raise
    finally:
        session.close()
    return _finish(session, run_dir, status)


@contextmanager
def _watched(session: _Session, on_signal, on_emulator_death):
    """While the block runs: SIGNALS are noted and passed to `on_signal`, and an emulator
    that stops answering calls `on_emulator_death`."""

    def noted(signum: int, _frame) -> None:
        session.signum = session.signum or signum
        on_signal(signum)

    saved = {s: signal.signal(s, noted) for s in SIGNALS}
    threading.Thread(target=session.watch_emulators, args=(on_emulator_death,), daemon=True).start()
    try:
        yield
    finally:
        session.stopped.set()
        for s, handler in saved.items():
            signal.signal(s, handler)


def _run_command(session: _Session, env: dict[str, str]) -> int:
    """COMMAND's exit status (negative: the signal that ended it)."""
    child = subprocess.Popen(session.request.command, env=env)

    def passed_on(signum: int) -> None:
        if child.poll() is None:
            child.send_signal(signum)  # the child first; the model runs once it has ended

    with _watched(session, passed_on, child.terminate):
        while True:
            try:
                return child.wait(timeout=WAIT_STEP_S)
            except subprocess.TimeoutExpired:
                continue


def _listen(session: _Session, env: dict[str, str]) -> None:
    variables = " ".join(f"{emulators.ENV_VARS[b]}={env[emulators.ENV_VARS[b]]}" for b in session.request.backends)
    progress(f"keybench record: listening; point the application at the proxies ({variables}); "
             f"Ctrl-C or SIGTERM ends the recording")
    ended = threading.Event()
    with _watched(session, lambda _signum: ended.set(), ended.set):
        while not ended.wait(WAIT_STEP_S):
            pass


def _finish(session: _Session, run_dir: RunDirectory, status: int | None) -> int:
    request, recorder = session.request, session.recorder
    recorded = recorder.snapshot()
    rows = [row for r in recorded for row in record_rows(r, request.params, recorder.failed_writes.get(r.name, 0))]
    tables = table_labels([*(r.name for r in recorded), *(table for table, _ in recorder.modelled)])
    names = labels(rows, tables)
    print(verdict_table(rows, names), flush=True)
    for (table, what), count in sorted(recorder.modelled.items()):
        print(f"modelled: {count:,} value(s) the database fills in {tables[table]}: {visible(what)}")
    for (method, reason), count in sorted(recorder.unattributed.items()):
        print(f"unattributed: {count:,} {method} call(s): {visible(reason)}")
    for backend, proxy in session.proxies.items():
        if proxy.undecodable:
            print(f"unattributed: {proxy.undecodable:,} connection(s) or message(s) to the {emulators.TITLES[backend]} "
                  "emulator not read as gRPC (not HTTP/2, or a compression gRPC does not define); relayed unchanged")
        if proxy.tap_errors:
            print(f"unattributed: {proxy.tap_errors:,} step(s) of {emulators.TITLES[backend]} calls keybench failed "
                  "to read; the calls went through unchanged")
    run_dir.write("record.csv", to_csv(rows, COLUMNS))
    streams = run_dir.partial / "keystream"  # where keybench run keeps its own: `keybench analyze` reads both
    streams.mkdir(exist_ok=True)
    for n, r in enumerate(recorder.snapshot()):
        r.stream.save(streams / f"{n:03d}-{r.backend}-{_file_name(r.table)}.npz")
    final = run_dir.commit()
    progress(f"keybench record: {final}/record.csv")
    return _exit_code(session, rows, names, status)


def _exit_code(session: _Session, rows: list[dict], names: list[str], status: int | None) -> int:
    if session.signum is not None:
        progress(f"keybench record: ended by {signal.Signals(session.signum).name}")
        return 128 + session.signum
    if session.emulator_died:
        progress(f"keybench record: {session.emulator_died} stopped answering; modelled what was recorded until then")
        return 1
    if status:
        progress(f"keybench record: COMMAND exited with {status if status > 0 else signal.Signals(-status).name}")
        return 1
    offending = [f"{name} ({r['verdict']})" for name, r in zip(names, rows, strict=True)
                 if r["verdict"] in session.request.fail_on_verdict]
    if offending:
        progress(f"keybench record: --fail-on-verdict: {', '.join(offending)}")
        return 1
    return 0


def _file_name(table: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", table)[:80]
