"""Python data into silt's vectors without SQL literals (write_deltalake's source).

* An object with ``__arrow_c_stream__`` (a pyarrow Table or RecordBatchReader, a polars
  DataFrame, a silt ``Result``) or such a capsule goes through the Arrow C stream import
  (``silt/arrow.h`` ImportArrowStream).
* A pandas DataFrame goes column by column as numpy arrays (numbers, booleans, timestamps: one
  copy into silt's vectors) or sequences of ``str`` / ``bytes``; dates and Python datetimes as
  day / microsecond counts, decimals as their text, cast by SQL.

Either becomes a temporary view of the connection (``RegisterTemporaryView``) that ``CREATE TABLE
... AS SELECT`` / ``INSERT ... SELECT`` read; ``source_relation`` returns the relation and drops the
view when done. Columns of lists or dicts (ARRAY / STRUCT types) still travel as SQL literals
(``_sqltext.values_relation``).
"""

import contextlib
import datetime
import decimal
import itertools
import threading

from ._sqltext import _is_missing, column_type, quote_identifier, values_relation

_counter = itertools.count()
_lock = threading.Lock()

_EPOCH_DATE = datetime.date(1970, 1, 1)
_EPOCH_NTZ = datetime.datetime(1970, 1, 1)
_EPOCH_UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MICRO = datetime.timedelta(microseconds=1)

_INT_KINDS = {"TINYINT": "int8", "SMALLINT": "int16", "INT": "int32", "BIGINT": "int64"}


def _view_name():
    with _lock:
        return f"__silt_ingest_{next(_counter)}"


def _object_mask(values):
    import numpy as np

    return np.fromiter((_is_missing(v) for v in values), dtype=bool, count=len(values))


def _datetime(value):
    import pandas as pd

    return value if isinstance(value, datetime.datetime) else pd.Timestamp(value).to_pydatetime()


def _frame_column(series, spark_type):
    """(kind, values, mask, cast) of one pandas column; cast: the SQL type to cast the
    transported column to, or None. None when the column has no vector form here."""
    import numpy as np
    import pandas as pd
    from pandas.api import types as pdt

    dtype = series.dtype
    extension = isinstance(dtype, pd.api.extensions.ExtensionDtype)
    obj = pdt.is_object_dtype(dtype)
    upper = spark_type.upper()

    def mask_of():
        if obj:
            return _object_mask(series.to_numpy(dtype=object))
        if extension or pdt.is_datetime64_any_dtype(dtype):
            m = series.isna().to_numpy(dtype=bool)
            return m if m.any() else None
        return None

    if upper == "BOOLEAN":
        mask = mask_of()
        return "bool", series.to_numpy(dtype=bool, na_value=False), mask, None
    if upper in _INT_KINDS:
        kind = _INT_KINDS[upper]
        mask = mask_of()
        return kind, series.to_numpy(dtype=kind, na_value=0), mask, None
    if upper in ("FLOAT", "DOUBLE"):
        kind = "float32" if upper == "FLOAT" else "float64"
        if obj or extension:
            values = series.to_numpy(dtype=object)
            mask = _object_mask(values)
            floats = np.array([0.0 if m else float(v) for v, m in zip(values, mask)], dtype=kind)
            return kind, floats, mask, None
        return kind, series.to_numpy(dtype=kind), None, None  # NaN stays a value
    if upper.startswith("DECIMAL"):
        values = series.to_numpy(dtype=object)
        mask = _object_mask(values)
        text = [None if m else (format(v, "f") if isinstance(v, decimal.Decimal) else str(int(v)))
                for v, m in zip(values, mask)]
        return "string", text, mask, spark_type
    if upper in ("TIMESTAMP", "TIMESTAMP_NTZ"):
        kind = upper.lower()
        if pdt.is_datetime64_any_dtype(dtype):
            s = series
            if getattr(dtype, "tz", None) is not None:
                s = s.dt.tz_convert("UTC").dt.tz_localize(None)
            mask = mask_of()
            nanos = s.to_numpy(dtype="datetime64[ns]").view("int64")
            micros = np.floor_divide(nanos, 1000)
            if mask is not None:
                micros[mask] = 0
            return kind, micros, mask, None
        values = series.to_numpy(dtype=object)
        mask = _object_mask(values)
        epoch = _EPOCH_UTC if upper == "TIMESTAMP" else _EPOCH_NTZ
        micros = np.fromiter(
            (0 if m else (_datetime(v) - epoch) // _MICRO for v, m in zip(values, mask)),
            dtype=np.int64, count=len(values))
        return kind, micros, mask, None
    if upper == "DATE":
        values = series.to_numpy(dtype=object)
        mask = _object_mask(values)
        days = np.fromiter((0 if m else (v - _EPOCH_DATE).days for v, m in zip(values, mask)),
                           dtype=np.int32, count=len(values))
        return "date", days, mask, None
    if upper in ("STRING", "BINARY"):
        values = series.to_numpy(dtype=object)
        # In a column of strings a float NaN is pandas' missing value (e.g. a categorical's).
        return upper.lower(), values.tolist(), pd.isna(values), None
    return None


def _frame_relation(con, df, name):
    import pandas as pd

    names = [str(c) for c in df.columns]
    if not names:
        raise ValueError("a DataFrame with no columns cannot be written")
    columns, selects = [], []
    for c, n in zip(df.columns, names):
        series = df[c]
        if isinstance(series.dtype, pd.CategoricalDtype):
            series = series.astype(series.dtype.categories.dtype)
        spark_type = column_type(series)
        column = _frame_column(series, spark_type)
        if column is None:
            return None
        kind, values, mask, cast = column
        columns.append((kind, values, mask))
        q = quote_identifier(n)
        selects.append(f"CAST({q} AS {cast}) AS {q}" if cast else q)
    try:
        con._con.register_columns(name, names, columns, len(df))
    except TypeError:
        return None  # e.g. an object column mixing str and other values: SQL literals cast them
    return "(SELECT " + ", ".join(selects) + f" FROM {quote_identifier(name)})"


@contextlib.contextmanager
def source_relation(con, data, alias):
    """A SQL relation (``(SELECT ...) AS alias``) of `data`'s rows for the duration of the block."""
    import pandas as pd

    name = _view_name()
    registered = False
    try:
        if not isinstance(data, pd.DataFrame) and (
                hasattr(data, "__arrow_c_stream__") or type(data).__name__ == "PyCapsule"):
            con._con.register_arrow(name, data)
            registered = True
            yield f"(SELECT * FROM {quote_identifier(name)}) AS {quote_identifier(alias)}"
            return
        if not isinstance(data, pd.DataFrame):
            data = pd.DataFrame(data)
        select = _frame_relation(con, data, name)
        if select is None:  # nested or mixed columns: SQL literals
            yield values_relation(data, alias)
            return
        registered = True
        yield f"{select} AS {quote_identifier(alias)}"
    finally:
        if registered:
            con._con.drop_view(name)
