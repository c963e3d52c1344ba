#!/usr/bin/env bash
# Cloud storage bench: the same table of N data files on Azurite (az://, through AzureBlobStore)
# and on the local disk; per operation silt's statement time and, on Azure, the requests it made
# (list/head/get/put/delete, retries; SILT_STORAGE_STATS=1).
#
#   bash bench/cloud.sh [N]     default N = 10000 data files
#   SILT=path/to/silt  BENCH_THREADS=2  BENCH_KEEP=1
#
# Operations, each in a fresh `silt sql` process (so the snapshot is loaded from storage):
#   create     CREATE TABLE + INSERT of N rows x 10 with spark.sql.files.maxRecordsPerFile = 10
#   snapshot   DESCRIBE DETAIL (the snapshot load alone)
#   count      SELECT count(*) (a scan of every file)
#   selective  SELECT … WHERE id = <one value> (file skipping by stats: one file read)
#   delete     DELETE of the first 10% of ids (whole files removed)
#   vacuum     VACUUM RETAIN 0 HOURS (lists the table, deletes the N/10 removed files)
# Azurite runs on 127.0.0.1 with a random port, in node: its per-request cost dominates, so the
# ratio to local is an upper bound for a real account in the same region. Prints a table; does
# not write bench/RESULTS.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10000}
THREADS=${BENCH_THREADS:-2}
SILT=${SILT:-$ROOT/build/release/silt}
AZ="$ROOT/test/cloud/node_modules/.bin/azurite-blob"
[ -x "$SILT" ] || { echo "bench: no silt binary at $SILT" >&2; exit 2; }
if [ ! -x "$AZ" ]; then (cd "$ROOT/test/cloud" && npm ci --no-audit --no-fund >/dev/null); fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-cloudbench-XXXXXX")
AZ_PID=""
cleanup() {
  [ -n "$AZ_PID" ] && kill "$AZ_PID" 2>/dev/null && wait "$AZ_PID" 2>/dev/null
  [ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$AZ" --blobHost 127.0.0.1 --blobPort "$PORT" --location "$WORK/azurite" --skipApiVersionCheck --loose \
  --silent >"$WORK/azurite.log" 2>&1 &
AZ_PID=$!
for _ in $(seq 1 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done
export AZURE_STORAGE_USE_EMULATOR=true
export AZURE_STORAGE_ENDPOINT="http://127.0.0.1:$PORT/devstoreaccount1"
export SILT_STORAGE_STATS=1

# The container (Create Container, SharedKey with Azurite's published development key).
python3 - "$PORT" <<'EOF'
import base64, datetime, hashlib, hmac, sys, urllib.request
port, account = sys.argv[1], "devstoreaccount1"
key = base64.b64decode("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
date = datetime.datetime.utcnow().strftime("%a, %d %b %Y %H:%M:%S GMT")
sts = "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:%s\nx-ms-version:2021-12-02\n/%s/%s/bench\nrestype:container" % (date, account, account)
sig = base64.b64encode(hmac.new(key, sts.encode(), hashlib.sha256).digest()).decode()
urllib.request.urlopen(urllib.request.Request(
    "http://127.0.0.1:%s/%s/bench?restype=container" % (port, account), method="PUT",
    headers={"x-ms-date": date, "x-ms-version": "2021-12-02", "Authorization": "SharedKey %s:%s" % (account, sig)}))
EOF

ROWS=$((N * 10))
CUT=$((ROWS / 10))
LOAD=$(cut -d' ' -f1 /proc/loadavg)
echo "# cloud bench: $N data files ($ROWS rows), threads $THREADS, load $LOAD at start"
printf '%-10s %-7s %9s %9s  %s\n' operation store seconds cpu_s requests
# run OP STORE TABLE SQL
run() {
  local op=$1 store=$2 table=$3 sql=$4
  local err="$WORK/$op.$store.err"
  /usr/bin/time -f '%U %S' -o "$WORK/time" "$SILT" sql --warehouse "$WORK/wh" --threads "$THREADS" --mode csv --timing \
    --conf spark.databricks.delta.retentionDurationCheck.enabled=false \
    --conf spark.sql.files.maxRecordsPerFile=10 \
    -e "${sql//@T/delta.\`$table\`}" >"$WORK/$op.$store.out" 2>"$err" || { cat "$err" >&2; exit 1; }
  local s cpu req
  s=$(sed -nE 's/^Time taken: ([0-9.]+) seconds.*/\1/p' "$err" | awk '{ t += $1 } END { printf "%.3f", t }')
  cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time")
  req=$(sed -nE 's/^storage requests: (.*)/\1/p' "$err")
  printf '%-10s %-7s %9s %9s  %s\n' "$op" "$store" "$s" "$cpu" "${req:--}"
}
for store in local azure; do
  if [ "$store" = local ]; then T="$WORK/local/t"; else T="az://bench/t"; fi
  run create "$store" "$T" "CREATE TABLE @T (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'false'); INSERT INTO @T SELECT id, concat('v', id) FROM range($ROWS)"
  run snapshot "$store" "$T" "DESCRIBE DETAIL @T"
  run count "$store" "$T" "SELECT count(*) FROM @T"
  run selective "$store" "$T" "SELECT * FROM @T WHERE id = $((ROWS / 2 + 3))"
  run delete "$store" "$T" "DELETE FROM @T WHERE id < $CUT"
  run vacuum "$store" "$T" "VACUUM @T RETAIN 0 HOURS"
done
echo "# load at end: $(cut -d' ' -f1 /proc/loadavg)"
