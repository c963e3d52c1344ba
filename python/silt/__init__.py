"""silt: Spark SQL and Delta Lake table maintenance from Python.

Two familiar surfaces over silt's C++ engine (the extension module silt._silt):

* DuckDB-like SQL: ``con = silt.connect(warehouse=None)``, ``con.sql("SELECT ...")`` returns a
  ``Result`` with ``fetchall()``, ``fetchone()``, ``fetchnumpy()``, ``df()``, ``show()``,
  ``columns``, ``types`` and the Arrow PyCapsule stream ``__arrow_c_stream__``.
* delta-rs-like tables: ``silt.DeltaTable(uri)`` (version, schema, history, metadata, to_pandas,
  vacuum, optimize, delete, update, merge, restore, load_as_version) and
  ``silt.write_deltalake(uri, df, mode=..., partition_by=...)``.

Errors are ``silt.Error`` subclasses carrying the Spark/Delta ``error_class`` and ``sql_state``.
"""

import itertools
import threading

from . import _silt
from .errors import (  # noqa: F401 - re-exported
    AlreadyExistsError,
    CancelledError,
    CommitConflictError,
    CorruptionError,
    Error,
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    NotImplementedError,
    OutOfMemoryError,
    StorageError,
    UnsupportedError,
)
from .table import DeltaTable, TableMerger, TableOptimizer, write_deltalake  # noqa: F401

__version__ = getattr(_silt, "__version__", "0")

__all__ = [
    "connect",
    "Connection",
    "Result",
    "DeltaTable",
    "TableMerger",
    "TableOptimizer",
    "write_deltalake",
    "Error",
]

_counter = itertools.count()
_counter_lock = threading.Lock()


def _memory_warehouse():
    with _counter_lock:
        n = next(_counter)
    return f"memory://silt-python-{id(_counter)}-{n}"


class Result:
    """The result of one statement: its columns and rows (materialized)."""

    def __init__(self, result):
        self._r = result
        self._pos = 0

    @property
    def columns(self):
        """The column names."""
        return list(self._r.columns)

    @property
    def types(self):
        """The column types as Spark type strings ("int", "decimal(10,2)", "array<string>")."""
        return list(self._r.types)

    @property
    def description(self):
        """DB-API-like: (name, type, None, None, None, None, nullable) per column."""
        return [
            (n, t, None, None, None, None, nl)
            for n, t, nl in zip(self._r.columns, self._r.types, self._r.nullable)
        ]

    @property
    def statement(self):
        """The kind of statement that produced it ("query", "insert", "create_table", ...)."""
        return self._r.statement

    def __len__(self):
        return self._r.num_rows

    def fetchall(self):
        """The remaining rows as a list of tuples of Python values."""
        rows = self._r.rows(self._pos)
        self._pos = self._r.num_rows
        return rows

    def fetchone(self):
        """The next row as a tuple, or None after the last."""
        rows = self._r.rows(self._pos, 1)
        if not rows:
            return None
        self._pos += 1
        return rows[0]

    def fetchmany(self, size=1):
        rows = self._r.rows(self._pos, size)
        self._pos += len(rows)
        return rows

    def fetchnumpy(self):
        """Columns as numpy arrays ({name: array}): numbers and booleans in their dtype (a
        masked array when the column has NULLs), DATE as datetime64[D], TIMESTAMP (UTC) and
        TIMESTAMP_NTZ as datetime64[us], anything else as an object array of Python values."""
        import numpy as np

        out = {}
        for i, name in enumerate(self._r.columns):
            kind, values, mask = self._r.column_arrays(i)
            if kind == "object":
                arr = np.empty(len(values), dtype=object)
                for j, v in enumerate(values):
                    arr[j] = v
            elif kind == "date":
                arr = values.astype("int64").view("datetime64[D]")
            elif kind in ("timestamp", "timestamp_ntz"):
                arr = values.view("datetime64[us]")
            else:
                arr = values
            if mask is not None and kind != "object":
                if kind in ("date", "timestamp", "timestamp_ntz"):
                    arr = arr.copy()
                    arr[mask] = np.datetime64("NaT")
                arr = np.ma.masked_array(arr, mask=mask)
            out[name] = arr
        return out

    def df(self):
        """The result as a pandas DataFrame: integers and booleans with NULLs as pandas'
        nullable dtypes (Int64, boolean), floats with NaN, DATE as datetime.date objects,
        TIMESTAMP as datetime64[ns, UTC], TIMESTAMP_NTZ as datetime64[ns], anything else as
        objects (None for NULL)."""
        import datetime

        import numpy as np
        import pandas as pd

        series = []
        for i in range(len(self._r.columns)):
            kind, values, mask = self._r.column_arrays(i)
            if kind == "object":
                col = pd.Series(values, dtype=object)
            elif kind == "date":
                epoch = datetime.date(1970, 1, 1).toordinal()
                objs = [datetime.date.fromordinal(epoch + int(d)) for d in values]
                if mask is not None:
                    objs = [None if m else v for v, m in zip(objs, mask)]
                col = pd.Series(objs, dtype=object)
            elif kind in ("timestamp", "timestamp_ntz"):
                arr = values.view("datetime64[us]").copy()
                if mask is not None:
                    arr[mask] = np.datetime64("NaT")
                col = pd.Series(arr.astype("datetime64[ns]"))
                if kind == "timestamp":
                    col = col.dt.tz_localize("UTC")
            elif kind == "bool":
                col = pd.Series(pd.arrays.BooleanArray(values, mask)) if mask is not None else pd.Series(values)
            elif kind.startswith("int"):
                col = pd.Series(pd.arrays.IntegerArray(values, mask)) if mask is not None else pd.Series(values)
            else:  # float32/float64
                if mask is not None:
                    values = values.copy()
                    values[mask] = np.nan
                col = pd.Series(values)
            series.append(col.reset_index(drop=True))
        if not series:
            return pd.DataFrame(index=range(self._r.num_rows))
        # Positions, not names, so that duplicate names (SELECT a, a) keep both columns.
        frame = pd.concat(series, axis=1, ignore_index=True)
        frame.columns = list(self._r.columns)
        return frame

    to_df = df

    def show(self, max_rows=20, file=None):
        """Prints up to max_rows rows as a table (NULL for nulls)."""
        import sys

        out = file or sys.stdout
        rows = self._r.rows(0, max_rows)
        cells = [[_display(v) for v in row] for row in rows]
        header = [f"{n}\n{t}" for n, t in zip(self._r.columns, self._r.types)]
        names = list(self._r.columns)
        types = list(self._r.types)
        widths = [
            max([len(names[i]), len(types[i])] + [len(r[i]) for r in cells]) for i in range(len(header))
        ]
        line = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        print(line, file=out)
        print("| " + " | ".join(n.ljust(w) for n, w in zip(names, widths)) + " |", file=out)
        print("| " + " | ".join(t.ljust(w) for t, w in zip(types, widths)) + " |", file=out)
        print(line, file=out)
        for r in cells:
            print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |", file=out)
        print(line, file=out)
        total = self._r.num_rows
        suffix = f" ({len(rows)} shown)" if total > len(rows) else ""
        print(f"{total} row{'s' if total != 1 else ''}{suffix}", file=out)

    def __repr__(self):
        return f"<silt.Result {self._r.num_rows} rows: {', '.join(self.columns)}>"

    def __arrow_c_stream__(self, requested_schema=None):
        """The Arrow C stream of this result as a PyCapsule named "arrow_array_stream" (the
        Arrow PyCapsule interface), for pyarrow, polars, DuckDB and other Arrow consumers."""
        if requested_schema is not None:
            raise NotImplementedError(
                "silt exports its own schema; requested_schema is not supported", "NOT_IMPLEMENTED"
            )
        return self._r.arrow_c_stream()


def _display(value):
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Connection:
    """A session on a warehouse (catalog tables live there); path tables work in any warehouse.
    SET and USE carry over between statements. Safe to share between threads (statements run
    one at a time, with the GIL released)."""

    def __init__(self, warehouse=None, threads=0, memory_limit=None, temp_directory=None):
        self._db = _silt.Database(
            warehouse if warehouse is not None else _memory_warehouse(),
            threads,
            -1 if memory_limit is None else int(memory_limit),
            temp_directory or "",
        )
        self._con = _silt.Connection(self._db)

    @property
    def warehouse(self):
        return self._db.warehouse

    def sql(self, query):
        """Runs one or more ';'-separated statements; the last one's Result."""
        return Result(self._con.execute(query))

    execute = sql
    query = sql

    def execute_all(self, query):
        """Runs ';'-separated statements; every statement's Result."""
        return [Result(r) for r in self._con.execute_all(query)]

    def get_config(self, key):
        return self._con.get_config(key)

    def set_config(self, key, value):
        self._con.set_config(key, str(value))

    def table(self, name):
        """SELECT * FROM name."""
        return self.sql(f"SELECT * FROM {name}")

    def close(self):
        self._con = None
        self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def connect(warehouse=None, threads=0, memory_limit=None, temp_directory=None):
    """A Connection on `warehouse` (a directory or a storage URI; None: a private in-memory
    warehouse, memory://...)."""
    return Connection(warehouse, threads, memory_limit, temp_directory)


def sql(query, connection=None):
    """Runs `query` on a private in-memory warehouse (or `connection`)."""
    return (connection or _default_connection()).sql(query)


_default = None


def _default_connection():
    global _default
    if _default is None:
        _default = Connection()
    return _default
