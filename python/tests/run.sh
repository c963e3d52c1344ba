#!/usr/bin/env bash
# The Python package's suite (`make test`): pytest over python/tests with the module as built in
# BUILD_DIR (default build/release), then `pip install --no-build-isolation ./python` into a
# throwaway venv and an import from it. Prints one "N passed, N failed, N skipped" line; SKIPs
# when the module was not built (no pybind11-dev / python3-dev) or pytest/pandas/numpy are absent.
#
#   bash python/tests/run.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/release}
PY=/usr/bin/python3  # Debian's interpreter, the one the module is built for

skip_all() {
  echo "SKIP python: $1"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
}

[ -x "$PY" ] || skip_all "no /usr/bin/python3"
ls "$BUILD"/python/silt/_silt*.so >/dev/null 2>&1 ||
  skip_all "the module was not built in $BUILD (needs pybind11-dev and python3-dev; SILT_PYTHON)"
for mod in pytest pandas numpy; do
  "$PY" -c "import $mod" 2>/dev/null || skip_all "python3-$mod is not installed"
done

log=$(mktemp)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp" "$log"' EXIT
PYTHONPATH="$PWD/$BUILD/python" PYTHONDONTWRITEBYTECODE=1 \
  "$PY" -m pytest -q -p no:cacheprovider -rs python/tests 2>&1 | tee "$log"
summary=$(tail -1 "$log")
p=$(echo "$summary" | grep -oP '[0-9]+(?= passed)' || true)
f=$(echo "$summary" | grep -oP '[0-9]+(?= failed)' || true)
e=$(echo "$summary" | grep -oP '[0-9]+(?= error)' || true)
s=$(echo "$summary" | grep -oP '[0-9]+(?= skipped)' || true)
p=${p:-0}; f=$(( ${f:-0} + ${e:-0} )); s=${s:-0}
[ "$p" -eq 0 ] && [ "$f" -eq 0 ] && f=1  # pytest did not run

# pip install into a venv that sees Debian's setuptools (no index: nothing is downloaded), reusing
# the module built in $BUILD.
if "$PY" -m venv --system-site-packages "$tmp/venv" >/dev/null 2>&1 &&
   SILT_BUILD_DIR="$PWD/$BUILD" "$tmp/venv/bin/pip" install -q --no-build-isolation --no-index \
     ./python >"$tmp/pip.log" 2>&1 &&
   (cd "$tmp" && "$tmp/venv/bin/python" -c \
     "import silt; assert silt.connect().sql('SELECT 40 + 2').fetchall() == [(42,)]; print('PASS pip install')"); then
  p=$((p + 1))
else
  echo "FAIL pip install --no-build-isolation ./python"; tail -20 "$tmp/pip.log" 2>/dev/null
  f=$((f + 1))
fi
rm -rf python/build python/silt.egg-info
echo "$p passed, $f failed, $s skipped"
