#!/usr/bin/env bash
# The short fuzz run of `make test`: builds the libFuzzer targets with clang and runs each briefly.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSILT_FUZZ=ON -DSILT_FUZZ_ENGINE=OFF >/dev/null
# A failed build prints its errors (ninja writes them to stdout) and the suite's failure line.
if ! out=$(ninja -C build/fuzz -j "$(nproc)" 2>&1); then
  echo "$out" | grep -E -A5 'error|FAILED' | head -60
  echo "0 passed, 1 failed"
  exit 1
fi
bash scripts/run-fuzz.sh build/fuzz "${FUZZ_SMOKE_SECONDS:-12}"
