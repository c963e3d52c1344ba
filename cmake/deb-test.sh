#!/usr/bin/env bash
# `make test`: builds the .deb of BUILD_DIR (cpack -G DEB, cmake/install.cmake) into a temporary
# directory, checks its contents (dpkg-deb -c) and its control fields (dpkg-deb -f), unpacks it
# into a temporary root (dpkg -x) and builds examples/cmake-project against that root, with
# find_package(silt) and with pkg-config, then runs both and the packaged CLI. Prints
# "N passed, N failed".
#
#   bash cmake/deb-test.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build/release}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1"; failed=$((failed + 1)); }

for tool in cpack dpkg-deb dpkg-shlibdeps; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP deb: no $tool"; echo "0 passed, 0 failed, 1 skipped"; exit 0
  fi
done
if ! cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1; then
  fail "cpack -G DEB"; tail -20 "$tmp/cpack.log"
  echo "$passed passed, $failed failed"; exit 1
fi
deb=$(ls "$tmp"/pkg/silt_*_*.deb 2>/dev/null | head -1)
if [ -z "$deb" ]; then
  fail "cpack made no silt_<version>_<arch>.deb"; ls -R "$tmp/pkg" | head
  echo "$passed passed, $failed failed"; exit 1
fi
pass "cpack -G DEB: $(basename "$deb") ($(du -h "$deb" | cut -f1))"

dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
for f in /usr/bin/silt /usr/include/silt/silt.h /usr/include/silt/arrow.h \
         /usr/include/silt/table_files.h /usr/include/silt/error_classes.def \
         /usr/lib/libsilt_engine.a /usr/lib/libsilt_common.a /usr/lib/cmake/silt/siltConfig.cmake \
         /usr/lib/cmake/silt/siltConfigVersion.cmake /usr/lib/cmake/silt/siltTargets.cmake \
         /usr/lib/pkgconfig/silt.pc; do
  if grep -qx "$f" "$tmp/contents"; then pass "contents: $f"; else fail "contents: no $f"; fi
done
# Nothing but /usr, and no internal header (src/) or test binary.
if grep -v '^/$\|^/usr' "$tmp/contents" | grep -q .; then fail "contents outside /usr"; else pass "all under /usr"; fi
if grep -q 'unit_tests\|sql_tests\|/src/' "$tmp/contents"; then fail "internal files packaged"; else pass "no internal files"; fi

depends=$(dpkg-deb -f "$deb" Depends)
for dep in libc6 libstdc++6 libsnappy-dev libzstd-dev libsimdjson-dev libroaring-dev libre2-dev; do
  if echo "$depends" | grep -q "\b$dep\b"; then pass "Depends: $dep"; else fail "Depends lacks $dep: $depends"; fi
done
[ "$(dpkg-deb -f "$deb" Package)" = silt ] && pass "Package: silt" || fail "Package field"

root="$tmp/root"
dpkg -x "$deb" "$root"
if "$root/usr/bin/silt" --version | grep -q '^silt '; then pass "packaged silt --version"; else fail "packaged silt --version"; fi

want=$'1\tone\n2\tTWO\n3\tthree'
check() {  # check NAME OUTPUT
  if [ "$2" = "$want" ]; then pass "$1"; else fail "$1"; echo "$2" | head -20; fi
}
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if cmake -S examples/cmake-project -B "$tmp/app" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH="$root/usr" "${launcher[@]}" >"$tmp/app.log" 2>&1 &&
   cmake --build "$tmp/app" >>"$tmp/app.log" 2>&1; then
  check "find_package(silt) example against the .deb" "$("$tmp/app/silt_app" 2>&1)"
else
  fail "find_package(silt) example build against the .deb"; tail -30 "$tmp/app.log"
fi
pc() { PKG_CONFIG_PATH="$root/usr/lib/pkgconfig" pkg-config "$@"; }
if pc --exists silt && c++ -O1 -o "$tmp/pc_app" examples/cmake-project/main.cc \
     $(pc --cflags --libs silt) >"$tmp/pc.log" 2>&1; then
  check "pkg-config example against the .deb" "$("$tmp/pc_app" 2>&1)"
else
  fail "pkg-config example build against the .deb"; tail -30 "$tmp/pc.log"
fi
echo "$passed passed, $failed failed"
