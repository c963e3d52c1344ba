#!/usr/bin/env bash
# SQL cross-check against DuckDB (issue 5): the queries of test/sql/crosscheck/*.sql run in
# `silt sql --mode json` over Delta tables written by `silt delta gen` and in DuckDB (npm,
# pinned by package-lock.json) over the same tables' Parquet files; results must agree as
# multisets. The format of the query files is described in crosscheck.mjs.
#
#   bash test/interop/crosscheck.sh SILT_BINARY [QUERY_FILE...]   (CROSSCHECK_KEEP=1 keeps the temp dir)
#
# Prints PASS/FAIL per query and exactly one "N passed, N failed" line. Until `silt sql` can
# query a Delta table (the engine is not merged yet) it prints "SKIP crosscheck: …" and counts
# nothing.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

skip_all() {
  echo "SKIP crosscheck: $1"
  echo "0 passed, 0 failed"
  exit 0
}

[ $# -ge 1 ] || { echo "usage: $0 SILT_BINARY [QUERY_FILE...]" >&2; exit 2; }
SILT=$1
shift
[ -x "$SILT" ] || { echo "FAIL crosscheck (silt binary not found: $SILT)"; echo "0 passed, 1 failed"; exit 1; }
SILT=$(cd "$(dirname "$SILT")" && pwd)/$(basename "$SILT")
if [ $# -gt 0 ]; then
  QUERIES=("$@")
else
  QUERIES=("$ROOT"/test/sql/crosscheck/*.sql)
fi
[ -e "${QUERIES[0]}" ] || skip_all "no query files in test/sql/crosscheck"

WORK=$(mktemp -d)
if [ "${CROSSCHECK_KEEP:-0}" = 1 ]; then echo "keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi

# Does `silt sql` query a Delta table yet? (a small generated table, count(*) as JSON)
probe="$WORK/probe"
if ! "$SILT" delta gen "$probe" --columns int64 --rows 3 >/dev/null 2>&1; then
  skip_all "silt delta gen does not work"
fi
probe_out=$("$SILT" sql --warehouse "$WORK/warehouse" --mode json -e "SELECT count(*) AS n FROM delta.\`$probe\`" 2>&1)
if [ "$probe_out" != '{"n":3}' ]; then
  skip_all "silt sql cannot query a Delta table yet ($(printf '%s' "$probe_out" | head -1 | cut -c1-160))"
fi

# DuckDB from npm, installed like run.sh does.
command -v node >/dev/null || skip_all "node not found"
command -v npm >/dev/null || skip_all "npm not found"
if [ ! -f "$HERE/node_modules/.package-lock.json" ] ||
   [ "$HERE/package-lock.json" -nt "$HERE/node_modules/.package-lock.json" ]; then
  if ! install_log=$(cd "$HERE" && npm ci --no-audit --no-fund 2>&1); then
    skip_all "npm ci failed: $(echo "$install_log" | grep -m1 -i 'err' || echo "$install_log" | tail -1)"
  fi
fi
(cd "$HERE" && node -e "import('@duckdb/node-api').then(() => process.exit(0), () => process.exit(1))") ||
  skip_all "@duckdb/node-api does not load"

cd "$HERE" && node "$HERE/crosscheck.mjs" "$SILT" "$WORK" "${QUERIES[@]}"
