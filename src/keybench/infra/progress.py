"""Progress lines of a long run, on stderr (stdout carries the results)."""

import sys


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
