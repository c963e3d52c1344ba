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

command -v node >/dev/null || skip_all "node not found"
command -v npm >/dev/null || skip_all "npm not found"
# npm ci only when node_modules is missing or older than the lockfile.
if [ ! -x "$HERE/node_modules/.bin/azurite-blob" ] || [ "$HERE/package-lock.json" -nt "$HERE/node_modules" ]; then
  if ! install_log=$(cd "$HERE" && npm ci --no-audit --no-fund 2>&1); then
    skip_all "npm ci failed: $(echo "$install_log" | grep -m1 -i 'err' || echo "$install_log" | tail -1)"
  fi
fi
[ -x "$HERE/node_modules/.bin/azurite-blob" ] || skip_all "azurite is not installed"
[ -x "$BUILD/silt_unit_tests" ] || skip_all "$BUILD/silt_unit_tests is not built"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/silt-azurite-XXXXXX")
AZURITE_PID=""
cleanup() {
  if [ -n "$AZURITE_PID" ]; then kill "$AZURITE_PID" 2>/dev/null; wait "$AZURITE_PID" 2>/dev/null; fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM

# A free port (the kernel's choice), then Azurite on it.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$HERE/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$PORT" --location "$WORK/data" \
  --skipApiVersionCheck --loose --silent >"$WORK/azurite.log" 2>&1 &
AZURITE_PID=$!
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then break; fi
  if ! kill -0 "$AZURITE_PID" 2>/dev/null; then skip_all "azurite did not start: $(tail -3 "$WORK/azurite.log")"; fi
  sleep 0.1
done

export SILT_TEST_AZURE=1
export AZURE_STORAGE_USE_EMULATOR=true
export AZURE_STORAGE_ENDPOINT="http://127.0.0.1:$PORT/devstoreaccount1"
unset AZURE_STORAGE_ACCOUNT AZURE_STORAGE_ACCOUNT_NAME AZURE_STORAGE_KEY AZURE_STORAGE_ACCOUNT_KEY \
  AZURE_STORAGE_SAS_TOKEN AZURE_STORAGE_TOKEN

passed=0
failed=0
skipped=0

"$BUILD/silt_unit_tests" --gtest_brief=1 --gtest_filter='*Azure*:HttpClient*:HttpUtil*' >"$WORK/unit.log" 2>&1
rc=$?
p=$(grep -oP '^\[  PASSED  \] \K[0-9]+' "$WORK/unit.log" | tail -1)
f=$(grep -oP '^\[  FAILED  \] \K[0-9]+(?= tests?, listed below)' "$WORK/unit.log" | tail -1)
s=$(grep -oP '^\[  SKIPPED \] \K[0-9]+' "$WORK/unit.log" | tail -1)
p=${p:-0}; f=${f:-0}; s=${s:-0}
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
echo "unit tests on Azurite: $p passed, $f failed, $s skipped"
[ "$f" -ne 0 ] && grep -vE '^\[       OK \]' "$WORK/unit.log" | tail -60
passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))

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
  SILT_SQL_TEST_AZURE_BASE="az://sqllogic" "$BUILD/silt_sql_tests" --store azure >"$WORK/sql.log" 2>&1
  rc=$?
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$WORK/sql.log" | tail -1)
  p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
  s=$(echo "$line" | grep -oP ', \K[0-9]+(?= skipped)')
  p=${p:-0}; f=${f:-0}; s=${s:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  echo "sqllogictest on Azurite: $p passed, $f failed, $s skipped"
  [ "$f" -ne 0 ] && grep -E '^(FAIL|  )' "$WORK/sql.log" | head -80
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
fi

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
