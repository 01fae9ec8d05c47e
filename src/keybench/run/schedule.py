"""The stages of a run, in run order, checked against the documented limits before any load."""

from __future__ import annotations

from keybench.design import limits, strategies
from keybench.errors import KeybenchError
from keybench.run.options import RunOptions


def _with_user_strategies(catalogue: dict, designs: dict, backend: str) -> dict:
    """The catalogue, then the user's designs (`--strategy-dir`); a name both use is refused: the
    summary tells designs apart by name."""
    clash = [n for n in designs if n in catalogue]
    if clash:
        raise KeybenchError(f"--strategy-dir: {', '.join(f'{backend}:{n}' for n in clash)} is the name of a catalogue "
                            f"strategy; rename the folder ({designs[clash[0]].directory})")
    return {**catalogue, **designs}


def schedule_stages(options: RunOptions) -> list[strategies.Strategy]:
    """The stages in run order; a strategy name applies to every chosen backend that has it."""
    names = list(options.strategies or ())
    catalogues = {
        (b, d): _with_user_strategies(strategies.catalogue(b, d, buckets=options.buckets),
                              strategies.user_strategies(options.strategy_dirs, b, d, options.buckets), b)
        for b in options.backends for d in (options.dialects if b == "spanner" else strategies.DIALECTS[b])
    }
    unknown = [n for n in names if not any(n in c for c in catalogues.values())]
    if unknown and "spanner" in options.backends:
        # a user's design is written in one dialect: named, but left out by --dialects
        other = [d for d in strategies.DIALECTS["spanner"] if d not in options.dialects]
        elsewhere = {n: d for d in other for n in strategies.user_strategies(options.strategy_dirs, "spanner",
                                                                             d) if n in unknown}
        if elsewhere:
            raise KeybenchError("; ".join(f"spanner:{n} has a fixture in {d} only ({d}.sql), which --dialects "
                                          f"{','.join(options.dialects)} leaves out" for n, d in elsewhere.items()))
    if unknown:
        valid = "; ".join(f"{b}: {', '.join(c)}" for (b, d), c in catalogues.items() if d in ("", "googlesql"))
        raise KeybenchError(f"unknown strategy {', '.join(map(repr, unknown))}; valid ones are {valid}")
    stages: list[strategies.Strategy] = []
    for backend in options.backends:
        dialects = [d for (b, d) in catalogues if b == backend]
        available = {n: None for d in dialects for n in catalogues[(backend, d)]}
        for name in ([n for n in names if n in available] if names else list(available)):
            # each strategy in every dialect it has a fixture of (a user's design may have one only)
            stages.extend(catalogues[(backend, d)][name] for d in dialects if name in catalogues[(backend, d)])
    if not stages:
        where = strategies.schemas_root()
        raise KeybenchError(f"nothing to run: no strategy of {', '.join(options.backends)} under {where}")
    for strategy in stages:
        limits.check_rules(strategy, options.settings.population, options.settings.payload_bytes)
        if options.settings.batch_size > 1 and any(p.generated for p in strategy.parts):
            # Their inserts are DML that returns the generated key, one row per transaction.
            raise KeybenchError(f"--batch-size {options.settings.batch_size}: {strategy.label} has keys the "
                                f"database generates, which keybench inserts one row at a time; leave it out")
    return stages
