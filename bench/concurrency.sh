#!/usr/bin/env bash
# Row-level concurrency: the maintenance service's Auto-TTL DELETE racing 4 user writers that
# UPDATE / DELETE other rows of the same files of a clustered table, with row-level concurrency
# on (deletion vectors + row tracking, the default) and off (table property
# silt.rowLevelConcurrency.enabled = false). Counts, per mode over all rounds: user statements
# committed, user commit conflicts (each conflict is retried by the writer until it commits, at
# most 20 times), the TTL DELETE's outcome and retries (the service retries a conflict up to
# silt.maintenance.maxRetries = 3 times, then records FAILED), and the PURGE that follows it.
#
#   bash bench/concurrency.sh [ROWS]     table rows (default 2000000), 8 files written in id order
#                                        (CLUSTER BY (id), so the files' id ranges do not overlap)
#   BENCH_RLC_ROUNDS=3 (rounds per mode, interleaved on/off)   BENCH_RLC_STATEMENTS=12 (at least, per writer)
#   BENCH_THREADS=2  BENCH_RECORD=1 (append the table to bench/RESULTS.md)  SILT=path/to/silt
#
# Table: id BIGINT, ts TIMESTAMP, v STRING; every tenth id (id % 10 = 0) is 400 days old, so
# expired under the 365-day Auto-TTL policy, the rest is recent: every file holds expired rows.
# Writer u (0..3) works on ids of its own quarter of the table, never on expired rows
# (id % 10 <> 0): UPDATE ... SET v = ... / DELETE ... on 50 consecutive ids per statement, one
# `silt sql` process per statement. Each round starts from a copy of the same table; the writers
# start, `silt maintain --once --no-routine TABLE` starts 0.5 s later, and the writers go on
# until it is over (and for at least BENCH_RLC_STATEMENTS statements each).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
THREADS=${BENCH_THREADS:-2}
. "$ROOT/bench/find_silt.sh"
ROWS=${1:-${BENCH_RLC_ROWS:-2000000}}
ROUNDS=${BENCH_RLC_ROUNDS:-3}
STMTS=${BENCH_RLC_STATEMENTS:-12}
WORK=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/silt-rlc-XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
DAY=86400
NOW=$(date -u +%s)
FILE_ROWS=$(( (ROWS + 7) / 8 ))
echo "# concurrency: $ROWS rows, $FILE_ROWS per file, 4 writers × $STMTS statements, $ROUNDS rounds per mode; load $(cut -d' ' -f1-3 /proc/loadavg)"

sql() { "$SILT" sql --warehouse "$1" --threads "$THREADS" --mode tabs -e "$2"; }

# --- the table (both modes from the same data; the mode is a table property) ---
for mode in on off; do
  T="$WORK/pristine_$mode"
  sql "$WORK/wh_gen" "SET spark.sql.files.maxRecordsPerFile = $FILE_ROWS;
    CREATE TABLE delta.\`$T\` (id BIGINT, ts TIMESTAMP, v STRING) USING DELTA CLUSTER BY (id)
    TBLPROPERTIES ('delta.enableDeletionVectors' = 'true', 'delta.enableRowTracking' = 'true',
      'autottl.expireInDays' = '365', 'autottl.timestampColumn' = 'ts',
      'silt.rowLevelConcurrency.enabled' = '$([ $mode = on ] && echo true || echo false)');
    INSERT INTO delta.\`$T\` SELECT id,
      timestamp_seconds(CASE WHEN id % 10 = 0 THEN $NOW - 400 * $DAY ELSE $NOW - (id % 300) * $DAY END),
      concat('value-', CAST(id AS STRING)) FROM range($ROWS)" >/dev/null
done
echo "# generated: $(find "$WORK/pristine_on" -name '*.parquet' | wc -l) data files"

# writer MODE_DIR U -> prints "committed conflicts failed"
writer() {
  local t=$1 u=$2 wh="$WORK/wh_u$2" i committed=0 conflicts=0 failed=0 lo stmt out tries
  local quarter=$((ROWS / 4))
  i=0
  # At least STMTS statements, and on until the maintenance pass is over (the stop file).
  while [ $i -lt "$STMTS" ] || [ ! -e "$WORK/stop" ]; do
    i=$((i + 1))
    lo=$((u * quarter + (i * 7919 * 50) % (quarter - 100)))
    if [ $((i % 2)) = 0 ]; then
      stmt="UPDATE delta.\`$t\` SET v = concat('u$u-', CAST(id AS STRING)) WHERE id BETWEEN $lo AND $((lo + 49)) AND id % 10 <> 0"
    else
      stmt="DELETE FROM delta.\`$t\` WHERE id BETWEEN $lo AND $((lo + 49)) AND id % 10 <> 0"
    fi
    tries=0
    while :; do
      if out=$(sql "$wh" "$stmt" 2>&1 >/dev/null); then committed=$((committed + 1)); break; fi
      if grep -q 'DELTA_CONCURRENT' <<<"$out" && [ $tries -lt 20 ]; then
        conflicts=$((conflicts + 1)); tries=$((tries + 1)); continue
      fi
      grep -q 'DELTA_CONCURRENT' <<<"$out" && conflicts=$((conflicts + 1))
      failed=$((failed + 1)); echo "# writer $u: $out" >&2; break
    done
  done
  echo "$committed $conflicts $failed"
}

declare -A C=() K=() F=() TTL_OK=() TTL_RETRIES=() TTL_FAILED=() PURGE_RETRIES=() PURGE_FAILED=() CPU=()
for mode in on off; do
  C[$mode]=0; K[$mode]=0; F[$mode]=0; TTL_OK[$mode]=0; TTL_RETRIES[$mode]=0; TTL_FAILED[$mode]=0
  PURGE_RETRIES[$mode]=0; PURGE_FAILED[$mode]=0; CPU[$mode]=0
done
for r in $(seq 1 "$ROUNDS"); do
  for mode in $([ $((r % 2)) = 1 ] && echo "on off" || echo "off on"); do
    T="$WORK/r${r}_$mode"
    rm -rf "$T"; cp -r "$WORK/pristine_$mode" "$T"; rm -f "$WORK/stop"
    t0=$(date +%s.%N)
    for u in 0 1 2 3; do writer "$T" "$u" >"$WORK/w$u.out" & done
    sleep 0.5
    /usr/bin/time -f '%U %S' -o "$WORK/maint.time" \
      "$SILT" maintain --once --no-routine --threads "$THREADS" --warehouse "$WORK/wh_m" "$T" \
      >"$WORK/maint.log" 2>&1 || true
    touch "$WORK/stop"
    wait
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    for u in 0 1 2 3; do
      read -r c k f <"$WORK/w$u.out"
      C[$mode]=$((C[$mode] + c)); K[$mode]=$((K[$mode] + k)); F[$mode]=$((F[$mode] + f))
    done
    del=$(grep -E ' DELETE (SUCCESSFUL|FAILED)' "$WORK/maint.log" | tail -1 || true)
    pur=$(grep -E ' PURGE (SUCCESSFUL|FAILED)' "$WORK/maint.log" | tail -1 || true)
    dret=$(sed -nE 's/.* retries=([0-9]+).*/\1/p' <<<"$del"); dret=${dret:-0}
    pret=$(sed -nE 's/.* retries=([0-9]+).*/\1/p' <<<"$pur"); pret=${pret:-0}
    TTL_RETRIES[$mode]=$((TTL_RETRIES[$mode] + dret)); PURGE_RETRIES[$mode]=$((PURGE_RETRIES[$mode] + pret))
    grep -q ' DELETE SUCCESSFUL' <<<"$del" && TTL_OK[$mode]=$((TTL_OK[$mode] + 1))
    grep -q ' DELETE FAILED' <<<"$del" && TTL_FAILED[$mode]=$((TTL_FAILED[$mode] + 1))
    grep -q ' PURGE FAILED' <<<"$pur" && PURGE_FAILED[$mode]=$((PURGE_FAILED[$mode] + 1))
    CPU[$mode]=$(awk -v a="${CPU[$mode]}" -v t="$(cat "$WORK/maint.time" | tail -1)" 'BEGIN { split(t, x, " "); printf "%.2f", a + x[1] + x[2] }')
    [ -n "$del" ] || echo "# round $r $mode: no TTL DELETE line: $(tail -3 "$WORK/maint.log")" >&2
    # No expired row may be left after a successful DELETE; user rows changed as asked.
    left=$(sql "$WORK/wh_gen" "SELECT count(*) FROM delta.\`$T\` WHERE id % 10 = 0" | tail -1)
    echo "# round $r, row-level concurrency $mode: ${wall}s; TTL DELETE: ${del:-none}; expired rows left $left"
  done
done

table=$(
  printf '| row-level concurrency | user commits | user conflicts (retried) | user gave up | TTL DELETE ok/failed | TTL DELETE retries | PURGE retries / failed | maintain CPU s |\n'
  printf '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n'
  for mode in on off; do
    printf '| %s | %d | %d | %d | %d/%d | %d | %d / %d | %s |\n' "$mode" "${C[$mode]}" "${K[$mode]}" "${F[$mode]}" \
      "${TTL_OK[$mode]}" "${TTL_FAILED[$mode]}" "${TTL_RETRIES[$mode]}" "${PURGE_RETRIES[$mode]}" "${PURGE_FAILED[$mode]}" "${CPU[$mode]}"
  done
)
echo "$table"
if [ -n "${BENCH_RECORD:-}" ]; then
  {
    echo
    echo "## Row-level concurrency: Auto-TTL DELETE racing 4 writers ($(date -u +%Y-%m-%d), load $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "bench/concurrency.sh $ROWS: $ROUNDS rounds per mode, 4 writers × $STMTS UPDATE/DELETE statements on their own ids, \`silt maintain --once --no-routine\` started 0.5 s after them."
    echo
    echo "$table"
  } >>"$ROOT/bench/RESULTS.md"
fi
