"""The key stream a stage records: every acknowledged write's key and every read's byte
intervals, per key space (see `design/byteorder.py` for the byte order). The split model
and the heatmaps read it; a run directory keeps one `.npz` per unit.

Each write also carries the length of its split unit: the leading bytes of its key between
which the database may split. That is the whole key, except in an interleaved table or
index, whose rows split only between root rows (their parent's key). Initial rows (a
migration's source data) are kept apart: they shape the first splits, but they are not load."""

from __future__ import annotations

import contextlib
import io
import zipfile
from pathlib import Path

import numpy as np

from keybench.atomic import write_atomically
from keybench.design.byteorder import TABLE_SPACE, KeyEncoder
from keybench.design.events import WriteEvent
from keybench.design.plans import ReadRequest
from keybench.errors import KeybenchError
from keybench.model.writeblocks import WriteBlocks, as_key_array, check_lengths, check_values


class KeyStream:
    """The keys a run wrote and the byte intervals its reads covered, per key space.

    Writes: per space, time (float seconds) and key bytes. Reads: time, space and a list of
    [start, end) intervals. Workers each fill one and the master merges them.

    `record_insert` and `record_read` only keep what they are given: keys and intervals are
    encoded when the stream is first read, so a load pays one list append per operation.
    """

    def __init__(self) -> None:
        self._writes: dict[str, WriteBlocks] = {}
        self._unencoded: list[tuple[KeyEncoder, tuple, WriteEvent, float]] = []
        self._unencoded_reads: list[tuple[KeyEncoder, ReadRequest, float, str]] = []
        self._initial: dict[str, WriteBlocks] = {}
        self._read_times: list[float] = []
        self._read_spaces: list[str] = []
        self._intervals: list[tuple[tuple[bytes, bytes], ...]] = []
        self._read_operations: list[str] = []

    # recording
    def _encode_recorded(self, limit: int | None = None) -> None:
        """Encode the inserts and reads recorded so far, each in the order they were recorded:
        all of them, or at most `limit` inserts and then, once every insert is encoded, at most
        `limit` reads."""
        if self._unencoded:
            recorded = self._unencoded[:limit] if limit is not None else self._unencoded
            for encoder, key, event, time_s in recorded:
                for space, encoded, unit_length in encoder.write_keys(key, event):
                    self._add_write(space, time_s, encoded, unit_length)
            del self._unencoded[:len(recorded)]
            if limit is not None:
                return
        if self._unencoded_reads:
            reads = self._unencoded_reads[:limit] if limit is not None else self._unencoded_reads
            for encoder, request, time_s, operation in reads:
                space, intervals = encoder.read_intervals(request)
                self._add_read(time_s, intervals, space, operation)
            del self._unencoded_reads[:len(reads)]

    def backlog(self) -> int:
        """Inserts and reads recorded and not yet encoded: each holds its key and row as
        Python objects until it is."""
        return len(self._unencoded) + len(self._unencoded_reads)

    def encode_some(self, limit: int) -> bool:
        """Encode at most `limit` of what was recorded and not yet encoded; True while some is
        left. A caller inside the load process encodes a slice at a time and lets the users
        run between slices."""
        self._encode_recorded(limit)
        return bool(self._unencoded or self._unencoded_reads)

    def writes_after(self, marks: dict[str, int]) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
        """Per space, the writes after its first `marks[space]` (all of a space not in `marks`):
        (times, keys, key lengths, split-unit lengths), as `add_writes` takes them. Only the
        new writes are copied: a watcher of a long load takes what came since it last looked."""
        self._encode_recorded()
        return {space: chunks.after(marks.get(space, 0)) for space, chunks in self._writes.items()}

    def add_write(self, space: str, time_s: float, key: bytes, unit_length: int | None = None) -> None:
        """One write; `unit_length` is its split unit's length (None: the whole key)."""
        self._encode_recorded()
        self._add_write(space, time_s, key, unit_length)

    def _add_write(self, space: str, time_s: float, key: bytes, unit_length: int | None) -> None:
        chunks = self._writes.get(space)
        if chunks is None:
            chunks = self._writes[space] = WriteBlocks()
        chunks.add_one(float(time_s), bytes(key), len(key) if unit_length is None else unit_length)

    def add_writes(self, space: str, times: np.ndarray, keys: np.ndarray, lengths: np.ndarray | None = None,
                   units: np.ndarray | None = None) -> None:
        """Many writes at once: `keys` a numpy 'S' array (or a list of bytes); `units` their
        split units' lengths (None: whole keys)."""
        self._encode_recorded()
        self._writes.setdefault(space, WriteBlocks()).add(times, keys, lengths, units)

    def add_initial(self, space: str, keys, lengths: np.ndarray | None = None, units: np.ndarray | None = None) -> None:
        """Rows the table held before the load (a migration's source): initial data, not load."""
        keys = list(keys) if not isinstance(keys, np.ndarray) else keys
        if len(keys):
            self._initial.setdefault(space, WriteBlocks()).add(np.zeros(len(keys)), keys, lengths, units)

    def add_read(self, time_s: float, intervals: list[tuple[bytes, bytes]], space: str = TABLE_SPACE,
                 operation: str = "") -> None:
        """One read: its [start, end) byte intervals in `space`; `operation` names it (time_window, ...)."""
        self._encode_recorded()
        self._add_read(time_s, intervals, space, operation)

    def _add_read(self, time_s: float, intervals: list[tuple[bytes, bytes]], space: str, operation: str) -> None:
        self._read_times.append(float(time_s))
        self._read_spaces.append(space)
        # a tuple of bytes: the garbage collector stops tracking it, so a long stage's reads add
        # nothing to its full passes
        self._intervals.append(tuple((bytes(a), bytes(b)) for a, b in intervals))
        self._read_operations.append(operation)

    def record_insert(self, encoder: KeyEncoder, key: tuple, event: WriteEvent, time_s: float) -> None:
        """One acknowledged insert: its row and every index entry. `key` as the backend's
        insert returned it, so a database-generated value is the real one. Encoded when the
        stream is first read (see the class)."""
        self._unencoded.append((encoder, key, event, time_s))

    def record_initial(self, encoder: KeyEncoder, rows) -> None:
        """Rows written before the load, (key, event) each: the initial data of their spaces."""
        by_space: dict[str, tuple[list, list]] = {}
        for key, event in rows:
            for space, encoded, unit_length in encoder.write_keys(key, event):
                keys, units = by_space.setdefault(space, ([], []))
                keys.append(encoded)
                units.append(unit_length)
        for space, (keys, units) in by_space.items():
            self.add_initial(space, keys, units=np.array(units, dtype=np.uint16))

    def record_read(self, encoder: KeyEncoder, request: ReadRequest, time_s: float, operation: str = "") -> None:
        """One read request, as the byte intervals its spans (or its full scan) cover. Encoded
        when the stream is first read (see the class)."""
        self._unencoded_reads.append((encoder, request, time_s, operation))

    def merge(self, other: KeyStream) -> KeyStream:
        """Adds another stream's writes and reads to this one (combining Locust workers)."""
        for space in other.spaces():
            times, keys, lengths = other.writes(space)
            self.add_writes(space, times, keys, lengths, other.unit_lengths(space))
        for space in other.initial_spaces():
            _, keys, lengths, units = other._initial[space].arrays()
            self.add_initial(space, keys, lengths, units)
        for t, space, intervals, operation in other.reads(with_operation=True):
            self.add_read(t, intervals, space, operation)
        return self

    # reading
    def spaces(self) -> list[str]:
        self._encode_recorded()
        names = list(self._writes)
        return names + [s for s in dict.fromkeys(self._read_spaces) if s not in names]

    def writes(self, space: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(times, keys 'S' array, true key lengths) of a space, in recording order."""
        self._encode_recorded()
        chunks = self._writes.get(space)
        return (chunks.arrays() if chunks else WriteBlocks().arrays())[:3]

    def unit_lengths(self, space: str) -> np.ndarray:
        """Each write's split-unit length, aligned with `writes(space)`."""
        self._encode_recorded()
        chunks = self._writes.get(space)
        return (chunks.arrays() if chunks else WriteBlocks().arrays())[3]

    def initial_spaces(self) -> list[str]:
        return list(self._initial)

    def initial(self, space: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(keys, key lengths, split-unit lengths) of the rows a space held before the load."""
        chunks = self._initial.get(space)
        return (chunks.arrays() if chunks else WriteBlocks().arrays())[1:]

    def write_count(self, space: str | None = None) -> int:
        self._encode_recorded()
        names = list(self._writes) if space is None else [space]
        return sum(len(self._writes[s]) for s in names if s in self._writes)

    def key_at(self, space: str, i: int) -> bytes:
        _, keys, lengths = self.writes(space)
        return keys[i].ljust(int(lengths[i]), b"\x00")

    def reads(self, space: str | None = None, with_operation: bool = False):
        """(time, space, intervals[, operation]) of every read, or of one space's reads."""
        self._encode_recorded()
        for t, s, intervals, op in zip(self._read_times, self._read_spaces, self._intervals,
                                       self._read_operations, strict=True):
            if space is None or s == space:
                yield (t, s, intervals, op) if with_operation else (t, s, intervals)

    def mean_key_bytes(self, space: str = TABLE_SPACE) -> float:
        lengths = self.writes(space)[2]
        return float(lengths.mean()) if len(lengths) else 0.0

    # shipping and storing
    def _arrays(self) -> dict[str, np.ndarray]:
        spaces = self.spaces()
        out = {"spaces": np.array(spaces, dtype=str)}
        for i, space in enumerate(spaces):
            out[f"w{i}_t"], out[f"w{i}_k"], out[f"w{i}_n"], out[f"w{i}_u"] = (
                self._writes[space].arrays() if space in self._writes else WriteBlocks().arrays())
        initial = self.initial_spaces()
        out["initial_spaces"] = np.array(initial, dtype=str)
        for i, space in enumerate(initial):
            _, out[f"i{i}_k"], out[f"i{i}_n"], out[f"i{i}_u"] = self._initial[space].arrays()
        owner = np.array([r for r, iv in enumerate(self._intervals) for _ in iv], dtype=np.int64)
        starts = [a for iv in self._intervals for a, _ in iv]
        ends = [b for iv in self._intervals for _, b in iv]
        out["r_t"] = np.array(self._read_times, dtype=np.float64)
        out["r_space"] = np.array([spaces.index(s) for s in self._read_spaces], dtype=np.int32)
        out["r_op"] = np.array(self._read_operations, dtype=str)
        out["iv_read"] = owner
        out["iv_start"], out["iv_start_n"] = as_key_array(starts)
        out["iv_end"], out["iv_end_n"] = as_key_array(ends)
        return out

    @staticmethod
    def _check_arrays(data) -> None:
        """The arrays of a saved stream hold what `_arrays` wrote (kinds, matching lengths,
        finite times, indexes in range), else a ValueError naming the first that does not:
        a doctored or damaged file must not reach the model as numbers it cannot use."""
        def need(name: str, kinds: str, optional: bool = False) -> np.ndarray | None:
            if name not in data:
                if optional:
                    return None
                raise ValueError(f"no array {name!r}")
            array = data[name]
            if len(array.shape) != 1 or array.dtype.kind not in kinds:
                raise ValueError(f"array {name!r} is {array.dtype} of shape {array.shape}")
            if isinstance(array, np.ndarray):  # a streamed array's values are checked a block at a time
                check_values(name, array)
            return array

        def group(*names: str, kinds: str, optional: bool = False) -> int:
            arrays = [need(name, kind, optional) for name, kind in zip(names, kinds.split(","), strict=True)]
            sizes = {len(a) for a in arrays if a is not None}
            if len(sizes) > 1:
                raise ValueError(f"arrays {', '.join(names)} differ in length")
            keys = [a for a in arrays if a is not None and a.dtype.kind == "S"]
            widths = [a for a in arrays if isinstance(a, np.ndarray) and a.dtype.kind in "iu"]
            if len(keys) == 1:
                check_lengths(names, keys[0], widths)
            return sizes.pop() if sizes else 0

        spaces = need("spaces", "U")
        assert spaces is not None  # needed, not optional
        for i in range(len(spaces)):
            if f"w{i}_t" in data:
                group(f"w{i}_t", f"w{i}_k", f"w{i}_n", kinds="f,S,iu")
                if f"w{i}_u" in data:
                    group(f"w{i}_k", f"w{i}_u", kinds="S,iu")
        initial = need("initial_spaces", "U", optional=True)
        for i in range(0 if initial is None else len(initial)):
            group(f"i{i}_k", f"i{i}_n", f"i{i}_u", kinds="S,iu,iu")
        reads = group("r_t", "r_space", kinds="f,iu")
        group("r_t", "r_op", kinds="f,U", optional=True)
        group("iv_read", "iv_start", "iv_start_n", "iv_end", "iv_end_n", kinds="iu,S,iu,S,iu")
        group("iv_start", "iv_start_n", kinds="S,iu")
        group("iv_end", "iv_end_n", kinds="S,iu")
        if reads and data["r_space"].max() >= len(spaces) or len(data["iv_read"]) and data["iv_read"].max() >= reads:
            raise ValueError("a read points past the spaces or reads the file holds")

    @classmethod
    def _from_arrays(cls, data, with_writes: bool = True) -> KeyStream:
        """The stream the arrays hold; without its writes (`with_writes` False), its initial
        rows and reads only, for a reader that streams the writes (SavedKeyStream)."""
        cls._check_arrays(data)
        stream = cls()
        spaces = [str(s) for s in data["spaces"]]
        for i, space in enumerate(spaces):
            if with_writes and f"w{i}_t" in data and len(data[f"w{i}_t"]):
                # A stream saved before split units were kept: every key is its own unit.
                units = data[f"w{i}_u"] if f"w{i}_u" in data else None
                stream.add_writes(space, data[f"w{i}_t"], data[f"w{i}_k"], data[f"w{i}_n"], units)
        if "initial_spaces" in data:
            for i, space in enumerate(str(s) for s in data["initial_spaces"]):
                stream.add_initial(space, data[f"i{i}_k"], data[f"i{i}_n"], data[f"i{i}_u"])
        intervals: list[list[tuple[bytes, bytes]]] = [[] for _ in range(len(data["r_t"]))]
        for r, a, an, b, bn in zip(data["iv_read"], data["iv_start"], data["iv_start_n"],
                                   data["iv_end"], data["iv_end_n"], strict=True):
            intervals[int(r)].append((a.ljust(int(an), b"\x00"), b.ljust(int(bn), b"\x00")))
        operations = [str(o) for o in data["r_op"]] if "r_op" in data else [""] * len(intervals)
        for t, s, iv, op in zip(data["r_t"], data["r_space"], intervals, operations, strict=True):
            stream.add_read(float(t), iv, spaces[int(s)], op)
        return stream

    def to_bytes(self) -> bytes:
        """The whole stream as one compact blob (numpy .npz), e.g. for a Locust worker report."""
        buffer = io.BytesIO()
        np.savez(buffer, **self._arrays())  # type: ignore[arg-type]  # numpy's stub takes **kwds for allow_pickle
        return buffer.getvalue()

    @classmethod
    def from_bytes(cls, blob: bytes) -> KeyStream:
        with np.load(io.BytesIO(blob), allow_pickle=False) as data:
            return cls._from_arrays(data)

    def save(self, path: str | Path) -> Path:
        """One file, e.g. `<run dir>/keystream.npz`, written whole or not at all."""
        return write_atomically(Path(path), self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> KeyStream:
        """A saved stream; a truncated, corrupt or foreign file is one KeybenchError."""
        with reading(path), np.load(Path(path), allow_pickle=False) as data:
            return cls._from_arrays(data)


@contextlib.contextmanager
def reading(path: str | Path):
    """Turns what reading a saved stream can raise (a truncated, corrupt or foreign file)
    into one KeybenchError naming the file."""
    try:
        yield
    except OSError as exc:
        if exc.strerror:
            raise KeybenchError(f"cannot read {path}: {exc.strerror}") from None
        raise KeybenchError(f"{path} is not a key stream keybench wrote ({exc})") from None
    except (ValueError, KeyError, IndexError, EOFError, zipfile.BadZipFile) as exc:
        detail = str(exc).split("\n")[0][:200]
        raise KeybenchError(f"{path} is not a key stream keybench wrote (truncated or corrupt: "
                            f"{type(exc).__name__}{': ' + detail if detail else ''})") from None


