#!/usr/bin/env bash
# Installs the Debian 12 packages silt needs to build, test and benchmark.
# Idempotent: quiet when everything is present; runs `apt-get update` only when something is missing.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config ccache mold clang
  libsnappy-dev libzstd-dev liblz4-dev zlib1g-dev libbrotli-dev
  libroaring-dev libavro-dev libsimdjson-dev libre2-dev libedit-dev libssl-dev libcurl4-openssl-dev
  libgtest-dev libgmock-dev googletest
  strace python3
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-setuptools python3-pip
  python3-venv python3-dask python3-distributed
  # UniForm's test reads the Iceberg manifests with an Avro implementation independent of silt's.
  python3-avro
  libcpp-httplib-dev chromium
  # bench/cloud.sh above 10k files: a private MariaDB for Azurite's SQL metadata store (no service)
  mariadb-server-core mariadb-client-core
)
# Node.js + npm (for the DuckDB interop/bench peer) may come from outside Debian; take Debian's only when absent.
command -v npm >/dev/null 2>&1 || PACKAGES+=(nodejs npm)

# The storage emulators of the cloud suites (npm, versions pinned by test/cloud/package-lock.json):
# installed once; a failure (no network) only warns, the suites then SKIP.
CLOUD_DIR="$(cd "$(dirname "$0")/.." && pwd)/test/cloud"
if command -v npm >/dev/null 2>&1 && [ -f "$CLOUD_DIR/package-lock.json" ] &&
  { [ ! -x "$CLOUD_DIR/node_modules/.bin/s3rver" ] || [ ! -x "$CLOUD_DIR/node_modules/.bin/azurite-blob" ]; }; then
  (cd "$CLOUD_DIR" && npm ci --no-audit --no-fund >/dev/null 2>&1) ||
    echo "install-deps: npm ci in test/cloud failed (the cloud suites will skip)" >&2
fi

# The web console's chart library (src/server/web, vendored into the binary at build time) and its
# browser suite's driver (test/web): npm, pinned by their package-lock.json files; without them
# the console shows tables instead of charts and the browser suite skips.
for WEB_DIR in "$(cd "$(dirname "$0")/.." && pwd)/src/server/web" "$(cd "$(dirname "$0")/.." && pwd)/test/web"; do
  if command -v npm >/dev/null 2>&1 && [ -f "$WEB_DIR/package-lock.json" ] && [ ! -d "$WEB_DIR/node_modules" ]; then
    (cd "$WEB_DIR" && npm ci --no-audit --no-fund >/dev/null 2>&1) ||
      echo "install-deps: npm ci in $WEB_DIR failed (no charts / the browser suite will skip)" >&2
  fi
done

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
