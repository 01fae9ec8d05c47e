import pytest
from google.api_core import exceptions as gexc

from keybench.backends.liveness import answered


def _raises(exc):
    def probe():
        raise exc

    return probe


@pytest.mark.parametrize("probe, expected", [
    (lambda: None, True),
    (_raises(gexc.NotFound("table not found")), True),  # a table not created yet: the service answered
    (_raises(gexc.PermissionDenied("no")), True),
    (_raises(gexc.ServiceUnavailable("connection refused")), False),
    (_raises(gexc.DeadlineExceeded("no answer in 1.5 s")), False),
])
def test_a_refusal_is_an_answer_and_silence_is_not(probe, expected):
    assert answered(probe) is expected


def test_anything_else_is_not_swallowed():
    with pytest.raises(ZeroDivisionError):
        answered(lambda: 1 / 0)
