"""The delta-rs-like surface on real tables: write_deltalake, DeltaTable and its maintenance and
DML methods, a conformance table, and a table written from Python read by DuckDB."""

import datetime
import decimal
import glob
import json
import os
import shutil
import subprocess
import urllib.parse

import numpy as np
import pandas as pd
import pytest

import silt
from test_sql import _normalize, assert_frame_equals_rows

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def sample_frame():
    return pd.DataFrame(
        {
            "id": pd.Series([1, 2, 3, 4], dtype="int64"),
            "small": pd.Series([1, None, 3, 4], dtype="Int32"),
            "score": [1.5, float("nan"), -2.0, 1e300],
            "flag": [True, False, True, False],
            "name": ["a", "b'quote", None, "é\\x"],
            "part": ["x", "y", "x", "y"],
            "day": [datetime.date(2024, 1, 2), None, datetime.date(1969, 12, 31), datetime.date(2000, 2, 29)],
            "ts": pd.to_datetime(["2024-01-02 03:04:05", None, "1970-01-01", "2038-01-19 03:14:08"]),
            "amount": [decimal.Decimal("1.10"), decimal.Decimal("-2.25"), None, decimal.Decimal("0.01")],
            "raw": [b"\x00\x01", b"", None, b"\xff"],
        }
    )


@pytest.fixture
def table(tmp_path):
    path = str(tmp_path / "events")
    silt.write_deltalake(path, sample_frame(), partition_by=["part"])
    return silt.DeltaTable(path)


def test_write_then_read_round_trip(table):
    dt = table
    assert dt.version() == 0
    frame = dt.to_pandas()
    want = sample_frame()
    frame = frame.sort_values("id").reset_index(drop=True)
    assert sorted(frame.columns) == sorted(want.columns)
    frame = frame[list(want.columns)]
    assert frame["id"].tolist() == [1, 2, 3, 4]
    assert [_normalize(v) for v in frame["small"]] == [1, None, 3, 4]
    assert [_normalize(v) for v in frame["score"]] == [1.5, None, -2.0, 1e300]
    assert frame["flag"].tolist() == [True, False, True, False]
    assert [_normalize(v) for v in frame["name"]] == ["a", "b'quote", None, "é\\x"]
    assert frame["part"].tolist() == ["x", "y", "x", "y"]
    assert [_normalize(v) for v in frame["day"]] == list(want["day"])
    assert [_normalize(v) for v in frame["ts"]] == [_normalize(v) for v in want["ts"]]
    assert [_normalize(v) for v in frame["amount"]] == list(want["amount"])
    assert [_normalize(v) for v in frame["raw"]] == list(want["raw"])
    schema = dt.schema()
    types = {f.name: f.type for f in schema.fields}
    assert types["id"] == "bigint" and types["small"] == "int" and types["score"] == "double"
    assert types["flag"] == "boolean" and types["name"] == "string" and types["day"] == "date"
    assert types["ts"] == "timestamp_ntz" and types["raw"] == "binary"
    assert types["amount"].startswith("decimal(")


def test_dataframe_equals_sql_result(table):
    con = silt.connect()
    sql = f"SELECT * FROM delta.`{table.table_uri}` ORDER BY id"
    assert_frame_equals_rows(con.sql(sql).df(), con.sql(sql).columns, con.sql(sql).fetchall())
    frame = table.to_pandas(columns=["id", "name"], filters=[("part", "=", "x")])
    assert sorted(frame["id"].tolist()) == [1, 3]
    assert list(frame.columns) == ["id", "name"]
    frame = table.to_pandas(columns=["id"], filters=[[("id", "in", [1, 2])], [("name", "=", None)]])
    assert sorted(frame["id"].tolist()) == [1, 2, 3]
    frame = table.to_pandas(columns=["id"], filters=[("id", ">=", 2), ("id", "<", 4)])
    assert sorted(frame["id"].tolist()) == [2, 3]


def test_write_modes(tmp_path):
    path = str(tmp_path / "t")
    df = pd.DataFrame({"k": [1, 2], "v": ["a", "b"]})
    silt.write_deltalake(path, df)
    with pytest.raises(silt.AlreadyExistsError) as e:
        silt.write_deltalake(path, df)
    assert e.value.error_class == "DELTA_TABLE_ALREADY_EXISTS"
    silt.write_deltalake(path, df, mode="ignore")
    silt.write_deltalake(path, pd.DataFrame({"v": ["c"], "k": [3]}), mode="append")  # by name
    dt = silt.DeltaTable(path)
    assert dt.version() == 1
    assert sorted(dt.to_pandas()["k"].tolist()) == [1, 2, 3]
    silt.write_deltalake(path, pd.DataFrame({"k": [9], "v": ["z"]}), mode="overwrite")
    assert dt.to_pandas().values.tolist() == [[9, "z"]]
    assert dt.version() == 2
    with pytest.raises(silt.Error):
        silt.write_deltalake(path, pd.DataFrame({"other": [1.5]}), mode="append")
    silt.write_deltalake(path, pd.DataFrame({"other": [1.5]}), mode="overwrite", schema_mode="overwrite")
    assert dt.schema().names == ["other"]
    empty = str(tmp_path / "empty")
    silt.write_deltalake(empty, pd.DataFrame({"a": pd.Series([], dtype="int16")}),
                         configuration={"delta.appendOnly": "true"}, description="nothing yet")
    dt = silt.DeltaTable(empty)
    assert dt.schema().fields[0].type == "smallint"
    md = dt.metadata()
    assert md.configuration.get("delta.appendOnly") == "true"
    assert md.description == "nothing yet"
    assert len(dt.to_pandas()) == 0
    with pytest.raises(silt.InvalidArgumentError):
        silt.write_deltalake(empty, pd.DataFrame({"a": [1]}), mode="upsert")


ALL_TYPES_SQL = (
    "SELECT * FROM VALUES "
    "(true, CAST(1 AS TINYINT), CAST(-2 AS SMALLINT), 3, CAST(4 AS BIGINT), CAST(1.5 AS FLOAT), "
    " 2.25D, CAST('-12.30' AS DECIMAL(5,2)), 'héllo', X'00FF', DATE'2024-01-02', "
    " TIMESTAMP'2024-01-02 03:04:05.123456', TIMESTAMP_NTZ'1969-12-31 23:59:59', "
    " array(1, NULL), map('k', named_struct('a', 1)), named_struct('x', array('p'), 'y', CAST(NULL AS STRING))),"
    "(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)"
    " AS t(bo, i1, i2, i4, i8, f4, f8, de, st, bi, da, ts, tn, l, m, s)"
)


def test_write_from_an_arrow_stream(tmp_path):
    """A silt Result is an Arrow C stream source (__arrow_c_stream__): write_deltalake imports
    it (silt/arrow.h ImportArrowStream) with every type, nested ones too."""
    con = silt.connect()
    first_view = next(silt._ingest._counter) + 1
    path = str(tmp_path / "from_arrow")
    source = con.sql(ALL_TYPES_SQL)
    silt.write_deltalake(path, source, connection=con)
    back = con.sql(f"SELECT * FROM delta.`{path}` ORDER BY i4 NULLS LAST")
    assert back.types == source.types
    assert back.fetchall() == con.sql(ALL_TYPES_SQL).fetchall()
    # Append (by name) from a capsule, and from a stream already consumed.
    capsule = con.sql("SELECT 7 AS i4, 'x' AS st").__arrow_c_stream__()
    silt.write_deltalake(path, capsule, mode="append", connection=con)
    assert con.sql(f"SELECT st FROM delta.`{path}` WHERE i4 = 7").fetchall() == [("x",)]
    with pytest.raises(ValueError):
        silt.write_deltalake(path, capsule, mode="append", connection=con)
    # No temporary view is left behind (the three writes used the next view names).
    for n in range(first_view, first_view + 3):
        with pytest.raises(silt.NotFoundError) as e:
            con.sql(f"SELECT * FROM __silt_ingest_{n}")
        assert e.value.error_class == "TABLE_OR_VIEW_NOT_FOUND"


def test_write_pandas_columns_as_vectors(tmp_path):
    """pandas columns of every dtype reach silt as arrays (no SQL literals): nullable dtypes,
    categoricals, tz-aware timestamps, unsigned integers, Python dates / datetimes / decimals,
    and object columns SQL literals still carry (lists, mixed values)."""
    path = str(tmp_path / "vectors")
    n = 5
    df = pd.DataFrame({
        "i8": np.arange(n, dtype="int8"),
        "u16": np.arange(n, dtype="uint16") * 1000,
        "u64": np.array([0, 1, 2**64 - 1, 5, 6], dtype="uint64"),
        "ni": pd.Series([1, None, 3, None, 5], dtype="Int64"),
        "nb": pd.Series([True, None, False, True, None], dtype="boolean"),
        "f4": np.array([0.5, 1.5, np.nan, -1, 2], dtype="float32"),
        "cat": pd.Categorical(["a", "b", None, "a", "b"]),
        "sd": pd.Series(["x", None, "z", "", "é"], dtype="string"),
        "tz": pd.to_datetime(["2024-01-01 00:00:00.000001", None, "1969-12-31 23:59:59.999999",
                              "2000-01-01", "2000-01-02"]).tz_localize("Europe/Paris"),
        "pyts": [datetime.datetime(1, 1, 1), None, datetime.datetime(9999, 12, 31, 23, 59, 59),
                 datetime.datetime(2024, 5, 6, 7, 8, 9, 10), datetime.datetime(1970, 1, 1)],
        "day": [datetime.date(1, 1, 1), datetime.date(9999, 12, 31), None, datetime.date(1970, 1, 1),
                datetime.date(2024, 2, 29)],
        "dec": [decimal.Decimal("1.5"), None, decimal.Decimal("-0.25"), decimal.Decimal("100"),
                decimal.Decimal("0")],
    })
    silt.write_deltalake(path, df)
    con = silt.connect()
    r = con.sql(f"SELECT * FROM delta.`{path}` ORDER BY i8")
    assert r.types == ["tinyint", "int", "decimal(20,0)", "bigint", "boolean", "float", "string", "string",
                       "timestamp", "timestamp_ntz", "date", "decimal(18,2)"]
    rows = r.fetchall()
    assert [row[1] for row in rows] == [0, 1000, 2000, 3000, 4000]
    assert [row[2] for row in rows] == [0, 1, 2**64 - 1, 5, 6]
    assert [row[3] for row in rows] == [1, None, 3, None, 5]
    assert [row[4] for row in rows] == [True, None, False, True, None]
    assert rows[2][5] != rows[2][5]  # NaN stays NaN (not NULL)
    assert [row[6] for row in rows] == ["a", "b", None, "a", "b"]
    assert [row[7] for row in rows] == ["x", None, "z", "", "é"]
    utc = datetime.timezone.utc
    assert [row[8] for row in rows] == [
        datetime.datetime(2023, 12, 31, 23, 0, 0, 1, tzinfo=utc), None,
        datetime.datetime(1969, 12, 31, 22, 59, 59, 999999, tzinfo=utc),
        datetime.datetime(1999, 12, 31, 23, 0, tzinfo=utc), datetime.datetime(2000, 1, 1, 23, 0, tzinfo=utc)]
    assert [row[9] for row in rows] == list(df["pyts"].where(df["pyts"].notna(), None))
    assert [row[10] for row in rows] == list(df["day"])
    assert [row[11] for row in rows] == list(df["dec"])
    # Columns SQL literals carry: lists, and an object column mixing types (cast to its type).
    nested = str(tmp_path / "nested")
    silt.write_deltalake(nested, pd.DataFrame({"l": [[1, 2], None], "mixed": ["a", 5]}))
    assert con.sql(f"SELECT * FROM delta.`{nested}` ORDER BY mixed DESC").fetchall() == [([1, 2], "a"),
                                                                                      (None, "5")]


def test_history_metadata_version_travel(table):
    path = table.table_uri
    silt.write_deltalake(path, sample_frame().iloc[:1].assign(id=5, part="z"), mode="append")
    dt = silt.DeltaTable(path)
    assert dt.version() == 1
    history = dt.history()
    assert [h["version"] for h in history] == [1, 0]
    assert history[0]["operation"] == "WRITE"
    assert history[1]["operation"] in ("CREATE TABLE AS SELECT", "CREATE TABLE")
    assert len(dt.history(limit=1)) == 1
    md = dt.metadata()
    assert md.partition_columns == ["part"]
    assert md.id and len(md.id) == 36
    assert md.num_files >= 3
    old = silt.DeltaTable(path, version=0)
    assert old.version() == 0
    assert len(old.to_pandas()) == 4
    assert [h["version"] for h in old.history()] == [0]
    dt.load_as_version(0)
    assert len(dt.to_pandas()) == 4
    with pytest.raises(silt.Error) as e:
        dt.load_as_version(7)
    assert e.value.error_class == "DELTA_VERSION_NOT_FOUND"
    assert dt.version() == 0  # unchanged by the failed load
    with pytest.raises(silt.InvalidArgumentError):
        dt.delete("id = 1")  # a pinned table is read-only
    assert len(silt.DeltaTable(path).to_pandas()) == 5
    # Time travel by timestamp: the last commit at or before it.
    h1, h0 = history[0]["timestamp"], history[1]["timestamp"]
    assert h0.tzinfo is not None and h0 <= h1
    by_time = silt.DeltaTable(path).load_as_version(h0)
    assert by_time.version() == (0 if h0 < h1 else 1)
    assert silt.DeltaTable(path).load_as_version(h1.isoformat()).version() == 1


def test_missing_table(tmp_path):
    with pytest.raises(silt.Error) as e:
        silt.DeltaTable(str(tmp_path / "nothing"))
    assert e.value.error_class
    assert e.value.sql_state


def test_delete_update_merge(table):
    dt = table
    assert dt.delete("id = 4") == {"num_deleted_rows": 1}
    assert sorted(dt.to_pandas()["id"].tolist()) == [1, 2, 3]
    assert dt.update(updates={"name": "upper(name)"}, predicate="part = 'x'") == {"num_updated_rows": 2}
    assert dt.update(new_values={"score": 0.5, "name": "it's"}, predicate="id = 2") == {"num_updated_rows": 1}
    rows = {r[0]: r[1:] for r in silt.connect().sql(
        f"SELECT id, name, score FROM delta.`{dt.table_uri}`").fetchall()}
    assert rows == {1: ("A", 1.5), 2: ("it's", 0.5), 3: (None, -2.0)}
    source = pd.DataFrame({"id": [2, 3, 10], "name": ["two", "three", "ten"], "part": ["y", "x", "z"]})
    metrics = (
        dt.merge(source, "target.id = source.id")
        .when_matched_update({"name": "source.name"}, predicate="source.id = 2")
        .when_matched_delete()
        .when_not_matched_insert({"id": "source.id", "name": "source.name", "part": "source.part"})
        .execute()
    )
    assert metrics["num_affected_rows"] == 3
    rows = dict(silt.connect().sql(f"SELECT id, name FROM delta.`{dt.table_uri}`").fetchall())
    assert rows == {1: "A", 2: "two", 10: "ten"}
    with pytest.raises(silt.InvalidArgumentError):
        dt.merge(source, "target.id = source.id").execute()  # no WHEN clause
    # An Arrow stream source (a silt Result), as a temporary view while the MERGE runs.
    arrow_source = silt.connect().sql("SELECT 10 AS id, 'TEN' AS name UNION ALL SELECT 11, 'eleven'")
    merger = (dt.merge(arrow_source, "target.id = source.id")
              .when_matched_update({"name": "source.name"})
              .when_not_matched_insert({"id": "source.id", "name": "source.name", "part": "'z'"}))
    assert "<Arrow stream>" in merger.sql()
    assert merger.execute()["num_affected_rows"] == 2
    rows = dict(silt.connect().sql(f"SELECT id, name FROM delta.`{dt.table_uri}`").fetchall())
    assert rows == {1: "A", 2: "two", 10: "TEN", 11: "eleven"}
    with pytest.raises(silt.Error):
        dt.delete("no_such_column = 1")
    history = [h["operation"] for h in dt.history()]
    assert history[:5] == ["MERGE", "MERGE", "UPDATE", "UPDATE", "DELETE"]


def test_optimize_vacuum_restore(tmp_path):
    path = str(tmp_path / "m")
    for i in range(4):
        silt.write_deltalake(path, pd.DataFrame({"id": [i], "g": [i % 2]}), mode="append")
    dt = silt.DeltaTable(path)
    assert dt.version() == 3
    metrics = dt.optimize.compact()
    assert metrics["numFilesRemoved"] == 4 and metrics["numFilesAdded"] == 1
    assert dt.version() == 4
    silt.write_deltalake(path, pd.DataFrame({"id": [7], "g": [1]}), mode="append")
    metrics = dt.optimize.z_order(["id", "g"])
    assert metrics["numFilesRemoved"] == 2
    assert dt.history(1)[0]["operation"] == "OPTIMIZE"
    before = sorted(os.listdir(path))
    # The default retention (7 days) keeps the files OPTIMIZE removed a moment ago.
    assert dt.vacuum() == []
    with pytest.raises(silt.Error) as e:
        dt.vacuum(retention_hours=0)
    assert e.value.error_class == "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT"
    listed = dt.vacuum(retention_hours=0, enforce_retention_duration=False)
    assert len(listed) == 6  # 4 compacted + 2 z-ordered files, not yet deleted
    assert sorted(os.listdir(path)) == before
    deleted = dt.vacuum(retention_hours=0, dry_run=False, enforce_retention_duration=False)
    assert sorted(deleted) == sorted(listed)
    assert len([f for f in os.listdir(path) if f.endswith(".parquet")]) == 1
    assert sorted(dt.to_pandas()["id"].tolist()) == [0, 1, 2, 3, 7]
    # The retention check is back on for the connection.
    with pytest.raises(silt.Error):
        dt.vacuum(retention_hours=0)
    silt.write_deltalake(path, pd.DataFrame({"id": [8], "g": [0]}), mode="append")
    assert sorted(dt.to_pandas()["id"].tolist()) == [0, 1, 2, 3, 7, 8]
    metrics = dt.restore(6)  # after the z-order: its file is still there (vacuumed: older ones)
    assert metrics["num_removed_files"] == 1
    assert sorted(dt.to_pandas()["id"].tolist()) == [0, 1, 2, 3, 7]
    assert dt.history(1)[0]["operation"] == "RESTORE"


def test_files_and_add_actions(table, tmp_path):
    dt = table
    path = dt.table_uri
    log = _active_files(path)  # the test's own reading of the log
    files = dt.files()
    assert sorted(files) == sorted(urllib.parse.unquote(p) for p in log)
    assert len(files) == 2  # one file per partition value
    for f in files:
        assert f.startswith("part=") and os.path.isfile(os.path.join(path, f))
    uris = dt.file_uris()
    assert len(uris) == 2
    for f, u in zip(files, uris):
        assert u.startswith("file:///") and urllib.parse.unquote(u[len("file://"):]) == os.path.join(
            os.path.realpath(path), f)
    # The same URIs input_file_name() gives for the files' rows.
    read = silt.connect().sql(f"SELECT DISTINCT input_file_name() FROM delta.`{path}`").fetchall()
    assert sorted(r[0] for r in read) == sorted(uris)
    assert dt.files([("part", "=", "x")]) == [f for f in files if f.startswith("part=x/")]
    assert dt.files([("part", "in", ["x", "y"])]) == files
    assert dt.files([("part", "not in", ["x", "y"])]) == []
    with pytest.raises(silt.InvalidArgumentError):
        dt.files([("id", "=", 1)])  # not a partition column

    actions = dt.get_add_actions()
    assert list(actions.columns) == ["path", "size_bytes", "modification_time", "data_change", "num_records",
                                     "partition_values", "null_count", "min", "max"]
    assert actions["path"].tolist() == files
    by_path = {urllib.parse.unquote(p): a for p, a in log.items()}
    for a in actions.itertuples(index=False):
        want = by_path[a.path]
        assert a.size_bytes == want["size"] == os.path.getsize(os.path.join(path, a.path))
        assert a.modification_time == pd.Timestamp(want["modificationTime"], unit="ms", tz="UTC")
        assert a.num_records == 2 and a.data_change
        assert a.partition_values == want["partitionValues"]
        assert a.min["id"] == min(r for r in sample_frame().query(f"part == '{a.partition_values['part']}'")["id"])
    flat = dt.get_add_actions(flatten=True)
    assert {"partition.part", "min.id", "max.id", "null_count.id"} <= set(flat.columns)
    assert sorted(flat["partition.part"]) == ["x", "y"]
    assert sorted(flat["max.id"]) == [3, 4]

    # Another version: the files of version 0 stay listed after an append and a delete.
    silt.write_deltalake(path, pd.DataFrame({"id": [9], "part": ["z"]}), mode="append")
    assert len(silt.DeltaTable(path).files()) == 3
    assert silt.DeltaTable(path, version=0).files() == files
    dt.delete("part = 'x'")
    assert len(silt.DeltaTable(path).files()) == 2
    with pytest.raises(silt.Error) as e:
        silt.DeltaTable(path, version=0).load_as_version(99)
    with pytest.raises(silt.Error) as e:
        silt.connect()._con.list_files(str(tmp_path / "nothing"))
    assert e.value.error_class


def test_conformance_table(conformance_table):
    path = conformance_table("kernel-data/table-with-dv-small")
    dt = silt.DeltaTable(path)
    con = silt.connect()
    sql = f"SELECT * FROM delta.`{path}`"
    r = con.sql(sql)
    frame = dt.to_pandas()
    assert len(frame) == len(r) > 0
    assert_frame_equals_rows(frame, r.columns, r.fetchall())
    assert dt.version() == max(h["version"] for h in dt.history())
    assert dt.schema().names == r.columns
    # Deletion vectors: a DELETE writes one, the rows go.
    n = len(frame)
    col = r.columns[0]
    first = frame[col].iloc[0]
    deleted = dt.delete(f"`{col}` = {int(first)}")["num_deleted_rows"]
    assert deleted >= 1 and len(dt.to_pandas()) == n - deleted
    assert dt.restore(dt.version() - 1)["num_restored_files"] >= 0
    assert len(dt.to_pandas()) == n


def _active_files(path):
    """The data files of a table with JSON commits only: add minus remove (the test's own reading
    of the Delta protocol, ../shared/specs)."""
    files = {}
    for commit in sorted(glob.glob(os.path.join(path, "_delta_log", "*.json"))):
        with open(commit) as f:
            for line in f:
                action = json.loads(line)
                if "add" in action:
                    files[action["add"]["path"]] = action["add"]
                elif "remove" in action:
                    files.pop(action["remove"]["path"], None)
    return files


def test_duckdb_reads_a_table_written_from_python(tmp_path):
    interop = os.path.join(REPO, "test", "interop")
    if not shutil.which("node") or not os.path.isdir(os.path.join(interop, "node_modules", "@duckdb")):
        pytest.skip("DuckDB (node @duckdb/node-api in test/interop/node_modules) is not installed")
    path = str(tmp_path / "for_duckdb")
    frame = pd.DataFrame({
        "id": pd.Series([1, 2, 3], dtype="int64"),
        "name": ["a", None, "c"],
        "amount": [decimal.Decimal("1.25"), decimal.Decimal("-3.50"), None],
        "day": [datetime.date(2024, 5, 1), datetime.date(1999, 12, 31), None],
        "p": ["x", "y", "x"],
    })
    silt.write_deltalake(path, frame, partition_by=["p"])
    silt.write_deltalake(path, frame.assign(id=frame["id"] + 10), mode="append")
    files = [os.path.join(path, f) for f in _active_files(path)]
    assert len(files) == 4
    out = subprocess.run(
        ["node", os.path.join(os.path.dirname(__file__), "duckdb_read.mjs"), interop] + files,
        check=True, capture_output=True, text=True,
    ).stdout
    got = sorted(tuple(row) for row in json.loads(out))
    want = sorted(
        (int(r.id), r.name, None if r.amount is None else str(r.amount),
         None if r.day is None else r.day.isoformat(), r.p)
        for df in (frame, frame.assign(id=frame["id"] + 10))
        for r in df.itertuples(index=False)
    )
    assert got == [tuple(w) for w in want]
    # And silt reads the same rows.
    silt_rows = silt.connect().sql(
        f"SELECT id, name, CAST(amount AS STRING), CAST(day AS STRING), p FROM delta.`{path}`").fetchall()
    assert sorted(silt_rows, key=lambda r: r[0]) == sorted(got, key=lambda r: r[0])
