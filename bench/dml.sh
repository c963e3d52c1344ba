#!/usr/bin/env bash
# DML: DELETE and MERGE on a 10M-row Delta table, deletion vectors vs copy-on-write
# (delta.enableDeletionVectors=false), and DuckDB running the same statements on a native DuckDB
# table (a database file) in the same run.
#
#   bash bench/dml.sh [SCALE]     rows = 10M × SCALE (default 1; e.g. 0.1 for a quick look)
#   BENCH_THREADS=2 (default) BENCH_RECORD=1 (append to bench/RESULTS.md) SILT=path/to/silt
#
# Each DML runs once on a fresh copy of the generated table (a DML changes its table); the
# predicate-column scan is best of 3. Timed inside each engine around the statement only.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SCALE=${1:-${BENCH_SCALE:-1}}
N=$(awk -v s="$SCALE" 'BEGIN { n = int(10000000 * s); if (n < 10000) n = 10000; print n }')
M=$((N / 100))  # MERGE source rows (100k for 10M)
# File layout of the target: 10 files of N/10 rows (1M-row files at 10M rows), written by one
# INSERT with spark.sql.files.maxRecordsPerFile; BENCH_FILE_ROWS overrides the rows per file.
FILE_ROWS=${BENCH_FILE_ROWS:-$(( (N + 9) / 10 ))}
W="$WORK/wh"
echo "# dml: $N-row target, $M-row MERGE source, threads $THREADS, work dir $WORK"

# --- silt: generate the two base tables and the MERGE source ---
cols="id BIGINT, k BIGINT, v DOUBLE, s STRING"
gen="SELECT id, (id * 7919) % 1000003, CAST(id AS DOUBLE) * 0.5, concat('s', CAST(id % 1000 AS STRING)) FROM range($N)"
t0=$(date +%s.%N)
silt_sql "$W" "SET spark.sql.files.maxRecordsPerFile = $FILE_ROWS;
  CREATE TABLE base_dv ($cols) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');
  INSERT INTO base_dv $gen;
  CREATE TABLE base_cow ($cols) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'false');
  INSERT INTO base_cow $gen;
  CREATE TABLE src ($cols) USING DELTA;
  INSERT INTO src SELECT id * 200, id, CAST(id AS DOUBLE) * 1.5, 'merged' FROM range($M)"
read -r nfiles nbytes <<<"$("$SILT" inspect base_dv --warehouse "$W" --json | sed -nE 's/.*"totals":\{"files":([0-9]+),"bytes":([0-9]+).*/\1 \2/p')"
echo "# silt: generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s; $nfiles files, $nbytes bytes per table"

d01=$(( (N + 999) / 1000 )); d10=$(( (N + 9) / 10 )); matched=$(( (N + 199) / 200 )); [ "$matched" -gt "$M" ] && matched=$M
declare -A expect=( [delete_0.1pct]=$((N - d01)) [delete_10pct]=$((N - d10)) [merge_100k]=$((N + M - matched)) )
declare -A stmt=(
  [delete_0.1pct]="DELETE FROM @T@ WHERE id % 1000 = 0"
  [delete_10pct]="DELETE FROM @T@ WHERE id % 10 = 0"
  [merge_100k]="MERGE INTO @T@ t USING src s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
)
ops=(delete_0.1pct delete_10pct merge_100k)
for mode in dv cow; do
  for op in "${ops[@]}"; do
    t="${op//./_}_$mode"
    cp -r "$W/base_$mode" "$W/$t"
    s=$(silt_time "$W" "${stmt[$op]//@T@/$t}")
    got=$("$SILT" sql --warehouse "$W" --mode tabs -e "SELECT count(*) FROM $t")
    [ "$got" = "${expect[$op]}" ] || echo "# WARNING: silt $op ($mode) left $got rows, expected ${expect[$op]}" >&2
    label=$([ "$mode" = dv ] && echo "deletion vectors" || echo "copy-on-write")
    emit "$op ($label)" silt "$s" "$N"
    rm -rf "${W:?}/$t"
  done
done
scan=$(for _ in 1 2 3; do silt_time "$W" "SELECT count(*) FROM base_dv WHERE id % 1000 = 0"; done | best)
emit "scan of the predicate column (count WHERE id % 1000 = 0)" silt "$scan" "$N"

# --- DuckDB: the same rows in a native table, the same statements on fresh copies ---
{
  echo "CREATE TABLE base AS SELECT range AS id, (range * 7919) % 1000003 AS k, CAST(range AS DOUBLE) * 0.5 AS v,
          concat('s', CAST(range % 1000 AS VARCHAR)) AS s FROM range($N);"
  echo "CREATE TABLE src AS SELECT range * 200 AS id, range AS k, CAST(range AS DOUBLE) * 1.5 AS v, 'merged' AS s FROM range($M);"
  echo "CHECKPOINT;"
  for op in "${ops[@]}"; do
    echo "CREATE TABLE x AS SELECT * FROM base;"
    echo "CHECKPOINT;"
    echo "-- time: $op"
    case $op in
      delete_0.1pct) echo "DELETE FROM x WHERE id % 1000 = 0;" ;;
      delete_10pct) echo "DELETE FROM x WHERE id % 10 = 0;" ;;
      merge_100k) echo "MERGE INTO x USING src ON x.id = src.id WHEN MATCHED THEN UPDATE SET k = src.k, v = src.v, s = src.s
                        WHEN NOT MATCHED THEN INSERT VALUES (src.id, src.k, src.v, src.s);" ;;
    esac
    echo "DROP TABLE x;"
  done
  for i in 1 2 3; do echo "-- time: scan$i"; echo "SELECT count(*) FROM base WHERE id % 1000 = 0;"; done
} | duck "$WORK/duck.db" >"$WORK/duck.txt"
for op in "${ops[@]}"; do
  s=$(awk -v n="$op" '$1 == n { print $2 }' "$WORK/duck.txt")
  emit "$op (deletion vectors)" duckdb "$s" "$N"
  emit "$op (copy-on-write)" duckdb "$s" "$N"
done
emit "scan of the predicate column (count WHERE id % 1000 = 0)" duckdb "$(awk '$1 ~ /^scan/ { print $2 }' "$WORK/duck.txt" | best)" "$N"

dv01=$(awk -F'\t' '$1 == "delete_0.1pct (deletion vectors)" && $2 == "silt" { print $3 }' "$WORK/results.tsv")
echo "# 0.1% DV delete / one predicate-column scan: $(awk -v a="$dv01" -v b="$scan" 'BEGIN { printf "%.2f", a / b }')"
record "DML on a $N-row table (bench/dml.sh $SCALE)" \
"Columns id BIGINT, k BIGINT, v DOUBLE, s STRING; target layout: $nfiles files of $FILE_ROWS rows ($nbytes bytes), one INSERT with spark.sql.files.maxRecordsPerFile = $FILE_ROWS; DELETEs hit every file (\`id % 1000 = 0\`, \`id % 10 = 0\`); MERGE of $M source rows (\`id * 200\`: half match, half insert) with UPDATE SET * / INSERT *. silt = its own statement time (\`silt sql --timing\`) on a fresh copy of the table; DuckDB = the same statement on a native table in a database file (one DuckDB number, shown against both silt variants). The 0.1% DV delete took $(awk -v a="$dv01" -v b="$scan" 'BEGIN { printf "%.2f", a / b }')× one scan of the predicate column (target: one scan plus writing the DVs). Reproduce: \`bash bench/dml.sh $SCALE\`."
