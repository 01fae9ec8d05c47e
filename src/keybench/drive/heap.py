"""The garbage collector while a load runs.

Everything alive when a load starts (the libraries, the stage, its prefill) outlives it:
frozen then, it stays out of every collection until the load ends, so no full pass walks it
(about 80 ms each on this machine's 2 cores, several per stage).

What the load itself makes is left to the collector as usual. That stays cheap because what a
stage keeps alive is bounded: its oldest acknowledged rows go to disk (`design.truth`) and its
recorded keys are encoded as it runs (`Stage._bound_backlog`). Freezing the load's objects too
(once a second, as keybench did) kept its passes shorter still, but it also kept what became
garbage later, in a cycle: the operations in flight at each freeze, an aborted transaction's
exception, a finished second's histogram. A long stage grew by tens of megabytes a minute.
"""

from __future__ import annotations

import gc


def freeze() -> None:
    """What exists now outlives the load: out of the collector's passes until `thaw`."""
    gc.freeze()


def thaw() -> None:
    """After the load: everything is collectable again, cycles included."""
    gc.unfreeze()
