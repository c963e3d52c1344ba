#!/usr/bin/env bash
# Liquid clustering for dynamic file pruning (issue 23; seed 002: "use liquid clustering on the
# columns you join on"): the star schema of bench/dfp.sh, but the fact table's rows arrive in no
# particular date order (date_key = a scramble of the row id), so every file holds every date and
# DFP prunes nothing. The same rows go into `sales` (unclustered) and `sales_c` (CLUSTER BY
# (date_key), then OPTIMIZE), and the selective star queries run on both with DFP on.
#
#   bash bench/clustering.sh [ROWS]   fact rows (default 10M) in BENCH_FILES (default 200) files
#   BENCH_THREADS=2 BENCH_RUNS=3 (best of) SILT=path/to/silt BENCH_KEEP=1 (keep the work dir)
#
# Per query and table: the fact-table files read (EXPLAIN ANALYZE's numFilesRead of the DeltaScan),
# the best-of-RUNS time (silt's own "Time taken"; runs alternate between the two tables), and the
# result, which must be equal on both tables. Also the OPTIMIZE's time and files.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${BENCH_THREADS:-2}
RUNS=${BENCH_RUNS:-3}
N=${1:-10000000}
FILES=${BENCH_FILES:-200}
DAYS=1000
SILT=${SILT:-$ROOT/build/release/silt}
[ -x "$SILT" ] || { echo "bench: no silt binary at $SILT (build first, or set SILT=)" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-bench-clust-XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
W="$WORK/wh"
FILE_ROWS=$(((N + FILES - 1) / FILES))
sql() { "$SILT" sql --warehouse "$W" --threads "$THREADS" --mode tabs -e "$1"; }
timed() { # prints silt's "Time taken" of the last statement
  "$SILT" sql --warehouse "$W" --threads "$THREADS" --mode tabs --timing -e "$1" 2>&1 >/dev/null |
    sed -nE 's/^Time taken: ([0-9.]+) seconds.*/\1/p' | tail -1
}
echo "# clustering: sales $N rows in $FILES files, $DAYS days scrambled; threads $THREADS, best of $RUNS; load $(cut -d' ' -f1-3 /proc/loadavg)"

# date_key = (id * 7919) mod DAYS: consecutive rows hop across the whole date range.
sql "
  CREATE TABLE date_dim (d_date_key INT, d_date DATE, d_year INT, d_month INT, d_holiday BOOLEAN) USING DELTA;
  INSERT INTO date_dim SELECT CAST(id AS INT), date_add(DATE'2022-01-01', CAST(id AS INT)),
    year(date_add(DATE'2022-01-01', CAST(id AS INT))), month(date_add(DATE'2022-01-01', CAST(id AS INT))),
    id % 100 = 37 FROM range($DAYS);
  CREATE TABLE store (s_store_key INT, s_state STRING) USING DELTA;
  INSERT INTO store SELECT CAST(id AS INT), concat('ST', lpad(CAST(id % 20 AS STRING), 2, '0')) FROM range(200);
  CREATE TABLE sales (sale_id BIGINT, date_key INT, store_key INT, quantity INT, amount DECIMAL(9,2)) USING DELTA;
  SET spark.sql.files.maxRecordsPerFile = $FILE_ROWS;
  INSERT INTO sales SELECT id, CAST((id * 7919) % $DAYS AS INT), CAST((id * 13) % 200 AS INT),
    CAST(id % 10 + 1 AS INT), CAST(((id * 37) % 100000) / 100.0 AS DECIMAL(9,2)) FROM range($N);
  CREATE TABLE sales_c (sale_id BIGINT, date_key INT, store_key INT, quantity INT, amount DECIMAL(9,2))
    USING DELTA CLUSTER BY (date_key);
  SET spark.sql.files.maxRecordsPerFile = $FILE_ROWS;
  INSERT INTO sales_c SELECT * FROM sales" >/dev/null
# OPTIMIZE writes files of about the unclustered files' size (maxFileSize = table bytes / FILES).
bytes=$(sql "DESCRIBE DETAIL sales_c" | awk -F'\t' '{ print $11 }')
target=$((bytes / FILES + 1))
t_opt=$( { /usr/bin/time -f '%U+%S' "$SILT" sql --warehouse "$W" --threads "$THREADS" --mode tabs --timing \
  -e "SET spark.databricks.delta.optimize.maxFileSize = $target; OPTIMIZE sales_c" 2>&1 >/dev/null; } |
  awk '/^Time taken/ { t = $3 } /^[0-9.]+\+[0-9.]+$/ { split($0, a, "+"); c = a[1] + a[2] } END { printf "%s s (cpu %.1f s)", t, c }')
nf=$(sql "DESCRIBE DETAIL sales" | awk -F'\t' '{ print $10 }')
nfc=$(sql "DESCRIBE DETAIL sales_c" | awk -F'\t' '{ print $10 }')
echo "# sales: $nf files; sales_c after OPTIMIZE: $nfc files; OPTIMIZE $t_opt"

ON="SET spark.databricks.optimizer.dynamicFilePruning = true; SET spark.databricks.optimizer.deltaTableSizeThreshold = 0"
queries=(one_day two_dims month semi_join)
declare -A q
q[one_day]="SELECT count(*), sum(quantity), sum(amount) FROM @T@ JOIN date_dim ON date_key = d_date_key
  WHERE d_date = DATE'2023-06-15'"
q[two_dims]="SELECT s_state, d_date, count(*), sum(quantity), sum(amount) FROM @T@
  JOIN date_dim ON date_key = d_date_key JOIN store ON store_key = s_store_key
  WHERE d_date BETWEEN DATE'2023-03-01' AND DATE'2023-03-07' AND s_state = 'ST05' GROUP BY s_state, d_date ORDER BY d_date"
q[month]="SELECT d_month, count(*), sum(quantity), sum(amount) FROM @T@ JOIN date_dim ON date_key = d_date_key
  WHERE d_year = 2024 AND d_month = 2 GROUP BY d_month"
q[semi_join]="SELECT count(*), sum(quantity), sum(amount) FROM @T@
  WHERE date_key IN (SELECT d_date_key FROM date_dim WHERE d_holiday)"

printf '| query | files read: unclustered | clustered | time s: unclustered | clustered | speed-up |\n'
printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
for name in "${queries[@]}"; do
  declare -A files=() res=() best=()
  for t in sales sales_c; do
    s=${q[$name]//@T@/$t}
    files[$t]=$(sql "$ON; EXPLAIN ANALYZE $s" | grep -oE "DeltaScan default\.$t [^ ]*.*numFilesRead=[0-9]+" |
      sed -nE 's/.*numFilesRead=([0-9]+).*/\1/p' | head -1)
    res[$t]=$(sql "$ON; $s" | md5sum | cut -c1-12)
    best[$t]=999999
  done
  [ "${res[sales]}" = "${res[sales_c]}" ] || { echo "bench: $name differs between the tables" >&2; exit 1; }
  for ((r = 0; r < RUNS; r++)); do
    for t in sales sales_c; do
      s=${q[$name]//@T@/$t}
      v=$(timed "$ON; $s")
      best[$t]=$(awk -v a="${best[$t]}" -v b="$v" 'BEGIN { print (b < a ? b : a) }')
    done
  done
  printf '| %s | %s | %s | %s | %s | %.1fx |\n' "$name" "${files[sales]}" "${files[sales_c]}" \
    "${best[sales]}" "${best[sales_c]}" "$(awk -v a="${best[sales]}" -v b="${best[sales_c]}" 'BEGIN { print (b > 0 ? a / b : 0) }')"
  unset files res best
done
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
