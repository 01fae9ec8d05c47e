"""Finding, starting and stopping the Spanner and Bigtable emulators.

keybench reaches an emulator in this order:
1. `SPANNER_EMULATOR_HOST` / `BIGTABLE_EMULATOR_HOST`: used as they are, nothing started;
2. an emulator already answering on the default port (`docker compose up`, or
   `keybench emulators up`);
3. the natively installed emulators (google-cloud-cli components), started on 127.0.0.1.

Every process keybench starts is recorded (PID, command, log) in the state folder, and
only recorded processes are ever stopped, by PID, after checking that the PID still runs
the command keybench started.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from keybench.children import die_with_parent
from keybench.errors import KeybenchError

DEFAULT_PORTS = {"spanner": 9010, "bigtable": 8086}
PORT_OVERRIDES = {"spanner": "KEYBENCH_SPANNER_PORT", "bigtable": "KEYBENCH_BIGTABLE_PORT"}
ENV_VARS = {"spanner": "SPANNER_EMULATOR_HOST", "bigtable": "BIGTABLE_EMULATOR_HOST"}
TITLES = {"spanner": "Spanner", "bigtable": "Bigtable"}
HOST = "127.0.0.1"
PROBE_TIMEOUT_S = 4.0
START_TIMEOUT_S = 30.0
STOP_TIMEOUT_S = 10.0
SDK_ROOT_CANDIDATES = ("/usr/lib/google-cloud-sdk", "/usr/share/google-cloud-sdk", "/opt/google-cloud-sdk")


def state_dir() -> Path:
    configured = os.environ.get("KEYBENCH_STATE_DIR")
    base = Path(configured) if configured else Path(
        os.environ.get("XDG_STATE_HOME", Path.home() / ".local" / "state")
    ) / "keybench"
    base.mkdir(parents=True, exist_ok=True)
    return base


def fix_hint(backend: str) -> str:
    return (
        f"set {ENV_VARS[backend]}=host:port to an emulator that runs, "
        f"or run `docker compose up -d`, "
        f"or install google-cloud-cli's emulators and run `keybench emulators up`"
    )


def default_port(backend: str) -> int:
    """The port keybench looks at and starts on: 9010 / 8086 unless KEYBENCH_*_PORT says otherwise."""
    configured = os.environ.get(PORT_OVERRIDES[backend])
    if configured is None:
        return DEFAULT_PORTS[backend]
    if not configured.isdigit() or not 0 < int(configured) < 65536:
        raise KeybenchError(f"{PORT_OVERRIDES[backend]}={configured!r} is not a TCP port")
    return int(configured)


def expected_address(backend: str) -> str:
    """Where `resolve` looks first, for display (a web form's Host field): never raises."""
    configured = os.environ.get(PORT_OVERRIDES[backend], "")
    port = configured if configured.isdigit() else DEFAULT_PORTS[backend]
    return os.environ.get(ENV_VARS[backend]) or f"{HOST}:{port}"


# ---------------------------------------------------------------- probing


def port_is_free(port: int, host: str = HOST) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
            return True
        except OSError:
            return False


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def connect_error(address: str, timeout: float = 2.0) -> OSError | None:
    """Why a TCP connection to `address` (host:port) fails, or None if it succeeds."""
    host, _, port = address.rpartition(":")
    try:
        with socket.create_connection((host or HOST, int(port)), timeout=timeout):
            return None
    except OSError as exc:
        return exc


def answers(address: str, timeout: float = PROBE_TIMEOUT_S) -> tuple[bool, str]:
    """Whether a gRPC server completes a connection at `address`; on no, why not."""
    try:
        error = connect_error(address, min(timeout, 2.0))
    except ValueError:
        return False, f"{address!r} is not host:port"
    if error is not None:
        return False, error.strerror or str(error)
    import grpc  # here: the command line is built without gRPC, which the process's runtime must precede

    channel = grpc.insecure_channel(address)
    # One call of a method no emulator serves: any status but these is a gRPC server's answer.
    # (channel_ready_future polls the channel's state, and takes 0.2 s even on a ready server.)
    probe = channel.unary_unary("/keybench.Probe/Answer", request_serializer=None, response_deserializer=None)
    try:
        probe(b"", timeout=timeout, wait_for_ready=True)
    except grpc.RpcError as exc:
        if exc.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
            return False, f"accepts connections but no gRPC answer within {timeout:.0f}s"
    finally:
        channel.close()
    return True, "answers"


def port_holder(port: int) -> str:
    """`pid N (command)` of the process listening on a local TCP port, if it can be told."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # LISTEN
                inodes.add(fields[9])
    for pid_dir in Path("/proc").iterdir():
        if not pid_dir.name.isdigit():
            continue
        try:
            for fd in (pid_dir / "fd").iterdir():
                link = os.readlink(fd)
                if link.startswith("socket:[") and link[8:-1] in inodes:
                    return f"pid {pid_dir.name} ({_cmdline(int(pid_dir.name))[:80]})"
        except OSError:
            continue
    return "another process"


# ---------------------------------------------------------------- native binaries


def sdk_root() -> Path | None:
    configured = os.environ.get("KEYBENCH_GCLOUD_SDK_ROOT")
    if configured:
        return Path(configured)
    for candidate in SDK_ROOT_CANDIDATES:
        if Path(candidate, "bin", "gcloud").exists():
            return Path(candidate)
    try:
        out = subprocess.run(
            ["gcloud", "info", "--format=value(installation.sdk_root)"],
            capture_output=True, text=True, timeout=10, check=False,
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return Path(out) if out else None


def sdk_version() -> str | None:
    """The google-cloud-cli release whose emulator binaries keybench starts."""
    root = sdk_root()
    try:
        return (root / "VERSION").read_text().strip() if root else None
    except OSError:
        return None


def binary(backend: str) -> Path | None:
    root = sdk_root()
    if root is None:
        return None
    path = root / (
        "bin/cloud_spanner_emulator/emulator_main" if backend == "spanner" else "platform/bigtable-emulator/cbtemulator"
    )
    return path if os.access(path, os.X_OK) else None


def command(backend: str, port: int) -> list[str]:
    exe = binary(backend)
    if exe is None:
        raise KeybenchError(f"the {TITLES[backend]} emulator is not installed; {fix_hint(backend)}")
    if backend == "spanner":
        # emulator_main itself, not the gateway: the gateway leaves emulator_main running
        # when it is stopped, and keybench stops exactly the PID it started.
        return [str(exe), "--host_port", f"{HOST}:{port}", "--override_max_databases_per_instance=100"]
    return [str(exe), "-host", HOST, "-port", str(port)]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


@dataclass
class Emulator:
    """A native emulator process keybench started."""

    backend: str
    pid: int
    port: int
    command: str
    log: str
    started_by: str
    started_at: float

    @property
    def address(self) -> str:
        return f"{HOST}:{self.port}"

    def alive(self) -> bool:
        return self.command == _cmdline(self.pid)

    def record_path(self) -> Path:
        return state_dir() / f"{self.backend}-{self.port}.json"

    def save(self) -> None:
        path = self.record_path()
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(asdict(self), indent=2))
        tmp.replace(path)

    def stop(self) -> None:
        """Stop this PID (only if it still runs our command), wait until it is gone, forget it."""
        if self.alive():
            os.kill(self.pid, signal.SIGTERM)
            os.kill(self.pid, signal.SIGCONT)  # a paused emulator (SIGSTOP) would hold the SIGTERM for 10 s
            if not _wait_gone(self.pid, STOP_TIMEOUT_S):
                os.kill(self.pid, signal.SIGKILL)
                _wait_gone(self.pid, STOP_TIMEOUT_S)
        self.record_path().unlink(missing_ok=True)


def _wait_gone(pid: int, timeout: float) -> bool:
    """Wait until the process has fully exited: all its threads, so its ports are closed too."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.waitpid(pid, os.WNOHANG)  # reap it if it is our child
        except ChildProcessError:
            pass
        if not Path(f"/proc/{pid}").exists():
            return True
        time.sleep(0.05)
    return False


def start(backend: str, port: int, started_by: str, detach: bool) -> Emulator:
    """Start a native emulator on 127.0.0.1:port and wait until it answers.

    detach: keep running after keybench exits (`keybench emulators up`); otherwise the
    emulator dies with this process, so a crashed run leaves nothing behind.
    """
    return launch(backend, port, started_by, detach).ready()


class Launch:
    """An emulator process started and not yet known to answer: `ready` waits until it does."""

    def __init__(self, emulator: Emulator, proc: subprocess.Popen):
        self.emulator, self.proc = emulator, proc

    def ready(self) -> Emulator:
        emulator, proc = self.emulator, self.proc
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                emulator.record_path().unlink(missing_ok=True)
                tail = Path(emulator.log).read_text(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
                raise KeybenchError(
                    f"the {TITLES[emulator.backend]} emulator exited at start (code {proc.returncode}): {tail[0][:200]}"
                )
            if answers(emulator.address, timeout=1.0)[0]:
                return emulator
            time.sleep(0.1)
        emulator.stop()
        raise KeybenchError(f"the {TITLES[emulator.backend]} emulator did not answer within {START_TIMEOUT_S:.0f}s; "
                            f"see {emulator.log}")


def launch(backend: str, port: int, started_by: str, detach: bool) -> Launch:
    """Start a native emulator on 127.0.0.1:port, without waiting for it (see `start`)."""
    cmd = command(backend, port)
    deadline = time.monotonic() + 3.0  # a port closed a moment ago may take the kernel a moment
    while not port_is_free(port) and time.monotonic() < deadline:
        time.sleep(0.1)
    if not port_is_free(port):
        raise KeybenchError(
            f"cannot start the {TITLES[backend]} emulator: port {port} is in use by {port_holder(port)}"
        )
    log_path = state_dir() / f"{backend}-{port}.log"
    with open(log_path, "ab") as log:
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
            # Own session: a terminal's Ctrl-C reaches keybench alone, which then audits
            # against emulators that still run.
            start_new_session=True, preexec_fn=None if detach else die_with_parent,
        )
    emulator = Emulator(backend, proc.pid, port, " ".join(cmd), str(log_path), started_by, time.time())
    emulator.save()
    return Launch(emulator, proc)


def recorded() -> list[Emulator]:
    """Emulators keybench started that still run; stale records are removed."""
    found = []
    for path in sorted(state_dir().glob("*.json")):
        try:
            emulator = Emulator(**json.loads(path.read_text()))
        except (ValueError, TypeError):
            path.unlink(missing_ok=True)
            continue
        if emulator.alive():
            found.append(emulator)
        else:
            path.unlink(missing_ok=True)
    return found


# ---------------------------------------------------------------- resolution


@dataclass
class Endpoint:
    """Where one backend's emulator is, and who is responsible for it."""

    backend: str
    address: str
    source: str  # "environment", "keybench emulators up", "already running", "started by this run"
    emulator: Emulator | None = None  # set when this run started it, so it may restart it
    # A real instance (`--target real`, see target.py) is an endpoint too, never an emulator.
    target: str = "emulator"
    project: str | None = None  # None: the emulator's own project and instance (target.PROJECT, INSTANCE)
    instance: str | None = None
    successor: Launch | None = None  # the emulator started for the next restart (prepare_restart)

    @property
    def restartable(self) -> bool:
        return self.emulator is not None

    def prepare_restart(self) -> None:
        """Start the emulator the next `restart` switches to, on a port of its own, without
        waiting for it: it boots while the stage before it is audited."""
        if self.emulator is not None and self.successor is None:
            self.successor = launch(self.backend, free_port(), self.emulator.started_by, detach=False)

    def restart(self) -> None:
        """A fresh emulator in place of this one: the one `prepare_restart` started, or a new
        one. Always on a new port: gRPC shares a connection per address across channels, and
        one that was refused (an emulator that died) stays in its reconnect backoff, failing
        the new channels' calls at once, for up to two minutes."""
        assert self.emulator is not None
        self.emulator.stop()
        successor, self.successor = self.successor, None
        if successor is None:
            successor = launch(self.backend, free_port(), self.emulator.started_by, detach=False)
        self.emulator = successor.ready()
        self.address = self.emulator.address

    def stop(self) -> None:
        for emulator in (self.emulator, self.successor.emulator if self.successor else None):
            if emulator is not None:
                emulator.stop()
        self.emulator = self.successor = None


def resolve(backend: str, may_start: bool = True) -> Endpoint:
    """Find or start the emulator of one backend, or raise a one-line KeybenchError."""
    title = TITLES[backend]
    configured = os.environ.get(ENV_VARS[backend])
    if configured:
        ok, why = answers(configured)
        if not ok:
            raise KeybenchError(
                f"the {title} emulator at {configured} ({ENV_VARS[backend]}) does not answer: {why}; "
                f"{fix_hint(backend)}"
            )
        return Endpoint(backend, configured, "environment")
    port = default_port(backend)
    default = f"{HOST}:{port}"
    ours = {e.address: e for e in recorded() if e.backend == backend}
    ok, why = answers(default)
    if ok:
        source = ours[default].started_by if default in ours else "already running"
        return Endpoint(backend, default, source)
    if not port_is_free(port):
        # Something listens there but is no emulator: starting one would fail, and using it would hang.
        raise KeybenchError(
            f"{default} is held by {port_holder(port)}, which does not answer as a {title} emulator ({why}); "
            f"stop it, or set {PORT_OVERRIDES[backend]} to another port or {ENV_VARS[backend]} to an emulator"
        )
    if not may_start or binary(backend) is None:
        raise KeybenchError(f"no {title} emulator answers at {default} and none is installed; {fix_hint(backend)}")
    # A private port: another run started at the same moment starts its own emulator, and
    # this run's restarts between stages never pull an emulator from under it.
    emulator = start(backend, free_port(), f"keybench run (pid {os.getpid()})", detach=False)
    return Endpoint(backend, emulator.address, "started by this run", emulator)


def use(endpoint: Endpoint) -> None:
    """Point this process's clients (and Locust workers it forks) at the endpoint."""
    if endpoint.target != "emulator":
        return  # the clients reach a real instance when no *_EMULATOR_HOST is set (target.check saw to that)
    os.environ[ENV_VARS[endpoint.backend]] = endpoint.address


def environment() -> dict[str, str | None]:
    """The *_EMULATOR_HOST variables as they are now, for `restore_environment`."""
    return {v: os.environ.get(v) for v in ENV_VARS.values()}


def restore_environment(saved: dict[str, str | None]) -> None:
    """The variables back as `environment()` saw them: use() points them at an emulator that
    its caller stops, and whatever runs next must not find them pointing there."""
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
