#!/usr/bin/env bash
# VACUUM FULL, LITE and DRY RUN over tables of 100k and 1M data files (bench/vacuum_gen.cc), vs
# the limit: `find DIR -type f` (a listing of the whole table) plus `rm` of exactly the files
# VACUUM deletes, measured in the same run on a copy of the same table.
#
#   bash bench/vacuum.sh [FILES ...]   default: 100000 1000000
#   BENCH_RECORD=1 (append to bench/RESULTS.md) SILT=path/to/silt VACUUM_GEN=path/to/vacuum_gen
#   BENCH_TMP=dir (work directory parent; needs ~3 copies of the table's inodes) BENCH_KEEP=1
#
# Per scale N: N tracked files in partition directories of 1000, 10% of them removed by a commit
# with an old deletionTimestamp, N/100 untracked files, a checkpoint. Cases, each on a fresh copy:
#   limit      find of the table + xargs rm of the DRY RUN's list
#   dry run    VACUUM … RETAIN 0 HOURS DRY RUN (lists the same N/10 + N/100 files)
#   full       VACUUM … FULL RETAIN 0 HOURS (retention check off); the surviving file set must equal
#              the limit's
#   lite/full  after that FULL run, 100 more files removed by one commit: VACUUM LITE vs VACUUM FULL
#              on copies of that state (both must delete exactly those 100 files); best of
#              BENCH_LITE_REPEAT rounds (default 3 up to 100k files, 1 above)
# Times: silt's own statement time (`silt sql --timing`), limit: wall time of find + rm. Peak RSS:
# /usr/bin/time -v of the silt process.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH="$ROOT/bench"
THREADS=${BENCH_THREADS:-2}
pick() { for c in "$@"; do if [ -x "$c" ]; then echo "$c"; return; fi; done; }
SILT=${SILT:-$(pick "$ROOT/build/bench/silt" "$ROOT/build/release/silt")}
GEN=${VACUUM_GEN:-$(pick "$ROOT/build/bench/vacuum_gen")}
[ -n "$SILT" ] || { echo "bench: no silt binary (build first, or set SILT=)" >&2; exit 2; }
[ -n "$GEN" ] || { echo "bench: no vacuum_gen (ninja -C build/bench vacuum_gen, or set VACUUM_GEN=)" >&2; exit 2; }
TIMEV=""
[ -x /usr/bin/time ] && TIMEV=/usr/bin/time
SCALES=("$@")
[ ${#SCALES[@]} -gt 0 ] || SCALES=(100000 1000000)
LITE_FILES=${BENCH_LITE_FILES:-100}
LOAD_AT_START=$(cut -d' ' -f1 /proc/loadavg)
WORK=$(mktemp -d "${BENCH_TMP:-${TMPDIR:-/tmp}}/silt-vacbench-XXXXXX")
[ -n "${BENCH_KEEP:-}" ] || trap 'rm -rf "$WORK"' EXIT
ROWS="$WORK/rows.tsv"
: >"$ROWS"
echo "# vacuum: scales ${SCALES[*]}; silt $SILT; threads $THREADS; work dir $WORK"

now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
# vac TABLE_DIR CLAUSES: runs one VACUUM; sets VAC_S (statement seconds), VAC_RSS (MB), VAC_OUT.
vac() {
  local out="$WORK/vac.out" tv="$WORK/vac.time"
  local cmd=("$SILT" sql --warehouse "$WORK/wh" --threads "$THREADS" --mode csv --timing
    --conf spark.databricks.delta.retentionDurationCheck.enabled=false
    -e "VACUUM delta.\`$1\` $2")
  if [ -n "$TIMEV" ]; then
    "$TIMEV" -v -o "$tv" "${cmd[@]}" >"$out" 2>"$WORK/vac.err" || { cat "$WORK/vac.err" >&2; exit 1; }
    VAC_RSS=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tv")
  else
    "${cmd[@]}" >"$out" 2>"$WORK/vac.err" || { cat "$WORK/vac.err" >&2; exit 1; }
    VAC_RSS="-"
  fi
  VAC_S=$(sed -nE 's/^Time taken: ([0-9.]+) seconds.*/\1/p' "$WORK/vac.err" | tail -1)
  VAC_OUT=$out
}
# data_files DIR: sorted relative paths of the files outside _delta_log.
data_files() { (cd "$1" && find . -type f -not -path './_delta_log/*' | sort); }
row() { # scale case seconds rss files_deleted limit_seconds
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$ROWS"
  echo "bench=vacuum files=$1 case=$2 seconds=$3 rss_mb=$4 deleted=$5"
}

for N in "${SCALES[@]}"; do
  REMOVED=$((N / 10))
  UNTRACKED=$((N / 100))
  BASE="$WORK/base_$N"
  t=$(now)
  "$GEN" create "$BASE" --files "$N" --removed "$REMOVED" --untracked "$UNTRACKED"
  echo "# generated in $(since "$t") s"
  EXPECT=$((REMOVED + UNTRACKED))
  TOTAL=$(data_files "$BASE" | wc -l)

  # (b) DRY RUN on the base table (it deletes nothing); its list drives the limit's rm.
  vac "$BASE" "RETAIN 0 HOURS DRY RUN"
  grep '^file://' "$VAC_OUT" | sed 's|^file://||' >"$WORK/dry_$N.txt"
  listed=$(wc -l <"$WORK/dry_$N.txt")
  [ "$listed" = "$EXPECT" ] || echo "# WARNING: DRY RUN listed $listed files, expected $EXPECT" >&2
  DRY_S=$VAC_S DRY_RSS=$VAC_RSS

  # (a) the limit, on a copy: list everything, delete exactly the DRY RUN's files.
  A="$WORK/limit_$N"
  cp -a "$BASE" "$A"
  sync
  sed "s|^$BASE/|$A/|" "$WORK/dry_$N.txt" >"$WORK/rm_$N.txt"
  t=$(now)
  find "$A" -type f >"$WORK/find_$N.txt"
  FIND_S=$(since "$t")
  t=$(now)
  xargs -d '\n' rm -f <"$WORK/rm_$N.txt"
  RM_S=$(since "$t")
  LIMIT_S=$(awk -v a="$FIND_S" -v b="$RM_S" 'BEGIN { printf "%.3f", a + b }')
  data_files "$A" >"$WORK/left_limit_$N.txt"
  row "$N" "limit: find -type f ($FIND_S s) + rm ($RM_S s)" "$LIMIT_S" "-" "$((TOTAL - $(wc -l <"$WORK/left_limit_$N.txt")))" "$LIMIT_S"
  row "$N" "VACUUM RETAIN 0 HOURS DRY RUN" "$DRY_S" "$DRY_RSS" "0 ($listed listed)" "$LIMIT_S"
  rm -rf "$A"

  # (c) FULL on a copy; the surviving files must be the limit's.
  B="$WORK/full_$N"
  cp -a "$BASE" "$B"
  rm -rf "$BASE"
  sync  # the copy's metadata is flushed now, not by VACUUM's first commit fsync
  vac "$B" "FULL RETAIN 0 HOURS"
  data_files "$B" >"$WORK/left_full_$N.txt"
  if ! cmp -s "$WORK/left_limit_$N.txt" "$WORK/left_full_$N.txt"; then
    echo "# WARNING: FULL left a different file set than find+rm" >&2
  fi
  row "$N" "VACUUM FULL RETAIN 0 HOURS (10% removed + 1% untracked)" "$VAC_S" "$VAC_RSS" "$((TOTAL - $(wc -l <"$WORK/left_full_$N.txt")))" "$LIMIT_S"
  FULL_S=$VAC_S

  # (d) few changes since that FULL run: LITE vs FULL, each on its own copy of the same state;
  # REPEAT rounds (default 3 up to 100k files, 1 above), the best time of each kept.
  "$GEN" remove "$B" --count "$LITE_FILES" >/dev/null
  before=$(data_files "$B" | wc -l)
  ROUNDS=${BENCH_LITE_REPEAT:-$([ "$N" -le 100000 ] && echo 3 || echo 1)}
  LITE_S="" FULL2_S=""
  for ((r = 1; r <= ROUNDS; r++)); do
    L="$WORK/lite_$N" C="$WORK/full2_$N"
    cp -a "$B" "$L"
    cp -a "$B" "$C"
    sync
    vac "$L" "LITE RETAIN 0 HOURS"
    lite_deleted=$((before - $(data_files "$L" | wc -l)))
    [ "$lite_deleted" = "$LITE_FILES" ] || echo "# WARNING: LITE deleted $lite_deleted files, expected $LITE_FILES" >&2
    if [ -z "$LITE_S" ] || awk -v a="$VAC_S" -v b="$LITE_S" 'BEGIN { exit !(a < b) }'; then LITE_S=$VAC_S LITE_RSS=$VAC_RSS; fi
    vac "$C" "FULL RETAIN 0 HOURS"
    full2_deleted=$((before - $(data_files "$C" | wc -l)))
    [ "$full2_deleted" = "$LITE_FILES" ] || echo "# WARNING: FULL deleted $full2_deleted files, expected $LITE_FILES" >&2
    if [ -z "$FULL2_S" ] || awk -v a="$VAC_S" -v b="$FULL2_S" 'BEGIN { exit !(a < b) }'; then FULL2_S=$VAC_S FULL2_RSS=$VAC_RSS; fi
    cmp -s <(data_files "$L") <(data_files "$C") || echo "# WARNING: LITE and FULL left different file sets" >&2
    rm -rf "$L" "$C"
  done
  row "$N" "VACUUM FULL RETAIN 0 HOURS, $LITE_FILES files removed since the last VACUUM (best of $ROUNDS)" "$FULL2_S" "$FULL2_RSS" "$full2_deleted" "$LIMIT_S"
  row "$N" "VACUUM LITE RETAIN 0 HOURS, $LITE_FILES files removed since the last VACUUM (best of $ROUNDS)" "$LITE_S" "$LITE_RSS" "$lite_deleted" "$LIMIT_S"
  printf '%s\t%s\t%s\n' "$N" "$FULL_S" "$(awk -v f="$FULL2_S" -v l="$LITE_S" 'BEGIN { printf "%.1f", (l > 0 ? f / l : 0) }')" >>"$WORK/lite_ratio.tsv"
  rm -rf "$B"
done

table() {
  printf '| files | case | seconds | vs limit | peak RSS MB | files deleted |\n| ---: | --- | ---: | ---: | ---: | ---: |\n'
  awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, ($6 > 0 ? sprintf("%.2f", $3 / $6) : "-"), $4, $5 }' "$ROWS"
}
verdict() {
  awk -F'\t' -v lim="1.3" '
    $2 ~ /^VACUUM FULL RETAIN 0 HOURS \(/ { r = $3 / $6; printf "FULL at %s files: %.2f× the limit (target ≤ %s×: %s). ", $1, r, lim, (r <= lim ? "met" : "not met") }
    $2 ~ /^VACUUM/ && $4 != "-" { if ($4 + 0 > rss[$1] + 0) rss[$1] = $4 }
    END { for (n in rss) if (n >= 1000000) printf "Peak RSS at %s files: %s MB (target < 1024: %s). ", n, rss[n], (rss[n] < 1024 ? "met" : "not met") }' "$ROWS"
  [ -f "$WORK/lite_ratio.tsv" ] && awk -F'\t' '{ printf "LITE at %s files: %s× faster than FULL after few changes (target ≥ 5×: %s). ", $1, $3, ($3 >= 5 ? "met" : "not met") }' "$WORK/lite_ratio.tsv"
  echo
}
T=$(table)
V=$(verdict)
echo
echo "$T"
echo "$V"
if [ "${BENCH_RECORD:-0}" = 1 ]; then
  rev=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  {
    printf '\n## %s — VACUUM at %s files (bench/vacuum.sh %s), silt %s, %s cores (load average %s at the start), threads %s\n\n' \
      "$(date -u '+%Y-%m-%d %H:%M UTC')" "${SCALES[*]}" "${SCALES[*]}" "$rev" "$(nproc)" "$LOAD_AT_START" "$THREADS"
    echo "$T"
    printf '\nTables from bench/vacuum_gen.cc: N empty data files in directories `p=<k>` of 1000 files, a log of 10 add commits + one commit removing 10%% of the files (deletionTimestamp 30 days ago) + a checkpoint, and N/100 untracked files. limit = wall time of `find DIR -type f` over the whole table + `xargs rm` of exactly the DRY RUN'"'"'s files, on a copy in the same run; VACUUM = silt'"'"'s statement time (`silt sql --timing`, retention check off), peak RSS of the silt process (`/usr/bin/time -v`). Every run is checked: FULL leaves the same file set as find+rm; LITE and FULL after %s more removes delete exactly those files. %s\nReproduce: `bash bench/vacuum.sh %s`.\n' \
      "$LITE_FILES" "$V" "${SCALES[*]}"
  } >>"$BENCH/RESULTS.md"
  echo "# appended to bench/RESULTS.md"
else
  echo "# BENCH_RECORD=1 to append to bench/RESULTS.md"
fi
