"""Where a run's databases and tables live, and the rules that keep a real instance safe.

`--target emulator` (the default) only ever talks to emulators: found or started as
`emulators.py` describes. `--target real` writes to a Cloud Spanner or Bigtable instance the
user names explicitly, under these rules:

- the project and instance are given (`--project`, `--instance`), never guessed, and no
  `*_EMULATOR_HOST` variable is set: with one set the clients would go to an emulator while
  the user believes they write to a real instance;
- keybench creates only databases and tables named `kb-<run tag>-<strategy>` (see
  `location_name` below) and never an instance (`backends.spanner.ensure_instance`);
- it drops only what it created in the same run (`drive.stage.Stage.teardown`);
- it states the estimated number of writes before starting, and `--dry-run` prints the
  plan without contacting anything;
- credentials stay with the Google client libraries: nothing here reads or prints them.
"""

from __future__ import annotations

import os
import random
import re
import time
import uuid

from keybench.backends.connection import is_local
from keybench.design.strategies import Strategy
from keybench.errors import KeybenchError
from keybench.infra import emulators
from keybench.terminal import visible

TARGETS = ("emulator", "real")
# HOST:PORT: a DNS name or IPv4 address, or an IPv6 address in brackets; a port of 1 to 65535.
ENDPOINT = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\])"
                      r":(?:6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|[1-9]\d{0,3})")
PROJECT, INSTANCE = "keybench-local", "keybench"  # the emulator's project and instance
REAL_ENDPOINTS = {"spanner": "spanner.googleapis.com", "bigtable": "bigtable.googleapis.com"}
# Closed loop has no rate to multiply, so the estimate takes an upper bound per user: no user
# completes an insert in under about 1 ms (a Spanner mutation on the emulator takes about 1 ms,
# README.md, *Emulator behaviour keybench relies on*; the Bigtable data client wrote 2,350 rows/s from one process,
# benchmarks/README.md). Over the network to a real instance each call is slower, so the
# real count stays below this bound.
CLOSED_LOOP_OPS_PER_USER_CEILING = 1000.0


def check(options) -> None:
    """The refusals of `--target`, `--project` and `--instance` (called by RunOptions.validate)."""
    if options.target not in TARGETS:
        raise KeybenchError(f"unknown --target {options.target!r}; valid: {', '.join(TARGETS)}")
    if options.target == "emulator":
        if options.project or options.instance or options.endpoint:
            raise KeybenchError("--project, --instance and --endpoint name a real instance, and keybench talks to "
                                "one only with --target real; add it, or drop them to use the emulators")
        return
    if options.endpoint is not None and not ENDPOINT.fullmatch(options.endpoint):
        raise KeybenchError(f"--endpoint {visible(options.endpoint)!r} is not HOST:PORT (e.g. "
                            "spanner.us-central1.rep.googleapis.com:443, or [::1]:9443)")
    missing = [f"--{name}" for name in ("project", "instance") if not getattr(options, name)]
    if missing:
        raise KeybenchError(f"--target real needs {' and '.join(missing)}: keybench never guesses which real "
                            "instance to write to")
    set_vars = [var for var in emulators.ENV_VARS.values() if os.environ.get(var)]
    if set_vars:
        raise KeybenchError(f"--target real, but {' and '.join(set_vars)} {'is' if len(set_vars) == 1 else 'are'} "
                            "set: ambiguous, the clients would go "
                            "to that emulator; unset it for a real instance, or drop --target real")


def is_real(options) -> bool:
    return options.target == "real"


def api_endpoint(options) -> str | None:
    """The real service's HOST:PORT the clients are given (`--endpoint`); None: the libraries'
    default endpoint, or the emulator."""
    return options.endpoint if is_real(options) else None


def endpoint(options, backend: str) -> emulators.Endpoint:
    """The emulator of a backend (found or started), or the real service with its instance."""
    if not is_real(options):
        return emulators.resolve(backend)
    return emulators.Endpoint(backend, options.endpoint or REAL_ENDPOINTS[backend],
                              f"projects/{options.project}/instances/{options.instance}", target="real",
                              project=options.project, instance=options.instance)


def check_credentials(options) -> None:
    """A real target needs Google credentials: looked for before anything starts (no run
    directory, no stage), so their absence is one line and exit 2, not one failure per stage.
    The message never names the key file: its path may say whose it is."""
    if is_real(options):
        need_credentials(options.endpoint, "--target real")


def need_credentials(endpoint: str | None, what: str) -> None:
    """Refuse in one line when Google's credentials are needed for `endpoint` and none are found."""
    if endpoint and is_local(endpoint):
        return  # a local endpoint gets anonymous credentials (backends.connection.client_settings)
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        google.auth.default()
    except DefaultCredentialsError:
        raise KeybenchError(f"{what}: no usable Google credentials (set GOOGLE_APPLICATION_CREDENTIALS to a "
                            "key file, or run `gcloud auth application-default login`)") from None


def run_tag(epoch_s: float | None = None) -> str:
    """A short base-36 stamp of the start time and four random digits: database ids stay within
    30 characters, and two runs started in the same second still get different ones."""
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    n, out = int(time.time() if epoch_s is None else epoch_s), ""
    while n:
        n, r = divmod(n, 36)
        out = digits[r] + out
    return out + "".join(random.choice(digits) for _ in range(4))


def location_name(run_id: str, strategy: Strategy) -> str:
    """A database (<= 30 chars) or table id that carries the keybench prefix and the run id."""
    dialect = {"postgresql": "-pg", "googlesql": "-gsql"}.get(strategy.dialect, "")
    base = f"kb-{run_id}-{strategy.name}{dialect}".replace("_", "-")
    if len(base) <= 30:
        return base
    return f"{base[:25]}-{uuid.uuid5(uuid.NAMESPACE_URL, base).hex[:4]}"


def project_instance(ep: emulators.Endpoint) -> tuple[str, str]:
    return (ep.project or PROJECT, ep.instance or INSTANCE)


def record(options) -> dict:
    """What run.json says about the target: which instance, never which credentials."""
    if is_real(options):
        return {"kind": "real", "project": options.project, "instance": options.instance,
                "endpoint": options.endpoint}
    return {"kind": "emulator", "project": PROJECT, "instance": INSTANCE}


# ---------------------------------------------------------------- the estimate and the plan


def stage_writes(strategy: Strategy, options) -> float:
    """Writes one stage makes: inserts (open loop: the rate; closed loop: the per-user
    ceiling times the writers), an interleaving parent's upsert with each insert, and a
    migration's preloaded rows. Readers write at most the one row they start from each."""
    roles = options.workload.roles(strategy.backend)
    inserts_per_s = options.rate if options.rate and roles.writers else roles.writers * CLOSED_LOOP_OPS_PER_USER_CEILING
    writes_per_insert = 2 if strategy.parent_table else 1
    preloaded = (strategy.preload or {}).get("rows", 0)
    return (inserts_per_s * options.duration_s + roles.readers) * writes_per_insert + preloaded


def estimate_line(options, stages: list[Strategy], tag: str) -> str:
    """The one line a real-target run prints before it starts (and a dry run prints too)."""
    writes = round(sum(stage_writes(s, options) for s in stages) * options.repeat)
    locations = sum(s.tables for s in stages) * options.repeat  # a table per tenant: one per tenant
    where = (f"target real project={options.project} instance={options.instance}" if is_real(options)
             else "target emulator")
    bound = "about" if options.rate else "at most about"
    return (f"keybench: {where}: {bound} {writes:,} writes into {locations} new databases/tables "
            f"named kb-{tag}-*")


def plan_lines(options, stages: list[Strategy], tag: str) -> list[str]:
    """`--dry-run`: the stages, the names they would create, and the write estimate."""
    load = f"inserts at {options.rate:g}/s" if options.rate else "closed loop"
    roles = "; ".join(f"{b}: writers {r.writers}, readers {r.readers}"
                      for b, r in ((b, options.workload.roles(b)) for b in dict.fromkeys(s.backend for s in stages)))
    header = (f"dry run: {len(stages) * options.repeat} stage(s), {options.duration_s:g} s each, {options.users} "
              f"users ({roles}), {load}; nothing is contacted or created")
    lines = [header]
    for repetition in range(1, options.repeat + 1):
        for strategy in stages:
            name = location_name(tag, strategy)
            kind = "database" if strategy.backend == "spanner" else "table"
            if strategy.tables > 1:
                tenants = strategy.parts[0].buckets
                kind, name = f"{strategy.tables} tables", f"{name}-{tenants[0]} .. {name}-{tenants[-1]}"
            suffix = f" (repetition {repetition})" if options.repeat > 1 else ""
            lines.append(f"  {strategy.label}: would create {kind} {name}{suffix}")
    lines.append(estimate_line(options, stages, tag))
    if is_real(options) and options.observe_wait_s > 0:
        lines.append(f"after each stage: wait at most {options.observe_wait_s:g} s for the service's statistics of "
                     "its minutes, then read its hot splits or tablets before the drop (--observe-wait 0: do not)")
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
