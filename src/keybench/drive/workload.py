"""The workload: which operation each user does next, on which user or device, and when.

Identical for every strategy of a backend: the same operation mix, population and
seeded choices, so that strategies differ only in their key design.

Each user has one role for its whole life: a writer only inserts, a reader only reads
(choosing its reads by their weights in the mix). A read can take a hundred times longer
than an insert (a full scan on the emulator: 100-900 ms), and a user that did both would
insert only between its reads, so reads and writes come from separate users and a slow
read never throttles the write rate.
"""

from __future__ import annotations

import itertools
import random

from keybench.design.distributions import Skew
from keybench.drive.pacing import Pacer, ReadShare
from keybench.drive.partition import SOLE, Partition
from keybench.drive.settings import INSERT, READER, WRITER, WorkloadSettings


class UserWorkload:
    """One simulated user's seeded stream of choices, in one role (WRITER or READER)."""

    _tags = itertools.count(1)

    def __init__(self, settings: WorkloadSettings, backend: str, seed: int, index: int,
                 partition: Partition | None = None, role: str = WRITER):
        self.settings = settings
        self.backend = backend
        self.partition = partition or SOLE
        self.skew = Skew.parse(settings.skew)
        self.role = role
        self.rng = random.Random(f"{seed}:{backend}:{index}")
        self.weights = {INSERT: 1} if role == WRITER else settings.read_weights(backend)
        # Each reader starts its turn at a different point, so two readers do not read in step.
        self.credit = {op: self.rng.random() * w for op, w in self.weights.items()}
        self.tag = f"{index}.{next(self._tags)}"
        self.sequence = 0

    def next_operation(self) -> str:
        """The operation whose turn it is, by smooth weighted round robin: every operation gets
        its weight's share within each round of sum(weights) picks. A reader makes only tens of
        reads in a short stage; a random draw would leave some read with no sample at all."""
        if len(self.weights) == 1:
            return next(iter(self.weights))
        total = 0
        for op, weight in self.weights.items():
            self.credit[op] += weight
            total += weight
        op = max(self.credit, key=self.credit.__getitem__)
        self.credit[op] -= total
        return op

    def next_entity(self) -> int:
        return self.partition.entity(self.rng, self.settings.population, self.skew)

    def pacer(self) -> Pacer | None:
        rate = self.settings.rate_per_user(self.backend, self.role)
        return Pacer(rate, self.rng.random()) if rate > 0 else None

    def read_share(self) -> ReadShare | None:
        """A closed-loop reader's rests (None: a writer, an open-loop reader, or share 1)."""
        share = self.settings.read_share
        if self.role != READER or self.settings.read_rate or share >= 1.0:
            return None
        return ReadShare(share, self.weights)

    def next_write_id(self, run_tag: str) -> str:
        self.sequence += 1
        return f"{run_tag}-{self.tag}-{self.sequence}"

    def pick(self, items):
        return items[self.rng.randrange(len(items))]
