#!/usr/bin/env bash
# The S3 storage suite: starts the S3 emulator (npm `s3rver`, pinned by package-lock.json,
# installed here on first use) on 127.0.0.1 with a random free port and a temporary directory,
# runs
#   - the ObjectStore conformance suite and the S3 unit tests (silt_unit_tests, *S3*),
#   - the whole sqllogictest suite with every warehouse on S3 (silt_sql_tests --store s3),
# then stops it (trap). Prints "N passed, N failed, N skipped" last (scripts/run-tests.sh reads
# it). Without Node/npm or s3rver every test skips with a message.
#
# s3rver ignores If-None-Match on PutObject (docs/cloud-storage.md), so the stores opened here
# make commits exclusive in-process (SILT_S3_CONDITIONAL_PUT=single-process, Delta's
# S3SingleDriverLogStore contract); the conditional-write paths are tested with a request hook.
#
#   bash test/cloud/run-s3.sh [BUILD_DIR]            (default build/release)
#   SILT_CLOUD_SQL=0 bash test/cloud/run-s3.sh        skips the sqllogictest run
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${1:-$ROOT/build/release}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac

skip_all() {
  echo "SKIP S3 storage suite: $1"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
}

command -v node >/dev/null || skip_all "node not found"
command -v npm >/dev/null || skip_all "npm not found"
# npm ci only when node_modules is missing or older than the lockfile.
if [ ! -x "$HERE/node_modules/.bin/s3rver" ] || [ "$HERE/package-lock.json" -nt "$HERE/node_modules" ]; then
  if ! install_log=$(cd "$HERE" && npm ci --no-audit --no-fund 2>&1); then
    skip_all "npm ci failed: $(echo "$install_log" | grep -m1 -i 'err' || echo "$install_log" | tail -1)"
  fi
fi
[ -x "$HERE/node_modules/.bin/s3rver" ] || skip_all "s3rver is not installed"
[ -x "$BUILD/silt_unit_tests" ] || skip_all "$BUILD/silt_unit_tests is not built"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-s3rver-XXXXXX")
S3_PID=""
cleanup() {
  if [ -n "$S3_PID" ]; then kill "$S3_PID" 2>/dev/null; wait "$S3_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# A free port (the kernel's choice), then s3rver on it with the buckets the tests use.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$WORK/data"
"$HERE/node_modules/.bin/s3rver" --directory "$WORK/data" --address 127.0.0.1 --port "$PORT" --silent \
  --no-vhost-buckets --configure-bucket sqllogic --configure-bucket conformance \
  --configure-bucket tables --configure-bucket units >"$WORK/s3rver.log" 2>&1 &
S3_PID=$!
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  if ! kill -0 "$S3_PID" 2>/dev/null; then skip_all "s3rver did not start: $(tail -3 "$WORK/s3rver.log")"; fi
  sleep 0.1
done

# s3rver's well-known development key pair; the endpoint by the AWS SDKs' variable (an IP
# endpoint is addressed path style).
export SILT_TEST_S3=1
export AWS_ACCESS_KEY_ID=S3RVER
export AWS_SECRET_ACCESS_KEY=S3RVER
export AWS_REGION=us-east-1
export AWS_ENDPOINT_URL_S3="http://127.0.0.1:$PORT"
export SILT_S3_CONDITIONAL_PUT=single-process
export AWS_SHARED_CREDENTIALS_FILE=/dev/null AWS_CONFIG_FILE=/dev/null
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_DEFAULT_PROFILE AWS_ENDPOINT_URL AWS_DEFAULT_REGION

passed=0
failed=0
skipped=0

"$BUILD/silt_unit_tests" --gtest_brief=1 --gtest_filter='*S3*:HttpClient*' >"$WORK/unit.log" 2>&1
rc=$?
p=$(grep -oP '^\[  PASSED  \] \K[0-9]+' "$WORK/unit.log" | tail -1)
f=$(grep -oP '^\[  FAILED  \] \K[0-9]+(?= tests?, listed below)' "$WORK/unit.log" | tail -1)
s=$(grep -oP '^\[  SKIPPED \] \K[0-9]+' "$WORK/unit.log" | tail -1)
p=${p:-0}; f=${f:-0}; s=${s:-0}
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
echo "unit tests on s3rver: $p passed, $f failed, $s skipped"
[ "$f" -ne 0 ] && grep -vE '^\[       OK \]' "$WORK/unit.log" | tail -60
passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))

if [ "${SILT_CLOUD_SQL:-1}" != 0 ] && [ -x "$BUILD/silt_sql_tests" ]; then
  SILT_SQL_TEST_S3_BASE="s3://sqllogic" "$BUILD/silt_sql_tests" --store s3 >"$WORK/sql.log" 2>&1
  rc=$?
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/sql.log" | tail -1)
  p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
  s=$(echo "$line" | grep -oP ', \K[0-9]+(?= skipped)')
  p=${p:-0}; f=${f:-0}; s=${s:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  echo "sqllogictest on s3rver: $p passed, $f failed, $s skipped"
  [ "$f" -ne 0 ] && grep -E '^(FAIL|  )' "$WORK/sql.log" | head -80
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
fi

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
