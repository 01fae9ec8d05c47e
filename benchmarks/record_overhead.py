"""What the recording proxy of `keybench record` costs an application, and what its recording holds.

A bare client loop (Google's own client, one call at a time) runs in a child process, as an
application under `keybench record` does, against a fresh native emulator on a free port:
directly, then through a recording proxy in this process (the proxy and its tap, as `record`
runs them), alternated over --rounds. Per backend and operation (write: one row per call,
Bigtable MutateRow and Spanner a one-row commit; read: a streaming read of --read-rows rows)
it prints operations per second and p50/p99 latency, as the median and min-max over rounds,
the proxied/direct ratio of the median rates (goal: 0.8 or more), and the CPU the proxy
spent per operation (this process's CPU time while the proxied loop ran, over its operations).

Then the memory of a recording: --stream-writes writes fed to a Recorder (keys as an
application writes them, 24 bytes), and this process's peak RSS. Goal: 10 million writes in
at most 1 GB (the key stream spills to disk, as a run's does).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time

from _common import add_figures_option, figures_file, spread

import keybench.grpc_environment  # noqa: F401  (no gevent: the proxy relays on threads, as in `keybench record`)

TARGET_RATIO = 0.8
TARGET_STREAM_MB = 1024

CLIENT = r'''
import json, os, sys, time, uuid, warnings
warnings.simplefilter("ignore")
backend, op, count, read_rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
latencies = []
if backend == "bigtable":
    from google.cloud import bigtable
    client = bigtable.Client(project="bench", admin=True)
    table = client.instance("bench").table("t")
    if op == "read":
        for _ in range(count):
            start = time.perf_counter()
            rows = list(table.read_rows(start_key=b"k", limit=read_rows))
            latencies.append(time.perf_counter() - start)
    else:
        for n in range(count):
            row = table.direct_row(f"{uuid.uuid4()}".encode())
            row.set_cell("cf", b"v", b"x")
            start = time.perf_counter()
            row.commit()
            latencies.append(time.perf_counter() - start)
else:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import spanner
    client = spanner.Client(project="bench", credentials=AnonymousCredentials())
    database = client.instance("bench").database("bench")
    if op == "read":
        with database.snapshot(multi_use=True) as snapshot:
            for _ in range(count):
                start = time.perf_counter()
                rows = list(snapshot.read("T", ("Id",), spanner.KeySet(all_=True), limit=read_rows))
                latencies.append(time.perf_counter() - start)
    else:
        for n in range(count):
            start = time.perf_counter()
            with database.batch() as batch:
                batch.insert("T", ("Id", "V"), [(str(uuid.uuid4()), n)])
            latencies.append(time.perf_counter() - start)
print(json.dumps(latencies))
'''


def prepare(backend: str, address: str, read_rows: int) -> None:
    """The table the loops use, with rows to read."""
    env = {**os.environ, f"{backend.upper()}_EMULATOR_HOST": address}
    code = (r'''
import uuid, warnings, sys
warnings.simplefilter("ignore")
rows = int(sys.argv[2])
if sys.argv[1] == "bigtable":
    from google.cloud import bigtable
    from google.cloud.bigtable import column_family
    table = bigtable.Client(project="bench", admin=True).instance("bench").table("t")
    table.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
    batch = [table.direct_row(f"k{n:06d}".encode()) for n in range(rows)]
    for row in batch:
        row.set_cell("cf", b"v", b"x")
    table.mutate_rows(batch)
else:
    from google.auth.credentials import AnonymousCredentials
    from google.cloud import spanner
    client = spanner.Client(project="bench", credentials=AnonymousCredentials())
    instance = client.instance("bench", configuration_name="projects/bench/instanceConfigs/emulator-config",
                               node_count=1)
    instance.create().result(60)
    database = instance.database("bench", ddl_statements=[
        "CREATE TABLE T (Id STRING(36) NOT NULL, V INT64) PRIMARY KEY (Id)"])
    database.create().result(120)
    with database.batch() as batch:
        batch.insert("T", ("Id", "V"), [(f"k{n:06d}", n) for n in range(rows)])
''')
    subprocess.run([sys.executable, "-c", code, backend, str(read_rows)], env=env, check=True, timeout=300)


def loop(backend: str, address: str, op: str, count: int, read_rows: int) -> list[float]:
    env = {**os.environ, f"{backend.upper()}_EMULATOR_HOST": address,
           "GOOGLE_CLOUD_SPANNER_MULTIPLEXED_SESSIONS_FOR_RW": "false"}
    done = subprocess.run([sys.executable, "-c", CLIENT, backend, op, str(count), str(read_rows)], env=env,
                          capture_output=True, text=True, check=True, timeout=900)
    return json.loads(done.stdout)


def overhead(args) -> None:
    from keybench.infra import emulators
    from keybench.record.recorder import Recorder
    from keybench.record.taps import recording_proxy

    print(f"Python {sys.version.split()[0]}; rounds={args.rounds} writes={args.writes} reads={args.reads} "
          f"read_rows={args.read_rows}; the client loop in a child process, the proxy in this one")
    print("| backend | operation | direct ops/s | proxied ops/s | ratio | direct p50/p99 ms | proxied p50/p99 ms "
          "| proxy CPU µs/op |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for backend in args.backends:
        emulator = emulators.start(backend, emulators.free_port(), "benchmarks/record_overhead.py", detach=False)
        proxy = None
        try:
            prepare(backend, emulator.address, args.read_rows)
            proxy = recording_proxy(backend, Recorder(), emulator.address)
            for op, count in (("write", args.writes), ("read", args.reads)):
                rates: dict[str, list[float]] = {"direct": [], "proxied": []}
                p50: dict[str, list[float]] = {"direct": [], "proxied": []}
                p99: dict[str, list[float]] = {"direct": [], "proxied": []}
                proxy_cpu: list[float] = []
                for _ in range(args.rounds):
                    for case, address in (("direct", emulator.address), ("proxied", proxy.address)):
                        cpu_before = _cpu_s()
                        latencies = sorted(loop(backend, address, op, count, args.read_rows))
                        if case == "proxied":
                            proxy_cpu.append(1e6 * (_cpu_s() - cpu_before) / len(latencies))
                        rates[case].append(len(latencies) / sum(latencies))
                        p50[case].append(1000 * latencies[len(latencies) // 2])
                        p99[case].append(1000 * latencies[int(len(latencies) * 0.99)])
                ratio = statistics.median(rates["proxied"]) / statistics.median(rates["direct"])
                print(f"| {backend} | {op} | {spread(rates['direct'])} | {spread(rates['proxied'])} | {ratio:.2f} "
                      f"({'meets' if ratio >= TARGET_RATIO else 'misses'} {TARGET_RATIO}) | "
                      f"{statistics.median(p50['direct']):.2f} / {statistics.median(p99['direct']):.2f} | "
                      f"{statistics.median(p50['proxied']):.2f} / {statistics.median(p99['proxied']):.2f} | "
                      f"{spread(proxy_cpu)} |", flush=True)
        finally:
            if proxy is not None:
                proxy.close()
            emulator.stop()


def _cpu_s() -> float:
    """This process's CPU time (user and system, all threads): the proxy's, while a loop runs."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def stream_memory(writes: int) -> None:
    """A Recorder fed `writes` writes of 24-byte keys; this process's peak RSS after."""
    from keybench.record.recorder import Recorder, TableName

    recorder, table = Recorder(), TableName("bigtable", "projects/bench/instances/bench", "t")
    start = time.perf_counter()
    block = 10_000
    for first in range(0, writes, block):
        recorder.write(table, [(b"%016x#%07d" % (hash((first, n)) & (2**64 - 1), n), None)
                                         for n in range(min(block, writes - first))])
    elapsed = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"recording: {writes:,} writes in {elapsed:.1f} s ({writes / elapsed:,.0f} writes/s); peak RSS of this "
          f"process {peak_mb:,.0f} MB ({'meets' if peak_mb <= TARGET_STREAM_MB else 'misses'} "
          f"{TARGET_STREAM_MB} MB)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backends", default="bigtable,spanner", help="comma-separated (default bigtable,spanner)")
    p.add_argument("--rounds", type=int, default=3, help="alternated rounds per case (default 3)")
    p.add_argument("--writes", type=int, default=1000, help="write calls per loop (default 1000)")
    p.add_argument("--reads", type=int, default=300, help="streaming reads per loop (default 300)")
    p.add_argument("--read-rows", type=int, default=100, help="rows per read (default 100)")
    p.add_argument("--stream-writes", type=int, default=10_000_000,
                   help="writes fed to a Recorder for its memory (default 10,000,000; 0: skip)")
    add_figures_option(p, "record_overhead")
    args = p.parse_args()
    args.backends = [b.strip() for b in args.backends.split(",") if b.strip()]
    with figures_file(args.figures):
        overhead(args)
        if args.stream_writes:
            stream_memory(args.stream_writes)


if __name__ == "__main__":
    main()
