#!/usr/bin/env bash
# The web console's browser suite: builds a demo warehouse with `silt sql`, starts `silt serve` on
# a free port, and runs console.test.mjs (npm playwright-core, pinned by package-lock.json,
# driving Debian's chromium). Screenshots go to BUILD_DIR/web-screenshots/. Prints
# "N passed, N failed[, N skipped]" last (scripts/run-tests.sh reads it); without Node, chromium
# or playwright-core the suite skips with a message.
#
#   bash test/web/run.sh [BUILD_DIR]     (default build/release)
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${1:-$ROOT/build/release}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
SILT="$BUILD/silt"
CHROMIUM="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"

skip_all() {
  echo "SKIP web console browser suite: $1"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
}

command -v node >/dev/null 2>&1 || skip_all "node is not installed"
[ -n "$CHROMIUM" ] || skip_all "chromium is not installed (Debian package chromium)"
[ -x "$SILT" ] || skip_all "$SILT is not built"
if [ ! -f "$HERE/node_modules/playwright-core/package.json" ]; then
  command -v npm >/dev/null 2>&1 || skip_all "npm is not installed"
  (cd "$HERE" && npm ci --no-audit --no-fund >/dev/null 2>&1) || skip_all "npm ci in test/web failed (offline?)"
fi
if "$SILT" serve --port x 2>&1 | grep -q "no web console"; then
  skip_all "this silt build has no web console (libcpp-httplib-dev was absent)"
fi

WORK="$(mktemp -d)"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

WH="$WORK/warehouse"
# A demo table with history: several small files over two partitions, a DELETE with a deletion
# vector, a removed file awaiting VACUUM.
"$SILT" sql --warehouse "$WH" -e "
  CREATE TABLE events (id INT, ts TIMESTAMP, p STRING) USING delta PARTITIONED BY (p)
    TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');
  INSERT INTO events VALUES (1, TIMESTAMP '2026-01-01 00:00:00', 'a'), (2, TIMESTAMP '2026-01-02 00:00:00', 'b'),
    (7, TIMESTAMP '2026-01-07 00:00:00', 'a');
  INSERT INTO events VALUES (3, TIMESTAMP '2026-01-03 00:00:00', 'a'), (4, TIMESTAMP '2026-01-04 00:00:00', 'b');
  INSERT INTO events VALUES (5, TIMESTAMP '2026-01-05 00:00:00', 'a');
  INSERT INTO events VALUES (6, TIMESTAMP '2026-01-06 00:00:00', 'a');
  DELETE FROM events WHERE id = 1;
  DELETE FROM events WHERE id = 3;
  CREATE SCHEMA sales;
  CREATE TABLE sales.orders (o INT) USING delta;
  INSERT INTO sales.orders VALUES (1), (2);" >/dev/null || { echo "demo warehouse failed"; echo "0 passed, 1 failed"; exit 1; }

"$SILT" serve --port 0 "$WH" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 100); do
  URL=$(grep -oE 'http://[^ ]+/' "$WORK/serve.out" | head -1)
  [ -n "$URL" ] && break
  sleep 0.1
done
if [ -z "$URL" ]; then
  echo "silt serve did not start:"; cat "$WORK/serve.err"
  echo "0 passed, 1 failed"
  exit 1
fi

SHOTS="$BUILD/web-screenshots"
rm -rf "$SHOTS"
CHROMIUM="$CHROMIUM" timeout 180 node "$HERE/console.test.mjs" "$URL" "$SILT" "$WH" "$SHOTS"
rc=$?
echo "screenshots: $SHOTS"
exit $rc
