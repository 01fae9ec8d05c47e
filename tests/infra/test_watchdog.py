import gevent
import pytest

from keybench.infra.watchdog import Cancelled, Unanswered, Watchdog


def _refuse():
    raise ValueError("refused: a fixture the database will not take")


def test_the_work_s_exception_reaches_the_caller_and_nothing_prints_a_traceback(capfd):
    with pytest.raises(ValueError, match="refused"):
        Watchdog(lambda t: True, probe_every_s=0.01).run(_refuse, "the set-up")
    gevent.sleep(0.05)  # the hub would print a dead greenlet's traceback now
    assert "Traceback" not in capfd.readouterr().err


def test_silence_abandons_the_work_and_stop_cancels_it():
    never = Watchdog(lambda t: False, probe_every_s=0.01, probe_timeout_s=0.01)
    with pytest.raises(Unanswered, match="the audit: the database did not answer 2 probes"):
        never.run(lambda: gevent.sleep(10), "the audit")
    with pytest.raises(Cancelled, match="the set-up: cancelled"):
        Watchdog(lambda t: True, probe_every_s=0.01).run(lambda: gevent.sleep(10), "the set-up", stop=lambda: True)
    assert Watchdog(lambda t: True, probe_every_s=0.01).run(lambda: 42, "the drop") == 42
