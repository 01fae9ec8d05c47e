"""After a stage's load on a real instance: the service's own statistics of its minutes, read
beside the model. Cloud Spanner reports each minute's warm and hot splits a few minutes after
the minute ends ("Hot split statistics"); Bigtable lists hot tablets a minute at a time.
keybench waits for them, at most --observe-wait and
saying so, reads the splits of the stage's database before it drops it, and maps the hottest
onto the design's key and onto the share of the stage's recorded writes it held
(model.observed.stage_observation). A refusal or a wait that runs out is `unknown`, with its
reason: the stage itself stands."""

from __future__ import annotations

import datetime as dt
import time

from keybench.errors import KeybenchError
from keybench.infra.interrupt import INTERRUPT
from keybench.infra.progress import progress
from keybench.model.observed import stage_observation

POLL_S = 10.0  # between two looks at how far the statistics reach
SAY_EVERY_S = 30.0  # a progress line while waiting


def minute_end(epoch_s: float) -> dt.datetime:
    """The end of the minute `epoch_s` falls in: the INTERVAL_END of its statistics."""
    moment = dt.datetime.fromtimestamp(epoch_s, dt.UTC).replace(second=0, microsecond=0)
    return moment + dt.timedelta(minutes=1)


def observe_stage(stage, load_start_s: float, load_end_s: float, wait_s: float, label: str) -> dict[str, str]:
    """The observed columns of a stage (columns.OBSERVED_COLUMNS) from its backend's service."""
    backend = stage.backend
    first, last = minute_end(load_start_s) - dt.timedelta(minutes=1), minute_end(load_end_s)
    waited = time.monotonic()
    said = waited
    progress(f"  {label}  waiting for the service's statistics of the minute to {last:%H:%M} UTC "
             f"(at most {wait_s:g} s; --observe-wait)")
    try:
        while True:
            until = backend.statistics_until()
            if until is not None and until >= last:
                break
            left = wait_s - (time.monotonic() - waited)
            if INTERRUPT.requested or left <= 0:
                why = "interrupted" if INTERRUPT.requested else f"not there after {wait_s:g} s"
                progress(f"  {label}  the statistics of {last:%H:%M} UTC: {why}; observed unknown")
                return {"observed": "unknown", "observed_where": f"the statistics of {last:%H:%M} UTC: {why}"}
            if time.monotonic() - said >= SAY_EVERY_S:
                said = time.monotonic()
                reach = f"they reach {until:%H:%M}" if until is not None else "none yet"
                progress(f"  {label}  still waiting for the statistics of {last:%H:%M} UTC ({reach}; "
                         f"{said - waited:.0f} s)")
            time.sleep(min(POLL_S, left))
        rows = backend.hot_ranges(first, last)
    except KeybenchError as exc:
        progress(f"  {label}  cannot read the service's statistics: {exc}")
        return {"observed": "unknown", "observed_where": str(exc)}
    observed = stage_observation(stage.strategy, rows, stage.collector.key_stream)
    progress(f"  {label}  observed {observed.get('observed', 'none')}"
             + (f" ({observed['observed_where']})" if observed.get("observed_where") else ""))
    return observed
