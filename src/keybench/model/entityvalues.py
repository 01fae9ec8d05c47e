"""The values of a key part that depends on the entity alone (a tenant, a device type, a
domain), for many events at once, remembered across the blocks of a simulation: the same
entities come back in every block, and computing one costs microseconds of Python."""

from __future__ import annotations

import random
import weakref

import numpy as np

from keybench.design.events import WriteEvent
from keybench.design.keys import Part
from keybench.model.textcolumns import Column, from_bytes, lookup, take

ENTITY_MEMO_SIZE = 1 << 22  # entities remembered per part (8 bytes each): past it, computed per block


class EntityValues:
    """An entity-only part's values, kept across the blocks of a simulation: the same entities
    come back in every block, and computing one costs microseconds of Python. Entities below
    ENTITY_MEMO_SIZE are remembered, as the number of their value among the distinct values
    (a tenant or a device type has few); others are computed in each block."""

    def __init__(self) -> None:
        self.value_of = np.full(0, -1, dtype=np.int64)  # entity -> its value's number (-1: not yet)
        self.number: dict[bytes, int] = {}  # distinct value -> its number
        self.table: Column | None = None  # the distinct values, by number

    def column(self, part: Part, entities: np.ndarray, where: np.ndarray) -> Column | None:
        """Row i's value, of entity entities[where[i]]; None when an entity is past the memo."""
        if not len(entities) or entities.min() < 0 or entities.max() >= ENTITY_MEMO_SIZE:
            return None
        if entities.max() >= len(self.value_of):
            grown = np.full(int(entities.max()) + 1, -1, dtype=np.int64)
            grown[:len(self.value_of)] = self.value_of
            self.value_of = grown
        unknown = entities[self.value_of[entities] < 0]
        if len(unknown):
            for entity, value in zip(unknown.tolist(), _values(part, unknown), strict=True):
                self.value_of[entity] = self.number.setdefault(value, len(self.number))
            self.table = from_bytes(list(self.number))
        assert self.table is not None  # every entity asked for has its value's number
        return take(self.table, self.value_of[entities][where])


_MEMO: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # a part's function -> its EntityValues


def entity_column(part: Part, entities: np.ndarray, where: np.ndarray) -> Column:
    """Row i's value of `part`, for entity entities[where[i]] (`entities` distinct)."""
    column = _MEMO.setdefault(part.compute, EntityValues()).column(part, entities, where)
    return column if column is not None else lookup(_values(part, entities), where)


def _values(part: Part, entities: np.ndarray) -> list[bytes]:
    rng = random.Random(0)  # never drawn from: the part depends on the entity alone
    return [part.compute(WriteEvent(e, 0, "", 0), rng).encode() for e in entities.tolist()]
