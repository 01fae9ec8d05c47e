"""errors.py: every failure text keybench prints or records is one readable line."""

from google.api_core import exceptions as gexc

from keybench.errors import KeybenchError, one_line, readable


def test_the_bigtable_clients_timeout_text_is_made_readable():
    # What google-cloud-bigtable's data client raises when operation_timeout runs out.
    from google.cloud.bigtable.data._helpers import (
        RetryFailureReason,
        _retry_exception_factory,
    )

    raised, _ = _retry_exception_factory([], RetryFailureReason.TIMEOUT, 2.0)
    assert "operation_timeoutof" in str(raised)  # the client's own text, as the issue quotes it
    assert one_line(raised) == "DeadlineExceeded: 504 operation_timeout of 2.0s exceeded"


def test_whitespace_is_one_space_and_only_the_first_line_is_kept():
    assert one_line(RuntimeError("a\t b   c\nsecond line")) == "RuntimeError: a b c"
    assert one_line(gexc.Aborted("  Transaction   aborted ")) == "Aborted: 409 Transaction aborted"
    assert readable("x\n\ny") == "x y"
    assert str(KeybenchError("stage  failed:\n operation_timeoutof 30.0s  exceeded")) == \
        "stage failed: operation_timeout of 30.0s exceeded"
    assert readable("my_operation_timeoutofficial") == "my_operation_timeoutofficial"  # a word, not the glitch
