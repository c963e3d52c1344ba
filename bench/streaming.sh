#!/usr/bin/env bash
# Delta streaming catch-up (issue #25): a source table that received COMMITS appends of
# ROWS_PER_COMMIT rows each (default 1,000 commits / 10M rows), read by a stream that starts
# behind all of them, in rows per second:
#   commits-cli   `silt stream SRC SINK --option startingVersion=1` (Trigger.AvailableNow): every
#                 commit read as a commit (whole-commit admission, maxFilesPerTrigger 1000 →
#                 one batch per 1000 commits), appended to a Delta sink with its txn action;
#   snapshot-cli  the same stream without a start option: the snapshot's 1,000 files;
#   commits-sql   CREATE STREAMING TABLE … AS SELECT * FROM STREAM(src) WITH ('startingVersion'
#                 = '1', 'maxFilesPerTrigger' = '100'): the SQL path (each batch runs the
#                 defining query over the batch's rows in memory, hence the smaller batches).
# Each case runs BENCH_STREAM_RUNS times (default 2) on a fresh sink/checkpoint, alternating
# cases; the best wall time and its CPU (user+sys) are reported. No peer engine: Spark is not
# available on this machine, so the figures stand alone (rows/s and CPU seconds).
#
#   bash bench/streaming.sh [COMMITS] [ROWS_PER_COMMIT]     BENCH_RECORD=1 appends to RESULTS.md
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
COMMITS=${1:-1000}
PER=${2:-10000}
RUNS=${BENCH_STREAM_RUNS:-2}
THREADS=${BENCH_THREADS:-2}
. "$ROOT/bench/find_silt.sh"
WORK=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/silt-stream-bench-XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
LOAD_AT_START=$(cut -d' ' -f1 /proc/loadavg)
TOTAL=$((COMMITS * PER))

echo "# generating $COMMITS commits of $PER rows ($TOTAL rows) in $WORK/wh/src"
WH="$WORK/wh"
{
  echo "CREATE TABLE src (id BIGINT, grp INT, amount DOUBLE, note STRING) USING DELTA;"
  for ((i = 0; i < COMMITS; i++)); do
    a=$((i * PER))
    echo "INSERT INTO src SELECT id, CAST(id % 97 AS INT), id * 0.25, 'n' || (id % 1000) FROM range($a, $((a + PER)));"
  done
} >"$WORK/gen.sql"
gen_start=$(date +%s.%N)
"$SILT" sql --warehouse "$WH" --threads "$THREADS" -f "$WORK/gen.sql" >/dev/null
echo "# generated in $(echo "$(date +%s.%N) - $gen_start" | bc) s"
SRC="$WH/src"

RESULTS="$WORK/results.tsv"
: >"$RESULTS"
# run CASE RUN: one timed run, appends "case wall cpu rows" to $RESULTS.
run() {
  local case=$1 n=$2 out="$WORK/run-$1-$2" t
  rm -rf "$out"
  mkdir -p "$out"
  case $case in
    commits-cli)
      t=$( { /usr/bin/time -f '%e %U %S' "$SILT" stream "$SRC" "$out/sink" --checkpoint "$out/cp" \
        --option startingVersion=1 >"$out/log"; } 2>&1 | tail -1) ;;
    snapshot-cli)
      t=$( { /usr/bin/time -f '%e %U %S' "$SILT" stream "$SRC" "$out/sink" --checkpoint "$out/cp" \
        >"$out/log"; } 2>&1 | tail -1) ;;
    commits-sql)
      t=$( { /usr/bin/time -f '%e %U %S' "$SILT" sql --warehouse "$WH" --threads "$THREADS" -e \
        "CREATE STREAMING TABLE st_$n$RANDOM AS SELECT * FROM STREAM(src) WITH ('startingVersion' = '1', 'maxFilesPerTrigger' = '100')" \
        >"$out/log"; } 2>&1 | tail -1) ;;
  esac
  local wall user sys rows
  read -r wall user sys <<<"$t"
  if [ "$case" = commits-sql ]; then
    rows=$TOTAL
  else
    rows=$(sed -nE 's/.* ([0-9]+) rows$/\1/p' "$out/log" | tail -1)
  fi
  [ "$rows" = "$TOTAL" ] || { echo "bench: $case read $rows rows, expected $TOTAL" >&2; exit 1; }
  printf '%s\t%s\t%s\t%s\n' "$case" "$wall" "$(echo "$user + $sys" | bc)" "$rows" >>"$RESULTS"
  echo "case=$case run=$n wall=$wall cpu=$(echo "$user + $sys" | bc) rows=$rows load=$(cut -d' ' -f1 /proc/loadavg)"
  rm -rf "$out"
}
for ((r = 1; r <= RUNS; r++)); do
  for c in commits-cli snapshot-cli commits-sql; do run "$c" "$r"; done
done
# The SQL streaming tables must hold every row exactly once.
cnt=$("$SILT" sql --warehouse "$WH" --mode tabs -e "SHOW TABLES" | awk -F'\t' '$2 ~ /^st_/ {print $2}' | head -1)
if [ -n "$cnt" ]; then
  got=$("$SILT" sql --warehouse "$WH" --mode tabs -e "SELECT count(*), count(DISTINCT id) FROM $cnt" | tail -1)
  echo "# streaming table $cnt: $got (rows, distinct ids)"
  [ "$got" = "$TOTAL	$TOTAL" ] || { echo "bench: streaming table $cnt holds '$got', expected $TOTAL rows once" >&2; exit 1; }
fi

table=$(
  printf '| case | rows | best wall s | CPU s (user+sys) | rows/s (wall) | rows/s per CPU s |\n'
  printf '| --- | ---: | ---: | ---: | ---: | ---: |\n'
  sort -t$'\t' -k1,1 -k2,2g "$RESULTS" | awk -F'\t' '!seen[$1]++ {
    printf "| %s | %d | %.2f | %.2f | %.0f | %.0f |\n", $1, $4, $2, $3, $4 / $2, $4 / $3 }'
)
echo
echo "$table"
if [ "${BENCH_RECORD:-0}" = 1 ]; then
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  {
    printf '\n## %s — Delta streaming catch-up, %s commits / %s rows (bench/streaming.sh), silt %s, %s cores (load average %s at the start), threads %s\n\n' \
      "$(date -u '+%Y-%m-%d %H:%M UTC')" "$COMMITS" "$TOTAL" "$rev" "$(nproc)" "$LOAD_AT_START" "$THREADS"
    echo "$table"
    printf '\n%s\n' "${BENCH_NOTES:-}"
  } >>"$ROOT/bench/RESULTS.md"
  echo "# appended to bench/RESULTS.md"
else
  echo "# BENCH_RECORD=1 to append to bench/RESULTS.md"
fi
