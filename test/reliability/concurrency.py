#!/usr/bin/env python3
"""Multi-process concurrency test (issue 31): several `silt sql` processes at once on one table.

Appenders INSERT rows with unique ids; DML workers UPDATE (deletion vectors) and DELETE rows
nobody else owns; a maintenance worker runs OPTIMIZE, REORG ... APPLY (PURGE), VACUUM (default
retention: it lists and deletes nothing live) and the log's checkpoints (interval 5); readers
SELECT. Every statement is its own process. Checked:
  * a statement fails only with a Delta conflict class (DELTA_CONCURRENT_*); anything else —
    above all DELTA_VERSIONS_NOT_CONTIGUOUS or another false corruption — is a failure;
  * at the end every acknowledged INSERT's rows are present exactly once, no row of a failed
    INSERT is, and rows deleted by an acknowledged DELETE are gone.
Extra workers (e.g. the maintenance service) hook in through SILT_SOAK_EXTRA: a shell command
run in a loop with $TABLE set to the table path; its failures count like the others'.
Prints "N passed, N failed" (one pass per acknowledged statement). Usage:
  concurrency.py SILT_BINARY [--seconds S] [--appenders N] [--seed N] [--keep DIR]
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

CLASS_RE = re.compile(r"\[([A-Z_0-9.]+)\]")
ALLOWED = re.compile(r"^DELTA_CONCURRENT_")


class Soak:
    def __init__(self, silt, root, seed, deadline):
        self.silt = silt
        self.root = root
        self.table = os.path.join(root, "t")
        self.ref = "delta.`%s`" % self.table
        self.seed = seed
        self.deadline = deadline
        self.lock = threading.Lock()
        self.acked_ids = set()      # rows of acknowledged INSERTs (minus acknowledged DELETEs)
        self.failed_ids = set()     # rows of INSERTs that failed with a conflict
        self.deleted_ids = set()
        self.ok = 0
        self.conflicts = {}
        self.failures = []

    def run(self, sql):
        args = [self.silt, "sql", "--warehouse", os.path.join(self.root, "wh"), "--mode", "tabs", "-e", sql]
        p = subprocess.run(args, capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def outcome(self, who, sql, rc, err):
        """True when acknowledged; records conflicts and failures."""
        with self.lock:
            if rc == 0:
                self.ok += 1
                return True
            m = CLASS_RE.search(err)
            cls = m.group(1) if m else "?"
            if ALLOWED.match(cls):
                self.conflicts[cls] = self.conflicts.get(cls, 0) + 1
            else:
                self.failures.append("%s: %s -> %s" % (who, sql[:120], err.strip()[:400]))
            return False

    def appender(self, w):
        rng = random.Random(self.seed * 100 + w)
        seq = 0
        while time.monotonic() < self.deadline:
            n = rng.randint(1, 5)
            ids = [w * 10_000_000 + seq + i for i in range(n)]
            seq += n
            values = ", ".join("(%d, 0)" % i for i in ids)
            sql = "INSERT INTO %s VALUES %s" % (self.ref, values)
            rc, _, err = self.run(sql)
            acked = self.outcome("appender %d" % w, sql, rc, err)
            with self.lock:
                (self.acked_ids if acked else self.failed_ids).update(ids)

    def dml(self, w):
        rng = random.Random(self.seed * 100 + 50 + w)
        while time.monotonic() < self.deadline:
            if rng.random() < 0.6:
                sql = "UPDATE %s SET v = v + 1 WHERE id %% %d = %d" % (self.ref, rng.randint(3, 11), rng.randint(0, 2))
                rc, _, err = self.run(sql)
                self.outcome("dml %d" % w, sql, rc, err)
            else:
                # Deletes only ids that are acknowledged already (so the expectation is exact).
                with self.lock:
                    pool = sorted(self.acked_ids)
                if not pool:
                    time.sleep(0.05)
                    continue
                victims = rng.sample(pool, min(len(pool), rng.randint(1, 3)))
                sql = "DELETE FROM %s WHERE id IN (%s)" % (self.ref, ", ".join(map(str, victims)))
                rc, _, err = self.run(sql)
                if self.outcome("dml %d" % w, sql, rc, err):
                    with self.lock:
                        self.acked_ids.difference_update(victims)
                        self.deleted_ids.update(victims)

    def maintenance(self):
        rng = random.Random(self.seed * 100 + 90)
        stmts = ["OPTIMIZE %s", "REORG TABLE %s APPLY (PURGE)", "VACUUM %s", "VACUUM %s LITE"]
        while time.monotonic() < self.deadline:
            sql = rng.choice(stmts) % self.ref
            rc, _, err = self.run(sql)
            self.outcome("maintenance", sql, rc, err)

    def reader(self):
        while time.monotonic() < self.deadline:
            sql = "SELECT count(*), count(DISTINCT id) FROM %s" % self.ref
            rc, out, err = self.run(sql)
            if self.outcome("reader", sql, rc, err):
                parts = out.split()
                if len(parts) == 2 and parts[0] != parts[1]:
                    with self.lock:
                        self.failures.append("reader: duplicate rows seen: %s" % out.strip())

    def extra(self, cmd):
        env = dict(os.environ, TABLE=self.table, SILT=self.silt)
        while time.monotonic() < self.deadline:
            p = subprocess.run(cmd, shell=True, env=env, capture_output=True, text=True)
            self.outcome("extra", cmd, p.returncode, p.stderr)

    def verify(self):
        rc, out, err = self.run("SELECT id FROM %s" % self.ref)
        if rc != 0:
            self.failures.append("final read failed: " + err.strip()[:400])
            return
        seen = {}
        for line in out.split():
            seen[int(line)] = seen.get(int(line), 0) + 1
        dups = [i for i, c in seen.items() if c > 1]
        lost = sorted(self.acked_ids - seen.keys())
        ghosts = sorted((self.failed_ids | self.deleted_ids) & seen.keys())
        unknown = sorted(seen.keys() - self.acked_ids - self.failed_ids - self.deleted_ids)
        for what, items in (("duplicated", dups), ("lost acknowledged", lost),
                            ("present although failed or deleted", ghosts), ("never written", unknown)):
            if items:
                self.failures.append("%d rows %s: %s" % (len(items), what, items[:10]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("silt")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--appenders", type=int, default=4)
    ap.add_argument("--dml", type=int, default=1)
    ap.add_argument("--readers", type=int, default=1)
    ap.add_argument("--seed", type=int, default=int(time.time()))
    ap.add_argument("--keep", default=None)
    a = ap.parse_args()
    root = a.keep or tempfile.mkdtemp(prefix="silt-soak-")
    os.makedirs(root, exist_ok=True)
    s = Soak(os.path.abspath(a.silt), root, a.seed, 0)
    shutil.rmtree(s.table, ignore_errors=True)
    rc, _, err = s.run("CREATE TABLE %s (id BIGINT, v BIGINT) USING delta TBLPROPERTIES ("
                       "'delta.enableDeletionVectors' = 'true', 'delta.checkpointInterval' = '5')" % s.ref)
    if rc != 0:
        print("cannot create the table: " + err)
        print("0 passed, 1 failed")
        return 1
    s.deadline = time.monotonic() + a.seconds
    threads = [threading.Thread(target=s.appender, args=(w,)) for w in range(a.appenders)]
    threads += [threading.Thread(target=s.dml, args=(w,)) for w in range(a.dml)]
    threads += [threading.Thread(target=s.maintenance)]
    threads += [threading.Thread(target=s.reader) for _ in range(a.readers)]
    if os.environ.get("SILT_SOAK_EXTRA"):
        threads.append(threading.Thread(target=s.extra, args=(os.environ["SILT_SOAK_EXTRA"],)))
    start = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    s.verify()
    print("seed %d: %.0fs, %d processes at once, %d statements acknowledged, %d acknowledged rows, "
          "%d deleted, %d failed inserts, conflicts %s" % (a.seed, time.monotonic() - start, len(threads), s.ok,
                                                          len(s.acked_ids), len(s.deleted_ids), len(s.failed_ids),
                                                          dict(sorted(s.conflicts.items()))))
    for f in s.failures[:30]:
        print("FAIL " + f)
    if s.failures:
        print("table kept at " + root)
    elif not a.keep:
        shutil.rmtree(root, ignore_errors=True)
    print("%d passed, %d failed" % (s.ok, len(s.failures)))
    return 1 if s.failures else 0


if __name__ == "__main__":
    sys.exit(main())
