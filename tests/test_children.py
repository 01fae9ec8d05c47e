"""Child processes: a plain (gevent-free) process runs calls and reports their errors, and
one that dies or is cut off mid-call is said so and never reused."""

from __future__ import annotations

import os
import signal
import time

import gevent
import pytest

from keybench.children import PlainProcess, PlainProcessError, how_it_ended


def product(a: int, b: int) -> int:
    return a * b


def refuse(why: str) -> None:
    raise ValueError(why)


def sleep_then(seconds: float, value: str) -> str:
    time.sleep(seconds)
    return value


def test_a_call_returns_its_result_and_an_error_its_text():
    process = PlainProcess()
    try:
        assert process.call(product, 6, 7) == 42
        with pytest.raises(PlainProcessError, match="ValueError: no such table"):
            process.call(refuse, "no such table")
        assert process.call(product, 2, 3) == 6  # an error leaves the process usable
        assert process.usable
    finally:
        process.close()
    assert process.proc.returncode == 0 and not process.usable


def test_calls_sent_before_their_answers_are_answered_in_turn_and_call_waits_for_none_of_them():
    process = PlainProcess()
    try:
        process.send(sleep_then, 0.2, "first")
        process.send(product, 6, 7)
        process.send(refuse, "third")
        with pytest.raises(PlainProcessError, match="in flight"):  # its answer would be the first call's
            process.call(product, 2, 3)
        assert process.receive() == "first"
        assert process.receive() == 42
        with pytest.raises(PlainProcessError, match="ValueError: third"):
            process.receive()
        assert not process.busy and process.call(product, 2, 3) == 6
    finally:
        process.close()


def test_a_process_that_dies_mid_call_is_named_with_how_it_ended():
    process = PlainProcess()
    try:
        process.send(sleep_then, 30, "never")
        os.kill(process.proc.pid, signal.SIGKILL)
        with pytest.raises(PlainProcessError, match=rf"pid {process.proc.pid} exited \(killed by SIGKILL\)"):
            process.receive()
        assert not process.usable
    finally:
        process.close()


def test_a_call_cut_off_by_a_timeout_stops_the_process():
    process = PlainProcess()
    try:
        with pytest.raises(gevent.Timeout):
            with gevent.Timeout(0.5):
                process.call(sleep_then, 30, "late")
        assert process.proc.poll() is not None and not process.usable  # its answer could never be matched
    finally:
        process.close()


@pytest.mark.parametrize("code, words", [(0, "exit code 0"), (3, "exit code 3"), (-9, "killed by SIGKILL"),
                                         (-15, "killed by SIGTERM"), (-200, "killed by signal 200")])
def test_how_it_ended(code, words):
    assert how_it_ended(code) == words
