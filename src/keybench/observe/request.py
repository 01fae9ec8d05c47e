"""What `keybench observe` is asked, with its defaults: light to import (no numpy, no
database client), so the CLI reads its defaults from here."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from keybench.check.request import DEFAULT_CHECK_ROWS
from keybench.model.params import SplitParams

DEFAULT_SINCE_S = 3600.0  # the last hour: a minute's statistics appear a few minutes after it ends
OBSERVE_FORMATS = ("text", "json")


@dataclass(frozen=True)
class ObserveRequest:
    backend: str
    project: str
    instance: str
    database: str | None = None  # Spanner
    cluster: str | None = None  # Bigtable
    tables: tuple[str, ...] = ()  # only these tables (and their indexes); empty: all
    template: str | None = None  # Bigtable: the tables' row-key template, to map and judge their keys
    since_s: float = DEFAULT_SINCE_S  # the window: this long before `end`
    end: dt.datetime | None = None  # None: now
    endpoint: str | None = None  # HOST:PORT of the service; None: Google's
    nodes: int = SplitParams.nodes
    rows: int = DEFAULT_CHECK_ROWS
    fail_on: tuple[str, ...] = ()  # observed levels that make observe exit 1
