"""The tap of each backend: what decodes its calls into a Recorder."""

from __future__ import annotations

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
