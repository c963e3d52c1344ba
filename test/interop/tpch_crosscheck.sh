#!/usr/bin/env bash
# The 22 TPC-H queries at SF 0.01 (issue 22): silt vs DuckDB, full answers compared in order
# (test/interop/tpch_crosscheck.mjs). Without node/npm/DuckDB it prints "SKIP …" and counts nothing.
#
#   bash test/interop/tpch_crosscheck.sh SILT_BINARY [QUERY_NAME...]
#     TPCH_CHECK_SF (default 0.01), TPCH_CHECK_TIMEOUT (seconds per silt query, default 20),
#     CROSSCHECK_KEEP=1 keeps the temp dir.
set -uo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
SF=${TPCH_CHECK_SF:-0.01}

skip_all() {
  echo "SKIP tpch crosscheck: $1"
  echo "0 passed, 0 failed"
  exit 0
}

[ $# -ge 1 ] || { echo "usage: $0 SILT_BINARY [QUERY_NAME...]" >&2; exit 2; }
SILT=$1
shift
[ -x "$SILT" ] || { echo "FAIL tpch crosscheck (silt binary not found: $SILT)"; echo "0 passed, 1 failed"; exit 1; }
SILT=$(cd "$(dirname "$SILT")" && pwd)/$(basename "$SILT")

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

WORK=$(mktemp -d)
if [ "${CROSSCHECK_KEEP:-0}" = 1 ]; then echo "keeping $WORK"; else trap 'rm -rf "$WORK"' EXIT; fi
if ! gen_log=$("$SILT" delta gen-tpch "$WORK/data" --sf "$SF" 2>&1); then
  echo "FAIL tpch crosscheck: silt delta gen-tpch: $gen_log"
  echo "0 passed, 1 failed"
  exit 1
fi
cd "$HERE" && node "$HERE/tpch_crosscheck.mjs" "$SILT" "$WORK/data" "$WORK/warehouse" "$SF" "$@"
