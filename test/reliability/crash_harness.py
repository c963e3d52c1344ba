#!/usr/bin/env python3
"""Crash harness (issue 31): SIGKILLs `silt sql` at random points of every write path and checks
that the table stays at a committed version with exactly that version's rows.

One table (id BIGINT, v BIGINT) with deletion vectors and a checkpoint every 3 commits. Each
round runs one statement in a child process — INSERT, DELETE / UPDATE / MERGE (deletion
vectors), OPTIMIZE, REORG ... APPLY (PURGE), VACUUM RETAIN 0 HOURS — and SIGKILLs it after a
random delay drawn from the statement's measured duration. After every round:
  * the table reads (every referenced data file and DV must be there) and holds exactly the rows
    of the state before the statement or after it (a Python model of the committed contents
    computes both); the latter advances the model;
  * a rerun completes: the next statement of the same kind runs to completion without a kill
    (for data-changing kinds an INSERT of fresh rows) and the table is checked again.
Prints "N passed, N failed" (one pass per checked kill). Usage:
  crash_harness.py SILT_BINARY [--kills N] [--seconds S] [--seed N] [--keep DIR]
"""
import argparse
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

CONF = ["--conf", "spark.databricks.delta.retentionDurationCheck.enabled=false"]


class Harness:
    def __init__(self, silt, root, seed):
        self.silt = silt
        self.root = root
        self.table = os.path.join(root, "t")
        self.ref = "delta.`%s`" % self.table
        self.rng = random.Random(seed)
        self.model = {}  # id -> v of the committed state
        self.next_id = 0
        self.durations = {}  # kind -> recent run time (s), to aim the kills inside the statement
        self.kills = 0
        self.completed_before_kill = 0
        self.killed_after_commit = 0  # killed data changes that had committed already
        self.failures = []

    def run(self, sql, kill_after=None):
        """Runs sql in a child; kills it after kill_after seconds. -> (rc, stdout, stderr, killed)."""
        args = [self.silt, "sql", "--warehouse", os.path.join(self.root, "wh"), "--mode", "tabs"] + CONF + ["-e", sql]
        start = time.monotonic()
        p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        killed = False
        if kill_after is not None:
            try:
                p.wait(timeout=kill_after)
            except subprocess.TimeoutExpired:
                p.send_signal(signal.SIGKILL)
                killed = True
        out, err = p.communicate()
        return p.returncode, out, err, killed, time.monotonic() - start

    def read_rows(self):
        rc, out, err, _, _ = self.run("SELECT id, v FROM %s" % self.ref)
        if rc != 0:
            return None, err.strip()
        rows = {}
        dup = []
        for line in out.splitlines():
            if not line.strip():
                continue
            a, b = line.split("\t")
            if int(a) in rows:
                dup.append(int(a))
            rows[int(a)] = int(b)
        if dup:
            return None, "duplicate ids %s" % dup[:5]
        return rows, ""

    # --- statements and their effect on the model --------------------------------------------
    def make(self, kind):
        r = self.rng
        t = self.ref
        if kind == "insert":
            a = self.next_id
            n = r.randint(1, 40)
            self.next_id += n
            sql = "INSERT INTO %s SELECT id, id FROM range(%d, %d)" % (t, a, a + n)
            return sql, lambda m: {**m, **{i: i for i in range(a, a + n)}}
        if kind == "delete":
            k, rem = r.randint(5, 13), None
            rem = r.randint(0, k - 1)
            sql = "DELETE FROM %s WHERE id %% %d = %d" % (t, k, rem)
            return sql, lambda m: {i: v for i, v in m.items() if i % k != rem}
        if kind == "update":
            k = r.randint(3, 9)
            rem = r.randint(0, k - 1)
            sql = "UPDATE %s SET v = v + 1 WHERE id %% %d = %d" % (t, k, rem)
            return sql, lambda m: {i: (v + 1 if i % k == rem else v) for i, v in m.items()}
        if kind == "merge":
            a = max(0, self.next_id - r.randint(5, 30))
            n = r.randint(5, 40)
            self.next_id = max(self.next_id, a + n)
            sql = ("MERGE INTO %s t USING (SELECT id, id * 10 AS v FROM range(%d, %d)) s ON t.id = s.id "
                   "WHEN MATCHED AND s.id %% 4 = 0 THEN DELETE "
                   "WHEN MATCHED THEN UPDATE SET v = s.v "
                   "WHEN NOT MATCHED THEN INSERT (id, v) VALUES (s.id, s.v)") % (t, a, a + n)

            def apply(m, a=a, n=n):
                out = dict(m)
                for i in range(a, a + n):
                    if i in out:
                        if i % 4 == 0:
                            del out[i]
                        else:
                            out[i] = i * 10
                    else:
                        out[i] = i * 10
                return out
            return sql, apply
        if kind == "optimize":
            return "OPTIMIZE %s" % t, lambda m: m
        if kind == "reorg":
            return "REORG TABLE %s APPLY (PURGE)" % t, lambda m: m
        if kind == "vacuum":
            return "VACUUM %s RETAIN 0 HOURS" % t, lambda m: m
        raise ValueError(kind)

    def check(self, label, candidates):
        """The table must hold one of the candidate states; returns its index or None."""
        rows, err = self.read_rows()
        if rows is None:
            self.failures.append("%s: the table does not read: %s" % (label, err))
            return None
        for idx, c in enumerate(candidates):
            if rows == c:
                return idx
        missing = [i for i in candidates[0] if i not in rows][:5]
        extra = [i for i in rows if i not in candidates[-1]][:5]
        self.failures.append("%s: %d rows match no committed state (missing %s, extra %s)"
                             % (label, len(rows), missing, extra))
        return None

    def setup(self):
        shutil.rmtree(self.table, ignore_errors=True)
        rc, _, err, _, _ = self.run(
            "CREATE TABLE %s (id BIGINT, v BIGINT) USING delta TBLPROPERTIES ("
            "'delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '3')" % self.ref)
        if rc != 0:
            raise SystemExit("cannot create the table: " + err)

    def round(self, i):
        kinds = ["insert", "insert", "delete", "update", "merge", "optimize", "reorg", "vacuum"]
        kind = self.rng.choice(kinds)
        if not self.model and kind not in ("insert", "merge"):
            kind = "insert"
        sql, apply = self.make(kind)
        before = self.model
        after = apply(before)
        expected = self.durations.get(kind, 0.15)
        delay = self.rng.uniform(0.0, expected * 1.1)
        rc, _, err, killed, took = self.run(sql, kill_after=delay)
        if not killed:
            self.durations[kind] = took
            self.completed_before_kill += 1
            if rc != 0:
                self.failures.append("round %d %s failed unkilled: %s" % (i, kind, err.strip()[:300]))
                return
        else:
            self.kills += 1
        idx = self.check("round %d after %s %s" % (i, "killed" if killed else "finished", kind), [before, after])
        if idx is None:
            return
        self.model = after if idx == 1 else before
        if killed and idx == 1 and after != before:
            self.killed_after_commit += 1
        if not killed:
            return
        # A rerun completes on the state the kill left.
        if kind in ("optimize", "reorg", "vacuum"):
            sql2, apply2 = self.make(kind)
        else:
            sql2, apply2 = self.make("insert")
        rc, _, err, _, _ = self.run(sql2)
        if rc != 0:
            self.failures.append("round %d rerun after killed %s failed: %s" % (i, kind, err.strip()[:300]))
            return
        after2 = apply2(self.model)
        if self.check("round %d after rerun" % i, [after2]) == 0:
            self.model = after2


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("silt")
    ap.add_argument("--kills", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=110)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    root = a.keep or tempfile.mkdtemp(prefix="silt-crash-")
    os.makedirs(root, exist_ok=True)
    h = Harness(os.path.abspath(a.silt), root, a.seed)
    h.setup()
    start = time.monotonic()
    rounds = 0
    while h.kills < a.kills and time.monotonic() - start < a.seconds:
        # A fresh table now and then keeps statement times (and so the kill points) spread out.
        if rounds and rounds % 400 == 0:
            h.model, h.next_id = {}, 0
            h.setup()
        h.round(rounds)
        rounds += 1
        if len(h.failures) >= 20:
            break
    elapsed = time.monotonic() - start
    print("seed %d: %d rounds, %d kills (%d of them after the commit), %d statements finished before their kill, "
          "%d rows in the model, %.1fs" % (a.seed, rounds, h.kills, h.killed_after_commit, h.completed_before_kill,
                                           len(h.model), elapsed))
    for f in h.failures:
        print("FAIL " + f)
    if h.kills < a.kills and not h.failures:
        h.failures.append("only %d of %d kills in %.0fs" % (h.kills, a.kills, a.seconds))
        print("FAIL " + h.failures[-1])
    if not a.keep and not h.failures:
        shutil.rmtree(root, ignore_errors=True)
    elif h.failures:
        print("table kept at " + root)
    print("%d passed, %d failed" % (h.kills if not h.failures else max(0, h.kills - len(h.failures)), len(h.failures)))
    return 1 if h.failures else 0


if __name__ == "__main__":
    sys.exit(main())
