#!/usr/bin/env bash
# The cloud storage suite: starts Azurite (npm `azurite`, pinned by package-lock.json, installed
# here on first use) on 127.0.0.1 with a random free port and a temporary directory, runs
#   - the ObjectStore conformance suite and the Azure unit tests (silt_unit_tests, *Azure*),
#   - the whole sqllogictest suite with every warehouse on Azure (silt_sql_tests --store azure),
# then stops it (trap). Prints "N passed, N failed, N skipped" last (scripts/run-tests.sh reads
# it). Without Node/npm or Azurite every test skips with a message.
#
#   bash test/cloud/run.sh [BUILD_DIR]            (default build/release)
#   SILT_CLOUD_SQL=0 bash test/cloud/run.sh        skips the sqllogictest run
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${1:-$ROOT/build/release}"
case "$BUILD" in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac

skip_all() {
  echo "SKIP cloud storage suite: $1"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
}

. "$HERE/emulator.sh"
emulator_install azurite-blob || skip_all "$EMULATOR_ERROR"
[ -x "$BUILD/silt_unit_tests" ] || skip_all "$BUILD/silt_unit_tests is not built"
emulator_start azurite "$HERE/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort @PORT \
  --location @DIR --skipApiVersionCheck --loose --silent || skip_all "$EMULATOR_ERROR"
PORT=$EMULATOR_PORT

export SILT_TEST_AZURE=1
export AZURE_STORAGE_USE_EMULATOR=true
export AZURE_STORAGE_ENDPOINT="http://127.0.0.1:$PORT/devstoreaccount1"
unset AZURE_STORAGE_ACCOUNT AZURE_STORAGE_ACCOUNT_NAME AZURE_STORAGE_KEY AZURE_STORAGE_ACCOUNT_KEY \
  AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_TOKEN

passed=0
failed=0
skipped=0

emulator_unit_tests "$BUILD" '*Azure*:HttpClient*:HttpUtil*' "unit tests on Azurite"

if [ "${SILT_CLOUD_SQL:-1}" != 0 ] && [ -x "$BUILD/silt_sql_tests" ]; then
  # One container for every file's warehouse (the runner makes and deletes a prefix per file).
  python3 - "$PORT" <<'EOF' || echo "note: could not create the sqllogic container"
import base64, datetime, hashlib, hmac, sys, urllib.request
port = sys.argv[1]
account = "devstoreaccount1"
key = base64.b64decode("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==")
date = datetime.datetime.utcnow().strftime("%a, %d %b %Y %H:%M:%S GMT")
sts = "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:%s\nx-ms-version:2021-12-02\n/%s/%s/sqllogic\nrestype:container" % (date, account, account)
sig = base64.b64encode(hmac.new(key, sts.encode(), hashlib.sha256).digest()).decode()
req = urllib.request.Request("http://127.0.0.1:%s/%s/sqllogic?restype=container" % (port, account), method="PUT",
                             headers={"x-ms-date": date, "x-ms-version": "2021-12-02",
                                      "Authorization": "SharedKey %s:%s" % (account, sig)})
try:
    urllib.request.urlopen(req)
except urllib.error.HTTPError as e:
    if e.code != 409:
        raise
EOF
  SILT_SQL_TEST_AZURE_BASE="az://sqllogic" emulator_sql_tests "$BUILD" "sqllogictest on Azurite" \
    --store azure
fi

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
