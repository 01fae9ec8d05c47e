"""A process's share of a distributed run: which entities, insert numbers and user indexes
worker i of n takes, so that two workers never write the same key."""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass

from keybench.design.distributions import UNIFORM, Skew

USERS_PER_WORKER = 100_000  # user indexes per worker: worker i's users are i * 100,000 + 1, + 2, ...


@dataclass(frozen=True)
class Partition:
    """This process's share of a distributed run: worker `index` of `count`. Workers take
    disjoint entities and insert numbers, so two of them never write the same key."""

    index: int = 0
    count: int = 1

    def entity(self, rng: random.Random, population: int, skew: Skew = UNIFORM) -> int:
        """An entity of this partition's share (every count-th from index + 1), picked as `skew`
        says: the partition's first entity is its heaviest."""
        share = (population - 1 - self.index) // self.count + 1
        if skew.exponent is None:
            return rng.randint(0, share - 1) * self.count + self.index + 1
        return skew.index(rng.random(), share) * self.count + self.index + 1

    def insert_numbers(self) -> itertools.count:
        return itertools.count(self.index + 1, self.count)

    def user_index(self, local: int) -> int:
        return local if self.count == 1 else self.index * USERS_PER_WORKER + local

    @staticmethod
    def writer_of(write_id: str) -> int | None:
        """The index of the worker whose user wrote `write_id` (UserWorkload.next_write_id);
        None for a row no user wrote (a preload row)."""
        tag = write_id.rsplit("-", 2)[-2] if write_id.count("-") >= 2 else ""
        user = tag.split(".", 1)[0]
        return int(user) // USERS_PER_WORKER if user.isdigit() else None

    def share(self, total: int) -> int:
        """This worker's share of `total` users of one role, spread as evenly as Locust spreads users."""
        return total // self.count + (1 if self.index < total % self.count else 0)


SOLE = Partition()  # a run without workers
