"""Which Bigtable client API keybench should write with, measured under gevent.

    .venv/bin/python benchmarks/bigtable_client_choice.py [--greenlets 8] [--seconds 3] [--rounds 3]

Compares, on the same emulator and with the same greenlet concurrency as a keybench stage:
single-row writes through the data client (`google.cloud.bigtable.data`, `mutate_row`)
against the legacy `Table.mutate_rows([row])`; and 100-row batches through
`bulk_mutate_rows` against legacy `Table.mutate_rows(rows)`. The APIs alternate A B A B, and
the medians of the rounds are printed with the min and max.
"""

import loadtests.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)

import argparse
import itertools
import statistics
import time
import uuid
import warnings

import gevent
from google.cloud import bigtable
from google.cloud.bigtable import column_family
from google.cloud.bigtable.data import BigtableDataClient, RowMutationEntry, SetCell

from loadtests import emulators

warnings.filterwarnings("ignore", message="Connecting to Bigtable emulator")
PROJECT, INSTANCE = "keybench-bench", "bench"
VALUE = b"x" * 100


def timed_rows(write, greenlets: int, seconds: float, rows_per_call: int) -> float:
    """Rows per second that `greenlets` greenlets write with `write(keys)` in `seconds`."""
    counter = itertools.count()
    done = [0]
    deadline = time.monotonic() + seconds

    def loop():
        while time.monotonic() < deadline:
            keys = [f"k{next(counter):012d}".encode() for _ in range(rows_per_call)]
            write(keys)
            done[0] += rows_per_call

    started = time.monotonic()
    gevent.joinall([gevent.spawn(loop) for _ in range(greenlets)], raise_error=True)
    return done[0] / (time.monotonic() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--greenlets", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()

    endpoint = emulators.resolve("bigtable")
    emulators.use(endpoint)
    try:
        admin = bigtable.Client(project=PROJECT, admin=True)
        table = admin.instance(INSTANCE).table(f"bench-{uuid.uuid4().hex[:8]}")
        table.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
        data = BigtableDataClient(project=PROJECT).get_table(INSTANCE, table.table_id)

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

        def data_bulk(keys):
            data.bulk_mutate_rows([RowMutationEntry(k, [SetCell("cf", b"v", VALUE)]) for k in keys])

        cases = {
            "single-row  legacy Table.mutate_rows([row])": (legacy, 1),
            "single-row  data client mutate_row": (data_single, 1),
            "100-row     legacy Table.mutate_rows(rows)": (legacy, 100),
            "100-row     data client bulk_mutate_rows": (data_bulk, 100),
        }
        results = {name: [] for name in cases}
        for _ in range(args.rounds):
            for name, (write, size) in cases.items():
                results[name].append(timed_rows(write, args.greenlets, args.seconds, size))
        print(f"Bigtable emulator at {endpoint.address}, {args.greenlets} greenlets, "
              f"{args.rounds} rounds of {args.seconds:.0f} s, rows/s (median [min..max]):")
        for name, figures in results.items():
            print(f"  {name:46} {statistics.median(figures):9,.0f}  [{min(figures):,.0f}..{max(figures):,.0f}]")
        for size in ("single-row", "100-row"):
            legacy_rate = statistics.median(next(v for k, v in results.items() if k.startswith(size) and "legacy" in k))
            data_rate = statistics.median(next(v for k, v in results.items() if k.startswith(size) and "data" in k))
            print(f"  {size}: data client / legacy = {data_rate / legacy_rate:.2f}")
        table.delete()
    finally:
        endpoint.stop()


if __name__ == "__main__":
    main()
