"""keybench's pytest plugin (entry point `keybench` of group pytest11): the Spanner and
Bigtable emulators as session fixtures, and `keybench check` as a fixture that returns
the verdicts as values, so a project's own tests can gate on its key design:

    def test_orders_key_spreads(keybench_check):
        assert keybench_check("schema.sql").table("Orders").verdict == "spread"

An emulator is found in this order: the *_EMULATOR_HOST variable; a container started
through testcontainers on a Docker engine that answers; the natively installed emulator,
started on a free port (keybench's own code for each). Whatever a
fixture started it stops (container id, or PID) when the session ends, also when the
session ends by SIGTERM, as a cancelled CI job's does. When none can be
had, the tests that need one fail and say how to get one; `--keybench-missing-emulator=skip`
(or the ini option keybench_missing_emulator = skip) skips them instead.

The plugin imports nothing heavy until a fixture is used: it loads into every pytest
session of an environment where keybench is installed."""

from __future__ import annotations

import hashlib
import os
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

# grpcio with fork support on aborts some children forked after it is imported
# (src/keybench/infra/runtime.py says more); the fixtures start emulators as children.
os.environ.setdefault("GRPC_ENABLE_FORK_SUPPORT", "false")

_grpc_cooperative = False


def _grpc_follows_gevent() -> None:
    """A project whose tests import Locust runs them under gevent's monkey patching; gRPC
    must then be made cooperative before keybench creates a client, or its calls hang.
    Without the patching nothing changes: the plugin patches nothing itself."""
    global _grpc_cooperative
    if _grpc_cooperative or "gevent.monkey" not in sys.modules:
        return
    from gevent import monkey  # only when the project's tests loaded gevent

    if monkey.is_module_patched("socket"):
        import grpc.experimental.gevent

        grpc.experimental.gevent.init_gevent()
        os.environ.setdefault("GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW", "false")
        _grpc_cooperative = True


def end_session_on_sigterm() -> None:
    """From now on, SIGTERM (a cancelled CI job) ends the session as Ctrl-C does: pytest tears
    the fixtures down, and each stops the emulator, container or engine it started. Python's
    default ends the process at once and leaves them running. Called when a fixture starts
    something; a handler the project installed is left alone; a second SIGTERM ends at once."""
    if threading.current_thread() is threading.main_thread() and \
            signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _interrupted)
        _MainThreadWaker.start()


def _interrupted(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise KeyboardInterrupt


def pytest_unconfigure(config: pytest.Config) -> None:
    if signal.getsignal(signal.SIGTERM) is _interrupted:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _MainThreadWaker.stop()


class _MainThreadWaker:
    """Wakes the main thread when another thread took the SIGTERM. The kernel hands a process
    its signal through any thread, gRPC's own among them; there Python only notes it, and runs
    the handler when the main thread next runs Python code, which a test blocked in a long C
    call (a sleep, a wait for a process, a read from a socket) may not do for minutes. Python
    writes each signal it notes to its wakeup fd: this thread reads them and answers a SIGTERM
    with a signal to the main thread whose handler does nothing. The blocking call is
    interrupted (EINTR), and Python runs the SIGTERM handler before it resumes the call.

    Not started where the wakeup fd is another's (asyncio's), where the signal it sends has a
    handler, or under gevent's patching (its threads are greenlets)."""

    NUDGE = signal.SIGRTMIN + 5  # a real-time signal: none has a meaning of its own
    running: tuple[int, int, threading.Thread] | None = None  # wakeup fd, read end, thread

    @classmethod
    def start(cls) -> None:
        if cls.running is not None or signal.getsignal(cls.NUDGE) is not signal.SIG_DFL or \
                ("gevent.monkey" in sys.modules and sys.modules["gevent.monkey"].is_module_patched("threading")):
            return
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)  # set_wakeup_fd's condition: a signal handler never blocks
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
        if previous != -1:
            signal.set_wakeup_fd(previous)
            os.close(read_end)
            os.close(write_end)
            return
        signal.signal(cls.NUDGE, _nudged)
        thread = threading.Thread(target=cls._watch, args=(read_end, threading.main_thread().ident),
                                  name="keybench-sigterm-waker", daemon=True)
        thread.start()
        cls.running = (write_end, read_end, thread)

    @classmethod
    def _watch(cls, read_end: int, main: int) -> None:
        try:
            while noted := os.read(read_end, 512):  # empty: stop() closed the write end
                if signal.SIGTERM in noted:
                    signal.pthread_kill(main, cls.NUDGE)
        except OSError:  # the main thread has ended
            return

    @classmethod
    def stop(cls) -> None:
        if cls.running is None or threading.current_thread() is not threading.main_thread():
            return
        write_end, read_end, thread = cls.running
        cls.running = None
        previous = signal.set_wakeup_fd(-1)
        if previous != write_end:  # replaced since: theirs now
            signal.set_wakeup_fd(previous)
        os.close(write_end)
        thread.join(timeout=5)
        if not thread.is_alive():  # else it could still send the nudge: its handler stays
            signal.signal(cls.NUDGE, signal.SIG_DFL)
        os.close(read_end)


def _nudged(signum, frame) -> None:
    """The main thread's wake-up: the SIGTERM's handler, now due, does the work."""


MISSING_EMULATOR = "keybench_missing_emulator"
MISSING_CHOICES = ("fail", "skip")


def pytest_addoption(parser: pytest.Parser) -> None:
    text = ("when no Spanner or Bigtable emulator can be found or started: fail (default) or skip the tests "
            "that need one")
    parser.getgroup("keybench").addoption("--keybench-missing-emulator", dest=MISSING_EMULATOR,
                                          choices=MISSING_CHOICES, default=None, help=text)
    parser.addini(MISSING_EMULATOR, text, default="fail")


def pytest_assertrepr_compare(op: str, left, right) -> list[str] | None:
    """A failed comparison of a check's or a recording's verdict names the space or table, its
    figures and (a check's) its fix."""
    if op not in ("==", "!="):
        return None
    # A module not loaded: no check ran, or nothing was recorded; nothing to explain.
    check, record = sys.modules.get("keybench.check.check_result"), sys.modules.get("keybench.record.verdicts")
    for side in (left, right):
        if check is not None and isinstance(side, check.SpaceVerdict):
            return [f"{left!r} {op} {right!r}", *side.space.facts()]
        if record is not None and isinstance(side, record.RecordedVerdict):
            return [f"{left!r} {op} {right!r}", *side.facts()]
    return None


@dataclass(frozen=True)
class EmulatorHost:
    """An emulator the session uses."""

    backend: str  # spanner or bigtable
    host: str  # host:port, as *_EMULATOR_HOST takes it
    source: str  # how it was found or started
    pid: int | None = None  # a native emulator this session started
    container_id: str | None = None  # a container this session started

    def __str__(self) -> str:
        return self.host


def find_or_start(backend: str, started_by: str) -> tuple[EmulatorHost, Callable[[], None] | None]:
    """An emulator that answers and, when this call started it, how to stop it; or a
    KeybenchError naming what was tried and how to get one."""
    from keybench.errors import KeybenchError
    from keybench.infra import containers, emulators

    variable = emulators.ENV_VARS[backend]
    if os.environ.get(variable):  # used as given; one that does not answer fails rather than hide behind another
        return EmulatorHost(backend, emulators.resolve(backend, may_start=False).address, variable), None
    tried = [f"{variable} is not set"]
    try:
        container = containers.start(backend)
        return (EmulatorHost(backend, container.address, f"Docker container {container.id[:12]} "
                             f"({containers.IMAGES[backend]})", container_id=container.id), container.stop)
    except KeybenchError as exc:
        tried.append(f"Docker: {exc}")
    if emulators.binary(backend) is None:
        tried.append("no native emulator installed")
        raise KeybenchError(f"no {emulators.TITLES[backend]} emulator: {'; '.join(tried)}; "
                            f"{emulators.fix_hint(backend)} "
                            f"(these fixtures look at no default port: after `docker compose up -d`, "
                            f"export {variable}={emulators.expected_address(backend)})")
    emulator = emulators.start(backend, emulators.free_port(), started_by, detach=False)
    return (EmulatorHost(backend, emulator.address, f"native emulator pid {emulator.pid}", pid=emulator.pid),
            emulator.stop)


def _emulator(request: pytest.FixtureRequest, backend: str):
    from keybench.errors import KeybenchError
    from keybench.infra import emulators

    _grpc_follows_gevent()
    try:
        found, stop = find_or_start(backend, f"pytest (pid {os.getpid()})")
    except KeybenchError as exc:
        config = request.config
        if (config.getoption(MISSING_EMULATOR) or config.getini(MISSING_EMULATOR)) == "skip":
            pytest.skip(str(exc))
        pytest.fail(f"{exc}; or pass --keybench-missing-emulator=skip to skip the tests that need it", pytrace=False)
    if stop is not None:
        end_session_on_sigterm()
    variable = emulators.ENV_VARS[backend]
    saved = os.environ.get(variable)
    os.environ[variable] = found.host
    try:
        yield found
    finally:
        if saved is None:
            os.environ.pop(variable, None)
        else:
            os.environ[variable] = saved
        if stop is not None:
            stop()


@pytest.fixture(scope="session")
def spanner_emulator(request: pytest.FixtureRequest):
    """The Spanner emulator for the session; SPANNER_EMULATOR_HOST names it while the session runs."""
    yield from _emulator(request, "spanner")


@pytest.fixture(scope="session")
def bigtable_emulator(request: pytest.FixtureRequest):
    """The Bigtable emulator for the session; BIGTABLE_EMULATOR_HOST names it while the session runs."""
    yield from _emulator(request, "bigtable")


@pytest.fixture
def keybench_recorder(request: pytest.FixtureRequest):
    """Recording proxies in front of the session's emulators for one test: the clients the test
    creates reach the emulators through them, and the fixture's value judges the keys they wrote:

        def test_orders_keys_spread(keybench_recorder):
            run_my_integration_test()
            assert keybench_recorder.table("Orders").verdict == "spread"

    The emulators recorded are those the test also asks for (spanner_emulator,
    bigtable_emulator), or both. A test that writes too few rows for the model gets
    `inconclusive`, with the writes that would settle it in the reason."""
    from keybench.infra import emulators
    from keybench.record.recorder import Recorder
    from keybench.record.taps import recording_proxy
    from keybench.record.verdicts import Recording

    _grpc_follows_gevent()
    wanted = [b for b in ("spanner", "bigtable") if f"{b}_emulator" in request.fixturenames] or ["spanner", "bigtable"]
    recorder = Recorder()
    proxies, saved = [], {}
    try:
        for backend in wanted:
            found = request.getfixturevalue(f"{backend}_emulator")
            proxy = recording_proxy(backend, recorder, found.host)
            proxies.append(proxy)
            variable = emulators.ENV_VARS[backend]
            saved[variable] = os.environ.get(variable)
            os.environ[variable] = proxy.address
        yield Recording(recorder)
    finally:
        for variable, value in saved.items():
            if value is None:
                os.environ.pop(variable, None)
            else:
                os.environ[variable] = value  # the emulator fixture's, which it restores itself
        for proxy in proxies:
            proxy.close()


def _digest(*paths: Path | None) -> str:
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes() if path is not None and path.is_file() else b"-")
    return digest.hexdigest()


@pytest.fixture(scope="session")
def keybench_check(request: pytest.FixtureRequest):
    """`keybench check` as a function returning a CheckResult (src/keybench/check/check_result.py):

        keybench_check("schema.sql", rows=..., nodes=..., columns="columns.toml")   # Spanner DDL
        keybench_check(bigtable="{device_type}#{device_id}#{ts}", reads=["range:ts"])

    Paths are taken relative to pytest's rootdir. A Spanner check uses the spanner_emulator
    fixture; a Bigtable template needs no emulator. The same check of unchanged files runs
    once per session. The report is printed, so a failing test shows it."""
    from keybench.check.command import check_result
    from keybench.check.request import CheckRequest
    from keybench.errors import KeybenchError

    done = {}

    def run(schema: str | Path | None = None, *, bigtable: str | None = None, reads=(), columns=None, **options):
        _grpc_follows_gevent()
        rooted = [None if p is None else Path(request.config.rootpath, p) for p in (schema, columns)]
        check = CheckRequest(schema=rooted[0], bigtable=bigtable, reads=tuple(reads), columns=rooted[1], **options)
        if schema is not None:
            request.getfixturevalue("spanner_emulator")
        key = (check, _digest(*rooted))
        if key not in done:
            try:
                done[key] = check_result(check)
            except KeybenchError as exc:
                pytest.fail(f"keybench check: {exc}", pytrace=False)
        print(done[key].text)
        return done[key]

    return run
