#!/usr/bin/env python3
"""Streaming exactly-once under SIGKILL (issue 25): `silt stream` is killed at random points and
restarted until it has caught up; the sink must then hold every source row exactly once.

Per run: a source table (id BIGINT, v STRING) with deletion vectors and COMMITS three-row
commits, then a DV DELETE and an OPTIMIZE (skipped / invisible with skipChangeCommits); the
stream runs with maxFilesPerTrigger=1 (one micro-batch per commit) and is SIGKILLed after a
random delay (growing after each kill), then restarted, until a run exits 0. Every third run does the same with a SQL streaming table
(`silt sql -e "CREATE OR REFRESH STREAMING TABLE delta.`sink` AS SELECT * FROM STREAM …"`, the
checkpoint under the table). The sink is then read with `silt sql`: its row count and distinct
ids must equal the source's appended ids (each once).
Usage: stream_kill.py SILT_BINARY [--runs N] [--commits N] [--seed N] [--keep DIR]
Prints "N passed, N failed"; exit 1 on any failure.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def sql(silt, wh, text):
    p = subprocess.run([silt, "sql", "--warehouse", wh, "--mode", "tabs", "-e", text],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("silt sql failed: %s\n%s" % (text, p.stderr))
    return p.stdout


def one_run(silt, root, rng, commits, run):
    wh = os.path.join(root, "wh")
    src = os.path.join(root, "src")
    sink = os.path.join(root, "sink")
    cp = os.path.join(root, "cp")
    ref = "delta.`%s`" % src
    stmts = ["CREATE TABLE %s (id BIGINT, v STRING) USING DELTA "
             "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')" % ref]
    for c in range(commits):
        values = ", ".join("(%d, 'r%d')" % (c * 10 + k, c * 10 + k) for k in range(3))
        stmts.append("INSERT INTO %s VALUES %s" % (ref, values))
        if c == commits // 2:
            stmts.append("DELETE FROM %s WHERE id = 1" % ref)
            stmts.append("OPTIMIZE %s" % ref)
    sql(silt, wh, ";\n".join(stmts))
    # Even runs start from the snapshot (the DV DELETE already hides id 1), odd runs from
    # version 0 (the DELETE commit is skipped, so id 1 arrives with its INSERT).
    from_snapshot = run % 2 == 0
    expected = sorted(c * 10 + k for c in range(commits) for k in range(3)
                      if not (from_snapshot and c * 10 + k == 1))
    args = [silt, "stream", src, sink, "--checkpoint", cp, "--option", "maxFilesPerTrigger=1",
            "--option", "skipChangeCommits=true"]
    if not from_snapshot:
        args += ["--option", "startingVersion=0"]
    if run % 3 == 2:
        # Every third run: the same stream as a SQL streaming table (its checkpoint under the
        # table), each attempt the same idempotent CREATE OR REFRESH.
        options = "'maxFilesPerTrigger' = '1', 'skipChangeCommits' = 'true'"
        if not from_snapshot:
            options += ", 'startingVersion' = '0'"
        args = [silt, "sql", "--warehouse", wh, "-e",
                "CREATE OR REFRESH STREAMING TABLE delta.`%s` AS SELECT * FROM STREAM "
                "delta.`%s` WITH (%s)" % (sink, src, options)]
    kills = 0
    # The kill delay starts far below one catch-up's time and grows after each kill, so every run
    # is killed at several points (on a fast machine a fixed window let whole runs finish unkilled)
    # and still completes.
    max_delay = 0.01
    start = time.monotonic()
    while True:
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        delay = rng.uniform(0.0, max_delay)
        try:
            p.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            p.send_signal(signal.SIGKILL)
            p.communicate()
            kills += 1
            max_delay = min(max_delay * 1.3, 2.0)
            if time.monotonic() - start > 120:
                return "run %d: still not done after %d kills" % (run, kills)
            continue
        out, err = p.communicate()
        if p.returncode != 0:
            return "run %d: %s failed after %d kills: %s" % (run, args[1], kills, err.strip())
        break
    # A final run must find nothing new.
    out = sql(silt, wh, "SELECT id FROM delta.`%s` ORDER BY id" % sink)
    got = [int(x) for x in out.split() if x.strip().lstrip("-").isdigit()]
    if got != expected:
        missing = sorted(set(expected) - set(got))
        dup = sorted(x for x in set(got) if got.count(x) > 1)
        return "run %d (%d kills): %d rows, missing %s, duplicated %s" % (
            run, kills, len(got), missing[:10], dup[:10])
    one_run.kills += kills
    return None


one_run.kills = 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("silt")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--commits", type=int, default=12)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    passed, failures = 0, []
    for run in range(a.runs):
        root = tempfile.mkdtemp(prefix="silt-stream-kill-")
        try:
            err = one_run(a.silt, root, rng, a.commits, run)
        finally:
            if a.keep:
                shutil.copytree(root, os.path.join(a.keep, "run%d" % run), dirs_exist_ok=True)
            shutil.rmtree(root, ignore_errors=True)
        if err:
            failures.append(err)
            print("FAIL " + err, flush=True)
        else:
            passed += 1
    if one_run.kills < a.runs:
        failures.append("only %d SIGKILLs in %d runs: the kills did not test restarts" %
                        (one_run.kills, a.runs))
        print("FAIL " + failures[-1], flush=True)
    print("stream kill (seed %d): %d SIGKILLs" % (a.seed, one_run.kills))
    print("%d passed, %d failed" % (passed, len(failures)))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
