#!/usr/bin/env bash
# The 22 TPC-H queries (bench/tpch/queries.sql: the specification's texts, validation
# parameters): silt (Delta tables, bench/tpch_bench.cc) vs DuckDB over the same Parquet files
# (bench/tpch_duckdb.mjs), same run, at 1 and 2 threads. Every query's FULL answer is compared
# between the engines (bench/tpch/tpch.mjs). A query that fails or exceeds the per-query timeout is
# reported as such and the run goes on. Prints a table (per query: silt s, DuckDB s, ratio,
# answers equal; per thread count: queries finished, answers equal, geometric mean of the ratios)
# and appends it to bench/RESULTS.md when BENCH_RECORD=1.
#
#   bash bench/tpch.sh [SF]     (default 1; data cached in build/bench-data/tpch-sf<SF>)
#
# Environment: BENCH_RUNS (best of, default 3), TPCH_TIMEOUT (seconds per query and engine,
# default 300), TPCH_MEMORY_GB (memory limit of both engines, e.g. 4; default none),
# TPCH_THREADS (default "1 2"), TPCH_QUERIES (e.g. "q01 q19"; default all), BENCH_RECORD=1,
# TPCH_BIN (default build/bench/tpch_bench), TPCH_DATA=DIR: use the Delta tables DIR/<table>
# made elsewhere instead of generating (DuckDB's `tpch` extension is not in the npm package and
# needs a download, so DuckDB-written data is made outside, e.g. with the duckdb CLI:
# `CALL dbgen(sf = 1); COPY lineitem TO 'DIR/lineitem/part-0.parquet'; …` for the eight tables,
# then `silt sql -e "CONVERT TO DELTA parquet.\`DIR/lineitem\`"` for each; DuckDB reads the same
# Parquet files).
# `make bench` runs SF 1; `make bench-tpch-sf10` runs SF 10 with TPCH_MEMORY_GB=4.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SF=${1:-${TPCH_SF:-1}}
RUNS=${BENCH_RUNS:-3}
TIMEOUT=${TPCH_TIMEOUT:-300}
THREADS_LIST=${TPCH_THREADS:-1 2}
MEM_GB=${TPCH_MEMORY_GB:-}
BIN=${TPCH_BIN:-"$ROOT/build/bench/tpch_bench"}
[ -x "$BIN" ] || { echo "tpch: build/bench/tpch_bench missing (make bench builds it)" >&2; exit 2; }
command -v node >/dev/null || { echo "tpch: node not found" >&2; exit 2; }
if [ ! -f "$ROOT/bench/peers/node_modules/.package-lock.json" ] ||
   [ "$ROOT/bench/peers/package-lock.json" -nt "$ROOT/bench/peers/node_modules/.package-lock.json" ]; then
  (cd "$ROOT/bench/peers" && npm ci --no-audit --no-fund >/dev/null)
fi
DATA=${TPCH_DATA:-"$ROOT/build/bench-data/tpch-sf$SF"}
DATA=$(mkdir -p "$DATA" && cd "$DATA" && pwd)
external=()
[ -n "${TPCH_DATA:-}" ] && external=(--external)
LOAD_AT_START=$(cut -d' ' -f1 /proc/loadavg)
QUERIES=${TPCH_QUERIES:-$(sed -n 's/^-- name: //p' "$ROOT/bench/tpch/queries.sql")}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
OUT="$WORK/out"
: >"$OUT"

[ -n "${TPCH_DATA:-}" ] || (cd "$ROOT" && "$BIN" --data "$DATA" --sf "$SF" --generate)
silt_mem=()
duck_mem=()
if [ -n "$MEM_GB" ]; then
  silt_mem=(--memory-limit "$((MEM_GB * 1000 * 1000 * 1000))")
  duck_mem=(--memory-limit "${MEM_GB}GB")
fi
for threads in $THREADS_LIST; do
  dumps="$WORK/silt-$threads"
  mkdir -p "$dumps"
  for q in $QUERIES; do
    set +e
    (cd "$ROOT" && timeout --kill-after=10 "$TIMEOUT" "$BIN" --data "$DATA" --sf "$SF" --threads "$threads" \
      --runs "$RUNS" --query "$q" --dump "$dumps/$q.jsonl" "${silt_mem[@]}" "${external[@]}") >"$WORK/run.log" 2>"$WORK/run.err"
    rc=$?
    set -e
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "timeout=tpch_$q engine=silt threads=$threads after $TIMEOUT s"
    elif ! grep -qE '^(bench|error)=' "$WORK/run.log"; then
      echo "error=tpch_$q engine=silt threads=$threads exit code $rc: $(tr '\n' ' ' <"$WORK/run.err" | cut -c1-300)"
    else
      grep -E '^(bench|error)=' "$WORK/run.log"
    fi | tee -a "$OUT"
  done
  node "$ROOT/bench/tpch_duckdb.mjs" "$DATA" --sf "$SF" --threads "$threads" --runs "$RUNS" --timeout "$TIMEOUT" \
    --silt-dir "$dumps" --query "$(echo $QUERIES | tr ' ' ',')" "${duck_mem[@]}" | tee -a "$OUT"
done

rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
table=$(awk '
  function key(s) { sub(/^[a-z]+=tpch_/, "", s); return s }
  /^(bench|error|timeout)=/ {
    q = key($1); split($2, e, "="); split($3, t, "="); k = q SUBSEP t[2]
    if (!(k in seen)) { seen[k] = 1; order[n++] = k }
    if ($1 ~ /^bench=/) { split($4, sc, "="); val[k, e[2]] = sc[2] }
    else if ($1 ~ /^timeout=/) { val[k, e[2]] = "timeout" }
    else { val[k, e[2]] = "error"; msg = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ /, "", msg); why[k, e[2]] = msg }
  }
  /^answer=/ {
    q = key($1); split($2, t, "="); k = q SUBSEP t[2]; v = $3; sub(/^equal=/, "", v)
    eq[k] = v; d = $0; sub(/^[^ ]+ [^ ]+ [^ ]+ ?/, "", d); detail[k] = d
  }
  END {
    print "| query | threads | silt s | DuckDB s | silt/DuckDB | answers equal |"
    print "| --- | ---: | ---: | ---: | ---: | --- |"
    for (i = 0; i < n; i++) {
      k = order[i]; split(k, p, SUBSEP); th = p[2]
      s = ((k, "silt") in val) ? val[k, "silt"] : "-"; d = ((k, "duckdb") in val) ? val[k, "duckdb"] : "-"
      ratio = "-"
      if (!(th in total)) thorder[nth++] = th
      total[th]++
      if (s ~ /^[0-9.]+$/) finished[th]++
      if (s ~ /^[0-9.]+$/ && d ~ /^[0-9.]+$/ && d > 0) { r = s / d; ratio = sprintf("%.2f", r); lg[th] += log(r); m[th]++ }
      if (eq[k] == "yes") equal[th]++
      printf "| %s | %s | %s | %s | %s | %s |\n", p[1], th, s, d, ratio, (k in eq) ? eq[k] : "-"
      if ((k, "silt") in why) notes = notes sprintf("- %s, %s threads, silt: %s\n", p[1], th, why[k, "silt"])
      if ((k, "duckdb") in why) notes = notes sprintf("- %s, %s threads, DuckDB: %s\n", p[1], th, why[k, "duckdb"])
      if ((k in eq) && eq[k] == "no") notes = notes sprintf("- %s, %s threads, answers differ: %s\n", p[1], th, detail[k])
    }
    print ""
    for (j = 0; j < nth; j++) {
      th = thorder[j]
      printf "threads %s: silt finished %d of %d queries, answers equal in %d; geometric mean silt/DuckDB over the %d queries both finished: %s\n",
        th, finished[th], total[th], equal[th], m[th], m[th] ? sprintf("%.2f", exp(lg[th] / m[th])) : "n/a"
    }
    if (notes != "") { print ""; printf "%s", notes }
  }' "$OUT")
echo
echo "$table"
if [ "${BENCH_RECORD:-0}" = 1 ]; then
  {
    printf '\n## %s — TPC-H SF %s (22 queries, validation parameters), silt %s, %s cores (load average %s at the start), DuckDB 1.5.6 over the same Parquet files%s\n\n' \
      "$(date -u '+%Y-%m-%d %H:%M UTC')" "$SF" "$rev" "$(nproc)" "$LOAD_AT_START" "${MEM_GB:+, memory limit ${MEM_GB} GB}"
    echo "$table"
    printf '\nBest of %s runs per query, per-query timeout %s s. Answers: full results compared in order (bench/tpch/tpch.mjs).\nReproduce: `make bench` (SF 1) or `make bench-tpch-sf10`, or `bash bench/tpch.sh SF` after building build/bench.\n' "$RUNS" "$TIMEOUT"
  } >>"$ROOT/bench/RESULTS.md"
  echo "# appended TPC-H results to bench/RESULTS.md"
else
  echo "# BENCH_RECORD=1 to append to bench/RESULTS.md"
fi
