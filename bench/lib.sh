# Shared helpers of bench/dml.sh and bench/compact.sh (sourced). Sets ROOT, BENCH, SILT, WORK,
# THREADS; results go to $WORK/results.tsv as "bench<TAB>engine<TAB>seconds<TAB>rows".
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH="$ROOT/bench"
THREADS=${BENCH_THREADS:-2}
. "$ROOT/bench/find_silt.sh"
command -v node >/dev/null || { echo "bench: node not found" >&2; exit 2; }
if [ ! -f "$BENCH/peers/node_modules/.package-lock.json" ] ||
   [ "$BENCH/peers/package-lock.json" -nt "$BENCH/peers/node_modules/.package-lock.json" ]; then
  (cd "$BENCH/peers" && npm ci --no-audit --no-fund >/dev/null)
fi
WORK=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/silt-bench-XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
: >"$WORK/results.tsv"

emit() { # bench engine seconds rows
  echo "bench=$1 engine=$2 threads=$THREADS seconds=$3 rows=$4"
  printf '%s\t%s\t%s\t%s\n' "$@" >>"$WORK/results.tsv"
}
# silt_sql WAREHOUSE SQL: runs statements, output discarded; fails the script on error.
silt_sql() { "$SILT" sql --warehouse "$1" --threads "$THREADS" --mode tabs -e "$2" >/dev/null; }
# silt_time WAREHOUSE SQL: prints the seconds of the last statement (silt's own "Time taken",
# so process start-up and opening the warehouse are excluded, as on the DuckDB side).
silt_time() {
  "$SILT" sql --warehouse "$1" --threads "$THREADS" --mode tabs --timing -e "$2" 2>&1 >/dev/null |
    sed -nE 's/^Time taken: ([0-9.]+) seconds.*/\1/p' | tail -1
}
# duck DBFILE < script: prints "name seconds" lines (bench/sql_duckdb.mjs).
duck() { node "$BENCH/sql_duckdb.mjs" "$1" --threads "$THREADS"; }
best() { sort -g | head -1; }

# print_table TITLE: markdown table of $WORK/results.tsv, silt vs DuckDB side by side.
print_table() {
  printf '| bench | rows | silt s | DuckDB s | silt/DuckDB |\n| --- | ---: | ---: | ---: | ---: |\n'
  awk -F'\t' '
    { if (!($1 in seen)) { seen[$1] = 1; order[n++] = $1 } t[$1, $2] = $3; r[$1] = $4 }
    END {
      for (i = 0; i < n; i++) {
        k = order[i]; s = ((k, "silt") in t) ? t[k, "silt"] : ""; d = ((k, "duckdb") in t) ? t[k, "duckdb"] : ""
        ratio = (s != "" && d != "" && d > 0) ? sprintf("%.2f", s / d) : "-"
        printf "| %s | %s | %s | %s | %s |\n", k, r[k], (s == "" ? "-" : s), (d == "" ? "-" : d), ratio
      }
    }' "$WORK/results.tsv"
}

# record TITLE NOTES: appends a section to bench/RESULTS.md when BENCH_RECORD=1.
record() {
  local table
  table=$(print_table)
  echo
  echo "$table"
  [ "${BENCH_RECORD:-0}" = 1 ] || { echo "# BENCH_RECORD=1 to append to bench/RESULTS.md"; return 0; }
  local rev
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  {
    printf '\n## %s — %s, silt %s, %s cores (load average %s at the start), threads %s, DuckDB 1.5.6 (npm @duckdb/node-api 1.5.6-r.1)\n\n' \
      "$(date -u '+%Y-%m-%d %H:%M UTC')" "$1" "$rev" "$(nproc)" "$LOAD_AT_START" "$THREADS"
    echo "$table"
    printf '\n%s\n' "$2"
  } >>"$BENCH/RESULTS.md"
  echo "# appended to bench/RESULTS.md"
}
LOAD_AT_START=$(cut -d' ' -f1 /proc/loadavg)
