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

Needs Debian's python3-distributed (``dask.distributed.Client``); see docs/scale-out.md.
"""

import threading

from ._sqltext import filters_sql, quote_identifier, table_ref
from .table import _connection, _metrics, _row_dict

__all__ = ["optimize", "zorder", "reorg_purge"]

_worker = None
_worker_lock = threading.Lock()


def _worker_connection():
    """The silt connection of this worker process (its own in-memory warehouse, opened once)."""
    global _worker
    with _worker_lock:
        if _worker is None:
            from . import connect

            _worker = connect()
        return _worker


def _run_task(task):
    """One bin's rewrite on a worker: the task's output (JSON text) for the commit."""
    return _worker_connection()._con.run_distributed_task(task)


def _run(client, statement, connection):
    con = _connection(connection)
    job = con._con.plan_distributed(statement)
    tasks = job.tasks
    outputs = []
    if tasks:
        # pure=False: every call is a fresh attempt; Dask reruns the tasks of a lost worker.
        futures = client.map(_run_task, tasks, pure=False)
        outputs = client.gather(futures)
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
