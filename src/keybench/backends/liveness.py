"""What counts as an answer when the watchdog probes a database (see Backend.answers)."""

from __future__ import annotations

from collections.abc import Callable

from google.api_core import exceptions as gexc

SILENCE = (gexc.ServiceUnavailable, gexc.DeadlineExceeded)  # no answer; any other error is one


def answered(probe: Callable[[], object]) -> bool:
    """Whether `probe` (a call with a short deadline) got an answer: silence, an unavailable
    service or a deadline, is False; a refusal (not found, not allowed) is an answer, True."""
    try:
        probe()
    except SILENCE:
        return False
    except gexc.GoogleAPICallError:
        pass
    return True
