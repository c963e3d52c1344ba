"""silt.dask on a distributed.LocalCluster of 2 worker processes: the same table content, log
shape and query results as the local statements (and, for ttl_delete, as the local TTL job of
`silt maintain`); a worker killed mid-task still gives exactly one commit; a user's commit during
the job has the local command's conflict outcome; `silt maintain --dask-scheduler` sends a large
table's jobs to the cluster and fails at start without Dask."""

import functools
import os
import shutil
import signal
import subprocess
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


def commit_during_first_task(monkeypatch, path, statement, marker):
    """The job's first task to run commits `statement` on the table before its own work."""
    monkeypatch.setattr(
        silt.dask,
        "_run_task",
        functools.partial(
            _task_after_user_commit, path=str(path), statement=statement, marker=str(marker)
        ),
    )


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
    commit_during_first_task(monkeypatch, path, user_statement, tmp_path / "done")
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


# --- Auto-TTL: ttl_delete and `silt maintain --dask-scheduler` ----------------------------------

NOW = "2026-03-01T00:00:00Z"  # cutoff of the 30-day policy: 2026-01-30 00:00:00Z
# VACUUM's turn: the retention is 0 hours, but a commit's time is its file's modification time
# (no in-commit timestamps), so VACUUM waits until the real time has passed; no new row expired.
LATER = "2029-12-01T00:00:00Z"


def make_ttl_table(con, path, files=6):
    """`files` files of 1000 rows, 100 rows a day from 2026-01-01 and from id 2901 on four years
    later (id order = time order): at NOW (and LATER) files 0-1 are wholly expired (removed
    unread), file 2 partly (a deletion vector), the rest not at all.
    The log retention outlasts LATER: with the default 30 days the pinned clock expires every
    commit, and the checkpoint of version 10 (VACUUM END) deletes the commit files before it
    except those sharing its modification time, which Delta keeps (log_cleanup.h rule 6,
    Spark's BufferingLogDeletionIterator). ext4 stamps files at the kernel tick (4 ms here), so
    whether a fast VACUUM START survived depended on timing: two histories differed without
    either job doing wrong."""
    con.sql(
        f"CREATE TABLE {ref(path)} (id BIGINT, ts TIMESTAMP, v DOUBLE) USING DELTA "
        "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', "
        "'delta.deletedFileRetentionDuration' = 'interval 0 hours', "
        "'delta.logRetentionDuration' = 'interval 3650 days') DELETE ROWS 30 DAYS AFTER ts"
    )
    for i in range(files):
        con.sql(
            f"INSERT INTO {ref(path)} SELECT id, timestamp_seconds(1767225600 + id * 864 + "
            f"CASE WHEN id > 2900 THEN 126230400 ELSE 0 END), id * 0.5 "
            f"FROM range({i * 1000}, {(i + 1) * 1000})"
        )


def silt_binary():
    path = os.path.join(os.path.dirname(silt.__file__), os.pardir, os.pardir, "silt")
    if not os.path.exists(path):
        pytest.skip(f"no silt binary beside the Python module ({path})")
    return os.path.abspath(path)


def maintain(table, warehouse, now, *extra):
    """`silt maintain --once --no-routine --now NOW TABLE…`: the local TTL job."""
    tables = [str(t) for t in (table if isinstance(table, list) else [table])]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run(
        [silt_binary(), "maintain", "--once", "--no-routine", "--warehouse", str(warehouse),
         "--now", now, *extra, *tables],
        capture_output=True, text=True, env=env, timeout=300,
    )
    return r


def history(con, path):
    h = con.sql(f"DESCRIBE HISTORY {ref(path)}")
    return [dict(zip(h.columns, r)) for r in h.fetchall()]


TIMES = {"executionTimeMs", "scanTimeMs", "rewriteTimeMs"}


def assert_same_ttl_history(con, local, dist):
    lh, dh = history(con, local), history(con, dist)
    assert [c["operation"] for c in dh] == [c["operation"] for c in lh]
    for lc, dc in zip(lh, dh):
        for key in ("version", "operationParameters", "readVersion", "userName", "isolationLevel"):
            assert dc[key] == lc[key], (lc["operation"], key)
        lm, dm = dict(lc["operationMetrics"] or {}), dict(dc["operationMetrics"] or {})
        assert dm.keys() == lm.keys(), lc["operation"]
        for key in lm.keys() - TIMES:
            assert dm[key] == lm[key], (lc["operation"], key)
        if lc["userMetadata"]:
            assert '"trigger":"autottl"' in dc["userMetadata"]


def service_metrics(op):
    """A history row's metrics without what differs between two runs of the same job."""
    return {k: v for k, v in op["metrics"].items() if k not in ("executor", "step_delay_ms")}


def test_ttl_delete_matches_the_local_ttl_job(client, con, tmp_path):
    local, dist = tmp_path / "local", tmp_path / "dist"
    make_ttl_table(con, local)
    shutil.copytree(local, dist)
    r = maintain(local, tmp_path / "wh", NOW)
    assert r.returncode == 0, r.stderr
    ops = silt.dask.ttl_delete(str(dist), client, now=NOW)
    assert [o["operation_type"] for o in ops] == ["DELETE", "PURGE"]
    assert all(o["operation_status"] == "SUCCESSFUL" for o in ops)
    assert ops[0]["metrics"]["executor"] == f"dask {client.scheduler.address}"
    assert ops[0]["metrics"]["num_deleted_rows"] == "2901"
    assert ops[0]["metrics"]["num_removed_files"] == "2"  # files 0-1 unread, file 2 got a DV
    assert ops[0]["metrics"]["num_dvs_added"] == "1"
    for op in ops:  # the local job's log lines carry the same metrics
        line = next(l for l in r.stdout.splitlines() if f" {op['operation_type']} SUCCESSFUL" in l)
        for k, v in service_metrics(op).items():
            assert f"{k}={v}" in line, (k, line)
    assert rows(con, dist) == rows(con, local)
    assert_same_ttl_history(con, local, dist)
    # Once the retention has passed: VACUUM LITE deletes the replaced files, as locally.
    r = maintain(local, tmp_path / "wh", LATER)
    assert r.returncode == 0, r.stderr
    ops = silt.dask.ttl_delete(str(dist), client, now=LATER)
    assert [o["operation_type"] for o in ops] == ["VACUUM"], r.stdout
    assert ops[0]["metrics"]["vacuum_mode"] == "LITE"
    assert int(ops[0]["metrics"]["num_vacuumed_files"]) >= 3
    live = {r[0] for r in con._con.list_files(str(dist)).rows(0, 1 << 30)}
    assert data_files(dist) == live  # only the live files are left
    assert len(data_files(dist)) == len(data_files(local))
    assert rows(con, dist) == rows(con, local)
    assert_same_ttl_history(con, local, dist)
    # ... over the whole log: every commit is kept, so VACUUM START is compared too.
    assert [(c["version"], c["operation"]) for c in history(con, local)[:5]] == [
        (10, "VACUUM END"), (9, "VACUUM START"), (8, "REORG"), (7, "DELETE"), (6, "WRITE")]
    assert len(history(con, local)) == 11
    # Nothing is left to do: no commit, no operation.
    assert silt.dask.ttl_delete(str(dist), client, now=LATER) == []


def test_ttl_delete_with_a_killed_worker_commits_once(client, con, tmp_path, monkeypatch):
    local, dist = tmp_path / "local", tmp_path / "dist"
    make_ttl_table(con, local)
    shutil.copytree(local, dist)
    assert maintain(local, tmp_path / "wh", NOW).returncode == 0
    before = history(con, dist)[0]["version"]
    marker = str(tmp_path / "killed")
    monkeypatch.setattr(
        silt.dask, "_run_task", functools.partial(_task_then_die_once, marker=marker)
    )
    ops = silt.dask.ttl_delete(str(dist), client, now=NOW)
    assert os.path.exists(marker), "a worker was killed"
    assert [o["operation_type"] for o in ops] == ["DELETE", "PURGE"]
    assert [c["operation"] for c in history(con, dist)[:2]] == ["REORG", "DELETE"]
    assert history(con, dist)[0]["version"] == before + 2, "one DELETE and one REORG commit"
    assert rows(con, dist) == rows(con, local)
    assert_same_ttl_history(con, local, dist)


@pytest.mark.parametrize(
    "user_statement, retries",
    [
        # The user's DELETE rewrites the DV of file 2, which the TTL DELETE read: the service's
        # commit conflicts and is retried on a fresh snapshot, as the local job does.
        ("DELETE FROM {} WHERE id = 2950", "1"),
        ("INSERT INTO {} VALUES (99999, TIMESTAMP '2031-02-20 00:00:00', 1.0)", "0"),
    ],
)
def test_ttl_delete_and_a_concurrent_commit(client, con, tmp_path, monkeypatch, user_statement,
                                            retries):
    path = tmp_path / "t"
    make_ttl_table(con, path)
    commit_during_first_task(monkeypatch, path, user_statement, tmp_path / "done")
    ops = silt.dask.ttl_delete(str(path), client, now=NOW)
    assert ops[0]["operation_type"] == "DELETE"
    assert ops[0]["operation_status"] == "SUCCESSFUL"
    assert ops[0]["metrics"]["retries"] == retries
    ids = [r[0] for r in con.sql(f"SELECT id FROM {ref(path)} ORDER BY id").fetchall()]
    assert ids[0] == 2901  # every expired row is gone
    assert (2950 in ids) == ("INSERT" in user_statement)
    assert (99999 in ids) == ("INSERT" in user_statement)
    ops_in_log = [c["operation"] for c in history(con, path)[:3]]
    assert ops_in_log[:2] == ["REORG", "DELETE"]
    assert ops_in_log[2] in ("DELETE", "WRITE")  # the user's commit came first


def test_ttl_delete_refuses_a_change_data_feed_table(client, con, tmp_path):
    path = tmp_path / "t"
    make_ttl_table(con, path, files=3)
    con.sql(f"ALTER TABLE {ref(path)} SET TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true')")
    version = history(con, path)[0]["version"]
    ops = silt.dask.ttl_delete(str(path), client, now=NOW)
    assert [o["operation_type"] for o in ops] == ["DELETE"]
    assert ops[0]["operation_status"].startswith("FAILED")
    assert ops[0]["metrics"]["error_class"] == "NOT_IMPLEMENTED"
    assert history(con, path)[0]["version"] == version  # the table is as it was


def test_silt_maintain_sends_large_tables_to_the_scheduler(client, con, tmp_path):
    big, small, twin = tmp_path / "big", tmp_path / "small", tmp_path / "twin"
    make_ttl_table(con, big)
    make_ttl_table(con, small, files=3)
    shutil.copytree(big, twin)
    threshold = str(sum(os.path.getsize(big / f) for f in data_files(big)) - 1)
    assert int(threshold) > sum(os.path.getsize(small / f) for f in data_files(small))
    r = maintain([big, small], tmp_path / "wh", NOW, "--dask-scheduler", client.scheduler.address,
                 "--dask-min-table-size", threshold,
                 "--conf", f"silt.maintenance.dask.python={sys.executable}")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    big_lines = [l for l in lines if f" {big} " in l and " SUCCESSFUL " in l]
    small_lines = [l for l in lines if f" {small} " in l and " SUCCESSFUL " in l]
    assert len(big_lines) == 2 and len(small_lines) == 2  # DELETE and PURGE each
    assert all(f"executor=dask {client.scheduler.address}" in l for l in big_lines)
    assert all("executor=local" in l for l in small_lines)
    # The same content and table history as the local job; the history table says where.
    assert maintain(twin, tmp_path / "wh2", NOW).returncode == 0
    assert rows(con, big) == rows(con, twin)
    assert_same_ttl_history(con, twin, big)
    wh = silt.connect(str(tmp_path / "wh"))
    got = wh.sql(
        "SELECT table_name, operation_type, operation_metrics['executor'] "
        "FROM system.storage.maintenance_operations_history ORDER BY table_name, start_time, "
        "operation_type"
    ).fetchall()
    dask = f"dask {client.scheduler.address}"
    assert sorted(got) == sorted([
        (str(big), "DELETE", dask), (str(big), "PURGE", dask),
        (str(small), "DELETE", "local"), (str(small), "PURGE", "local"),
    ])


def test_silt_maintain_without_dask_fails_at_start(con, tmp_path):
    path = tmp_path / "t"
    make_ttl_table(con, path, files=3)
    version = history(con, path)[0]["version"]
    nodask = tmp_path / "python-without-dask"
    # -S: no site-packages, so Debian's dask is not importable (silt is, through PYTHONPATH).
    nodask.write_text(f"#!/bin/sh\nexec {sys.executable} -S \"$@\"\n")
    nodask.chmod(0o755)
    for python in (str(nodask), str(tmp_path / "no-such-python")):
        r = maintain(path, tmp_path / "wh", NOW, "--dask-scheduler", "tcp://127.0.0.1:9",
                     "--conf", f"silt.maintenance.dask.python={python}")
        assert r.returncode == 1
        assert "SILT_DASK_UNAVAILABLE" in r.stderr, r.stderr
        assert history(con, path)[0]["version"] == version  # nothing ran, not even locally
