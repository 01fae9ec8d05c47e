"""A sample of a design's reads over simulated writes: which reads, and the key ranges each
touches, so that the model can count the ranges a read fans out to."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from keybench.design.byteorder import (
    TABLE_SPACE,
    KeyEncoder,
    prefix_successor,
)
from keybench.design.plans import (
    DEFAULT_LATEST_N,
    DEFAULT_NUMBER_SPAN,
    DEFAULT_WINDOW_S,
    strategy_plans,
)
from keybench.model.keycolumns import (
    EventColumns,
)
from keybench.model.keystream import KeyStream


def _point_interval(strategy, key: bytes) -> tuple[bytes, bytes]:
    return (key, key + b"\x00") if strategy.backend == "bigtable" else (key, prefix_successor(key))


@dataclass(frozen=True)
class SampleRead:
    """One sample read, before it is built: its operation, the insert (0-based) at whose
    time it runs, and the earlier row whose key or entity it asks for (None: neither)."""

    operation: str
    position: int
    row: int | None


def sample_read_plan(strategy, rows: int, per_operation: int, seed: int,
                     after_fraction: float = 0.1) -> list[SampleRead]:
    """`per_operation` reads of every read operation, at evenly spread positions after the
    first `after_fraction` of the run, each asking for a row drawn among the earlier ones."""
    if per_operation <= 0 or rows == 0:
        return []
    rng = random.Random(f"reads:{seed}")
    positions = np.linspace(int(rows * after_fraction), rows - 1, per_operation).astype(np.int64)
    return [SampleRead(op, int(p), rng.randrange(p + 1) if op in ("point_read", "latest_n", "prefix_scan") else None)
            for op in strategy_plans(strategy, DEFAULT_LATEST_N) for p in positions]


def build_reads(strategy, plan: list[SampleRead], key_of, entity_of, ts_us_of, window_s: float = DEFAULT_WINDOW_S,
                number_span: int = DEFAULT_NUMBER_SPAN):
    """(time s, intervals, space, operation) of each planned read, built by the strategy's
    read plan as a live run would; `key_of(row)` is a row's table key, `entity_of(row)` its
    user or device, `ts_us_of(position)` an insert's time."""
    encoder, plans = KeyEncoder(strategy), strategy_plans(strategy, DEFAULT_LATEST_N)
    for read in plan:
        op, p = read.operation, read.position
        now_us = int(ts_us_of(p))
        t_s = float(now_us) / 1e6
        if op == "point_read":
            yield t_s, [_point_interval(strategy, key_of(read.row))], TABLE_SPACE, op
            continue
        if op in ("latest_n", "prefix_scan"):
            request = plans[op].build(int(entity_of(read.row)))
        elif op == "time_window":
            request = plans[op].build(now_us - int(window_s * 1e6), now_us)
        else:
            seq = p + 1
            request = plans[op].build(max(1, seq - number_span + 1), seq)
        space, intervals = encoder.read_intervals(request)
        yield t_s, intervals, space, op


def add_sample_reads(stream: KeyStream, strategy, events: EventColumns, keys: np.ndarray, lengths: np.ndarray,
                     per_operation: int, seed: int, window_s: float = DEFAULT_WINDOW_S,
                     number_span: int = DEFAULT_NUMBER_SPAN,
                     after_fraction: float = 0.1) -> None:
    """The sample reads (sample_read_plan) of a run whose events and table keys are all at hand."""
    plan = sample_read_plan(strategy, len(events), per_operation, seed, after_fraction)
    for t_s, intervals, space, op in build_reads(strategy, plan, lambda row: bytes(keys[row]).ljust(int(lengths[row]),
                                                                                                    b"\x00"),
                                                 lambda row: events.entity[row], lambda p: events.ts_us[p],
                                                 window_s, number_span):
        stream.add_read(t_s, intervals, space, op)
