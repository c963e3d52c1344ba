"""The DuckDB-like SQL surface: connect, sql, Result (fetchall, fetchnumpy, df, show), errors,
the GIL released while a query runs, the Arrow PyCapsule stream."""

import ctypes
import datetime
import gc
import decimal
import io
import math
import threading
import time

import numpy as np
import pandas as pd
import pytest

import silt

ALL_TYPES = """
SELECT * FROM VALUES
  (true, CAST(1 AS TINYINT), CAST(-2 AS SMALLINT), 3, CAST(4 AS BIGINT), CAST(1.5 AS FLOAT), 2.25D,
   CAST('-12.30' AS DECIMAL(5,2)), 'héllo', X'00FF', DATE'2024-01-02',
   TIMESTAMP'2024-01-02 03:04:05.000006', TIMESTAMP_NTZ'2024-01-02 03:04:05',
   array(1, NULL, 3), map('a', 1), named_struct('x', 1, 'y', 'z'),
   INTERVAL '1 02:03:04' DAY TO SECOND),
  (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
   NULL)
  AS t(bo, i1, i2, i4, i8, f4, f8, de, st, bi, da, ts, tn, ar, ma, sr, dt)
"""


def test_fetchall_python_values(con):
    r = con.sql(ALL_TYPES)
    assert r.columns == ["bo", "i1", "i2", "i4", "i8", "f4", "f8", "de", "st", "bi", "da", "ts",
                         "tn", "ar", "ma", "sr", "dt"]
    assert r.types == ["boolean", "tinyint", "smallint", "int", "bigint", "float", "double",
                       "decimal(5,2)", "string", "binary", "date", "timestamp", "timestamp_ntz",
                       "array<int>", "map<string,int>", "struct<x:int,y:string>",
                       "interval day to second"]
    rows = r.fetchall()
    assert rows[0] == (
        True, 1, -2, 3, 4, 1.5, 2.25, decimal.Decimal("-12.30"), "héllo", b"\x00\xff",
        datetime.date(2024, 1, 2),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc),
        datetime.datetime(2024, 1, 2, 3, 4, 5),
        [1, None, 3], {"a": 1}, {"x": 1, "y": "z"},
        datetime.timedelta(days=1, hours=2, minutes=3, seconds=4),
    )
    assert rows[1] == (None,) * 17
    assert isinstance(rows[0][0], bool) and isinstance(rows[0][4], int)
    assert isinstance(rows[0][7], decimal.Decimal)
    assert r.fetchall() == []  # consumed
    assert len(r) == 2


def test_fetchone_fetchmany_and_multiple_statements(con):
    r = con.sql("CREATE TABLE t (id INT) USING delta; INSERT INTO t VALUES (3), (1), (2);"
                "SELECT id FROM t ORDER BY id")
    assert r.fetchone() == (1,)
    assert r.fetchmany(5) == [(2,), (3,)]
    assert r.fetchone() is None
    results = con.execute_all("SELECT 1 AS a; SELECT 'x' AS b")
    assert [x.fetchall() for x in results] == [[(1,)], [("x",)]]


def test_session_settings_carry_over(con):
    con.sql("SET spark.sql.ansi.enabled = false")
    assert con.get_config("spark.sql.ansi.enabled") == "false"
    assert con.sql("SELECT 1 / 0").fetchall() == [(None,)]
    con.set_config("spark.sql.ansi.enabled", "true")
    with pytest.raises(silt.Error) as e:
        con.sql("SELECT 1 / 0")
    assert e.value.error_class == "DIVIDE_BY_ZERO"
    assert e.value.sql_state == "22012"


def test_fetchnumpy(con):
    r = con.sql("SELECT * FROM VALUES (1, 1.5D, true, DATE'2024-01-02', 'a', TIMESTAMP_NTZ'2024-01-02 00:00:01'),"
                " (NULL, NULL, NULL, NULL, NULL, NULL), (3, -0.5D, false, DATE'1969-12-31', 'c',"
                " TIMESTAMP_NTZ'1970-01-01 00:00:00') AS t(i, d, b, da, s, ts)")
    arrays = r.fetchnumpy()
    assert list(arrays) == ["i", "d", "b", "da", "s", "ts"]
    assert arrays["i"].dtype == np.int32
    assert isinstance(arrays["i"], np.ma.MaskedArray)
    assert arrays["i"].mask.tolist() == [False, True, False]
    assert arrays["i"][0] == 1 and arrays["i"][2] == 3
    assert arrays["d"].dtype == np.float64 and arrays["d"][2] == -0.5
    assert arrays["b"].dtype == np.bool_ and arrays["b"].tolist() == [True, None, False]
    assert arrays["da"].dtype == np.dtype("datetime64[D]")
    assert arrays["da"][0] == np.datetime64("2024-01-02") and arrays["da"][2] == np.datetime64("1969-12-31")
    assert arrays["s"].dtype == object and arrays["s"].tolist() == ["a", None, "c"]
    assert arrays["ts"][0] == np.datetime64("2024-01-02T00:00:01")
    no_nulls = con.sql("SELECT id FROM range(0, 5)").fetchnumpy()["id"]
    assert not isinstance(no_nulls, np.ma.MaskedArray)
    assert no_nulls.dtype == np.int64 and no_nulls.tolist() == [0, 1, 2, 3, 4]


def _normalize(value):
    """A DataFrame cell as the Python value fetchall gives."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if isinstance(value, np.generic):
        return value.item()
    return value


def assert_frame_equals_rows(frame, columns, rows):
    assert list(frame.columns) == columns
    got = [tuple(_normalize(v) for v in row) for row in frame.itertuples(index=False, name=None)]
    want = [tuple(_normalize(v) for v in row) for row in rows]
    assert got == want


def test_df_equals_sql_results(con):
    r = con.sql(ALL_TYPES)
    frame = r.df()
    assert_frame_equals_rows(frame, r.columns, con.sql(ALL_TYPES).fetchall())
    assert str(frame["i4"].dtype) == "Int32"  # nullable integers keep their type
    assert str(frame["ts"].dtype) == "datetime64[ns, UTC]"
    assert str(frame["tn"].dtype) == "datetime64[ns]"
    big = con.sql("SELECT id, id * 2 AS twice, CAST(id AS STRING) AS s FROM range(0, 5000)")
    frame = big.df()
    assert len(frame) == 5000
    assert frame["twice"].sum() == 2 * sum(range(5000))
    assert frame["s"].iloc[4999] == "4999"
    # Duplicate names keep both columns.
    dup = con.sql("SELECT 1 AS a, 2 AS a").df()
    assert dup.shape == (1, 2) and dup.iloc[0].tolist() == [1, 2]


def test_show(con):
    out = io.StringIO()
    con.sql("SELECT 1 AS id, CAST(NULL AS STRING) AS s").show(file=out)
    text = out.getvalue()
    assert "| id  | s      |" in text
    assert "| 1   | NULL   |" in text
    assert text.rstrip().endswith("1 row")


def test_errors_carry_class_and_sqlstate(con):
    with pytest.raises(silt.NotFoundError) as e:
        con.sql("SELECT * FROM no_such_table")
    assert e.value.error_class == "TABLE_OR_VIEW_NOT_FOUND"
    assert e.value.sql_state == "42P01"
    assert str(e.value).startswith("[TABLE_OR_VIEW_NOT_FOUND]")
    assert isinstance(e.value, silt.Error)
    with pytest.raises(silt.InvalidArgumentError) as e:
        con.sql("SELEC 1")
    assert e.value.error_class == "PARSE_SYNTAX_ERROR"
    assert e.value.sql_state == "42601"
    with pytest.raises(silt.Error) as e:
        con.sql("SELECT CAST('x' AS INT)")
    assert e.value.error_class == "CAST_INVALID_INPUT"
    with pytest.raises(silt.Error):
        silt.connect(warehouse="s3://bucket/warehouse").sql("SELECT 1")


def test_warehouse_directory(tmp_path):
    wh = str(tmp_path / "wh")
    c1 = silt.connect(warehouse=wh)
    c1.sql("CREATE SCHEMA s; CREATE TABLE s.t (id INT) USING delta; INSERT INTO s.t VALUES (7)")
    c2 = silt.connect(warehouse=wh)
    assert c2.sql("SELECT * FROM s.t").fetchall() == [(7,)]


def test_gil_released_while_a_query_runs(con):
    done = threading.Event()
    errors = []

    def run():
        try:
            con.sql("SELECT count(*) FROM range(0, 5000) a CROSS JOIN range(0, 5000) b").fetchall()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            done.set()

    t = threading.Thread(target=run)
    start = time.monotonic()
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1
        time.sleep(0.001)
    t.join()
    elapsed = time.monotonic() - start
    assert not errors
    # Holding the GIL for the whole query would leave this thread one or two ticks however long
    # the query runs; released, it ticks every few milliseconds.
    assert elapsed < 0.1 or ticks >= 3, (ticks, elapsed)


def test_threads_share_a_connection(con):
    con.sql("CREATE TABLE c (id BIGINT) USING delta")
    failures = []

    def insert(k):
        try:
            for i in range(3):
                con.sql(f"INSERT INTO c VALUES ({k * 10 + i})")
        except Exception as exc:  # pragma: no cover
            failures.append(exc)

    threads = [threading.Thread(target=insert, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    assert con.sql("SELECT count(*) FROM c").fetchall() == [(12,)]


# --- the Arrow PyCapsule stream, read with ctypes against the C stream interface ----------------

class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowSchema))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArray))),
    ("private_data", ctypes.c_void_p),
]


class ArrowArrayStream(ctypes.Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowSchema))),
    ("get_next", ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArrowArrayStream), ctypes.POINTER(ArrowArray))),
    ("get_last_error", ctypes.CFUNCTYPE(ctypes.c_char_p, ctypes.POINTER(ArrowArrayStream))),
    ("release", ctypes.CFUNCTYPE(None, ctypes.POINTER(ArrowArrayStream))),
    ("private_data", ctypes.c_void_p),
]


def _capsule_pointer(capsule, name):
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    return get(capsule, name)


def test_arrow_c_stream_capsule(con):
    # The Result object goes right away: the stream keeps the rows alive.
    capsule = con.sql("SELECT id, CASE WHEN id % 3 = 0 THEN NULL ELSE CAST(id AS STRING) END AS s "
                      "FROM range(0, 4000)").__arrow_c_stream__()
    gc.collect()
    stream = ArrowArrayStream.from_address(_capsule_pointer(capsule, b"arrow_array_stream"))
    schema = ArrowSchema()
    assert stream.get_schema(ctypes.byref(stream), ctypes.byref(schema)) == 0
    assert schema.format == b"+s" and schema.n_children == 2
    assert [schema.children[i].contents.format for i in range(2)] == [b"l", b"u"]
    assert [schema.children[i].contents.name for i in range(2)] == [b"id", b"s"]
    ids, strings = [], []
    while True:
        array = ArrowArray()
        assert stream.get_next(ctypes.byref(stream), ctypes.byref(array)) == 0
        if not array.release:
            break
        col = array.children[0].contents
        data = ctypes.cast(col.buffers[1], ctypes.POINTER(ctypes.c_int64))
        ids += [data[col.offset + i] for i in range(array.length)]
        scol = array.children[1].contents
        valid = ctypes.cast(scol.buffers[0], ctypes.POINTER(ctypes.c_uint8))
        offs = ctypes.cast(scol.buffers[1], ctypes.POINTER(ctypes.c_int32))
        chars = ctypes.cast(scol.buffers[2], ctypes.POINTER(ctypes.c_char))
        for i in range(array.length):
            j = scol.offset + i
            if scol.buffers[0] and not (valid[j // 8] >> (j % 8)) & 1:
                strings.append(None)
            else:
                strings.append(chars[offs[j]:offs[j + 1]].decode())
        array.release(ctypes.byref(array))
    schema.release(ctypes.byref(schema))
    assert ids == list(range(4000))
    assert strings == [None if i % 3 == 0 else str(i) for i in range(4000)]
    del capsule  # the capsule's destructor releases the stream


def test_arrow_requested_schema_not_supported(con):
    with pytest.raises(silt.NotImplementedError):
        con.sql("SELECT 1").__arrow_c_stream__(requested_schema=object())
