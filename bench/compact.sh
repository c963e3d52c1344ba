#!/usr/bin/env bash
# OPTIMIZE of many small files and REORG TABLE … APPLY (PURGE) of a 10M-row table with 10% of its
# rows deleted through deletion vectors, vs DuckDB writing the same data with
# COPY (SELECT …) TO 'x.parquet' in the same run.
#
#   bash bench/compact.sh [SCALE]   OPTIMIZE input: 10k × SCALE files of 1000 rows of ~90 bytes
#                                   (≈ 0.9 GB at SCALE 1, the issue's 10k small files ≈ 1 GB;
#                                   default 0.1 = 1k files); the REORG table has 10M × SCALE
#                                   rows (at least 1M) in files of 1M rows
#   BENCH_THREADS=2 (default) BENCH_RECORD=1 (append to bench/RESULTS.md) SILT=path/to/silt
#   BENCH_REORG_REPEAT=3 (default): REORG runs on that many fresh copies of the table (and
#   DuckDB's COPY as often); the best time of each is kept
# Every timed step starts after `sync`: the writeback of the previous step's output (0.9 GB after
# OPTIMIZE) would otherwise land in the next one's time.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SCALE=${1:-${BENCH_SCALE:-0.1}}
FILES=$(awk -v s="$SCALE" 'BEGIN { n = int(10000 * s); if (n < 10) n = 10; print n }')
PER_FILE=${BENCH_SMALL_FILE_ROWS:-1000}
BIG_FILE_ROWS=1000000
SMALL_ROWS=$((FILES * PER_FILE))
N=$(awk -v s="$SCALE" 'BEGIN { n = int(10000000 * s); if (n < 1000000) n = 1000000; print n }')
W="$WORK/wh"
echo "# compact: OPTIMIZE of $FILES files × $PER_FILE rows; REORG PURGE of $N rows; threads $THREADS; work dir $WORK"

cols="id BIGINT, k BIGINT, v DOUBLE, s STRING"
gen() { echo "SELECT id, (id * 7919) % 1000003, CAST(id AS DOUBLE) * 0.5, concat('s', CAST(id % 1000 AS STRING)) FROM range($1)"; }
# The small files carry a fifth, incompressible column h (72 hex characters: md5 || sha1 of the
# id), so that 1000-row files are ~90 KB and 10k of them ~0.9 GB.
t0=$(date +%s.%N)
silt_sql "$W" "CREATE TABLE small ($cols, h STRING) USING DELTA;
  SET spark.sql.files.maxRecordsPerFile = $PER_FILE;
  INSERT INTO small SELECT id, (id * 7919) % 1000003, CAST(id AS DOUBLE) * 0.5, concat('s', CAST(id % 1000 AS STRING)),
    concat(md5(CAST(id AS STRING)), sha1(CAST(id AS STRING))) FROM range($SMALL_ROWS);
  SET spark.sql.files.maxRecordsPerFile = $BIG_FILE_ROWS;
  CREATE TABLE purge ($cols) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true');
  INSERT INTO purge $(gen "$N");
  DELETE FROM purge WHERE id % 10 = 0"
before=$("$SILT" inspect small --warehouse "$W" --json | sed -nE 's/.*"totals":\{"files":([0-9]+),"bytes":([0-9]+).*/\1 \2/p')
read -r nfiles nbytes <<<"$before"
echo "# generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s; small: $nfiles files, $nbytes bytes; purge: $("$SILT" inspect purge --warehouse "$W" --json | sed -nE 's/.*"totals":\{"files":([0-9]+),"bytes":([0-9]+).*/\1 files, \2 bytes/p')"
[ "$nfiles" -ge "$FILES" ] || echo "# WARNING: expected $FILES small files, got $nfiles" >&2
# DuckDB reads the same Parquet files (all live: the table was only appended to).
cp -r "$W/small" "$WORK/small_parquet"
rm -rf "$WORK/small_parquet/_delta_log"
# The REORG input, kept pristine: each round runs on a fresh copy.
cp -r "$W/purge" "$WORK/purge_orig"
ROUNDS=${BENCH_REORG_REPEAT:-3}

sync
s=$(silt_time "$W" "OPTIMIZE small")
after=$("$SILT" inspect small --warehouse "$W" --json | sed -nE 's/.*"totals":\{"files":([0-9]+),"bytes":([0-9]+),"rows":([0-9]+).*/\1 files, \2 bytes, \3 rows/p')
echo "# after OPTIMIZE: $after"
emit "OPTIMIZE $nfiles small files ($((nbytes / 1000000)) MB)" silt "$s" "$SMALL_ROWS"
times=()
for _ in $(seq "$ROUNDS"); do
  rm -rf "$W/purge" && cp -r "$WORK/purge_orig" "$W/purge" && sync
  times+=("$(silt_time "$W" "REORG TABLE purge APPLY (PURGE)")")
  got=$("$SILT" sql --warehouse "$W" --mode tabs -e "SELECT count(*) FROM purge")
  [ "$got" = "$((N - (N + 9) / 10))" ] || echo "# WARNING: REORG left $got rows" >&2
done
echo "# REORG rounds: ${times[*]}"
emit "REORG PURGE, 10% deleted rows" silt "$(printf '%s\n' "${times[@]}" | best)" "$N"

echo "CREATE TABLE base AS SELECT range AS id, (range * 7919) % 1000003 AS k, CAST(range AS DOUBLE) * 0.5 AS v,
        concat('s', CAST(range % 1000 AS VARCHAR)) AS s FROM range($N); CHECKPOINT;" | duck "$WORK/duck.db" >/dev/null
sync
{
  echo "-- time: optimize"
  echo "COPY (SELECT * FROM read_parquet('$WORK/small_parquet/*.parquet')) TO '$WORK/optimized.parquet' (FORMAT parquet);"
} | duck "$WORK/duck.db" >"$WORK/duck.txt"
for _ in $(seq "$ROUNDS"); do
  rm -f "$WORK/purged.parquet" && sync
  { echo "-- time: purge"; echo "COPY (SELECT * FROM base WHERE id % 10 <> 0) TO '$WORK/purged.parquet' (FORMAT parquet);"; } |
    duck "$WORK/duck.db" >>"$WORK/duck.txt"
done
echo "# DuckDB REORG rounds: $(awk '$1 == "purge" { printf "%s ", $2 }' "$WORK/duck.txt")"
emit "OPTIMIZE $nfiles small files ($((nbytes / 1000000)) MB)" duckdb "$(awk '$1 == "optimize" { print $2 }' "$WORK/duck.txt")" "$SMALL_ROWS"
emit "REORG PURGE, 10% deleted rows" duckdb "$(awk '$1 == "purge" { print $2 }' "$WORK/duck.txt" | best)" "$N"

record "OPTIMIZE and REORG PURGE (bench/compact.sh $SCALE)" \
"OPTIMIZE: $nfiles files of $PER_FILE rows (columns id BIGINT, k BIGINT, v DOUBLE, s STRING, h STRING of 72 hex characters; $nbytes bytes) written by one INSERT with spark.sql.files.maxRecordsPerFile = $PER_FILE, compacted by \`OPTIMIZE\` (default 1 GiB target); DuckDB = \`COPY (SELECT * FROM read_parquet('<the same files>/*.parquet')) TO 'x.parquet'\`. REORG: $N rows (the first four columns) in files of $BIG_FILE_ROWS rows, \`REORG TABLE … APPLY (PURGE)\` after \`DELETE … WHERE id % 10 = 0\` on a DV table; DuckDB = \`COPY (SELECT * FROM native_table WHERE id % 10 <> 0) TO 'x.parquet'\`. OPTIMIZE runs once; REORG the best of $ROUNDS rounds (silt on fresh copies of the table; times: ${times[*]}; DuckDB: $(awk '$1 == "purge" { printf "%s ", $2 }' "$WORK/duck.txt")); \`sync\` before every timed step; silt's own statement time. Reproduce: \`bash bench/compact.sh $SCALE\`."
