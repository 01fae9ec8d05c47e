"""Which Bigtable client API keybench should write with, measured under gevent.

    .venv/bin/python benchmarks/bigtable_client_choice.py [--greenlets 8] [--seconds 3] [--rounds 3]

Compares, on the same emulator and with the same greenlet concurrency as a keybench stage:
single-row writes through the data client (`google.cloud.bigtable.data`, `mutate_row`),
the legacy `Table.mutate_rows([row])` and keybench's `MutateRowCall` (the MutateRow RPC with
plain protobuf messages on the data client's channel); and 100-row batches through
`bulk_mutate_rows` against legacy `Table.mutate_rows(rows)`. The APIs alternate A B C A B C,
and the medians of the rounds are printed with the min and max, with the client process's
CPU time per row.
"""

import argparse
import itertools
import statistics
import time
import uuid
import warnings

import gevent
from _common import add_figures_option, cpu_seconds, figures_file, spread
from google.cloud import bigtable
from google.cloud.bigtable import column_family
from google.cloud.bigtable.data import BigtableDataClient, RowMutationEntry, SetCell

import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)
from keybench.backends.base import DEFAULT_TIMEOUT_S
from keybench.backends.bigtable_calls import MutateRowCall
from keybench.infra import emulators

warnings.filterwarnings("ignore", message="Connecting to Bigtable emulator")
PROJECT, INSTANCE = "keybench-bench", "bench"
VALUE = b"x" * 100


def timed_rows(write, greenlets: int, seconds: float, rows_per_call: int) -> tuple[float, float]:
    """Rows per second that `greenlets` greenlets write with `write(keys)` in `seconds`, and
    the client's CPU time per row in microseconds."""
    counter = itertools.count()
    done = [0]
    deadline = time.monotonic() + seconds

    def loop():
        while time.monotonic() < deadline:
            keys = [f"k{next(counter):012d}".encode() for _ in range(rows_per_call)]
            write(keys)
            done[0] += rows_per_call

    started, cpu_before = time.monotonic(), cpu_seconds()
    gevent.joinall([gevent.spawn(loop) for _ in range(greenlets)], raise_error=True)
    return done[0] / (time.monotonic() - started), (cpu_seconds() - cpu_before) / done[0] * 1e6


def run_benchmark(args: argparse.Namespace) -> None:
    endpoint = emulators.resolve("bigtable")
    emulators.use(endpoint)
    try:
        admin = bigtable.Client(project=PROJECT, admin=True)
        table = admin.instance(INSTANCE).table(f"bench-{uuid.uuid4().hex[:8]}")
        table.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
        client = BigtableDataClient(project=PROJECT)
        data = client.get_table(INSTANCE, table.table_id)
        mutate_row_call = MutateRowCall(data, DEFAULT_TIMEOUT_S)

        def legacy(keys):
            rows = []
            for key in keys:
                row = table.direct_row(key)
                row.set_cell("cf", b"v", VALUE, timestamp=None)
                rows.append(row)
            statuses = table.mutate_rows(rows)
            assert all(s.code == 0 for s in statuses)

        def data_single(keys):
            data.mutate_row(keys[0], [SetCell("cf", b"v", VALUE)])

        def keybench_single(keys):
            mutate_row_call(keys[0], "cf", [(b"v", VALUE)], int(time.time() * 1000) * 1000)

        def data_bulk(keys):
            data.bulk_mutate_rows([RowMutationEntry(k, [SetCell("cf", b"v", VALUE)]) for k in keys])

        cases = {
            "single-row  legacy Table.mutate_rows([row])": (legacy, 1),
            "single-row  data client mutate_row": (data_single, 1),
            "single-row  keybench MutateRowCall": (keybench_single, 1),
            "100-row     legacy Table.mutate_rows(rows)": (legacy, 100),
            "100-row     data client bulk_mutate_rows": (data_bulk, 100),
        }
        results: dict[str, list[float]] = {name: [] for name in cases}
        cpu: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, (write, size) in cases.items():
                rate, cpu_us = timed_rows(write, args.greenlets, args.seconds, size)
                results[name].append(rate)
                cpu[name].append(cpu_us)
        print(f"Bigtable emulator at {endpoint.address}, {args.greenlets} greenlets, "
              f"{args.rounds} rounds of {args.seconds:.0f} s, rows/s and client CPU us per row (median [min..max]):")
        for name, figures in results.items():
            print(f"  {name:46} {spread(figures):>24}   CPU us {spread(cpu[name])}")

        def rate_of(prefix: str) -> float:
            return statistics.median(results[next(k for k in results if k.startswith(prefix))])

        print("  single-row: data client / legacy = "
              f"{rate_of('single-row  data') / rate_of('single-row  legacy'):.2f}, "
              f"MutateRowCall / data client = {rate_of('single-row  keybench') / rate_of('single-row  data'):.2f}")
        print(f"  100-row: data client / legacy = {rate_of('100-row     data') / rate_of('100-row     legacy'):.2f}")
        table.delete()
        client.close()
    finally:
        endpoint.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--greenlets", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    add_figures_option(parser, "bigtable_client_choice")
    args = parser.parse_args()

    with figures_file(args.figures):
        run_benchmark(args)


if __name__ == "__main__":
    main()
