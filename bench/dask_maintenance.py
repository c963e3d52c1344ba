"""OPTIMIZE and REORG PURGE of one table on a Dask cluster (silt.dask) of 1, 2 and 4 worker
processes, against the local statement in the same run, with the coordinator's overhead per task.

    PYTHONPATH=build/release/python /usr/bin/python3 bench/dask_maintenance.py [ROWS] [WORKERS...]

ROWS (default 8000000) rows in 8 partitions of 16 files each; every file of the REORG table has
1/7 of its rows deleted through deletion vectors. Each worker runs one task at a time on one silt
thread (SILT_DASK_WORKER_THREADS=1); the local statement runs with silt.threads = 1 and with the
default (every core). Every run starts from a fresh copy of the table. BENCH_RECORD=1 appends the
table to bench/RESULTS.md. DuckDB has no OPTIMIZE or REORG of Delta tables: there is no peer figure
for these statements (bench/compact.sh compares the local statements with DuckDB's COPY).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ["SILT_DASK_WORKER_THREADS"] = "1"  # inherited by the worker processes

import distributed  # noqa: E402

import silt  # noqa: E402
import silt.dask  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 8_000_000
WORKERS = [int(w) for w in sys.argv[2:]] or [1, 2, 4]
PARTITIONS, FILES_PER_PARTITION = 8, 16


def ref(path):
    return f"delta.`{path}`"


def make(con, path, deletes):
    con.sql(
        f"CREATE TABLE {ref(path)} (id BIGINT, p INT, v DOUBLE, s STRING) USING DELTA "
        "PARTITIONED BY (p) TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
    )
    per = ROWS // (PARTITIONS * FILES_PER_PARTITION)
    for f in range(FILES_PER_PARTITION):
        lo = f * per * PARTITIONS
        con.sql(
            f"INSERT INTO {ref(path)} SELECT id, CAST(id % {PARTITIONS} AS INT), id * 0.5, "
            f"concat('s', CAST(id % 997 AS STRING)) FROM range({lo}, {lo + per * PARTITIONS})"
        )
    if deletes:
        con.sql(f"DELETE FROM {ref(path)} WHERE id % 7 = 0")


def _open_worker():
    silt.dask._worker_connection()


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def distributed_run(con, client, statement):
    """silt.dask's steps, timed: plan here, the tasks on the cluster, one commit here."""
    plan_s, job = timed(lambda: con._con.plan_distributed(statement))
    tasks = job.tasks
    run_s, outputs = timed(lambda: client.gather(client.map(silt.dask._run_task, tasks, pure=False)))
    commit_s, _ = timed(lambda: job.commit(list(outputs)))
    # The scheduler's own round trip for as many tasks doing nothing.
    noop_s, _ = timed(lambda: client.gather(client.map(len, tasks, pure=False)))
    return plan_s + run_s + commit_s, len(tasks), plan_s, commit_s, noop_s


def main():
    load = os.getloadavg()[0]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    work = tempfile.mkdtemp(prefix="silt-dask-bench-")
    con = silt.connect(threads=0)
    results = []
    try:
        for name, deletes, statement in [
            ("OPTIMIZE", False, "OPTIMIZE {}"),
            ("REORG PURGE", True, "REORG TABLE {} APPLY (PURGE)"),
        ]:
            base = os.path.join(work, name.replace(" ", "_") + "_base")
            make(con, base, deletes)
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(base)
                       for f in fs if f.endswith(".parquet"))

            def fresh(label):
                path = os.path.join(work, f"{name.replace(' ', '_')}_{label}")
                shutil.copytree(base, path)
                return path

            for threads in (1, 0):
                path = fresh(f"local{threads}")
                con.set_config("silt.threads", str(threads))
                secs, _ = timed(lambda: con.sql(statement.format(ref(path))))
                con.set_config("silt.threads", "0")
                label = "local, 1 thread" if threads == 1 else "local, all cores"
                results.append((name, label, secs, size, None))
            for n in WORKERS:
                with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                              dashboard_address=None) as cluster, \
                        distributed.Client(cluster) as client:
                    client.run(_open_worker)  # each worker opens silt before the clock starts
                    path = fresh(f"dask{n}")
                    total, tasks, plan_s, commit_s, noop_s = distributed_run(
                        con, client, statement.format(ref(path)))
                    results.append((name, f"Dask, {n} worker{'s' if n > 1 else ''}", total, size,
                                    (tasks, plan_s, commit_s, noop_s)))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        f"## {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC — silt.dask OPTIMIZE and REORG "
        f"PURGE (bench/dask_maintenance.py {ROWS}), silt {commit}, {os.cpu_count()} cores (load "
        f"average {load:.2f} at the start), Dask {distributed.__version__} LocalCluster",
        "",
        "| statement | run | s | MB/s | tasks | plan ms | commit ms | scheduler ms/task |"
        " coordinator ms/task |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, label, secs, size, d in results:
        mbps = size / secs / 1e6
        if d is None:
            lines.append(f"| {name} | {label} | {secs:.3f} | {mbps:.1f} | | | | | |")
        else:
            tasks, plan_s, commit_s, noop_s = d
            per = 1000 * (plan_s + commit_s + noop_s) / max(tasks, 1)
            lines.append(
                f"| {name} | {label} | {secs:.3f} | {mbps:.1f} | {tasks} | {1000 * plan_s:.1f} | "
                f"{1000 * commit_s:.1f} | {1000 * noop_s / max(tasks, 1):.1f} | {per:.1f} |"
            )
    lines += [
        "",
        f"{ROWS} rows (id, p, v, s) in {PARTITIONS} partitions × {FILES_PER_PARTITION} files "
        "(MB/s: the input Parquet bytes over the statement's time); REORG after `DELETE … WHERE "
        "id % 7 = 0` (14% of the rows; every file has a deletion vector). One bin per partition, so one task per "
        "partition. Dask runs: plan + tasks + commit as silt.dask does them, each worker one task "
        "at a time on one silt thread; scheduler ms/task: a map of as many no-op tasks; "
        "coordinator ms/task: (plan + commit + that round trip) / tasks. DuckDB has no OPTIMIZE or "
        "REORG of Delta tables, so no peer figure (bench/compact.sh compares the local statements "
        "with DuckDB's COPY). Each run once; no warm-up. Reproduce: "
        f"`PYTHONPATH=build/release/python /usr/bin/python3 bench/dask_maintenance.py {ROWS}`.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if os.environ.get("BENCH_RECORD") == "1":
        with open(os.path.join(os.path.dirname(__file__), "RESULTS.md"), "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
