#!/usr/bin/env bash
# `make test`: installs BUILD_DIR into a temporary prefix (cmake --install), then builds this
# project against it twice — with find_package(silt) and with pkg-config — and runs both.
# Prints "N passed, N failed".
#
#   bash examples/cmake-project/run.sh [BUILD_DIR]
set -uo pipefail
cd "$(dirname "$0")/../.."
BUILD=${1:-build/release}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
want=$'1\tone\n2\tTWO\n3\tthree'

check() {  # check NAME OUTPUT
  if [ "$2" = "$want" ]; then
    echo "PASS $1"; passed=$((passed + 1))
  else
    echo "FAIL $1"; echo "$2" | head -20; failed=$((failed + 1))
  fi
}

if ! cmake --install "$BUILD" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1; then
  echo "FAIL cmake --install"; tail -20 "$tmp/install.log"
  echo "0 passed, 1 failed"; exit 1
fi
for f in include/silt/silt.h include/silt/arrow.h bin/silt lib/cmake/silt/siltConfig.cmake \
         lib/pkgconfig/silt.pc lib/libsilt_engine.a; do
  if [ -e "$tmp/prefix/$f" ]; then passed=$((passed + 1)); else echo "FAIL installed $f"; failed=$((failed + 1)); fi
done
if "$tmp/prefix/bin/silt" --version | grep -q '^silt '; then
  passed=$((passed + 1))
else
  echo "FAIL installed silt --version"; failed=$((failed + 1))
fi

launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
if cmake -S examples/cmake-project -B "$tmp/app" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH="$tmp/prefix" "${launcher[@]}" >"$tmp/app.log" 2>&1 &&
   cmake --build "$tmp/app" >>"$tmp/app.log" 2>&1; then
  check "find_package(silt) example" "$("$tmp/app/silt_app" 2>&1)"
else
  echo "FAIL find_package(silt) example build"; tail -30 "$tmp/app.log"; failed=$((failed + 1))
fi

if PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --exists silt &&
   c++ -O1 -o "$tmp/pc_app" examples/cmake-project/main.cc \
     $(PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig" pkg-config --cflags --libs silt) >"$tmp/pc.log" 2>&1; then
  check "pkg-config example" "$("$tmp/pc_app" 2>&1)"
else
  echo "FAIL pkg-config example build"; tail -30 "$tmp/pc.log"; failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
