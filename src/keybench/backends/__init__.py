"""The database bindings behind one small interface (`base.Backend`), and the one factory
that opens the right one for a strategy. No timing in here: the collector times calls."""

from __future__ import annotations

from collections.abc import Callable

from keybench.backends.base import DEFAULT_PAYLOAD_BYTES, DEFAULT_TIMEOUT_S, Backend
from keybench.design.strategies import Strategy


def binding(backend: str) -> Callable[..., Backend]:
    """The binding class of a backend ("spanner" or "bigtable"), its client library imported.
    The import takes a second or more, several on a loaded machine, and holds every greenlet
    meanwhile: a Locust worker makes it before it joins its master (drive.scenario,
    drive.worker), not after the stage is handed out, where its heartbeats would stop and the
    master would count it missing."""
    if backend == "spanner":
        from keybench.backends.spanner import SpannerBackend

        return SpannerBackend
    from keybench.backends.bigtable import BigtableBackend

    return BigtableBackend


def open_backend(strategy: Strategy, location: str, project: str, instance: str,
                 payload_bytes: int = DEFAULT_PAYLOAD_BYTES, timeout_s: float = DEFAULT_TIMEOUT_S,
                 endpoint: str | None = None) -> Backend:
    """The binding of the strategy's backend for one database (Spanner) or table (Bigtable);
    `endpoint`: the service's HOST:PORT when not the default (`--endpoint`)."""
    return binding(strategy.backend)(strategy, location, project, instance, payload_bytes, timeout_s, endpoint)
