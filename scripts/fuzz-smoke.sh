#!/usr/bin/env bash
# The short fuzz run of `make test`: builds the libFuzzer targets with clang and runs each briefly.
set -euo pipefail
cd "$(dirname "$0")/.."
CC=clang CXX=clang++ cmake -S . -B build/fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSILT_FUZZ=ON -DSILT_FUZZ_ENGINE=OFF >/dev/null
ninja -C build/fuzz -j "$(nproc)" >/dev/null
bash scripts/run-fuzz.sh build/fuzz "${FUZZ_SMOKE_SECONDS:-12}"
