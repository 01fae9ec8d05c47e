"""Local Docker images for machines that cannot pull from an image registry.

    python -m keybench.infra.images            # the two emulator images
    python -m keybench.infra.images --python   # and a Python base for keybench's own image

docker-compose.yml and the tests use the official emulator images. Where no registry can
be reached, this builds stand-ins from the emulators google-cloud-cli installed on this
machine (see `emulators.sdk_root`) and tags them with the official names, so the unchanged
compose file finds them locally. Each image is a folder holding the binaries, every library
`ldd` lists for them, /usr/share/zoneinfo (the Spanner emulator fails its first request
without it) and a static busybox (Debian's busybox-static) for shells and health checks,
turned into an image by `tar -C folder -c . | docker import - NAME`. For the Bigtable
emulator a small `gcloud` script turns `gcloud beta emulators bigtable start
--host-port=H:P` into a cbtemulator call.

The Python base (`--python`) holds this machine's Python and keybench's dependencies, with
pip set to use no index, so the Dockerfile's `pip install -e .` runs without a network:
`docker build --build-arg BASE_IMAGE=keybench-python:local .`.

An image is rebuilt only when what it is made of changed: each carries a fingerprint of its
sources as a label, and a rerun with the same sources says "up to date" and does nothing.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from keybench.errors import KeybenchError
from keybench.infra import emulators

SPANNER_IMAGE = "gcr.io/cloud-spanner-emulator/emulator"
CLI_IMAGE = "gcr.io/google.com/cloudsdktool/google-cloud-cli:emulators"
PYTHON_IMAGE = "keybench-python:local"
FINGERPRINT_LABEL = "keybench.sources"
BUSYBOX = Path("/bin/busybox")
ZONEINFO = Path("/usr/share/zoneinfo")
REPO = Path(__file__).resolve().parents[3]  # src/keybench/infra/images.py: a checkout
# Programs the official google-cloud-cli image has and docker-compose.yml's commands use
# (bash's /dev/tcp probe, curl against the Spanner REST port), taken from this machine.
CLI_TOOLS = ("bash", "curl")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

GCLOUD_SHIM = """#!/bin/sh
# keybench's stand-in for `gcloud beta emulators bigtable start --host-port=HOST:PORT`.
if [ "$1 $2 $3 $4" != "beta emulators bigtable start" ]; then
  echo "this image's gcloud only runs: gcloud beta emulators bigtable start [--host-port=HOST:PORT]" >&2
  exit 2
fi
shift 4
host_port=localhost:8086
for arg in "$@"; do
  case "$arg" in
    --host-port=*) host_port="${arg#--host-port=}" ;;
    *) echo "gcloud (keybench stand-in): unsupported option $arg" >&2; exit 2 ;;
  esac
done
exec /opt/bigtable-emulator/cbtemulator -host "${host_port%:*}" -port "${host_port##*:}"
"""


@dataclass
class ImageSpec:
    """What goes into one image: host files copied to paths inside it, files written, settings."""

    name: str
    copies: dict[str, Path] = field(default_factory=dict)  # path in the image -> host file or folder
    writes: dict[str, str] = field(default_factory=dict)  # path in the image -> text (made executable)
    changes: list[str] = field(default_factory=list)  # Dockerfile lines for `docker import --change`
    skips: dict[Path, tuple[str, ...]] = field(default_factory=dict)  # host folder -> names left out of it
    python: str | None = None  # the image's Python interpreter, when it has one

    def fingerprint(self) -> str:
        digest = hashlib.sha256()
        for inside, host in sorted(self.copies.items()):
            stat = host.stat()
            digest.update(f"{inside}\0{host}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        for inside, text in sorted(self.writes.items()):
            digest.update(f"{inside}\0{text}\n".encode())
        digest.update("\n".join(self.changes).encode())
        return digest.hexdigest()[:16]


def docker(*args: str, stdin=None, check: bool = True) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(["docker", *args], stdin=stdin, capture_output=True, text=stdin is None, check=False)
    except FileNotFoundError:
        raise KeybenchError("the docker command is not installed; install Docker Engine (Debian: docker.io)") from None
    if check and done.returncode != 0:
        err = done.stderr if isinstance(done.stderr, str) else done.stderr.decode(errors="replace")
        raise KeybenchError(f"docker {args[0]} failed: {(err.strip().splitlines() or ['(no output)'])[-1]}")
    return done


def shared_libraries(binary: Path) -> list[Path]:
    """The libraries the dynamic loader maps for `binary` (with the loader), none for a static one."""
    out = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, check=False).stdout
    return [Path(m) for m in re.findall(r"(/\S+) \(0x", out)]


def with_libraries(copies: dict[str, Path]) -> dict[str, Path]:
    """`copies` plus every library its files need, each at the path it has on this machine."""
    result = dict(copies)
    for host in list(copies.values()):
        files = host.rglob("*.so") if host.is_dir() else [host]
        for binary in files:
            for lib in shared_libraries(binary):
                result.setdefault(str(lib), lib)
    return result


def _skipping(host: Path, skips: tuple[str, ...]) -> Callable[[str, list[str]], list[str]]:
    """copytree's `ignore`: the names under `host` itself that start with one of `skips`."""
    def ignore(folder: str, names: list[str]) -> list[str]:
        return [n for n in names if skips and Path(folder) == host and n.startswith(skips)]
    return ignore


def _base(name: str) -> ImageSpec:
    if not BUSYBOX.exists():
        raise KeybenchError(f"{BUSYBOX} is missing; install Debian's busybox-static")
    return ImageSpec(name, copies={"/bin/busybox": BUSYBOX, "/usr/share/zoneinfo": ZONEINFO},
                     changes=[f"ENV PATH={SYSTEM_PATH}"])


def _sdk_file(relative: str) -> Path:
    root = emulators.sdk_root()
    path = root / relative if root else None
    if path is None or not os.access(path, os.X_OK):
        raise KeybenchError(f"{relative} of google-cloud-cli is not installed (SDK root {root}); "
                            "install the google-cloud-cli-spanner-emulator and google-cloud-cli-bigtable-emulator "
                            "packages")
    return path


def spanner_spec() -> ImageSpec:
    spec = _base(SPANNER_IMAGE)
    for name in ("gateway_main", "emulator_main"):  # the gateway starts emulator_main from its own folder
        spec.copies[f"/{name}"] = _sdk_file(f"bin/cloud_spanner_emulator/{name}")
    spec.copies = with_libraries(spec.copies)
    spec.changes += ["WORKDIR /", 'CMD ["/gateway_main", "--hostname", "0.0.0.0"]', "EXPOSE 9010 9020"]
    return spec


def cli_spec() -> ImageSpec:
    spec = _base(CLI_IMAGE)
    spec.copies["/opt/bigtable-emulator/cbtemulator"] = _sdk_file("platform/bigtable-emulator/cbtemulator")
    for tool in CLI_TOOLS:
        found = shutil.which(tool)
        if found is None:
            raise KeybenchError(f"{tool} is not installed; the compose file's commands in this image need it")
        spec.copies[f"/usr/bin/{tool}"] = Path(found).resolve()
    spec.copies = with_libraries(spec.copies)
    spec.writes["/usr/bin/gcloud"] = GCLOUD_SHIM
    spec.changes += ["EXPOSE 8086"]
    return spec


def python_spec() -> ImageSpec:
    """This machine's Python at its own path (so pip's scripts find it) and keybench's dependencies."""
    prefix = Path(sys.base_prefix)
    stdlib = Path(sysconfig.get_path("stdlib", vars={"installed_base": str(prefix)}))
    spec = _base(PYTHON_IMAGE)
    spec.python = f"{prefix}/bin/python{sys.version_info.major}.{sys.version_info.minor}"
    spec.copies[spec.python] = Path(spec.python)
    for lib in (prefix / "lib").glob("libpython*.so*"):
        spec.copies[str(lib)] = lib
    spec.copies[str(stdlib / "lib-dynload")] = stdlib / "lib-dynload"
    spec.copies = with_libraries(spec.copies)
    spec.copies[str(stdlib)] = stdlib
    # Left out: the standard library's own tests and build files, and whatever this machine
    # installed into its global site-packages.
    spec.skips[stdlib] = ("site-packages", "test", "config-", "idlelib", "tkinter", "turtledemo", "ensurepip")
    spec.copies["/etc/ssl/certs"] = Path("/etc/ssl/certs")
    if not (REPO / "pyproject.toml").is_file():  # installed from a wheel: no Dockerfile to build a base for
        raise KeybenchError("--python builds the base image of keybench's own Dockerfile: run it in a checkout "
                            "of keybench")
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    spec.writes["/keybench-requirements.txt"] = "\n".join(
        [*project["project"]["dependencies"], *project["build-system"]["requires"], "pip", "wheel"]
    ) + "\n"
    spec.changes += [
        f"ENV PATH={prefix}/bin:{SYSTEM_PATH}",
        # The dependencies are in the image: pip installs keybench itself with no index and
        # with the image's setuptools (no isolated build environment to download).
        "ENV PIP_NO_INDEX=1 PIP_NO_BUILD_ISOLATION=0 PIP_DISABLE_PIP_VERSION_CHECK=1",
        'CMD ["python3"]',
    ]
    return spec


def assemble(spec: ImageSpec, root: Path) -> None:
    """Lay the image's files out under `root`."""
    for inside, host in spec.copies.items():
        target = root / inside.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if host.is_dir():
            shutil.copytree(host, target, symlinks=True, dirs_exist_ok=True,
                            ignore=_skipping(host, spec.skips.get(host, ())))
        else:
            shutil.copy2(host, target)  # follows symlinks: the library itself under the name ldd gave
    for inside, text in spec.writes.items():
        target = root / inside.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        target.chmod(0o755)
    for folder in ("tmp", "etc", "root", "bin"):
        (root / folder).mkdir(exist_ok=True)
    (root / "tmp").chmod(0o1777)
    for applet in subprocess.run([str(BUSYBOX), "--list"], capture_output=True, text=True, check=True).stdout.split():
        if not (root / "bin" / applet).exists() and not (root / "usr/bin" / applet).exists():
            (root / "bin" / applet).symlink_to("busybox")
    if spec.python:
        for alias in ("python3", "python"):
            (root / spec.python.lstrip("/")).with_name(alias).symlink_to(Path(spec.python).name)
        _install_requirements(root, spec.python)


def _install_requirements(root: Path, python: str) -> None:
    """keybench's dependencies into the image's Python, by this machine's pip (its cache makes it quick)."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-warn-script-location", "--ignore-installed",
         "--root", str(root), "--prefix", str(Path(python).parent.parent),
         "-r", str(root / "keybench-requirements.txt")],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise KeybenchError(f"pip could not install keybench's dependencies into the Python image: "
                            f"{(done.stderr.strip().splitlines() or ['(no output)'])[-1]}")
    # Wheels bring their own libraries but may need some of the system's (libstdc++, libz).
    for extension in root.rglob("*.so*"):
        for lib in shared_libraries(extension):
            if not lib.is_relative_to(root) and not (root / str(lib).lstrip("/")).exists():
                (root / str(lib).lstrip("/")).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(lib, root / str(lib).lstrip("/"))
    # pip wrote its scripts for the interpreter that ran it; inside the image the interpreter
    # is the one copied in, at this machine's base prefix.
    for script in (root / python.lstrip("/")).parent.iterdir():
        if script.is_file() and not script.is_symlink():
            first, _, body = script.read_bytes().partition(b"\n")
            if first.startswith(b"#!") and b"python" in first:
                script.write_bytes(b"#!" + python.encode() + b"\n" + body)


def current_fingerprint(name: str) -> str | None:
    """The sources label of the image tagged `name`: None if there is none, "" if it is not keybench's."""
    done = docker("image", "inspect", "--format", f'{{{{index .Config.Labels "{FINGERPRINT_LABEL}"}}}}', name,
                  check=False)
    return done.stdout.strip().replace("<no value>", "") if done.returncode == 0 else None


def build(spec: ImageSpec) -> str:
    """Build one image unless an image with the same sources is already tagged; say which.
    An image of that name that keybench did not build (the official one, pulled) is left alone."""
    fingerprint = spec.fingerprint()
    current = current_fingerprint(spec.name)
    if current == fingerprint:
        return f"{spec.name}: up to date (sources {fingerprint})"
    if current == "":
        return f"{spec.name}: left alone, an image keybench did not build has this name (`docker rmi` it to replace it)"
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="keybench-image-") as folder:
        root = Path(folder)
        assemble(spec, root)
        changes = [*spec.changes, f"LABEL {FINGERPRINT_LABEL}={fingerprint}"]
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        assert tar.stdout is not None  # stdout=PIPE
        try:
            docker("import", *[a for c in changes for a in ("--change", c)], "-", spec.name, stdin=tar.stdout)
        finally:
            tar.stdout.close()
            tar.wait()
        size = sum(p.stat().st_size for p in root.rglob("*") if p.is_file() and not p.is_symlink())
    return (f"{spec.name}: built from this machine's files ({size / 2**20:.0f} MiB, sources {fingerprint}) "
            f"in {time.monotonic() - started:.1f} s")


def build_all(python: bool = False) -> list[str]:
    docker("version", "--format", "{{.Server.Version}}")  # one clear line when no engine answers
    specs = [spanner_spec(), cli_spec(), *([python_spec()] if python else [])]
    return [build(spec) for spec in specs]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m keybench.infra.images", description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="store_true",
                        help=f"also build {PYTHON_IMAGE}, a base for keybench's image (Dockerfile BASE_IMAGE)")
    args = parser.parse_args(argv)
    try:
        for line in build_all(python=args.python):
            print(line)
    except KeybenchError as exc:
        print(f"images: error: {exc}", file=sys.stderr)
        return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
