#!/usr/bin/env bash
# Peak RSS of memory-hungry queries under silt.memory.limit (issue 31 item 4): sort, hash
# aggregate, hash join, window and expression-heavy queries over range(), each in its own
# `silt sql` process measured with /usr/bin/time -v. A query either completes or fails with
# SILT_MEMORY_LIMIT_EXCEEDED; the figure that matters is peak RSS / limit (target <= ~1.2).
#
#   bash bench/memory.sh [LIMIT]      default LIMIT 512MB
#   SILT=path/to/silt  BENCH_ROWS=N (default 20000000)  BENCH_RECORD=1 (append to bench/RESULTS.md)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
pick() { for c in "$@"; do if [ -x "$c" ]; then echo "$c"; return; fi; done; }
SILT=${SILT:-$(pick "$ROOT/build/bench/silt" "$ROOT/build/release/silt")}
[ -n "$SILT" ] || { echo "bench: no silt binary (build first, or set SILT=)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
LIMIT=${1:-512MB}
N=${BENCH_ROWS:-20000000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-membench-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
limit_bytes() {
  local v=${1^^} n
  n=${v%%[A-Z]*}
  case "${v#$n}" in
    GB|G) echo $((n << 30)) ;; MB|M) echo $((n << 20)) ;; KB|K) echo $((n << 10)) ;; *) echo "$n" ;;
  esac
}
LB=$(limit_bytes "$LIMIT")
QUERIES=(
  "sort|SELECT id FROM (SELECT id, concat('s', id) s FROM range($N) ORDER BY s DESC) LIMIT 1"
  "aggregate|SELECT count(*) FROM (SELECT id % $((N / 2)) g, count(*) c, max(concat('s', id)) m FROM range($N) GROUP BY 1)"
  "join|SELECT count(*) FROM range($((N / 2))) a JOIN (SELECT id, concat('s', id) s FROM range($((N / 2)))) b ON a.id = b.id"
  "window|SELECT max(r) FROM (SELECT row_number() OVER (PARTITION BY id % 1000 ORDER BY concat('s', id)) r FROM range($((N / 2))))"
  "distinct|SELECT count(*) FROM (SELECT DISTINCT concat('s', id) FROM range($((N / 2))))"
  "expression|SELECT max(length(repeat('x', 100000000))) FROM range(50)"
  "range|SELECT count(*), sum(id) FROM range(1000000000)"
  "range limit|SELECT * FROM range(10000000000) LIMIT 1"
  "string value|SELECT length(repeat('x', 2000000000))"
  "array value|SELECT size(sequence(1, 2000000000))"
)
LOAD=$(cut -d' ' -f1 /proc/loadavg)
printf '# silt %s; limit %s (%s bytes); rows %s; load %s\n' "$SILT" "$LIMIT" "$LB" "$N" "$(cut -d' ' -f1 /proc/loadavg)"
OUT="$WORK/rows.md"
: >"$OUT"
for q in "${QUERIES[@]}"; do
  name=${q%%|*}
  sql=${q#*|}
  set +e
  /usr/bin/time -v "$SILT" sql --warehouse "$WORK/wh" --threads 2 -e "SET silt.memory.limit = $LIMIT; $sql" \
    >"$WORK/out" 2>"$WORK/err"
  rc=$?
  set -e
  rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$WORK/err")
  secs=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$WORK/err")
  if [ "$rc" = 0 ]; then
    result="ok: $(tail -n 1 "$WORK/out" | tr '\t' ' ' | cut -c1-40)"
  else
    result=$(grep -o 'Error: \[[A-Z_.]*\]' "$WORK/err" | head -n 1 || true)
    [ -n "$result" ] || result="exit $rc"
  fi
  ratio=$(awk -v r="$rss_kb" -v l="$LB" 'BEGIN { printf "%.2f", r * 1024 / l }')
  printf '| %s | `%s` | %s | %s MiB | %s× | %s | %s |\n' "$name" "$sql" "$LIMIT" "$((rss_kb / 1024))" "$ratio" "$secs" "$result" | tee -a "$OUT"
done
if [ -n "${BENCH_RECORD:-}" ]; then
  {
    echo
    echo "## $(date -u '+%Y-%m-%d %H:%M') UTC — silt.memory.limit: peak RSS per query (bench/memory.sh $LIMIT, rows $N), silt $(git -C "$ROOT" rev-parse --short HEAD), 2 cores (load average $LOAD at the start), threads 2"
    echo
    echo "| case | query | limit | peak RSS | RSS/limit | wall | result |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    cat "$OUT"
  } >>"$ROOT/bench/RESULTS.md"
fi
