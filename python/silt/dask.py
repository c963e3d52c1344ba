"""silt.dask: one Delta table's maintenance spread over a Dask cluster, one atomic commit.

``optimize``, ``zorder`` and ``reorg_purge`` plan the statement in this process with silt's kernel
(the local command's settings, table properties, bin packing and 5% deleted-rows rule), run one
Dask task per bin on the cluster's workers (each rewrites its files through silt's ops layer and
returns their add actions) and commit once from this process, with the local command's operation,
parameters and metrics (DESCRIBE HISTORY shows the same) and its conflict checks. A task that Dask
retries (a killed worker) writes new files; only the outputs gathered here are committed, so files
of a lost attempt are never referenced and are left for VACUUM. Tasks hold the table's URI, a
version and add actions only: each worker opens the table with its own storage settings, nothing
with credentials is pickled. Errors raised on a worker reach the caller with their error class.

``read_delta`` prunes the live files here (partition values and statistics, as a query's scan)
and reads one group of files per Dask partition on the workers (deletion vectors applied there).

``write_deltalake`` runs write_deltalake's statement (CREATE TABLE … AS SELECT, INSERT INTO |
OVERWRITE) here — checks, table creation, one commit with its operation and metrics — while each
Dask partition's rows are converted, checked and written to data files on a worker by the same
statement, which stops short of committing and returns its add actions.

``vacuum`` runs the local VACUUM here (listing, retention rules, the VACUUM START / END commits)
and shards each batch of file deletes over the workers.

``ttl_delete`` is the maintenance service's Auto-TTL pass on one table (``silt maintain``: lease,
TTL state, DELETE → REORG PURGE → VACUUM and their commits and history rows, run here) with the
DELETE's file scans and the PURGE's rewrites as tasks on the cluster and VACUUM's deletes sharded
over the workers.

Needs Debian's python3-distributed (``dask.distributed.Client``); see docs/scale-out.md.
"""

import os
import threading

from ._sqltext import filters_sql, quote_identifier, table_ref
from ._ingest import source_relation
from .table import _connection, _metrics, _row_dict, _write_statement

__all__ = ["read_delta", "write_deltalake", "optimize", "zorder", "reorg_purge", "vacuum",
           "ttl_delete"]

_worker = None
_worker_lock = threading.Lock()


def _worker_connection():
    """The silt connection of this worker process (its own in-memory warehouse, opened once;
    SILT_DASK_WORKER_THREADS in the worker's environment caps its threads, default: its cores)."""
    global _worker
    with _worker_lock:
        if _worker is None:
            from . import connect

            _worker = connect(threads=int(os.environ.get("SILT_DASK_WORKER_THREADS", "0")))
        return _worker


def _run_task(task):
    """One task on a worker (a bin's rewrite, a TTL DELETE's scan): its output (JSON text)."""
    return _worker_connection()._con.run_distributed_task(task)


def _run_tasks(client, tasks):
    """The outputs of `tasks`, each run on the cluster (in task order)."""
    if not tasks:
        return []
    # pure=False: every call is a fresh attempt; Dask reruns the tasks of a lost worker.
    return list(client.gather(client.map(_run_task, list(tasks), pure=False)))


def _run(client, statement, connection):
    con = _connection(connection)
    job = con._con.plan_distributed(statement)
    outputs = _run_tasks(client, job.tasks)
    from . import Result

    return _metrics(_row_dict(Result(job.commit(list(outputs)))).get("metrics"))


def _where(where, partition_filters):
    if where is not None and partition_filters is not None:
        raise ValueError("give where or partition_filters, not both")
    text = where if where is not None else filters_sql(partition_filters)
    return f" WHERE {text}" if text else ""


def optimize(uri, client, where=None, *, partition_filters=None, connection=None):
    """OPTIMIZE (bin packing; liquid clustering on a clustered table) of the Delta table at `uri`
    on the Dask `client`'s cluster. `where` is a partition predicate in SQL (or
    `partition_filters` as delta-rs's [(column, op, value)]). Returns OPTIMIZE's metrics (a dict,
    the local command's)."""
    return _run(client, f"OPTIMIZE {table_ref(str(uri))}{_where(where, partition_filters)}",
                connection)


def zorder(uri, client, columns, where=None, *, partition_filters=None, connection=None):
    """OPTIMIZE … ZORDER BY (columns) on the cluster (one task per partition); the metrics."""
    if isinstance(columns, str):
        columns = [columns]
    by = ", ".join(quote_identifier(c) for c in columns)
    return _run(
        client,
        f"OPTIMIZE {table_ref(str(uri))}{_where(where, partition_filters)} ZORDER BY ({by})",
        connection,
    )


def reorg_purge(uri, client, where=None, *, partition_filters=None, connection=None):
    """REORG TABLE … APPLY (PURGE) on the cluster: every file with a deletion vector is
    rewritten without its deleted rows (one task per bin); the metrics."""
    return _run(
        client,
        f"REORG TABLE {table_ref(str(uri))}{_where(where, partition_filters)} APPLY (PURGE)",
        connection,
    )


def _delete_shard(table_uri, keys):
    """A shard of VACUUM's deletes on a worker: "" per deleted (or absent) key, else the error."""
    return _worker_connection()._con.delete_table_files(table_uri, keys)


def _delete_keys(client, table_uri, keys):
    """Deletes `keys` (below the table root) in shards over the workers: "" or an error per key."""
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    per = max(1, -(-len(keys) // (2 * workers)))
    shards = [keys[i : i + per] for i in range(0, len(keys), per)]
    futures = client.map(_delete_shard, [table_uri] * len(shards), shards, pure=False)
    return [e for shard in client.gather(futures) for e in shard]


def vacuum(uri, client, retention_hours=None, *, lite=False, enforce_retention_duration=True,
           connection=None):
    """VACUUM [LITE] [RETAIN n HOURS] of the Delta table at `uri` with its file deletes sharded
    over the Dask `client`'s workers; the rest is the local statement's (same retention rules and
    errors, same VACUUM START / END commits). Returns the paths of the deleted files."""
    con = _connection(connection)
    retain = f" RETAIN {float(retention_hours)!r} HOURS" if retention_hours is not None else ""
    statement = f"VACUUM {table_ref(str(uri))}{' LITE' if lite else ''}{retain}"
    deleted = []

    def deleter(table_uri, keys):
        errors = _delete_keys(client, table_uri, keys)
        root = table_uri.rstrip("/")
        deleted.extend(f"{root}/{k}" for k, e in zip(keys, errors) if not e)
        return errors

    key = "spark.databricks.delta.retentionDurationCheck.enabled"
    previous = con.get_config(key)
    if not enforce_retention_duration:
        con.set_config(key, "false")
    try:
        con._con.vacuum_with_deleter(statement, deleter)
    finally:
        if not enforce_retention_duration:
            con.set_config(key, previous if previous is not None else "true")
    return deleted


_TARGET_PARTITION_BYTES = 128 << 20


def _read_files(paths, uri, version, columns, predicate):
    """One Dask partition on a worker: the rows of `paths` as a pandas DataFrame."""
    from . import Result

    con = _worker_connection()._con
    return Result(con.read_table_files(uri, version, list(paths), columns, predicate)).df()


def read_delta(uri, version=None, columns=None, filters=None, *, connection=None,
               partition_bytes=_TARGET_PARTITION_BYTES):
    """The Delta table at `uri` (its latest version, or `version`) as a Dask DataFrame: one
    partition per group of live files of about `partition_bytes`, the files pruned by
    partition values and statistics here with `filters` (delta-rs DNF: [(col, op, value), ...]
    or a list of such lists; the rows are filtered too), deletion vectors applied on the
    workers. `columns` selects columns."""
    import dask.dataframe as dd

    from . import Result

    con = _connection(connection)
    uri = str(uri)
    predicate = filters_sql(filters) or ""
    columns = list(columns) if columns else []
    version, paths, sizes = con._con.prune_table_files(uri, version, predicate)
    meta = Result(con._con.read_table_files(uri, version, [], columns, predicate)).df()
    groups, group, size = [], [], 0
    for path, n in zip(paths, sizes):
        if group and size + n > partition_bytes:
            groups.append(tuple(group))
            group, size = [], 0
        group.append(path)
        size += n
    if group or not groups:
        groups.append(tuple(group))
    return dd.from_map(
        _read_files,
        groups,
        uri=uri,
        version=version,
        columns=columns,
        predicate=predicate,
        meta=meta,
        label="silt-read-delta",
        enforce_metadata=False,
    )


def _write_partition(part, statement, task):
    """One Dask partition's share of write_deltalake on a worker: its rows written to data files
    by `statement` + the relation of the rows (not committed); the output (JSON text)."""
    con = _worker_connection()
    with source_relation(con, part, "_src") as relation:
        return con._con.run_distributed_write(statement + relation, task)


def write_deltalake(uri, ddf, mode="error", partition_by=None, *, schema_mode=None,
                    configuration=None, description=None, client=None, connection=None):
    """Writes the Dask DataFrame `ddf` to the Delta table at `uri` as silt.write_deltalake writes
    a pandas DataFrame (same modes, schema mapping, checks, errors, operation and metrics in one
    commit), each partition's files written on a worker. `client`: the Dask client whose cluster
    runs the writes (None: Dask's default scheduler). A task Dask retries writes new files; only
    the outputs gathered here are committed, the others are left for VACUUM."""
    import dask

    con = _connection(connection)
    uri = str(uri)
    if "://" not in uri:  # a relative path names the same table on every worker
        uri = os.path.abspath(uri)
    statement = _write_statement(con, uri, mode, partition_by, schema_mode, configuration,
                                 description)
    if statement is None:
        return
    failed = []

    def run(task):
        # pure=False: every call is a fresh attempt (its files are its own).
        writes = [dask.delayed(_write_partition, pure=False)(part, statement, task)
                  for part in ddf.to_delayed()]
        try:
            if client is None:
                return list(dask.compute(*writes))
            return list(client.gather(client.compute(writes)))
        except BaseException as e:  # re-raised below with its own class (e.g. a worker's error)
            failed.append(e)
            raise

    # The client binds the statement over the DataFrame's empty meta: same schema, no rows.
    with source_relation(con, ddf._meta, "_src") as relation:
        try:
            con._con.write_with_workers(statement + relation, run)
        except Exception:
            if failed:
                raise failed[0] from None
            raise


def _now_ms(now):
    """`now` (None, epoch milliseconds, a datetime — naive means UTC — or an ISO-8601 text) as
    epoch milliseconds, or None."""
    import datetime as _dt

    if now is None:
        return None
    if isinstance(now, str):
        now = _dt.datetime.fromisoformat(now.replace("Z", "+00:00"))
    if isinstance(now, _dt.datetime):
        if now.tzinfo is None:
            now = now.replace(tzinfo=_dt.timezone.utc)
        return int(now.timestamp() * 1000)
    return int(now)


def _operations(ops):
    return [{"operation_type": t, "operation_status": st, "metrics": dict(m)} for t, st, m in ops]


def ttl_delete(uri, client, now=None, *, connection=None, executor=None):
    """The Auto-TTL pass of the maintenance service (``silt maintain --once --no-routine``) on the
    Delta table at `uri`, its work on the Dask `client`'s cluster: the TTL DELETE of the table's
    ``DELETE ROWS n DAYS AFTER col`` policy at `now` (None: the connection's clock; epoch ms, a
    datetime or ISO text pins it as ``silt maintain --now`` does), then REORG … APPLY (PURGE) of
    the files it gave deletion vectors, then VACUUM LITE once the table's retention has passed
    since (a later call runs it when it is not yet due). Files whose statistics prove every row
    expired are removed unread; the others are scanned by the workers; the commits, lease, state
    and history rows are the service's (the connection's warehouse holds the history, with
    ``executor`` = `executor`, default "dask <scheduler address>"). Returns the operations as the
    history records them: [{"operation_type", "operation_status", "metrics"}] (a failed step is a
    FAILED row with its error_class, as the service records it). Raises silt.Error when the table
    cannot be opened, and SILT_MAINTENANCE_TABLE_SKIPPED when the service skips it (another
    maintenance process holds its lease, silt.maintenance.enabled = false, a failed step's retry
    backoff)."""
    con = _connection(connection)
    name = executor or f"dask {client.scheduler.address}"

    def run_tasks(tasks):
        return _run_tasks(client, tasks)

    def deleter(table_uri, keys):
        return _delete_keys(client, table_uri, keys)

    ops, skipped = con._con.run_auto_ttl(str(uri), _now_ms(now), name, run_tasks, deleter)
    if skipped:
        from .errors import Error

        raise Error(skipped[0], "SILT_MAINTENANCE_TABLE_SKIPPED")
    return _operations(ops)
