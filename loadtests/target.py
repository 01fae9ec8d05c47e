"""Where a run's databases and tables live, and the rules that keep a real instance safe.

`--target emulator` (the default) only ever talks to emulators: found or started as
`emulators.py` describes. `--target real` writes to a Cloud Spanner or Bigtable instance the
user names explicitly, under these rules:

- the project and instance are given (`--project`, `--instance`), never guessed, and no
  `*_EMULATOR_HOST` variable is set: with one set the clients would go to an emulator while
  the user believes they write to a real instance;
- keybench creates only databases and tables named `kb-<run tag>-<strategy>` (see
  `stage.location_name`) and never an instance (`backends.spanner.ensure_instance`);
- it drops only what it created in the same run (`OwnLocationsOnly`);
- it states the estimated number of writes before starting, and `--dry-run` prints the
  plan without contacting anything;
- credentials stay with the Google client libraries: nothing here reads or prints them.
"""

from __future__ import annotations

import os

from loadtests import emulators
from loadtests.errors import KeybenchError
from loadtests.stage import INSTANCE, PROJECT, location_name
from loadtests.strategies import Strategy

TARGETS = ("emulator", "real")
REAL_ENDPOINTS = {"spanner": "spanner.googleapis.com", "bigtable": "bigtable.googleapis.com"}
# Closed loop has no rate to multiply, so the estimate takes an upper bound per user: no user
# completes an insert in under about 1 ms (a Spanner mutation on the emulator takes about 1 ms,
# emulator-facts.md; the Bigtable data client wrote 2,350 rows/s from one process,
# benchmarks/README.md). Over the network to a real instance each call is slower, so the
# real count stays below this bound.
CLOSED_LOOP_OPS_PER_USER_CEILING = 1000.0


def check(options) -> None:
    """The refusals of `--target`, `--project` and `--instance` (called by RunOptions.validate)."""
    if options.target not in TARGETS:
        raise KeybenchError(f"unknown --target {options.target!r}; valid: {', '.join(TARGETS)}")
    if options.target == "emulator":
        if options.project or options.instance:
            raise KeybenchError("--project and --instance name a real instance, and keybench talks to one only "
                                "with --target real; add it, or drop them to use the emulators")
        return
    missing = [f"--{name}" for name in ("project", "instance") if not getattr(options, name)]
    if missing:
        raise KeybenchError(f"--target real needs {' and '.join(missing)}: keybench never guesses which real "
                            "instance to write to")
    set_vars = [var for var in emulators.ENV_VARS.values() if os.environ.get(var)]
    if set_vars:
        raise KeybenchError(f"--target real, but {' and '.join(set_vars)} is set: ambiguous, the clients would go "
                            "to that emulator; unset it for a real instance, or drop --target real")


def is_real(options) -> bool:
    return options.target == "real"


def endpoint(options, backend: str) -> emulators.Endpoint:
    """The emulator of a backend (found or started), or the real service with its instance."""
    if not is_real(options):
        return emulators.resolve(backend)
    return emulators.Endpoint(backend, REAL_ENDPOINTS[backend], f"projects/{options.project}/instances/"
                              f"{options.instance}", target="real", project=options.project,
                              instance=options.instance)


def project_instance(ep: emulators.Endpoint) -> tuple[str, str]:
    return (ep.project or PROJECT, ep.instance or INSTANCE)


def record(options) -> dict:
    """What run.json says about the target: which instance, never which credentials."""
    if is_real(options):
        return {"kind": "real", "project": options.project, "instance": options.instance}
    return {"kind": "emulator", "project": PROJECT, "instance": INSTANCE}


# ---------------------------------------------------------------- the estimate and the plan


def stage_writes(strategy: Strategy, options) -> float:
    """Writes one stage makes: inserts (open loop: the rate; closed loop: the per-user
    ceiling) times the insert share of the mix, an interleaving parent's upsert with each
    insert, and a migration's preloaded rows."""
    settings = options.settings
    weights = dict(zip(settings.operations(strategy.backend), settings.weights(strategy.backend)))
    total = sum(weights.values())
    insert_share = weights["insert"] / total if total else 0.0
    ops_per_s = options.rate if options.rate else options.users * CLOSED_LOOP_OPS_PER_USER_CEILING
    writes_per_insert = 2 if strategy.parent_table else 1
    preloaded = (strategy.preload or {}).get("rows", 0)
    return ops_per_s * insert_share * options.duration_s * writes_per_insert + preloaded


def estimate_line(options, stages: list[Strategy], tag: str) -> str:
    """The one line a real-target run prints before it starts (and a dry run prints too)."""
    writes = round(sum(stage_writes(s, options) for s in stages) * options.repeat)
    locations = len(stages) * options.repeat
    where = (f"target real project={options.project} instance={options.instance}" if is_real(options)
             else "target emulator")
    bound = "about" if options.rate else "at most about"
    return (f"keybench: {where}: {bound} {writes:,} writes into {locations} new databases/tables "
            f"named kb-{tag}-*")


def plan_lines(options, stages: list[Strategy], tag: str) -> list[str]:
    """`--dry-run`: the stages, the names they would create, and the write estimate."""
    load = f"rate {options.rate:g} ops/s" if options.rate else "closed loop"
    header = (f"dry run: {len(stages) * options.repeat} stage(s), {options.duration_s:g} s each, {options.users} "
              f"users, {load}; nothing is contacted or created")
    lines = [header]
    for repetition in range(1, options.repeat + 1):
        for strategy in stages:
            name = location_name(tag, strategy)
            kind = "database" if strategy.backend == "spanner" else "table"
            suffix = f" (repetition {repetition})" if options.repeat > 1 else ""
            lines.append(f"  {strategy.label}: would create {kind} {name}{suffix}")
    lines.append(estimate_line(options, stages, tag))
    return lines


def announce(options, stages: list[Strategy], tag: str) -> bool:
    """Before anything is contacted: a dry run prints its plan (True: the run ends here); a
    real target states the estimate first."""
    if options.dry_run:
        print("\n".join(plan_lines(options, stages, tag)), flush=True)
        return True
    if is_real(options):
        print(estimate_line(options, stages, tag), flush=True)
    return False


# ---------------------------------------------------------------- drop only what this run made


class OwnLocationsOnly:
    """A backend whose drop() drops only what its own create() made in this run.

    Without it, a stage whose create() failed (say the name was taken, by another run) would
    drop somebody else's database or table in its clean-up. `created` is the run's ledger
    of names (shared by every stage of one endpoint); every other attribute is the backend's.
    """

    def __init__(self, backend, created: set[str]):
        object.__setattr__(self, "_backend", backend)
        object.__setattr__(self, "_created", created)

    def create(self) -> None:
        self._backend.create()
        self._created.add(self._backend.location)

    def drop(self) -> None:
        if self._backend.location in self._created:
            self._backend.drop()
            self._created.discard(self._backend.location)

    def __getattr__(self, name):
        return getattr(self._backend, name)

    def __setattr__(self, name, value):
        setattr(self._backend, name, value)  # e.g. the master's absorbed_aborts

