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

. "$HERE/emulator.sh"
emulator_install s3rver || skip_all "$EMULATOR_ERROR"
[ -x "$BUILD/silt_unit_tests" ] || skip_all "$BUILD/silt_unit_tests is not built"
# s3rver with the buckets the tests use.
emulator_start s3rver "$HERE/node_modules/.bin/s3rver" --directory @DIR --address 127.0.0.1 \
  --port @PORT --silent --no-vhost-buckets --configure-bucket sqllogic \
  --configure-bucket conformance --configure-bucket tables --configure-bucket units ||
  skip_all "$EMULATOR_ERROR"
PORT=$EMULATOR_PORT

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

emulator_unit_tests "$BUILD" '*S3*:HttpClient*' "unit tests on s3rver"

if [ "${SILT_CLOUD_SQL:-1}" != 0 ] && [ -x "$BUILD/silt_sql_tests" ]; then
  SILT_SQL_TEST_S3_BASE="s3://sqllogic" emulator_sql_tests "$BUILD" "sqllogictest on s3rver" --store s3
fi

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
