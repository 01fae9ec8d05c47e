"""The tap of each backend: what decodes its calls into a Recorder."""

from __future__ import annotations

from keybench.record.proxy import ForwardingProxy
from keybench.record.recorder import Recorder


def tap_for(backend: str, recorder: Recorder, emulator: str):
    """The tap that decodes one backend's calls into `recorder`; `emulator` (HOST:PORT) is
    where a Spanner tap reads each database's schema, straight from the emulator."""
    if backend == "bigtable":
        from keybench.record.bigtable_tap import BigtableTap

        return BigtableTap(recorder)
    from keybench.record.spanner_keys import SchemaCache, read_schema_of
    from keybench.record.spanner_tap import SpannerTap

    return SpannerTap(recorder, SchemaCache(read_schema_of(emulator)))


def recording_proxy(backend: str, recorder: Recorder, emulator: str, host: str = "127.0.0.1") -> ForwardingProxy:
    """A proxy on `host` in front of the emulator at `emulator` (HOST:PORT) that records one
    backend's calls into `recorder`; the recorder settles it before each look."""
    proxy = ForwardingProxy(emulator, tap_for(backend, recorder, emulator), host)
    recorder.read_after(proxy.settle)
    return proxy
