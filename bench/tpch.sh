#!/usr/bin/env bash
# TPC-H-like queries: silt (Delta tables, bench/tpch_bench.cc) vs DuckDB over the same Parquet
# files (bench/tpch_duckdb.mjs), same run, same threads. Appends a table with per-query ratios and
# their geometric mean to bench/RESULTS.md (issue target: geomean silt/DuckDB ≤ 1.5).
#
#   bash bench/tpch.sh [SF]     (default SF 1; data cached in build/bench-data/tpch-sf<SF>)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SF=${1:-${TPCH_SF:-1}}
RUNS=${BENCH_RUNS:-3}
BIN="$ROOT/build/bench/tpch_bench"
[ -x "$BIN" ] || { echo "tpch: build/bench/tpch_bench missing (make bench builds it)" >&2; exit 2; }
DATA="$ROOT/build/bench-data/tpch-sf$SF"
mkdir -p "$DATA"
(cd "$ROOT/bench/peers" && [ -d node_modules ] || npm ci --no-audit --no-fund >/dev/null)
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
for threads in 1 2; do
  (cd "$ROOT" && "$BIN" --data "$DATA" --sf "$SF" --threads "$threads" --runs "$RUNS") | tee -a "$OUT" || true
  node "$ROOT/bench/tpch_duckdb.mjs" "$DATA" --threads "$threads" --runs "$RUNS" | tee -a "$OUT"
done
rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  printf '\n## %s — TPC-H-like SF %s, silt %s, %s cores, DuckDB 1.5.6 over the same Parquet files\n\n' \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$SF" "$rev" "$(nproc)"
  echo '| query | threads | silt s | DuckDB s | silt/DuckDB | same first row |'
  echo '| --- | ---: | ---: | ---: | ---: | --- |'
  awk '
    /^bench=/ { split($1, b, "="); split($2, e, "="); split($3, t, "="); split($4, sc, "=");
                k = b[2] SUBSEP t[2]; if (!(k in seen)) { seen[k] = 1; order[n++] = k }
                sec[k, e[2]] = sc[2]; last = e[2]; lastt = t[2] }
    /^firstrow=/ { q = substr($1, 10); sub(/^firstrow=[^ ]+ ?/, ""); row[q, lastt, last] = $0 }
    END {
      lg = 0; m = 0
      for (i = 0; i < n; i++) {
        split(order[i], p, SUBSEP); k = order[i]
        s = ((k, "silt") in sec) ? sec[k, "silt"] : ""; d = ((k, "duckdb") in sec) ? sec[k, "duckdb"] : ""
        ratio = (s != "" && d > 0) ? s / d : 0
        if (ratio > 0) { lg += log(ratio); m++ }
        same = (row[p[1], p[2], "silt"] == row[p[1], p[2], "duckdb"]) ? "yes" : "differs"
        printf "| %s | %s | %s | %s | %s | %s |\n", p[1], p[2], (s == "" ? "failed" : s), d, (ratio > 0 ? sprintf("%.2f", ratio) : "n/a"), same
      }
      if (m) printf "\nGeometric mean silt/DuckDB over %d query runs: %.2f\n", m, exp(lg / m)
    }' "$OUT"
  printf '\nFirst rows compare the printed values (decimal/float formatting can differ between engines even when equal).\nReproduce: `make bench` (or `bash bench/tpch.sh 1` after building build/bench).\n'
} >>"$ROOT/bench/RESULTS.md"
echo "# appended TPC-H-like results to bench/RESULTS.md"
