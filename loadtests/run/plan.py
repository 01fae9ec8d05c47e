"""The stages of a run, in run order, checked against the documented limits before any load."""

from __future__ import annotations

from loadtests.design import strategies
from loadtests.errors import KeybenchError
from loadtests.run.options import RunOptions


def plan_stages(options: RunOptions) -> list[strategies.Strategy]:
    """The stages in run order; a strategy name applies to every chosen backend that has it."""
    names = list(options.strategies or ())
    catalogues = {
        (b, d): strategies.catalogue(b, d, buckets=options.buckets)
        for b in options.backends for d in (options.dialects if b == "spanner" else strategies.DIALECTS[b])
    }
    unknown = [n for n in names if not any(n in c for c in catalogues.values())]
    if unknown:
        valid = "; ".join(f"{b}: {', '.join(c)}" for (b, d), c in catalogues.items() if d in ("", "googlesql"))
        raise KeybenchError(f"unknown strategy {', '.join(map(repr, unknown))}; valid ones are {valid}")
    stages = []
    for backend in options.backends:
        dialects = [d for (b, d) in catalogues if b == backend]
        available = catalogues[(backend, dialects[0])]
        for name in ([n for n in names if n in available] if names else list(available)):
            stages.extend(catalogues[(backend, d)][name] for d in dialects)  # each strategy in every dialect
    if not stages:
        where = strategies.schemas_root()
        raise KeybenchError(f"nothing to run: no strategy of {', '.join(options.backends)} under {where}")
    for strategy in stages:
        strategies.check_rules(strategy, options.settings.population, options.settings.payload_bytes)
        if options.settings.batch_size > 1 and any(p.generated for p in strategy.parts):
            # Their inserts are DML that returns the generated key, one row per transaction.
            raise KeybenchError(f"--batch-size {options.settings.batch_size}: {strategy.label} has keys the "
                                f"database generates, which keybench inserts one row at a time; leave it out")
    return stages
