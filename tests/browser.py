"""Headless Chromium (Debian's `chromium`, which `make test` installs) for the tests that
look at a page as a person would: the report and Locust's web UI."""

from __future__ import annotations

import shutil
import subprocess
import tempfile

import pytest

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
# No network but loopback here: Chromium's own background connections only fail, many at a time.
QUIET = ("--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-quic")


def browser() -> str:
    found = next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)
    if found is None:
        pytest.fail("no headless Chromium: install Debian's `chromium` package (.ci/run does)")
    return found


def chromium(url: str, *args: str) -> subprocess.CompletedProcess:
    """Chromium, headless and with a fresh profile, on `url` (a file:// or http:// address)."""
    with tempfile.TemporaryDirectory(prefix="keybench-chromium-") as profile:
        return subprocess.run(
            [browser(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr",
             "--v=0", *QUIET, f"--user-data-dir={profile}", *args, url], capture_output=True, text=True, timeout=120)


def console_messages(result: subprocess.CompletedProcess) -> list[str]:
    return [line for line in result.stderr.splitlines() if ":CONSOLE" in line]
