#!/usr/bin/env bash
# Maintenance: Auto-TTL expiry over a warehouse of many tables, (a) by hand — the statements a
# user would issue through `silt sql`: DELETE FROM t WHERE ts <= <cutoff>, REORG TABLE t APPLY
# (PURGE), VACUUM t on every table — against (b) one `silt maintain --once` pass of the
# maintenance service over a copy of the same warehouse (when this silt has `silt maintain`;
# otherwise (b) is reported as skipped). Also times SHOW MAINTENANCE (the advisor) over every
# table, the figure docs/scale-out.md uses for what one process handles.
#
#   bash bench/maintenance.sh [SCALE]   100 tables, 10M × SCALE rows in total (default 1;
#                                       0.01 = 100k rows for a quick check)
#   BENCH_MAINT_TABLES=100 (default)  BENCH_THREADS=2  BENCH_RECORD=1 (append to bench/RESULTS.md)
#   BENCH_MAINT_REPEAT=2 (paired (a)/(b) runs, interleaved, each on a fresh copy)
#   SILT=path/to/silt
#
# Every table: id BIGINT, ts TIMESTAMP, v STRING, deletion vectors on, an Auto-TTL policy of 365
# days on ts (set as the autottl.* properties) and delta.deletedFileRetentionDuration = 0 hours,
# so that VACUUM reclaims in the same run with the retention check on in both (a) and (b). Rows
# are written in ts order, 10 files per table. Half of the tables (the even ones) have times spread
# over the last 400 days (~9% expired, the oldest files wholly), the other half over the last 300
# days (nothing expired). Bytes reclaimed = bytes of the files outside _delta_log/ before minus
# after. Both runs are checked: no expired row is left, the other rows all are.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
SCALE=${1:-${BENCH_SCALE:-1}}
TABLES=${BENCH_MAINT_TABLES:-100}
PER_TABLE=$(awk -v s="$SCALE" -v t="$TABLES" 'BEGIN { n = int(10000000 * s / t); if (n < 100) n = 100; print n }')
FILE_ROWS=$(( (PER_TABLE + 9) / 10 ))
W="$WORK/wh"
DAY=86400
NOW=$(date -u +%s)
CUTOFF_EPOCH=$((NOW - 365 * DAY))
CUTOFF="TIMESTAMP '$(date -u -d "@$CUTOFF_EPOCH" '+%Y-%m-%d %H:%M:%S')+00:00'"
echo "# maintenance: $TABLES tables × $PER_TABLE rows ($FILE_ROWS per file), TTL 365 days, cutoff $CUTOFF; threads $THREADS; work dir $WORK"

# --- generate ---
t0=$(date +%s.%N)
gen="SET spark.sql.files.maxRecordsPerFile = $FILE_ROWS;"
for i in $(seq 0 $((TABLES - 1))); do
  span=$([ $((i % 2)) = 0 ] && echo 400 || echo 300)
  # Row id → a time between NOW - span days (id 0) and NOW (the last id): ascending in id.
  gen+="CREATE TABLE t$i (id BIGINT, ts TIMESTAMP, v STRING) USING DELTA TBLPROPERTIES (
    'delta.enableDeletionVectors' = 'true', 'delta.deletedFileRetentionDuration' = 'interval 0 hours',
    'autottl.expireInDays' = '365', 'autottl.timestampColumn' = 'ts');
  INSERT INTO t$i SELECT id, timestamp_seconds($NOW - $span * $DAY + CAST(id * $span * $DAY / $PER_TABLE AS BIGINT)),
    concat('value-', CAST(id AS STRING)) FROM range($PER_TABLE);"
done
silt_sql "$W" "$gen"
echo "# generated in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
cp -r "$W" "$WORK/pristine"

# Bytes of the tables' data files: not the logs, the catalog, the history table (.silt_system) or
# the service's state and leases (_silt_maintenance).
data_bytes() {
  find "$1" -type f -not -path '*/_delta_log/*' -not -path '*/.silt_*' -not -path '*/_silt_maintenance/*' \
    -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'
}
# expected_rows: live rows per table after expiry, summed; and the expired rows before.
count_sql=""
for i in $(seq 0 $((TABLES - 1))); do count_sql+="SELECT count(*), count_if(ts <= $CUTOFF) FROM t$i UNION ALL "; done
count_sql="SELECT sum(c), sum(e) FROM (${count_sql% UNION ALL }) AS x(c, e)"
read -r ROWS_BEFORE EXPIRED_BEFORE <<<"$("$SILT" sql --warehouse "$W" --mode tabs -e "$count_sql")"
echo "# $ROWS_BEFORE rows, $EXPIRED_BEFORE expired; $(data_bytes "$W") bytes of data files"
check() { # WAREHOUSE LABEL
  local rows expired
  read -r rows expired <<<"$("$SILT" sql --warehouse "$1" --mode tabs -e "$count_sql")"
  [ "$expired" = 0 ] && [ "$rows" = $((ROWS_BEFORE - EXPIRED_BEFORE)) ] ||
    echo "# WARNING: $2 left $rows rows, $expired of them expired (expected $((ROWS_BEFORE - EXPIRED_BEFORE)), 0)" >&2
}

# The advisor over every table (the sum of the statements' own times).
show=""
for i in $(seq 0 $((TABLES - 1))); do show+="SHOW MAINTENANCE t$i;"; done
sum_times() { sed -nE 's/^Time taken: ([0-9.]+) seconds.*/\1/p' | awk '{ s += $1 } END { printf "%.3f", s }'; }
adv=$("$SILT" sql --warehouse "$W" --threads "$THREADS" --mode tabs --timing -e "$show" 2>&1 >/dev/null | sum_times)
tw=$(date +%s.%N)
due=$("$SILT" sql --warehouse "$W" --threads "$THREADS" --mode tabs -e "$show" | awk -F'\t' '$1 == "DELETE" && $2 == "true"' | wc -l)
adv_wall=$(awk -v a="$tw" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
echo "# SHOW MAINTENANCE over $TABLES tables: statements $adv s, process $adv_wall s; DELETE due on $due tables"

RESULTS="$WORK/maint.tsv"
: >"$RESULTS"
row() { printf '%s\t%s\t%s\t%s\n' "$@" >>"$RESULTS"; echo "bench=$1 seconds=$2 reclaimed=$3 $4"; }
row "SHOW MAINTENANCE, every table (advisor), one silt sql process" "$adv_wall" "-" "statements ${adv} s; DELETE due on $due tables"

# --- (a) by hand and (b) the service, interleaved: REPEAT pairs, each run on a fresh copy of the
# pristine warehouse, so that the load of other processes hits both alike ---
REPEAT=${BENCH_MAINT_REPEAT:-2}
hand=""
for i in $(seq 0 $((TABLES - 1))); do
  hand+="DELETE FROM t$i WHERE ts <= $CUTOFF; REORG TABLE t$i APPLY (PURGE); VACUUM t$i;"
done
have_maintain=0
"$SILT" maintain --help >/dev/null 2>&1 && have_maintain=1
# copy_wh DIR: a fresh copy of the pristine warehouse whose catalog points at its own tables (the
# catalog stores absolute locations: a plain copy would still maintain the tables of $W).
copy_wh() {
  rm -rf "$1"; cp -r "$WORK/pristine" "$1"
  find "$1/.silt_catalog" -name '*.json' -exec sed -i "s#\"location\":\"$W/#\"location\":\"$1/#" {} +
}
run_a() { # -> "wall statements reclaimed"
  local d="$WORK/wh_hand" before ta stmt wall
  copy_wh "$d"
  before=$(data_bytes "$d"); sync
  ta=$(date +%s.%N)
  stmt=$("$SILT" sql --warehouse "$d" --threads "$THREADS" --mode tabs --timing -e "$hand" 2>&1 >/dev/null | sum_times)
  wall=$(awk -v a="$ta" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  check "$d" "by hand"
  echo "$wall $stmt $((before - $(data_bytes "$d")))"
}
run_b() { # -> "wall reclaimed"
  local d="$WORK/wh_service" before tb wall
  copy_wh "$d"
  before=$(data_bytes "$d"); sync
  tb=$(date +%s.%N)
  # The same work as (a): the Auto-TTL cycle only (--no-routine), on as many threads. With a zero
  # retention a VACUUM is due 1 ms after the PURGE it follows (it deletes files removed strictly
  # before now); the service runs the ones that became due during the pass at its end, so one
  # pass should do. Passes still run (all timed, counted in the notes) until no table is left
  # waiting for VACUUM: a VACUUM due after the pass's very last step waits for the next tick.
  local pass
  for pass in 1 2 3; do
    "$SILT" maintain --once --no-routine --threads "$THREADS" --warehouse "$d" >"$WORK/maintain.log" 2>&1 ||
      echo "# WARNING: silt maintain failed: $(tail -3 "$WORK/maintain.log")" >&2
    grep -qs '"phase":"VACUUM_DUE"' "$d"/*/_silt_maintenance/state.json || break
  done
  echo "$pass" >"$WORK/passes"
  wall=$(awk -v a="$tb" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }')
  check "$d" "silt maintain"
  echo "$wall $((before - $(data_bytes "$d")))"
}
sum_a=0; sum_b=0
for r in $(seq 1 "$REPEAT"); do
  # Alternate which goes first.
  if [ $((r % 2)) = 1 ] || [ "$have_maintain" = 0 ]; then
    read -r wall_a stmt_a rec_a <<<"$(run_a)"
    [ "$have_maintain" = 1 ] && read -r wall_b rec_b <<<"$(run_b)"
  else
    read -r wall_b rec_b <<<"$(run_b)"
    read -r wall_a stmt_a rec_a <<<"$(run_a)"
  fi
  row "(a) by hand: DELETE + REORG PURGE + VACUUM on $TABLES tables, one silt sql process (run $r)" "$wall_a" "$rec_a" "statements ${stmt_a} s"
  sum_a=$(awk -v s="$sum_a" -v x="$wall_a" 'BEGIN { print s + x }')
  if [ "$have_maintain" = 1 ]; then
    ratio=$(awk -v a="$wall_a" -v b="$wall_b" 'BEGIN { printf "%.2f", b / a }')
    row "(b) silt maintain --once --no-routine --threads $THREADS (run $r)" "$wall_b" "$rec_b" "(b)/(a) = $ratio; $(cat "$WORK/passes") pass(es)"
    sum_b=$(awk -v s="$sum_b" -v x="$wall_b" 'BEGIN { print s + x }')
  fi
done
if [ "$have_maintain" = 1 ]; then
  overhead=$(awk -v a="$sum_a" -v b="$sum_b" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }')
  row "service overhead over by hand, $REPEAT paired runs" "-" "-" "sum (b) / sum (a) - 1 = $overhead (target <= +10%)"
else
  row "(b) silt maintain --once over the warehouse" "-" "-" "skipped: this silt has no 'maintain' command"
fi

table=$(printf '| bench | seconds | bytes reclaimed | notes |\n| --- | ---: | ---: | --- |\n'; awk -F'\t' '{ printf "| %s | %s | %s | %s |\n", $1, $2, $3, $4 }' "$RESULTS")
echo
echo "$table"
if [ "${BENCH_RECORD:-0}" = 1 ]; then
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  {
    printf '\n## %s — maintenance pass (bench/maintenance.sh %s), silt %s, %s cores (load average %s at the start), threads %s\n\n' \
      "$(date -u '+%Y-%m-%d %H:%M UTC')" "$SCALE" "$rev" "$(nproc)" "$LOAD_AT_START" "$THREADS"
    echo "$table"
    printf '\n%s tables × %s rows (%s rows, %s expired), TTL 365 days, deletion vectors on, retention 0 hours. Seconds are wall time of the whole silt process (start-up included) for (a) and (b); the notes give the sum of the times silt reports per statement (--timing). The service should add at most 10%% over (a).\nReproduce: `bash bench/maintenance.sh %s`.\n' \
      "$TABLES" "$PER_TABLE" "$ROWS_BEFORE" "$EXPIRED_BEFORE" "$SCALE"
  } >>"$BENCH/RESULTS.md"
  echo "# appended to bench/RESULTS.md"
else
  echo "# BENCH_RECORD=1 to append to bench/RESULTS.md"
fi
