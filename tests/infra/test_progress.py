"""On a terminal, a run draws a bar of its stages (done, elapsed, an estimate of the time left)
below its progress lines and gives each verdict its colour; in a CI log or a pipe, plain lines
and not one escape sequence."""

from __future__ import annotations

import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import termios

import pytest

from keybench.terminal import print_verdicts_coloured
from tests.conftest import REPO, keybench

ESC = "\x1b"
RUN = ("run", "--backend", "bigtable", "--strategies", "salted,timestamp_first", "--duration", "1s", "--no-report")


def on_a_terminal(args: tuple[str, ...], timeout: float = 240) -> tuple[int, str]:
    """keybench with stdout and stderr on a pseudo-terminal of 120 columns: its exit code and
    everything the terminal received."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS")} | {"TERM": "xterm"}
    proc = subprocess.Popen([sys.executable, "-m", "keybench", *args], stdin=slave, stdout=slave, stderr=slave,
                            cwd=REPO, env=env)
    os.close(slave)
    received = b""
    try:
        while True:
            ready, _, _ = select.select([master], [], [], timeout)
            if not ready:
                raise AssertionError(f"no output for {timeout} s: {received[-2000:]!r}")
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the terminal's other end closed: the process is done
                break
            if not chunk:
                break
            received += chunk
    finally:
        code = proc.wait(timeout=60)
        os.close(master)
    return code, received.decode(errors="replace")


@pytest.mark.emulator
def test_on_a_terminal_a_bar_counts_the_stages_and_the_verdicts_are_in_colour(emulator_hosts, tmp_path):
    code, screen = on_a_terminal((*RUN, "--results-dir", str(tmp_path)))
    assert code == 0, screen[-3000:]
    assert "stages" in screen and "2/2" in screen and "left about" in screen  # the bar, at its last redraw
    assert f"{ESC}[1;31mhotspot{ESC}[0m" in screen and f"{ESC}[32mspread{ESC}[0m" in screen
    assert "[1/2] bigtable:salted" in screen  # the progress lines print above the bar


@pytest.mark.emulator
def test_in_a_log_or_a_pipe_the_same_run_prints_plain_lines(emulator_hosts, tmp_path):
    done = keybench(*RUN, "--results-dir", str(tmp_path), timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    assert ESC not in done.stdout + done.stderr and "left about" not in done.stderr
    assert "[2/2] bigtable:timestamp_first" in done.stderr


def test_a_verdict_is_coloured_in_a_table_not_in_a_sentence_and_a_name_cannot_colour_anything(monkeypatch):
    class Terminal:
        def __init__(self):
            self.text = ""

        def isatty(self):
            return True

        def write(self, text):
            self.text += text

        def flush(self):
            pass

    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", terminal)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    print_verdicts_coloured(f"cannot show a hotspot\nevil{ESC}[2J  hotspot  yes\n  verdict: spread (x)")
    assert terminal.text.splitlines() == ["cannot show a hotspot", f"evil\\x1b[2J  {ESC}[1;31mhotspot{ESC}[0m  yes",
                                          f"  verdict: {ESC}[32mspread{ESC}[0m (x)"]
    monkeypatch.setenv("NO_COLOR", "1")
    terminal.text = ""
    print_verdicts_coloured("  hotspot")
    assert terminal.text == "  hotspot\n"  # plain: NO_COLOR asks for none
