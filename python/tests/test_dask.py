"""silt.dask on a distributed.LocalCluster of 2 worker processes: the same table content, log
shape and query results as the local statements; a worker killed mid-task still gives exactly one
commit; a user's commit during the job has the local command's conflict outcome."""

import functools
import os
import shutil
import signal
import sys

import pytest

distributed = pytest.importorskip(
    "distributed", reason="Debian's python3-distributed is not installed (silt.dask needs it)"
)

import cloudpickle  # noqa: E402 - a dependency of distributed

import silt  # noqa: E402
import silt.dask  # noqa: E402

# The task wrappers below run on the workers, which cannot import this test module.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def ref(path):
    return "delta.`" + str(path) + "`"


def make_table(con, path, deletes=True):
    """A partitioned table of many small files, some with deletion vectors (> 5 % and < 5 %)."""
    con.sql(
        f"CREATE TABLE {ref(path)} (id BIGINT, p STRING, v DOUBLE) USING DELTA PARTITIONED BY (p) "
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    for i in range(12):
        part = "abc"[i % 3]
        con.sql(
            f"INSERT INTO {ref(path)} SELECT id, '{part}', id * 0.5 FROM range({i * 1000}, "
            f"{(i + 1) * 1000})"
        )
    if deletes:
        con.sql(f"DELETE FROM {ref(path)} WHERE id % 10 = 3 AND id < 3000")  # 10 % of 3 files
        con.sql(f"DELETE FROM {ref(path)} WHERE id = 5001")  # 0.1 % of one file


def twins(tmp_path, con, **kw):
    local, dist = tmp_path / "local", tmp_path / "dist"
    make_table(con, local, **kw)
    shutil.copytree(local, dist)
    return local, dist


def rows(con, path):
    return con.sql(f"SELECT * FROM {ref(path)} ORDER BY id").fetchall()


def last_commit(con, path):
    r = con.sql(f"DESCRIBE HISTORY {ref(path)} LIMIT 1")
    return dict(zip(r.columns, r.fetchall()[0]))


def detail(con, path):
    r = con.sql(f"DESCRIBE DETAIL {ref(path)}")
    return dict(zip(r.columns, r.fetchall()[0]))


def assert_same_outcome(con, local, dist, local_metrics, dist_metrics):
    assert rows(con, dist) == rows(con, local)
    lc, dc = last_commit(con, local), last_commit(con, dist)
    for key in ("version", "operation", "operationParameters", "readVersion", "isolationLevel",
                "isBlindAppend"):
        assert dc[key] == lc[key], key
    lm, dm = dict(lc["operationMetrics"]), dict(dc["operationMetrics"])
    assert dm.keys() == lm.keys()
    for key in ("numRemovedFiles", "numAddedFiles", "numRemovedBytes", "numDeletionVectorsRemoved"):
        assert dm[key] == lm[key], key
    assert detail(con, dist)["numFiles"] == detail(con, local)["numFiles"]
    for key in ("numFilesAdded", "numFilesRemoved", "partitionsOptimized", "numBins",
                "totalConsideredFiles", "totalFilesSkipped", "deletionVectorStats"):
        assert dist_metrics[key] == local_metrics[key], key


def local_metrics(con, statement):
    r = con.sql(statement)
    return dict(zip(r.columns, r.fetchall()[0]))["metrics"]


def test_optimize_matches_the_local_command(client, con, tmp_path):
    local, dist = twins(tmp_path, con)
    want = local_metrics(con, f"OPTIMIZE {ref(local)}")
    got = silt.dask.optimize(str(dist), client)
    assert got["numFilesRemoved"] == 12
    assert_same_outcome(con, local, dist, want, got)


def test_optimize_where_matches_the_local_command(client, con, tmp_path):
    local, dist = twins(tmp_path, con)
    want = local_metrics(con, f"OPTIMIZE {ref(local)} WHERE p = 'b'")
    got = silt.dask.optimize(str(dist), client, where="p = 'b'")
    assert got["numFilesRemoved"] == 4
    assert_same_outcome(con, local, dist, want, got)


def test_zorder_matches_the_local_command(client, con, tmp_path):
    local, dist = twins(tmp_path, con)
    want = local_metrics(con, f"OPTIMIZE {ref(local)} ZORDER BY (v, id)")
    got = silt.dask.zorder(str(dist), client, ["v", "id"])
    assert_same_outcome(con, local, dist, want, got)
    # Same order within the files: the same per-file ranges.
    q = "SELECT min(id), max(id) FROM {} GROUP BY input_file_name() ORDER BY 1"
    assert con.sql(q.format(ref(dist))).fetchall() == con.sql(q.format(ref(local))).fetchall()


def test_reorg_purge_matches_the_local_command(client, con, tmp_path):
    local, dist = twins(tmp_path, con)
    want = local_metrics(con, f"REORG TABLE {ref(local)} APPLY (PURGE)")
    got = silt.dask.reorg_purge(str(dist), client)
    assert got["numFilesRemoved"] == 4  # every file with a DV, the 0.1 % one too
    assert_same_outcome(con, local, dist, want, got)
    assert last_commit(con, dist)["operation"] == "REORG"


def test_nothing_to_do_commits_nothing(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path, deletes=False)
    silt.dask.optimize(str(path), client)
    version = last_commit(con, path)["version"]
    again = silt.dask.optimize(str(path), client)
    assert again["numFilesRemoved"] == 0
    assert last_commit(con, path)["version"] == version


def test_errors_keep_their_class(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path, deletes=False)
    with pytest.raises(silt.InvalidArgumentError) as e:
        silt.dask.optimize(str(path), client, where="id = 1")
    assert e.value.error_class == "DELTA_NON_PARTITION_COLUMN_REFERENCE"
    with pytest.raises(silt.InvalidArgumentError) as e:
        silt.dask.zorder(str(path), client, ["nope"])
    assert e.value.error_class == "DELTA_ZORDERING_COLUMN_DOES_NOT_EXIST"
    with pytest.raises(silt.NotFoundError):
        silt.dask.optimize(str(tmp_path / "missing"), client)
    # An error raised on a worker crosses the pickle boundary with its class.
    task_error = client.submit(silt.dask._run_task, "{}", pure=False).exception()
    assert isinstance(task_error, silt.InvalidArgumentError)
    assert task_error.error_class == "SILT_INVALID_DISTRIBUTED_TASK"


# --- failures on the workers --------------------------------------------------------------------


def _task_then_die_once(task, marker):
    """Rewrites the bin (its files are written), then, on the first attempt only, kills its own
    worker process before the output reaches the client."""
    out = silt.dask._worker_connection()._con.run_distributed_task(task)
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return out
    os.kill(os.getpid(), signal.SIGKILL)


def data_files(path):
    return {
        os.path.relpath(os.path.join(d, f), path)
        for d, _, fs in os.walk(path)
        if "_delta_log" not in d
        for f in fs
        if f.endswith(".parquet")
    }


@pytest.mark.parametrize("operation", ["optimize", "reorg_purge"])
def test_a_killed_worker_gives_one_commit_and_identical_content(
    client, con, tmp_path, monkeypatch, operation
):
    local, dist = twins(tmp_path, con)
    statement = {"optimize": "OPTIMIZE {}", "reorg_purge": "REORG TABLE {} APPLY (PURGE)"}
    want = local_metrics(con, statement[operation].format(ref(local)))
    before = last_commit(con, dist)["version"]
    files_before = data_files(dist)
    marker = str(tmp_path / "killed")
    monkeypatch.setattr(
        silt.dask, "_run_task", functools.partial(_task_then_die_once, marker=marker)
    )
    got = getattr(silt.dask, operation)(str(dist), client)
    assert os.path.exists(marker), "a worker was killed"
    assert last_commit(con, dist)["version"] == before + 1, "exactly one commit"
    assert_same_outcome(con, local, dist, want, got)
    # The killed attempt's files exist but no version references them (left for VACUUM).
    live = {r[0] for r in con._con.list_files(str(dist)).rows(0, 1 << 30)}
    written = data_files(dist) - files_before
    assert len(written) > len(live - files_before)
    assert live - files_before <= written


def _task_after_user_commit(task, path, statement, marker):
    """Runs a user's statement on the table once (as another writer would, mid-job), then the
    task."""
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        silt.connect().sql(statement.format(ref(path)))
    except FileExistsError:
        pass
    return silt.dask._worker_connection()._con.run_distributed_task(task)


@pytest.mark.parametrize(
    "user_statement, conflict",
    [
        # File 0 already has a deletion vector: the DELETE and the OPTIMIZE both remove it.
        ("DELETE FROM {} WHERE id = 100", "DELTA_CONCURRENT_DELETE_DELETE"),
        ("INSERT INTO {} VALUES (99999, 'a', 1.0)", None),
    ],
)
def test_a_concurrent_commit_has_the_local_outcome(
    client, con, tmp_path, monkeypatch, user_statement, conflict
):
    path = tmp_path / "t"
    make_table(con, path)
    monkeypatch.setattr(
        silt.dask,
        "_run_task",
        functools.partial(
            _task_after_user_commit,
            path=str(path),
            statement=user_statement,
            marker=str(tmp_path / "done"),
        ),
    )
    before = last_commit(con, path)["version"]
    if conflict:
        # A local OPTIMIZE with the same DELETE landing before its commit fails the same way
        # (test/unit/ops/optimize_test.cc: AConcurrentCommitEndsAsItDoesForTheLocalCommand).
        with pytest.raises(silt.CommitConflictError) as e:
            silt.dask.optimize(str(path), client)
        assert e.value.error_class == conflict
        assert last_commit(con, path)["version"] == before + 1  # the user's commit only
        assert last_commit(con, path)["operation"] == "DELETE"
    else:
        silt.dask.optimize(str(path), client)  # a blind append does not conflict
        assert last_commit(con, path)["version"] == before + 2
        assert last_commit(con, path)["operation"] == "OPTIMIZE"
        assert con.sql(f"SELECT count(*) FROM {ref(path)} WHERE id = 99999").fetchall() == [(1,)]


# --- VACUUM -------------------------------------------------------------------------------------


def test_vacuum_matches_the_local_command(client, con, tmp_path):
    local, dist = tmp_path / "local", tmp_path / "dist"
    make_table(con, local)
    con.sql(f"OPTIMIZE {ref(local)}")  # 12 files (and 3 DV files) are now unreferenced
    shutil.copytree(local, dist)
    before = data_files(dist)
    con.set_config("spark.databricks.delta.retentionDurationCheck.enabled", "false")
    con.sql(f"VACUUM {ref(local)} RETAIN 0 HOURS")
    con.set_config("spark.databricks.delta.retentionDurationCheck.enabled", "true")
    deleted = silt.dask.vacuum(str(dist), client, retention_hours=0,
                               enforce_retention_duration=False)
    assert con.get_config("spark.databricks.delta.retentionDurationCheck.enabled") == "true"
    assert data_files(dist) == data_files(local)
    gone = before - data_files(dist)
    assert len(gone) == 12
    assert {os.path.relpath(p, str(dist)) for p in deleted if p.endswith(".parquet")} == gone
    assert rows(con, dist) == rows(con, local)
    for path in (local, dist):
        h = con.sql(f"DESCRIBE HISTORY {ref(path)} LIMIT 2")
        hist = [dict(zip(h.columns, r)) for r in h.fetchall()]
        assert [c["operation"] for c in hist] == ["VACUUM END", "VACUUM START"]
    lh = con.sql(f"DESCRIBE HISTORY {ref(local)} LIMIT 2").fetchall()
    dh = con.sql(f"DESCRIBE HISTORY {ref(dist)} LIMIT 2").fetchall()
    h = con.sql(f"DESCRIBE HISTORY {ref(local)} LIMIT 1")
    i_params, i_metrics = h.columns.index("operationParameters"), h.columns.index("operationMetrics")
    for lrow, drow in zip(lh, dh):
        assert drow[i_params] == lrow[i_params]
        assert drow[i_metrics] == lrow[i_metrics]


def test_vacuum_keeps_the_retention_check(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path)
    with pytest.raises(silt.Error) as e:
        silt.dask.vacuum(str(path), client, retention_hours=0)
    assert e.value.error_class == "DELTA_VACUUM_RETENTION_PERIOD_TOO_SHORT"


def test_a_worker_deletes_only_below_the_table_root(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path, deletes=False)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    for key in ["../outside.txt", "_delta_log/00000000000000000000.json", "/etc/passwd"]:
        error = client.submit(silt.dask._delete_shard, str(path), [key], pure=False).exception()
        assert isinstance(error, silt.InvalidArgumentError), key
        assert error.error_class == "SILT_INVALID_DISTRIBUTED_TASK"
    assert outside.exists()
    assert rows(con, path)


# --- read_delta ---------------------------------------------------------------------------------


def frame_rows(df):
    return sorted(tuple(None if v != v else v for v in r) for r in df.itertuples(index=False))


def test_read_delta_matches_select(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path)  # with deletion vectors: their rows must not come back
    ddf = silt.dask.read_delta(str(path), partition_bytes=1)
    assert ddf.npartitions == 12  # one per live file
    got = client.compute(ddf).result()
    want = con.sql(f"SELECT * FROM {ref(path)}").df()
    assert list(got.columns) == ["id", "p", "v"]
    assert frame_rows(got) == frame_rows(want)
    assert len(got) == 12000 - 300 - 1


def test_read_delta_prunes_files_before_the_tasks(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path)
    # Partition values: 4 of 12 files; statistics: ids 5000..5999 live in one file.
    by_partition = silt.dask.read_delta(str(path), filters=[("p", "=", "b")], partition_bytes=1)
    assert by_partition.npartitions == 4
    by_stats = silt.dask.read_delta(
        str(path), columns=["id", "v"], filters=[("id", ">=", 5000), ("id", "<", 5010)],
        partition_bytes=1,
    )
    assert by_stats.npartitions == 1
    got = client.compute(by_stats).result()
    assert list(got.columns) == ["id", "v"]
    assert sorted(got["id"]) == [5000] + list(range(5002, 5010))  # 5001 was deleted
    q = f"SELECT * FROM {ref(path)} WHERE p = 'b' OR id < 100"
    either = silt.dask.read_delta(str(path), filters=[[("p", "=", "b")], [("id", "<", 100)]])
    assert frame_rows(client.compute(either).result()) == frame_rows(con.sql(q).df())


def test_read_delta_time_travel_and_an_empty_result(client, con, tmp_path):
    path = tmp_path / "t"
    make_table(con, path, deletes=False)
    v1 = silt.dask.read_delta(str(path), version=1)
    assert client.compute(v1).result()["id"].tolist() == list(range(1000))
    none = silt.dask.read_delta(str(path), filters=[("p", "=", "zzz")])
    got = client.compute(none).result()
    assert len(got) == 0 and list(got.columns) == ["id", "p", "v"]


# --- write_deltalake ----------------------------------------------------------------------------


def frame(lo, hi):
    import pandas as pd

    ids = list(range(lo, hi))
    return pd.DataFrame({"id": ids, "p": ["abc"[i % 3] for i in ids],
                         "v": [i * 0.5 for i in ids]})


def dask_frame(lo, hi, npartitions=4):
    import dask.dataframe as dd

    return dd.from_pandas(frame(lo, hi), npartitions=npartitions)


def commit_shape(con, path):
    """The last commit without what depends on how the rows were split into files."""
    c = last_commit(con, path)
    metrics = {k: v for k, v in dict(c["operationMetrics"]).items()
               if k not in ("numFiles", "numOutputBytes", "numRemovedFiles")
               and not k.endswith("TimeMs")}
    return {k: c[k] for k in ("version", "operation", "operationParameters", "readVersion",
                              "isolationLevel", "isBlindAppend")}, metrics


def schema(con, path):
    r = con.sql(f"SELECT * FROM {ref(path)} LIMIT 0")
    return list(zip(r.columns, r.types))


@pytest.mark.parametrize("partition_by", [None, ["p"]])
def test_write_deltalake_matches_the_local_write(client, con, tmp_path, partition_by):
    local, dist = tmp_path / "local", tmp_path / "dist"
    # (mode, schema_mode, rows): CTAS, INSERT INTO, CREATE OR REPLACE … AS SELECT,
    # INSERT OVERWRITE, nothing.
    steps = [("error", None, 0, 1000), ("append", None, 1000, 1500),
             ("overwrite", "overwrite", 100, 300), ("overwrite", None, 200, 900),
             ("ignore", None, 0, 10)]
    for mode, schema_mode, lo, hi in steps:
        silt.write_deltalake(str(local), frame(lo, hi), mode=mode, partition_by=partition_by,
                             schema_mode=schema_mode, connection=con)
        silt.dask.write_deltalake(str(dist), dask_frame(lo, hi), mode=mode,
                                  partition_by=partition_by, schema_mode=schema_mode,
                                  client=client)
        assert rows(con, dist) == rows(con, local), mode
        assert commit_shape(con, dist) == commit_shape(con, local), mode
        assert schema(con, dist) == schema(con, local)
    assert detail(con, dist)["partitionColumns"] == detail(con, local)["partitionColumns"]
    # Each Dask partition wrote its own files (one per partition value).
    assert detail(con, dist)["numFiles"] == 4 * (3 if partition_by else 1)
    q = "SELECT p, count(*), sum(v) FROM {} WHERE id > 500 GROUP BY p ORDER BY p"
    assert con.sql(q.format(ref(dist))).fetchall() == con.sql(q.format(ref(local))).fetchall()


def test_write_deltalake_modes_and_schema_errors_are_the_local_ones(client, con, tmp_path):
    path = tmp_path / "t"
    silt.dask.write_deltalake(str(path), dask_frame(0, 100), client=client)
    version = last_commit(con, path)["version"]
    with pytest.raises(silt.Error) as e:
        silt.dask.write_deltalake(str(path), dask_frame(0, 100), client=client)
    assert e.value.error_class == "DELTA_TABLE_ALREADY_EXISTS"
    extra = dask_frame(0, 100).assign(w=1)
    with pytest.raises(silt.Error) as local_error:
        silt.write_deltalake(str(path), extra.compute(), mode="append", connection=con)
    with pytest.raises(silt.Error) as dist_error:
        silt.dask.write_deltalake(str(path), extra, mode="append", client=client)
    assert dist_error.value.error_class == local_error.value.error_class
    with pytest.raises(silt.Error) as e:
        silt.dask.write_deltalake(str(path), dask_frame(0, 10), mode="append",
                                  partition_by=["p"], client=client)
    assert e.value.error_class == "INVALID_PARAMETER_VALUE"
    assert last_commit(con, path)["version"] == version  # nothing was committed


def test_write_deltalake_checks_constraints_on_the_workers(client, con, tmp_path):
    path = tmp_path / "t"
    con.sql(f"CREATE TABLE {ref(path)} (id BIGINT, p STRING, v DOUBLE) USING DELTA")
    con.sql(f"ALTER TABLE {ref(path)} ADD CONSTRAINT small CHECK (id < 150)")
    with pytest.raises(silt.Error) as local_error:
        silt.write_deltalake(str(path), frame(0, 200), mode="append", connection=con)
    with pytest.raises(silt.Error) as dist_error:
        silt.dask.write_deltalake(str(path), dask_frame(0, 200), mode="append", client=client)
    assert dist_error.value.error_class == local_error.value.error_class
    assert dist_error.value.error_class == "DELTA_VIOLATE_CONSTRAINT_WITH_VALUES"
    assert last_commit(con, path)["version"] == 1
    assert rows(con, path) == []


def _write_then_die_once(part, statement, task, marker):
    """Writes the partition's files, then, on the first call only, kills its own worker process
    before the output reaches the client."""
    out = silt.dask._worker_connection()
    from silt._ingest import source_relation

    with source_relation(out, part, "_src") as relation:
        result = out._con.run_distributed_write(statement + relation, task)
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return result
    os.kill(os.getpid(), signal.SIGKILL)


def test_write_deltalake_a_killed_worker_gives_one_commit(client, con, tmp_path, monkeypatch):
    local, dist = tmp_path / "local", tmp_path / "dist"
    marker = str(tmp_path / "killed")
    monkeypatch.setattr(silt.dask, "_write_partition",
                        functools.partial(_write_then_die_once, marker=marker))
    silt.write_deltalake(str(local), frame(0, 2000), partition_by=["p"], connection=con)
    silt.dask.write_deltalake(str(dist), dask_frame(0, 2000), partition_by=["p"], client=client)
    assert os.path.exists(marker), "a worker was killed"
    assert last_commit(con, dist)["version"] == 0, "exactly one commit"
    assert rows(con, dist) == rows(con, local)
    assert commit_shape(con, dist) == commit_shape(con, local)
    live = {r[0] for r in con._con.list_files(str(dist)).rows(0, 1 << 30)}
    assert len(live) == 12  # 4 Dask partitions × 3 partition values
    # The lost attempts' files (the killed task's, and those of tasks whose outputs died with the
    # worker) exist, referenced by no version: left for VACUUM.
    assert len(data_files(dist)) > len(live)
    assert live <= data_files(dist)


def _write_after_user_commit(part, statement, task, path, marker):
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL))
        silt.connect().sql(f"INSERT INTO {ref(path)} VALUES (-1, 'x', 0.0)")
    except FileExistsError:
        pass
    con = silt.dask._worker_connection()
    from silt._ingest import source_relation

    with source_relation(con, part, "_src") as relation:
        return con._con.run_distributed_write(statement + relation, task)


@pytest.mark.parametrize("mode, conflict", [("append", None),
                                            ("overwrite", "DELTA_CONCURRENT_APPEND")])
def test_write_deltalake_a_concurrent_commit_has_the_local_outcome(
    client, con, tmp_path, monkeypatch, mode, conflict
):
    path = tmp_path / "t"
    silt.write_deltalake(str(path), frame(0, 100), connection=con)
    monkeypatch.setattr(silt.dask, "_write_partition",
                        functools.partial(_write_after_user_commit, path=str(path),
                                          marker=str(tmp_path / "done")))
    if conflict:
        # INSERT OVERWRITE read the whole table: the user's append conflicts, as it does locally.
        with pytest.raises(silt.CommitConflictError) as e:
            silt.dask.write_deltalake(str(path), dask_frame(0, 50), mode=mode, client=client)
        assert e.value.error_class == conflict
        assert last_commit(con, path)["version"] == 1  # the user's commit only
    else:
        silt.dask.write_deltalake(str(path), dask_frame(0, 50), mode=mode, client=client)
        assert last_commit(con, path)["version"] == 2  # a blind append commits after the user's
        assert con.sql(f"SELECT count(*) FROM {ref(path)}").fetchall() == [(151,)]


def test_write_deltalake_on_dasks_default_scheduler(client, con, tmp_path):
    path = tmp_path / "t"
    # No client given: Dask's default scheduler (here the fixture's client, the current one).
    silt.dask.write_deltalake(str(path), dask_frame(0, 300, npartitions=3), partition_by="p")
    assert rows(con, path) == [tuple(r) for r in frame(0, 300).sort_values("id").itertuples(
        index=False)]
    assert detail(con, path)["numFiles"] == 9
