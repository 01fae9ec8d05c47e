"""What keybench's bookkeeping costs per operation, in microseconds, with no database at all.

    .venv/bin/python benchmarks/collector_overhead.py [--operations 50000] [--repetitions 5]

No-op measurements, each repeated and printed as min/median/max:

- collector: one recorded operation as `Stage.insert` records it: the ledger entry
  (attempt, acknowledge), `Collector.timed` around an empty block (histogram record,
  per-second series) and the Locust request event, with the listener a Locust local
  runner attaches (Locust's own statistics);
- stage insert: a whole `Stage.insert` against a backend whose insert returns at once:
  the collector above plus the workload's choices, the key, the clock and the bookkeeping
  of what reads must return; once with one row per operation, once with `--batch-size 10`
  (figures per row), and once with a mix of inserts only, whose stage keeps no rows for reads
  to check (`Stage.keeps_rows`).

Target (issue 7): under 50 us per operation for the collector. Needs no emulator.
"""

import argparse
import time

from _common import add_figures_option, figures_file, spread
from locust.env import Environment
from locust.event import Events

import keybench.infra.runtime  # noqa: F401  (the same process set-up as a keybench run)
from keybench.backends.base import Backend
from keybench.design import strategies
from keybench.design.byteorder import KeyEncoder
from keybench.design.events import WriteEvent
from keybench.drive.settings import INSERT, WorkloadSettings
from keybench.drive.stage import Stage
from keybench.drive.users import CurrentStage, user_class
from keybench.measure.collector import Collector, Series

SERIES = Series("bigtable", "reverse_timestamp", "", INSERT)


class NoOpBackend(Backend):
    """A backend whose calls return at once: what remains is keybench's own cost."""

    name = "noop"

    def create(self) -> None:
        pass

    def drop(self) -> None:
        pass

    def insert(self, key, event):
        return key

    def insert_batch(self, rows):
        return [k for k, _ in rows]

    def read(self, spans, limit=None, where=None, index=None, join=False, parent=False):
        return []

    def write_ids(self):
        return []

    def answers(self, timeout_s):
        return True


def locust_events() -> Events:
    """Events with the request listener a Locust local runner attaches, as during a run."""
    env = Environment(user_classes=[user_class(CurrentStage())], events=Events())
    env.create_local_runner()
    return env.events


def per_operation_us(run, operations: int) -> float:
    started = time.perf_counter()
    run(operations)
    return (time.perf_counter() - started) / operations * 1e6


def collector_case(operations: int) -> float:
    """Everything the collector does for one insert: ledger, histograms and per-second series,
    the Locust request event, and the key stream entry of the split model."""
    collector = Collector(locust_events())
    collector.register(SERIES, "write")
    strategy = strategies.catalogue("spanner", "googlesql")["timestamp_first"]
    encoder, generator = KeyEncoder(strategy), strategy.key_generator(1)
    events = [WriteEvent(i % 1000 + 1, 1_763_000_000_000_000 + i, f"w-{i}", i + 1) for i in range(operations)]
    keys = [generator.key(e) for e in events]

    def run(n: int) -> None:
        for key, event in zip(keys[:n], events[:n], strict=True):
            collector.attempt(event.write_id)
            with collector.timed(SERIES) as m:
                m.rows, m.fanout = 1, 1
            collector.acknowledge(event.write_id)
            collector.key_stream.record_insert(encoder, key, event, 0.0)

    return per_operation_us(run, operations)


def stage_insert_case(operations: int, batch_size: int = 1, mix: dict[str, int] | None = None) -> float:
    strategy = strategies.catalogue("bigtable")["reverse_timestamp"]
    settings = WorkloadSettings(batch_size=batch_size) if mix is None else WorkloadSettings(batch_size=batch_size,
                                                                                           mix=mix)
    stage = Stage(strategy, NoOpBackend(strategy, "noop", "keybench-local", "noop"), settings, seed=1,
                  events=locust_events())
    user = stage.new_user()

    def run(n: int) -> None:
        for _ in range(n // batch_size):
            stage.insert(user)

    return per_operation_us(run, operations)  # per row


def run_benchmark(args: argparse.Namespace) -> None:
    cases = {"collector (ledger, histograms, Locust event, key stream)": collector_case,
             "stage insert, no-op backend": stage_insert_case,
             "stage insert --batch-size 10, no-op, per row": lambda n: stage_insert_case(n, 10),
             "stage insert, no-op, a mix of inserts only": lambda n: stage_insert_case(n, mix={INSERT: 1})}
    figures: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.repetitions):
        for name, case in cases.items():  # A B A B
            figures[name].append(case(args.operations))
    print(f"{args.repetitions} repetitions of {args.operations:,} no-op operations; us per operation, "
          "median [min..max]:")
    for name, values in figures.items():
        print(f"  {name:44} {spread(values, '.1f')}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--operations", type=int, default=50_000, help="operations per repetition")
    parser.add_argument("--repetitions", type=int, default=5)
    add_figures_option(parser, "collector_overhead")
    args = parser.parse_args()
    with figures_file(args.figures):
        run_benchmark(args)


if __name__ == "__main__":
    main()
