"""What the split model gave for a key space, kept by its inputs: the model is deterministic,
so a space whose writes and reads another one already had takes that one's figures."""

from __future__ import annotations

import hashlib
from collections import OrderedDict

import numpy as np

from keybench.model.model_result import SpaceMetrics

# model_space's arguments, in its order: (times, keys, lengths, reads, params, space, units, initial)
SpaceInputs = tuple


class SpaceMemo:
    """Spaces modelled so far, by a digest of all the model reads of them (its parameters,
    every write's time, key, length and split unit, the rows held before, the reads): the
    model is deterministic, so the same input gives the same figures. `keybench check` models
    many tables and indexes whose keys have the same shape (a UUID id, say), each case of an
    unknown column, and the fix's recheck of every table it did not change; the checks one
    process makes (the pytest plugin's, a schema by default and under --strict) share one.
    It holds figures only (about 1 KB a space, never keys), the `capacity` most recently used."""

    def __init__(self, capacity: int = 8192):
        self.capacity = capacity
        self.spaces: OrderedDict[bytes, SpaceMetrics] = OrderedDict()
        self.hits = 0

    @staticmethod
    def digest(inputs: SpaceInputs) -> bytes:
        """Of model_space's arguments, all but the space's name (it only labels the figures)."""
        times, keys, lengths, reads, params, _, units, initial = inputs
        h = hashlib.blake2b(repr(params).encode(), digest_size=20)
        for array in (times, keys, lengths, units, *(initial or ())):
            if array is None:
                h.update(b"\x00none")
                continue
            array = np.ascontiguousarray(array)
            h.update(f"{array.dtype.str}:{array.shape}".encode())
            h.update(array.data)
        h.update(repr(reads).encode())
        return h.digest()

    def get(self, digest: bytes) -> SpaceMetrics | None:
        found = self.spaces.get(digest)
        if found is not None:
            self.hits += 1
            self.spaces.move_to_end(digest)
        return found

    def put(self, digest: bytes, metrics: SpaceMetrics) -> None:
        self.spaces[digest] = metrics
        self.spaces.move_to_end(digest)
        while len(self.spaces) > self.capacity:
            self.spaces.popitem(last=False)
