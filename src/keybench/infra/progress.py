"""Progress lines of a long run, on stderr (stdout carries the results)."""

import sys

PROGRESS_EVERY_S = 5.0  # how often a long step (a stage's load, a large schema's check) says how far it got


def progress(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)
