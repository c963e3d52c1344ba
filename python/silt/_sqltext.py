"""Spark SQL text for Python values and pandas columns: literals, types, identifiers."""

import datetime
import decimal
import math


def quote_identifier(name):
    """`name` with backquotes doubled."""
    return "`" + str(name).replace("`", "``") + "`"


def table_ref(uri):
    """The SQL reference of the Delta table at a path or URI: delta.`uri`."""
    return "delta." + quote_identifier(str(uri))


def string_literal(text):
    """A Spark string literal: quotes and backslashes escaped."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _is_missing(value):
    if value is None:
        return True
    try:
        import pandas as pd

        if value is pd.NaT or value is pd.NA:
            return True
    except ImportError:  # pragma: no cover - pandas is optional for the SQL API
        pass
    return False


def literal(value):
    """`value` as a Spark SQL literal (raises TypeError for a value with no SQL form)."""
    if _is_missing(value):
        return "NULL"
    try:
        import numpy as np

        if isinstance(value, np.generic):
            if isinstance(value, np.datetime64):
                import pandas as pd

                value = pd.Timestamp(value)
                if value is pd.NaT:
                    return "NULL"
            else:
                value = value.item()
    except ImportError:  # pragma: no cover
        pass
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value) if -(2**63) <= value < 2**63 else f"{value}BD"
    if isinstance(value, float):
        if math.isnan(value):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(value):
            return "CAST('Infinity' AS DOUBLE)" if value > 0 else "CAST('-Infinity' AS DOUBLE)"
        return repr(value) + "D"
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise TypeError(f"no SQL literal for the decimal {value}")
        return f"{value:f}BD"
    if isinstance(value, str):
        return string_literal(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "X'" + bytes(value).hex().upper() + "'"
    if isinstance(value, datetime.datetime):
        if value.tzinfo is not None:
            utc = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
            return "TIMESTAMP'" + utc.isoformat(sep=" ") + "+00:00'"
        return "TIMESTAMP_NTZ'" + value.isoformat(sep=" ") + "'"
    if isinstance(value, datetime.date):
        return "DATE'" + value.isoformat() + "'"
    if isinstance(value, datetime.timedelta):
        micros = (value.days * 86400 + value.seconds) * 1_000_000 + value.microseconds
        return f"make_dt_interval(0, 0, 0, {micros / 1_000_000!r})"
    if isinstance(value, (list, tuple)):
        return "array(" + ", ".join(literal(v) for v in value) + ")"
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            parts += [string_literal(str(k)), literal(v)]
        return "named_struct(" + ", ".join(parts) + ")"
    raise TypeError(f"no SQL literal for a value of type {type(value).__name__}")


def _value_type(values):
    """The Spark type of a column of Python objects (the first non-missing value decides)."""
    for v in values:
        if _is_missing(v):
            continue
        if isinstance(v, bool):
            return "BOOLEAN"
        if isinstance(v, int):
            return "BIGINT"
        if isinstance(v, float):
            return "DOUBLE"
        if isinstance(v, decimal.Decimal):
            scale = 0
            digits = 1
            for d in values:
                if isinstance(d, decimal.Decimal) and d.is_finite():
                    t = d.as_tuple()
                    scale = max(scale, -t.exponent if t.exponent < 0 else 0)
                    digits = max(digits, len(t.digits) + (t.exponent if t.exponent > 0 else 0))
            precision = min(38, max(digits, scale + 1, 18 if scale < 18 else scale + 1))
            return f"DECIMAL({precision},{min(scale, precision)})"
        if isinstance(v, str):
            return "STRING"
        if isinstance(v, (bytes, bytearray, memoryview)):
            return "BINARY"
        if isinstance(v, datetime.datetime):
            return "TIMESTAMP" if v.tzinfo is not None else "TIMESTAMP_NTZ"
        if isinstance(v, datetime.date):
            return "DATE"
        if isinstance(v, (list, tuple)):
            inner = [x for item in values if isinstance(item, (list, tuple)) for x in item]
            return f"ARRAY<{_value_type(inner)}>"
        if isinstance(v, dict):
            keys = list(v.keys())
            fields = [f"{quote_identifier(k)}: {_value_type([d.get(k) for d in values if isinstance(d, dict)])}" for k in keys]
            return "STRUCT<" + ", ".join(fields) + ">"
        raise TypeError(f"no Spark type for a value of type {type(v).__name__}")
    return "STRING"


def column_type(series):
    """The Spark SQL type of a pandas Series."""
    import pandas as pd
    from pandas.api import types as pdt

    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        return column_type(series.astype(dtype.categories.dtype))
    if pdt.is_bool_dtype(dtype):
        return "BOOLEAN"
    if pdt.is_integer_dtype(dtype):
        name = str(dtype).lower()
        return {
            "int8": "TINYINT",
            "int16": "SMALLINT",
            "int32": "INT",
            "int64": "BIGINT",
            "uint8": "SMALLINT",
            "uint16": "INT",
            "uint32": "BIGINT",
            "uint64": "DECIMAL(20,0)",
        }[name]
    if pdt.is_float_dtype(dtype):
        return "FLOAT" if str(dtype).lower() in ("float32",) else "DOUBLE"
    if pdt.is_datetime64_any_dtype(dtype):
        return "TIMESTAMP" if getattr(dtype, "tz", None) is not None else "TIMESTAMP_NTZ"
    if pdt.is_string_dtype(dtype) and not pdt.is_object_dtype(dtype):
        return "STRING"
    return _value_type(series.tolist())


def values_relation(df, alias):
    """A SQL relation of a pandas DataFrame's rows: (SELECT CAST(c AS type) ... FROM VALUES ...)."""
    names = [str(c) for c in df.columns]
    if not names:
        raise ValueError("a DataFrame with no columns has no SQL form")
    types = [column_type(df[c]) for c in df.columns]
    casts = ", ".join(
        f"CAST({quote_identifier(n)} AS {t}) AS {quote_identifier(n)}" for n, t in zip(names, types)
    )
    cols = ", ".join(quote_identifier(n) for n in names)
    if len(df) == 0:
        nulls = ", ".join(f"CAST(NULL AS {t}) AS {quote_identifier(n)}" for n, t in zip(names, types))
        return f"(SELECT {nulls} WHERE FALSE) AS {quote_identifier(alias)}"
    rows = ", ".join(
        "(" + ", ".join(literal(v) for v in row) + ")"
        for row in df.itertuples(index=False, name=None)
    )
    return f"(SELECT {casts} FROM VALUES {rows} AS _v({cols})) AS {quote_identifier(alias)}"


def schema_sql(df):
    """The column list of CREATE TABLE for a pandas DataFrame."""
    return ", ".join(f"{quote_identifier(c)} {column_type(df[c])}" for c in df.columns)


_OPS = {"=": "=", "==": "=", "!=": "<>", "<>": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


def filters_sql(filters):
    """A WHERE condition from delta-rs/pyarrow DNF filters: [(col, op, value), ...] (AND) or
    [[...], [...]] (OR of ANDs); ops =, ==, !=, <, <=, >, >=, in, not in."""
    if not filters:
        return None
    groups = filters if isinstance(filters[0], list) else [filters]
    ors = []
    for group in groups:
        ands = []
        for col, op, value in group:
            col_sql = quote_identifier(col)
            op_l = op.lower().strip()
            if op_l in ("in", "not in"):
                items = ", ".join(literal(v) for v in value)
                ands.append(f"{col_sql} {'NOT IN' if op_l == 'not in' else 'IN'} ({items})")
            elif op_l in _OPS:
                if value is None and op_l in ("=", "=="):
                    ands.append(f"{col_sql} IS NULL")
                elif value is None and op_l in ("!=", "<>"):
                    ands.append(f"{col_sql} IS NOT NULL")
                else:
                    ands.append(f"{col_sql} {_OPS[op_l]} {literal(value)}")
            else:
                raise ValueError(f"unsupported filter operator {op!r}")
        ors.append("(" + " AND ".join(ands) + ")")
    return " OR ".join(ors)
