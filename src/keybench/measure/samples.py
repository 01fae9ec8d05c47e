"""How many samples a latency percentile needs to mean anything: of 6 samples the p99 is the
max. A percentile from fewer is marked where it is shown and is no ground for a gate."""

from __future__ import annotations

MIN_SAMPLES = {"p50": 10, "p90": 30, "p99": 100}


def too_few(percentile: str, samples: int) -> bool:
    """Whether `samples` are too few for `percentile` ("p50", "p90" or "p99") to mean anything."""
    return samples < MIN_SAMPLES[percentile]
