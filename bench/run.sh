#!/usr/bin/env bash
# Parquet scan and write throughput: silt vs DuckDB (npm, pinned in bench/peers), side by side.
#
#   make bench                         (builds build/bench, then runs this)
#   bash bench/run.sh [SILT_BINARY]    (default build/bench/silt, else build/release/silt)
#   BENCH_SCALE=0.1 bash bench/run.sh  (fewer rows, for a quick look; never recorded)
#   BENCH_PARTS=scan                   (only the scan rows; default "write scan")
#   BENCH_DATASETS="int64 dict_string" (a subset of the datasets; default all)
#   BENCH_RECORD=1                     (append the table to bench/RESULTS.md; full scale only)
#
# Prints `bench=<name> engine=<silt|duckdb> threads=<n> seconds=<x> rows=<n>` lines (and with
# BENCH_RECORD=1 appends a dated table to bench/RESULTS.md). Scan times are best of 3, measured
# inside each engine (silt's own seconds=, DuckDB's query time), so process start-up is excluded
# on both sides.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH="$ROOT/bench"
SCALE=${BENCH_SCALE:-1}
RUNS=${BENCH_RUNS:-3}
CODEC=${BENCH_CODEC:-snappy}
PARTS=${BENCH_PARTS:-write scan}
ONLY=${BENCH_DATASETS:-}
LOAD_AT_START=$(cut -d' ' -f1-3 /proc/loadavg)
part() { [[ " $PARTS " == *" $1 "* ]]; }

SILT=${1:-${SILT:-}}
. "$ROOT/bench/find_silt.sh"

command -v node >/dev/null || { echo "bench: node not found" >&2; exit 2; }
if [ ! -f "$BENCH/peers/node_modules/.package-lock.json" ] ||
   [ "$BENCH/peers/package-lock.json" -nt "$BENCH/peers/node_modules/.package-lock.json" ]; then
  (cd "$BENCH/peers" && npm ci --no-audit --no-fund >/dev/null)
fi
DUCK="node $BENCH/scan_duckdb.mjs"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# name columns rows
DATASETS=(
  "int64 int64 10000000"
  "double double 10000000"
  "dict_string dict_string 10000000"
  "plain_string plain_string 5000000"
  "nested nested 2000000"
)

rows_for() { awk -v r="$1" -v s="$SCALE" 'BEGIN { n = int(r * s); if (n < 1000) n = 1000; print n }'; }
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.6f", b - a }'; }
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
emit() { # name engine threads seconds rows [cpu_seconds]
  echo "bench=$1 engine=$2 threads=$3 seconds=$4 rows=$5${6:+ cpu_seconds=$6}"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "${6:-}" >>"$WORK/results.tsv"
}
note() { echo "# $*"; echo "$*" >>"$WORK/notes.txt"; }
: >"$WORK/results.tsv"
: >"$WORK/notes.txt"

# `silt parquet gen` is probed with a tiny file; without it DuckDB writes the data instead so the
# scan rows still compare both engines on identical files.
if "$SILT" parquet gen "$WORK/probe.parquet" --rows 10 --columns int64 >/dev/null 2>&1; then
  have_gen=1
else
  have_gen=0
  note "silt parquet gen is not available: data written by DuckDB, write rows skipped"
fi

for spec in "${DATASETS[@]}"; do
  read -r name cols base_rows <<<"$spec"
  [ -z "$ONLY" ] || [[ " $ONLY " == *" $name "* ]] || continue
  rows=$(rows_for "$base_rows")
  f="$WORK/$name.parquet"

  # --- write: silt's writer (rows generated in memory first) vs DuckDB COPY of rows in memory ---
  if [ "$have_gen" = 1 ] && ! part write; then
    "$SILT" parquet gen "$f" --rows "$rows" --columns "$cols" --codec "$CODEC" --seed 1 \
      --row-group-rows 1000000 >/dev/null
  elif [ "$have_gen" = 1 ]; then
    best=""
    for _ in $(seq "$RUNS"); do
      # 1M-row groups: both engines parallelize across row groups, so threads=2 can matter.
      # --timing reports the encode+compress+write time, without generating the rows.
      out=$("$SILT" parquet gen "$f" --rows "$rows" --columns "$cols" --codec "$CODEC" --seed 1 \
        --row-group-rows 1000000 --timing)
      s=$(sed -nE 's/.*write_seconds=([0-9.eE+-]+).*/\1/p' <<<"$out")
      best=$(min "$best" "$s")
    done
    emit "write_$name" silt 1 "$best" "$rows"
    out=$($DUCK write "$f" --threads 1 --runs "$RUNS" --codec "$CODEC")
    emit "write_$name" duckdb 1 "$(sed -E 's/.*seconds=([^ ]+).*/\1/' <<<"$out")" "$rows"
  else
    $DUCK gen "$cols" "$f" --rows "$rows" --codec "$CODEC" >/dev/null
  fi

  # Guard: DuckDB's query must really read the file, not answer from statistics.
  if $DUCK explain "$f" | grep -q COLUMN_DATA_SCAN; then
    note "$name: DuckDB answered the scan from statistics; DuckDB scan rows are not meaningful"
  fi

  # --- scan: every column of every row group decoded ---
  part scan || { rm -f "$f"; continue; }
  for threads in 1 2; do
    # The first call doubles as warm-up (page cache) and as the "is scan implemented" probe.
    if out=$("$SILT" parquet scan "$f" --threads "$threads" 2>&1); then
      best=""
      cpu=""
      srows=""
      for _ in $(seq "$RUNS"); do
        out=$("$SILT" parquet scan "$f" --threads "$threads")
        best=$(min "$best" "$(sed -nE 's/.* seconds=([0-9.eE+-]+).*/\1/p' <<<"$out")")
        cpu=$(min "$cpu" "$(sed -nE 's/.*cpu_seconds=([0-9.eE+-]+).*/\1/p' <<<"$out")")
        srows=$(sed -nE 's/.*rows=([0-9]+).*/\1/p' <<<"$out")
      done
      emit "scan_$name" silt "$threads" "$best" "$srows" "$cpu"
    else
      [ "$threads" = 1 ] && note "silt parquet scan unavailable on $name: $(head -1 <<<"$out")"
    fi
    out=$($DUCK scan "$f" --threads "$threads" --runs "$RUNS")
    emit "scan_$name" duckdb "$threads" "$(sed -E 's/.* seconds=([^ ]+).*/\1/' <<<"$out")" \
      "$(sed -E 's/.*rows=([0-9]+).*/\1/' <<<"$out")" "$(sed -E 's/.*cpu_seconds=([^ ]+).*/\1/' <<<"$out")"
  done
  rm -f "$f"
done

# --- Delta snapshot loading (no peer: DuckDB cannot read Delta here without its extension) ---
SNAP_BENCH="$ROOT/build/bench/snapshot_bench"
snapshot_lines=""
if [ -x "$SNAP_BENCH" ] && [ "$SCALE" = 1 ] && [ -z "$ONLY" ] && part scan && part write; then
  snapshot_lines=$("$SNAP_BENCH" | grep '^bench=' || true)
  echo "$snapshot_lines"
fi

# --- bench/RESULTS.md: one dated table per full-scale run ---
if [ "$SCALE" != 1 ] || [ "${BENCH_RECORD:-0}" != 1 ]; then
  echo "# not recorded in bench/RESULTS.md (needs BENCH_RECORD=1 and BENCH_SCALE=1)"
  exit 0
fi
rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  [ -s "$BENCH/RESULTS.md" ] || printf '# Benchmark results\n\nAppended by `make bench` (bench/run.sh). Seconds are best of %s runs; ratio = silt / DuckDB (below 1: silt faster).\n' "$RUNS"
  printf '\n## %s — silt %s, %s cores (load average %s at the start), DuckDB 1.5.6 (npm @duckdb/node-api 1.5.6-r.1), codec %s\n\n' \
    "$(date -u '+%Y-%m-%d %H:%M UTC')" "$rev" "$(nproc)" "$LOAD_AT_START" "$CODEC"
  echo '| bench | rows | threads | silt s | DuckDB s | silt/DuckDB | silt CPU s | DuckDB CPU s | CPU ratio |'
  echo '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'
  awk -F'\t' '
    function ratio(a, b) { return (a != "" && b != "" && b > 0) ? sprintf("%.2f", a / b) : "n/a" }
    function cell(x) { return x == "" ? "n/a" : x }
    { key = $1 "\t" $3; if (!(key in seen)) { seen[key] = 1; order[n++] = key }
      t[key, $2] = $4; r[key] = $5; c[key, $2] = $6 }
    END {
      for (i = 0; i < n; i++) {
        k = order[i]; split(k, p, "\t")
        s = t[k, "silt"]; d = t[k, "duckdb"]; cs = c[k, "silt"]; cd = c[k, "duckdb"]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p[1], r[k], p[2], cell(s), cell(d),
          ratio(s, d), cell(cs), cell(cd), ratio(cs, cd)
      }
    }' "$WORK/results.tsv"
  if [ -s "$WORK/notes.txt" ]; then echo; sed 's/^/Note: /' "$WORK/notes.txt"; fi
  if [ -n "$snapshot_lines" ]; then
    printf '\nDelta snapshot load (bench/snapshot_bench.cc; target < 1 s and < 1 GB RSS for 300k files from a checkpoint):\n\n'
    sed 's/^/    /' <<<"$snapshot_lines"
  fi
  printf '\nWrite rows: silt = `silt parquet gen --timing` write time (encoding, compression and I/O of rows already generated in memory); DuckDB = `COPY` of the same rows already in memory. Scan rows: every column decoded (DuckDB via bit_xor/sum/strlen aggregates, which statistics cannot answer); CPU s = the least CPU time of the process (all threads) over the runs, which a loaded machine disturbs less than the wall time.\n\nReproduce: `make bench`\n'
} >>"$BENCH/RESULTS.md"
echo "# appended to bench/RESULTS.md"
