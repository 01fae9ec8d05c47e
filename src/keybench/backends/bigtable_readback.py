"""The Bigtable integrity audit's read-back: every row of a stage's tables, read through
ReadRowsCall in a plain process without gevent (keybench.children), where it costs about two
thirds of the data client's CPU per row."""

from __future__ import annotations

import atexit
import os

from google.cloud.bigtable.data.row_filters import (
    ColumnRangeFilter,
    RowFilterUnion,
)

from keybench.backends.bigtable_calls import EMULATOR_HOST, ReadRowsCall, data_client, filter_message
from keybench.children import PlainProcess


def read_back(emulator_host: str | None, endpoint: str | None, project: str, instance: str, table_ids: list[str],
              family: str,
              qualifiers: tuple[bytes, ...], deadline: float) -> list[tuple[bytes, ...]]:
    """The values of `qualifiers` in every row the tables hold, one tuple per version (a row
    rewritten in place holds one per reading): the integrity audit's read-back. It runs in
    the read-back process (`read_back_process`), through ReadRowsCall, which there costs
    about two thirds of the data client's `read_rows` per row. A fault in merging the stream
    shows against the ledger as rows lost or duplicated: it cannot make a lost write look
    stored."""
    if emulator_host:
        os.environ[EMULATOR_HOST] = emulator_host
    else:
        os.environ.pop(EMULATOR_HOST, None)
    data = data_client(project, endpoint)
    # Each column by its exact name: the emulator matches a qualifier regex at about five
    # times the CPU per cell, and the audit runs while the model uses the other core.
    columns = [ColumnRangeFilter(family, q, q) for q in qualifiers]
    wanted = filter_message(columns[0] if len(columns) == 1 else RowFilterUnion(list(columns)))
    try:
        out: list[tuple] = []
        for table_id in table_ids:
            reader = ReadRowsCall(data.get_table(instance, table_id), deadline)
            for _, cells in reader(reader.request(None, wanted), family):
                out.extend(zip(*(cells.get(q, ()) for q in qualifiers), strict=False))
        return out
    finally:
        data.close()


_read_back: PlainProcess | None = None


def read_back_process() -> PlainProcess:
    """This process's read-back process, started at the first audit and kept until exit (a new
    one if the last was cut off or died)."""
    global _read_back
    if _read_back is None or not _read_back.usable:
        _read_back = PlainProcess()
        atexit.register(_read_back.close)
    return _read_back
