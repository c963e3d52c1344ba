#!/usr/bin/env bash
# Cloud storage bench: the same table of N data files on Azurite (az://, AzureBlobStore), on
# s3rver (s3://, S3ObjectStore) and on the local disk; per operation silt's statement time and, on
# the cloud stores, the requests it made (list/head/get/put/delete, retries; SILT_STORAGE_STATS=1).
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
# The emulators run on 127.0.0.1 with random ports (test/cloud/emulator.sh), in node: their
# per-request cost dominates, so the ratio to local is an upper bound for a real account in the
# same region. Prints a table; does
# not write bench/RESULTS.md.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10000}
THREADS=${BENCH_THREADS:-2}
SILT=${SILT:-$ROOT/build/release/silt}
[ -x "$SILT" ] || { echo "bench: no silt binary at $SILT" >&2; exit 2; }
. "$ROOT/test/cloud/emulator.sh"
emulator_install azurite-blob || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-cloudbench-XXXXXX")
cleanup() {
  emulator_stop
  [ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
emulator_start s3rver "$ROOT/test/cloud/node_modules/.bin/s3rver" --directory @DIR --address 127.0.0.1 \
  --port @PORT --silent --no-vhost-buckets --configure-bucket bench || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
S3_PORT=$EMULATOR_PORT
emulator_start azurite "$ROOT/test/cloud/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort @PORT \
  --location @DIR --skipApiVersionCheck --loose --silent || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
PORT=$EMULATOR_PORT
trap cleanup EXIT INT TERM
# s3rver: its development keys, path style by IP, one writing process (it ignores If-None-Match).
# Its continuation tokens fail on Node >= 17 (HTTP 500) and it answers at most 1000 keys a page,
# so a listing of more than 1000 objects (VACUUM of a table of more than ~900 files) cannot run
# on it: those rows are skipped (FakeS3Server tests the paging instead).
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_REGION=us-east-1
export AWS_ENDPOINT_URL_S3="http://127.0.0.1:$S3_PORT" SILT_S3_CONDITIONAL_PUT=single-process
export AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_CONFIG_FILE=/dev/null AWS_EC2_METADATA_DISABLED=true
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
for store in local azure s3; do
  case $store in
    local) T="$WORK/local/t" ;;
    azure) T="az://bench/t" ;;
    s3) T="s3://bench/t" ;;
  esac
  run create "$store" "$T" "CREATE TABLE @T (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'false'); INSERT INTO @T SELECT id, concat('v', id) FROM range($ROWS)"
  run snapshot "$store" "$T" "DESCRIBE DETAIL @T"
  run count "$store" "$T" "SELECT count(*) FROM @T"
  run selective "$store" "$T" "SELECT * FROM @T WHERE id = $((ROWS / 2 + 3))"
  run delete "$store" "$T" "DELETE FROM @T WHERE id < $CUT"
  if [ "$store" = s3 ] && [ "$N" -gt 900 ]; then
    printf '%-10s %-7s %9s %9s  %s\n' vacuum s3 - - "skipped: s3rver cannot page past 1000 keys"
  else
    run vacuum "$store" "$T" "VACUUM @T RETAIN 0 HOURS"
  fi
done
echo "# load at end: $(cut -d' ' -f1 /proc/loadavg)"
