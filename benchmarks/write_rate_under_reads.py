"""Does a stage's write rate survive its readers? Each design's default stage against an
insert-only stage of the same design, in the same run.

    .venv/bin/python benchmarks/write_rate_under_reads.py [--spanner a,b] [--bigtable c,d] [--dialect googlesql]
        [--users 8] [--seconds 10] [--rounds 3] [--readers N] [--read-rate R]

Both stages are built and driven as `keybench run` builds and drives them (`run_stage`, on an
emulator restarted before every stage): the default stage with `keybench run`'s defaults
(writers and readers as `--readers` / `--read-rate` give them), the insert-only stage with
`--mix insert=1`, so every user writes. The two alternate design by design (A B, A B, ...),
so drift over the run lands on both. Inserts/s and reads/s are the summary's `rps`: the
stage's operations over its seconds. The ratio is computed per round, for each round's pair.
"""

import argparse
import dataclasses
import time

from _common import add_figures_option, figures_file, spread

import keybench.infra.runtime  # noqa: F401  (gevent and gRPC set-up, before any client exists)
from keybench.design import strategies
from keybench.drive.settings import INSERT, WorkloadSettings
from keybench.infra import emulators, target
from keybench.run.options import RunOptions
from keybench.run.stage_run import run_stage

SPANNER_DESIGNS = ("timestamp_first", "uuid4_string", "bit_reversed_sequence", "hash_shard_generated",
                   "migrate_skip_range", "migrate_start_counter")
BIGTABLE_DESIGNS = ("timestamp_first", "reversed_id", "field_promoted", "salted", "single_row_counter",
                    "new_row_per_reading")
INSERT_ONLY = {INSERT: 1}
TARGET_RATIO = 0.5


def stage_rates(strategy, options: RunOptions, ep: emulators.Endpoint, tag: str, label: str) -> tuple[float, float]:
    if ep.restartable:
        ep.restart()  # as `keybench run` does before every stage: no history from the one before
    emulators.use(ep)
    done = run_stage(strategy, ep, options, tag, label)
    if not done.result.integrity.verified or done.result.failures:
        print(f"  NOTE {label}: {done.result.failures} failures, integrity {done.result.integrity.describe()}")
    result = done.result
    return result.ops_per_s(result.inserts), result.ops_per_s(result.reads)


def run_benchmark(args: argparse.Namespace) -> None:
    default = RunOptions(users=args.users, duration_s=args.seconds, report=False,
                         settings=WorkloadSettings(readers=args.readers, read_rate=args.read_rate,
                                                   read_share=args.read_share))
    insert_only = dataclasses.replace(default, settings=WorkloadSettings(mix=INSERT_ONLY))
    default.validate()
    insert_only.validate()
    designs = [("spanner", n.strip()) for n in args.spanner.split(",") if n.strip()]
    designs += [("bigtable", n.strip()) for n in args.bigtable.split(",") if n.strip()]
    chosen = {(b, n): strategies.select(b, [n], args.dialect if b == "spanner" else None)[0] for b, n in designs}
    endpoints = {b: target.endpoint(default, b) for b in dict.fromkeys(b for b, _ in designs)}
    tag = target.run_tag()
    figures: dict = {d: {"mixed": [], "insert_only": [], "reads": [], "ratio": []} for d in designs}
    started = time.monotonic()
    try:
        for round_number in range(1, args.rounds + 1):
            for design in designs:
                label = f"round {round_number}/{args.rounds} {design[0]}:{design[1]}"
                ep, strategy = endpoints[design[0]], chosen[design]
                mixed, reads = stage_rates(strategy, default, ep, tag, f"{label} default")
                alone, _ = stage_rates(strategy, insert_only, ep, tag, f"{label} insert-only")
                f = figures[design]
                f["mixed"].append(mixed)
                f["insert_only"].append(alone)
                f["reads"].append(reads)
                f["ratio"].append(mixed / alone if alone else 0.0)
    finally:
        for ep in endpoints.values():
            ep.stop()

    roles = {b: default.workload.roles(b) for b in endpoints}
    print(f"\n{args.rounds} round(s) of {args.seconds:g} s per stage, {args.users} users; default stage: "
          + "; ".join(f"{b} {r.writers} writers, {r.readers} readers" for b, r in roles.items())
          + f", read rate {default.settings.read_rate:g}/s (0: closed loop, read share "
            f"{default.settings.read_share:g}); "
          f"{(time.monotonic() - started) / 60:.1f} min; median [min..max]")
    header = ("design", "inserts/s with readers", "inserts/s insert-only", "ratio", "reads/s")
    print("| " + " | ".join(header) + " |\n|---|---:|---:|---:|---:|")
    for (backend, name), f in figures.items():
        label = f"{backend} {name}" + (f" ({args.dialect})" if backend == "spanner" else "")
        print(f"| {label} | {spread(f['mixed'])} | {spread(f['insert_only'])} | {spread(f['ratio'], '.2f')} | "
              f"{spread(f['reads'], '.1f')} |")
    below = [f"{b} {n}" for (b, n), f in figures.items() if min(f["ratio"]) < TARGET_RATIO]
    print(f"rounds with a ratio below {TARGET_RATIO}: " + (", ".join(below) if below else "none"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spanner", default=",".join(SPANNER_DESIGNS), help="Spanner designs ('' for none)")
    parser.add_argument("--bigtable", default=",".join(BIGTABLE_DESIGNS), help="Bigtable designs ('' for none)")
    parser.add_argument("--dialect", default=strategies.DIALECTS["spanner"][0], help="the Spanner designs' dialect")
    parser.add_argument("--users", type=int, default=RunOptions().users)
    parser.add_argument("--seconds", type=float, default=RunOptions().duration_s)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--readers", type=int, help="the default stage's readers (default: keybench run's)")
    parser.add_argument("--read-rate", type=float, default=WorkloadSettings.read_rate,
                        help="the default stage's reads/s (default: keybench run's)")
    parser.add_argument("--read-share", type=float, default=WorkloadSettings.read_share,
                        help="the default stage's readers' share of time reading (default: keybench run's)")
    add_figures_option(parser, "write_rate_under_reads")
    args = parser.parse_args()

    with figures_file(args.figures):
        run_benchmark(args)


if __name__ == "__main__":
    main()
