#!/usr/bin/env bash
# Cloud storage bench: the same table of N data files on Azurite (az://, AzureBlobStore), on
# s3rver (s3://, S3ObjectStore) and on the local disk; per operation silt's statement time and, on
# the cloud stores, the requests it made (list/head/get/put/delete, retries; SILT_STORAGE_STATS=1).
#
#   bash bench/cloud.sh [N]     default N = 10000 data files
#   SILT=path/to/silt  BENCH_THREADS=2  BENCH_KEEP=1
#   BENCH_STORES="local azure s3" (the default)
#   BENCH_AZURITE_META=loki|mariadb  default: loki up to 10000 files, mariadb above (see below)
#   BENCH_CREATE=insert|gen     default: insert up to 10000 files, gen above
#   CLOUD_GEN=path/to/cloud_gen (default build/release/cloud_gen, built with -DSILT_BENCH=ON)
#   BENCH_UPLOAD_PARALLEL=16    BENCH_CLOUD_COUNT=1 (run count on the cloud stores above 10k files)
#
# Operations, each in a fresh `silt sql` process (so the snapshot is loaded from storage):
#   create     insert: CREATE TABLE + INSERT of N rows x 10 with spark.sql.files.maxRecordsPerFile
#              = 10 (one commit of N adds). gen (100k files: the emulators would spend most of the
#              run in that one INSERT): bench/cloud_gen.cc writes the same table locally with
#              silt's writer in 25 appends (a checkpoint at version 20, JSON commits 21-25, as a
#              table written by appends has), once; local uses that directory, the cloud stores
#              get it uploaded through silt's ObjectStore on BENCH_UPLOAD_PARALLEL threads
#              (keep-alive connections), and the row shows that upload (PUT only).
#   snapshot   DESCRIBE DETAIL (the snapshot load alone)
#   count      SELECT count(*) (a scan of every file)
#   selective  SELECT … WHERE id = <one value> (file skipping by stats: one file read)
#   delete     DELETE of the first 10% of ids (whole files, proven by their statistics: removed
#              unread)
#   vacuum_dry VACUUM RETAIN 0 HOURS DRY RUN (lists the table)
#   vacuum     VACUUM RETAIN 0 HOURS (lists the table, deletes the N/10 removed files)
# The emulators run on 127.0.0.1 with random ports (test/cloud/emulator.sh), in node: their
# per-request cost dominates, so the ratio to local is an upper bound for a real account in the
# same region. Prints a table; does not write bench/RESULTS.md.
#
# Azurite's metadata (BENCH_AZURITE_META): `loki` (its default store, in memory) answers every
# request that names a blob with a LokiJS query whose first filter (the account, indexed) matches
# every blob and whose other filters (container, name) scan them, so each PUT/GET/DELETE costs
# O(blobs stored) — 72% of its CPU at 20k blobs, ~47 ms a PUT at 28k: 100k files take hours.
# `mariadb` (default above 10000 files) runs Azurite on its documented SQL metadata store
# (AZURITE_DB) with a private MariaDB server (Debian's mariadb-server-core, started here on a random
# port with a temporary data directory), indexed lookups, and Azurite's extents and MariaDB's data
# on tmpfs (/dev/shm: Azurite fdatasyncs every extent write, ~20 ms on a loaded disk).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
N=${1:-10000}
THREADS=${BENCH_THREADS:-2}
SILT=${SILT:-$ROOT/build/release/silt}
AZ_META=${BENCH_AZURITE_META:-$([ "$N" -le 10000 ] && echo loki || echo mariadb)}
STORES=${BENCH_STORES:-local azure s3}
CREATE=${BENCH_CREATE:-$([ "$N" -le 10000 ] && echo insert || echo gen)}
PARALLEL=${BENCH_UPLOAD_PARALLEL:-16}
GEN=${CLOUD_GEN:-$ROOT/build/release/cloud_gen}
[ -x "$SILT" ] || { echo "bench: no silt binary at $SILT" >&2; exit 2; }
[ "$CREATE" = insert ] || [ -x "$GEN" ] ||
  { echo "bench: no cloud_gen at $GEN (cmake -DSILT_BENCH=ON, ninja cloud_gen; or set CLOUD_GEN=)" >&2; exit 2; }
. "$ROOT/test/cloud/emulator.sh"
emulator_install azurite-blob || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-cloudbench-XXXXXX")
cleanup() {
  emulator_stop
  [ -z "$SHM" ] || rm -rf "$SHM"
  [ -n "${BENCH_KEEP:-}" ] || rm -rf "$WORK"
}
emulator_start s3rver "$ROOT/test/cloud/node_modules/.bin/s3rver" --directory @DIR --address 127.0.0.1 \
  --port @PORT --silent --no-vhost-buckets --configure-bucket bench || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
S3_PORT=$EMULATOR_PORT
S3_PID=$EMULATOR_PID
SHM=""
MDB_PID=""
if [ "$AZ_META" = mariadb ]; then
  command -v mariadbd >/dev/null && command -v mariadb-install-db >/dev/null ||
    { echo "bench: BENCH_AZURITE_META=mariadb needs mariadbd (mariadb-server-core, scripts/install-deps.sh)" >&2; exit 2; }
  SHM=$(mktemp -d /dev/shm/silt-cloudbench-XXXXXX)
  mariadb-install-db --no-defaults --datadir="$SHM/db" --auth-root-authentication-method=normal \
    --skip-test-db >"$SHM/install.log" 2>&1 || { cat "$SHM/install.log" >&2; exit 2; }
  emulator_start mariadb mariadbd --no-defaults --datadir="$SHM/db" --socket="$SHM/sock" --port=@PORT \
    --bind-address=127.0.0.1 --skip-grant-tables --user="$(id -un)" --skip-log-bin \
    --innodb-flush-log-at-trx-commit=0 || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
  MDB_PID=$EMULATOR_PID
  mariadb --socket="$SHM/sock" -e "CREATE DATABASE azurite_blob"
  export AZURITE_DB="mysql://root:@127.0.0.1:$EMULATOR_PORT/azurite_blob"
  emulator_start azurite "$ROOT/test/cloud/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort @PORT \
    --location "$SHM/azurite" --skipApiVersionCheck --loose --silent || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
  unset AZURITE_DB
else
  emulator_start azurite "$ROOT/test/cloud/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort @PORT \
    --inMemoryPersistence --skipApiVersionCheck --loose --silent || { echo "bench: $EMULATOR_ERROR" >&2; exit 2; }
fi
PORT=$EMULATOR_PORT
AZ_PID=$EMULATOR_PID
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
echo "# cloud bench: $N data files ($ROWS rows), create by $CREATE, threads $THREADS, azurite metadata $AZ_META, load $LOAD at start"
printf '%-10s %-7s %9s %9s %9s  %s\n' operation store seconds cpu_s emu_cpu_s requests
# emu_cpu STORE: CPU seconds the store's emulator processes (Azurite and its MariaDB) have used
# so far (0 for local).
emu_cpu() {
  local pids
  case $1 in azure) pids="$AZ_PID $MDB_PID" ;; s3) pids=$S3_PID ;; *) echo 0; return ;; esac
  for pid in $pids; do cat "/proc/$pid/stat"; done |
    awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); t += $12 + $13 } END { printf "%.2f", t / hz }'
}
# run OP STORE TABLE SQL
run() {
  local op=$1 store=$2 table=$3 sql=$4
  local err="$WORK/$op.$store.err" emu0
  emu0=$(emu_cpu "$store")
  /usr/bin/time -f '%U %S' -o "$WORK/time" "$SILT" sql --warehouse "$WORK/wh" --threads "$THREADS" --mode csv --timing \
    --conf spark.databricks.delta.retentionDurationCheck.enabled=false \
    --conf spark.sql.files.maxRecordsPerFile=10 \
    -e "${sql//@T/delta.\`$table\`}" >"$WORK/$op.$store.out" 2>"$err" || { cat "$err" >&2; exit 1; }
  local s cpu req emu
  s=$(sed -nE 's/^Time taken: ([0-9.]+) seconds.*/\1/p' "$err" | awk '{ t += $1 } END { printf "%.3f", t }')
  cpu=$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time")
  req=$(sed -nE 's/^storage requests: (.*)/\1/p' "$err")
  emu=$(awk -v a="$emu0" -v b="$(emu_cpu "$store")" 'BEGIN { printf "%.2f", b - a }')
  printf '%-10s %-7s %9s %9s %9s  %s\n' "$op" "$store" "$s" "$cpu" "$emu" "${req:--}"
}
# gen_create STORE TABLE: the generated table (made once) copied to the local location or uploaded.
gen_create() {
  local store=$1 table=$2 out emu0
  if [ ! -d "$WORK/gen" ]; then
    /usr/bin/time -f '%U %S' -o "$WORK/time" "$GEN" create "$WORK/gen" --files "$N" >"$WORK/gen.out" 2>&1 ||
      { echo "bench: cloud_gen create failed" >&2; exit 1; }
    printf '%-10s %-7s %9s %9s %9s  %s\n' generate - "$(sed -nE 's/.*seconds=([0-9.]+).*/\1/p' "$WORK/gen.out")" \
      "$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time")" - "$(sed -nE 's/.*(objects=[0-9]+ bytes=[0-9]+).*/\1/p' "$WORK/gen.out")"
  fi
  if [ "$store" = local ]; then
    mkdir -p "$(dirname "$table")"
    cp -r "$WORK/gen" "$table"
    return
  fi
  emu0=$(emu_cpu "$store")
  /usr/bin/time -f '%U %S' -o "$WORK/time" "$GEN" upload "$WORK/gen" "$table" --parallel "$PARALLEL" \
    >"$WORK/upload.$store.out" 2>&1 || { cat "$WORK/upload.$store.out" >&2; exit 1; }
  out=$(cat "$WORK/upload.$store.out")
  echo "$out" | sed -nE "s/^progress (.*)/# upload $store progress: \1/p"
  printf '%-10s %-7s %9s %9s %9s  %s\n' upload "$store" "$(echo "$out" | sed -nE 's/^gen=upload seconds=([0-9.]+).*/\1/p')" \
    "$(awk '{ printf "%.2f", $1 + $2 }' "$WORK/time")" \
    "$(awk -v a="$emu0" -v b="$(emu_cpu "$store")" 'BEGIN { printf "%.2f", b - a }')" "$(echo "$out" | sed -nE 's/^gen=upload.*requests: (.*)/\1/p')"
}
for store in $STORES; do
  case $store in
    local) T="$WORK/local/t" ;;
    azure) T="az://bench/t" ;;
    s3) T="s3://bench/t" ;;
  esac
  if [ "$CREATE" = insert ]; then
    run create "$store" "$T" "CREATE TABLE @T (id BIGINT, v STRING) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'false'); INSERT INTO @T SELECT id, concat('v', id) FROM range($ROWS)"
  else
    gen_create "$store" "$T"
  fi
  run snapshot "$store" "$T" "DESCRIBE DETAIL @T"
  if [ "$store" != local ] && [ "$N" -gt 10000 ] && [ -z "${BENCH_CLOUD_COUNT:-}" ]; then
    # A GET per data file: Azurite spends ~6 ms of CPU on each (s3rver ~0.8 ms), 10 minutes of
    # emulator CPU at 100k files, beyond this bench's budget. The 10k row shows the cost.
    printf '%-10s %-7s %9s %9s %9s  %s\n' count "$store" - - - "skipped above 10000 files (BENCH_CLOUD_COUNT=1 runs it)"
  else
    run count "$store" "$T" "SELECT count(*) FROM @T"
  fi
  run selective "$store" "$T" "SELECT * FROM @T WHERE id = $((ROWS / 2 + 3))"
  run delete "$store" "$T" "DELETE FROM @T WHERE id < $CUT"
  if [ "$store" = s3 ] && [ "$N" -gt 900 ]; then
    printf '%-10s %-7s %9s %9s %9s  %s\n' vacuum s3 - - - "skipped: s3rver cannot page past 1000 keys"
  else
    run vacuum_dry "$store" "$T" "VACUUM @T RETAIN 0 HOURS DRY RUN"
    run vacuum "$store" "$T" "VACUUM @T RETAIN 0 HOURS"
  fi
done
echo "# load at end: $(cut -d' ' -f1 /proc/loadavg)"
