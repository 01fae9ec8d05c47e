"""Key values the database fills, which a write does not carry: modelled from the schema as
`check` reads it (check/inference.py's patterns), and counted as modelled.

- `DEFAULT (GENERATE_UUID())`: a random version-4 UUID, as the database makes;
- a sequence (`DEFAULT (GET_NEXT_SEQUENCE_VALUE(SEQUENCE s))`, `nextval('s')`, an identity
  column): the sequence's counter from its start_with_counter, one per sequence and database,
  bit-reversed for bit_reversed_positive and passing over its skip range, as the database
  returns it;
- a generated `MOD(FARM_FINGERPRINT(...), n)`: a stable 64-bit hash of the columns the
  expression reads standing for FarmHash's (the same values, the same shard), its remainder
  keeping the hash's sign as MOD does, unless an ABS drops it;
- a generated `MOD(column, n)` of an integer column: computed.

Any other value a write leaves out is not modelled: the write stays unattributed, with why.
"""

from __future__ import annotations

import re
import threading
import uuid
from dataclasses import dataclass

from keybench.check.inference import REMAINDER, UUID_DEFAULT, columns_in, fingerprint_shard
from keybench.check.schema import Column, Schema, Table, sequence_of
from keybench.design.hashing import bit_reversed, stable_hash

INT64_MAX = 2**63 - 1
_IDENTITY_START = re.compile(r"START\s+COUNTER\s+WITH\s+(\d+)", re.IGNORECASE)
_IDENTITY_SKIP = re.compile(r"SKIP\s+RANGE\s+(\d+)\s*,?\s*(\d+)", re.IGNORECASE)


class SequenceCounter:
    """One sequence's values in the order the database hands them out."""

    def __init__(self, start: int, skip: tuple[int, int] | None, reversed_bits: bool):
        self.counter, self.skip, self.reversed_bits = start, skip, reversed_bits
        self._lock = threading.Lock()

    def next(self) -> int:
        with self._lock:
            while True:
                value = bit_reversed(self.counter) if self.reversed_bits else self.counter
                self.counter += 1
                if self.skip is None or not self.skip[0] <= value <= self.skip[1]:
                    return value


@dataclass(frozen=True)
class Fill:
    """How the database fills one column a write leaves out."""

    column: str  # as the schema writes it
    what: str  # as the `modelled:` line names it
    on_insert_only: bool = True  # a default fills an inserted row; a generated column follows its sources
    counter: SequenceCounter | None = None
    sources: tuple[str, ...] = ()  # a generated column's columns (as the schema writes them)
    modulus: int = 0
    hashed: bool = False  # FARM_FINGERPRINT of the sources, not the source itself
    positive: bool = False  # an ABS drops the sign: ABS(MOD(h, n)) and MOD(ABS(h), n) alike

    def value(self, row: dict[str, object]):
        """The column's value in a row whose other values (by schema name) are `row`; a
        ValueError when a source the value needs is not in it."""
        if self.counter is not None:
            return self.counter.next()
        if not self.sources:
            return str(uuid.uuid4())
        missing = [s for s in self.sources if s not in row]
        if missing:
            raise ValueError(f"{self.column} is generated from {', '.join(missing)}, which the write does not carry")
        if self.hashed:
            signed = stable_hash(*(repr(row[s]) for s in self.sources))
            signed -= (signed > INT64_MAX) << 64
            shard = _mod(signed, self.modulus)
            return abs(shard) if self.positive else shard
        value = row[self.sources[0]]
        if not isinstance(value, int):
            raise ValueError(f"{self.column} = MOD({self.sources[0]}, {self.modulus}) of a {type(value).__name__}")
        return _mod(value, self.modulus)


def _mod(value: int, modulus: int) -> int:
    """MOD as Spanner computes it: the remainder takes the dividend's sign (in integers: a
    float would round a 64-bit hash to a few multiples of 1,024)."""
    remainder = abs(value) % abs(modulus)
    return -remainder if value < 0 else remainder


def fills(schema: Schema, table: Table, wanted: set[str], counter_of) -> dict[str, Fill]:
    """The fills of the columns in `wanted` (lower case) that the database fills, by lower-case
    name, defaults before generated columns (which may read a column a default fills);
    `counter_of(sequence name, start, skip, bit_reversed)` gives a sequence's counter, kept
    across schema reads."""
    out = {}
    for column in table.columns:
        if column.name.lower() in wanted:
            found = _fill(schema, table, column, counter_of)
            if found is not None:
                out[column.name.lower()] = found
    return dict(sorted(out.items(), key=lambda item: bool(item[1].sources)))


def _fill(schema: Schema, table: Table, column: Column, counter_of) -> Fill | None:
    name = column.name
    sequence = sequence_of(column)
    if sequence is not None:
        found = schema.sequence(sequence)
        options = found.options if found is not None else {}
        skip = ((int(options["skip_range_min"]), int(options["skip_range_max"]))
                if "skip_range_min" in options and "skip_range_max" in options else None)
        reversed_bits = found is not None and found.bit_reversed
        counter = counter_of(sequence.lower(), int(options.get("start_with_counter", 1)), skip, reversed_bits)
        kind = "bit_reversed_positive" if reversed_bits else "plain"
        return Fill(name, f"{name} from sequence {sequence} ({kind})", counter=counter)
    if column.identity is not None:
        start = _IDENTITY_START.search(column.identity)
        skipped = _IDENTITY_SKIP.search(column.identity)
        counter = counter_of(f"identity of {table.name}.{name}".lower(), int(start.group(1)) if start else 1,
                             (int(skipped.group(1)), int(skipped.group(2))) if skipped else None,
                             column.bit_reversed_identity)
        return Fill(name, f"{name}, an identity column", counter=counter)
    if UUID_DEFAULT.fullmatch(column.default or ""):
        return Fill(name, f"{name} = GENERATE_UUID()")
    if column.generated is None:
        return None
    sources = tuple(c.name for c in columns_in(table, column.generated, name))
    shard = fingerprint_shard(column.generated)
    if shard is not None and sources:
        count, positive, shape = shard
        return Fill(name, f"{name} = {shape} by a stable hash of {', '.join(sources)}", False, sources=sources,
                    modulus=count, hashed=True, positive=positive)
    remainder = REMAINDER.match(column.generated)
    if remainder and len(sources) == 1 and remainder.group(2).strip().strip('`"').lower() == sources[0].lower():
        return Fill(name, f"{name} = MOD({sources[0]}, {remainder.group(3)})", False, sources=sources,
                    modulus=int(remainder.group(3)))
    return None
