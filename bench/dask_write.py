"""silt.dask.write_deltalake on a Dask cluster of 1 and 2 worker processes against the local
writes of the same rows in the same run: silt.write_deltalake of the pandas DataFrame, SQL
INSERT … SELECT, and DuckDB's COPY … TO Parquet (partitioned the same way).

    PYTHONPATH=build/release/python /usr/bin/python3 bench/dask_write.py [ROWS] [WORKERS...]

ROWS (default 4000000) rows (id BIGINT, p INT with 8 values, v DOUBLE, s STRING) written as a new
table partitioned by p. The Dask DataFrame has 8 partitions, persisted on the workers before the
clock starts (the write is timed, not the shipping of the rows); each worker runs one task at a
time on one silt thread (SILT_DASK_WORKER_THREADS=1). silt.write_deltalake runs with
silt.threads = 1 and with every core. DuckDB (bench/peers, through bench/sql_duckdb.mjs) copies
the same rows from a native table with every core. BENCH_RECORD=1 appends the table to
bench/RESULTS.md.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time

os.environ["SILT_DASK_WORKER_THREADS"] = "1"  # inherited by the worker processes

import dask.dataframe as dd  # noqa: E402
import distributed  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import silt  # noqa: E402
import silt.dask  # noqa: E402

ROWS = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
WORKERS = [int(w) for w in sys.argv[2:]] or [1, 2]
PARTITIONS, DASK_PARTITIONS = 8, 8
HERE = os.path.dirname(os.path.abspath(__file__))


def frame(lo, hi):
    ids = np.arange(lo, hi, dtype=np.int64)
    return pd.DataFrame({
        "id": ids,
        "p": (ids % PARTITIONS).astype(np.int32),
        "v": ids * 0.5,
        "s": pd.Series(ids % 997).map(lambda i: f"s{i}").to_numpy(dtype=object),
    })


def _open_worker():
    silt.dask._worker_connection()


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def parquet_bytes(path):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(path)
               for f in fs if f.endswith(".parquet"))


def duckdb_seconds(work):
    """DuckDB's COPY of the same rows (from a native table) to Parquet partitioned by p."""
    script = (
        f"CREATE TABLE base AS SELECT range AS id, CAST(range % {PARTITIONS} AS INT) AS p, "
        f"range * 0.5 AS v, concat('s', CAST(range % 997 AS VARCHAR)) AS s FROM range({ROWS}); "
        "CHECKPOINT;\n-- time: copy\n"
        f"COPY base TO '{work}/duck_out' (FORMAT parquet, PARTITION_BY (p));\n"
    )
    out = subprocess.run(
        ["node", os.path.join(HERE, "sql_duckdb.mjs"), os.path.join(work, "duck.db"), "--threads",
         str(os.cpu_count())],
        input=script, capture_output=True, text=True, check=True,
    ).stdout
    return float(next(line.split()[1] for line in out.splitlines() if line.startswith("copy ")))


def main():
    load = os.getloadavg()[0]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True, cwd=HERE).stdout.strip()
    work = tempfile.mkdtemp(prefix="silt-dask-write-bench-")
    con = silt.connect(threads=0)
    df = frame(0, ROWS)
    results = []
    try:
        for threads in (1, 0):
            path = os.path.join(work, f"local{threads}")
            con.set_config("silt.threads", str(threads))
            secs = timed(lambda: silt.write_deltalake(path, df, partition_by=["p"],
                                                      connection=con))
            con.set_config("silt.threads", "0")
            label = "silt.write_deltalake (pandas), 1 thread" if threads == 1 else \
                "silt.write_deltalake (pandas), all cores"
            results.append((label, secs, parquet_bytes(path)))
        path = os.path.join(work, "insert")
        con.sql(f"CREATE TABLE delta.`{path}` (id BIGINT, p INT, v DOUBLE, s STRING) USING DELTA "
                "PARTITIONED BY (p)")
        secs = timed(lambda: con.sql(
            f"INSERT INTO delta.`{path}` SELECT id, CAST(id % {PARTITIONS} AS INT), id * 0.5, "
            f"concat('s', CAST(id % 997 AS STRING)) FROM range({ROWS})"))
        results.append(("SQL INSERT … SELECT FROM range, all cores", secs, parquet_bytes(path)))
        for n in WORKERS:
            with distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                          dashboard_address=None) as cluster, \
                    distributed.Client(cluster) as client:
                client.run(_open_worker)
                per = -(-ROWS // DASK_PARTITIONS)
                bounds = [(lo, min(lo + per, ROWS)) for lo in range(0, ROWS, per)]
                ddf = dd.from_map(lambda b: frame(*b), bounds, meta=frame(0, 0))
                ddf = client.persist(ddf)
                distributed.wait(ddf)
                path = os.path.join(work, f"dask{n}")
                secs = timed(lambda: silt.dask.write_deltalake(path, ddf, partition_by=["p"],
                                                               client=client))
                results.append((f"silt.dask.write_deltalake, {n} worker{'s' if n > 1 else ''}",
                                secs, parquet_bytes(path)))
        duck = duckdb_seconds(work)
        results.append((f"DuckDB COPY … TO Parquet (PARTITION_BY p), {os.cpu_count()} threads",
                        duck, parquet_bytes(os.path.join(work, "duck_out"))))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    lines = [
        f"## {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC — silt.dask.write_deltalake "
        f"(bench/dask_write.py {ROWS}), silt {commit}, {os.cpu_count()} cores (load average "
        f"{load:.2f} at the start), Dask {distributed.__version__} LocalCluster",
        "",
        "| write | s | M rows/s | MB written |",
        "| --- | ---: | ---: | ---: |",
    ]
    for label, secs, size in results:
        lines.append(f"| {label} | {secs:.3f} | {ROWS / secs / 1e6:.2f} | {size / 1e6:.1f} |")
    lines += [
        "",
        f"{ROWS} rows (id BIGINT, p INT, v DOUBLE, s STRING) to a new table partitioned by p "
        f"({PARTITIONS} values). Dask: {DASK_PARTITIONS} partitions persisted on the workers "
        "first; the time is write_deltalake's (the client binds and creates the table, each "
        "worker writes its partition's files on one silt thread, one commit). Each run once; no "
        "warm-up. Reproduce: "
        f"`PYTHONPATH=build/release/python /usr/bin/python3 bench/dask_write.py {ROWS}`.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if os.environ.get("BENCH_RECORD") == "1":
        with open(os.path.join(HERE, "RESULTS.md"), "a") as f:
            f.write("\n" + text)


if __name__ == "__main__":
    main()
