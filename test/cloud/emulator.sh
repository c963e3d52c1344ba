# Sourced by test/cloud/run.sh and run-s3.sh (and bench/cloud.sh): installs the npm emulators
# pinned by test/cloud/package-lock.json on first use, and starts one on 127.0.0.1 with a random
# free port, waits until it accepts connections, and stops it on exit.
#
#   emulator_install BIN            npm ci when node_modules/.bin/BIN is missing or stale;
#                                   returns 1 (reason in $EMULATOR_ERROR) without Node/npm
#   emulator_start NAME CMD...      runs CMD (where @PORT becomes the port and @DIR its data
#                                   directory) in the background; sets EMULATOR_PORT, EMULATOR_DIR (a temporary
#                                   directory, removed at exit) and EMULATOR_PID; returns 1
#                                   (reason in $EMULATOR_ERROR) when it dies before listening
#   emulator_stop                   stops every emulator started (also run by the EXIT trap)
# Several may run at once (bench/cloud.sh): EMULATOR_PORT/DIR/PID are the last one's.
EMULATOR_HOME="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
EMULATOR_PID=""
EMULATOR_DIR=""
EMULATOR_ALL_PIDS=()
EMULATOR_ALL_DIRS=()
EMULATOR_PORT=""
EMULATOR_ERROR=""

emulator_install() {
  local bin="$1" log
  command -v node >/dev/null || { EMULATOR_ERROR="node not found"; return 1; }
  command -v npm >/dev/null || { EMULATOR_ERROR="npm not found"; return 1; }
  if [ ! -x "$EMULATOR_HOME/node_modules/.bin/$bin" ] ||
     [ "$EMULATOR_HOME/package-lock.json" -nt "$EMULATOR_HOME/node_modules" ]; then
    if ! log=$(cd "$EMULATOR_HOME" && npm ci --no-audit --no-fund 2>&1); then
      EMULATOR_ERROR="npm ci failed: $(echo "$log" | grep -m1 -i 'err' || echo "$log" | tail -1)"
      return 1
    fi
  fi
  [ -x "$EMULATOR_HOME/node_modules/.bin/$bin" ] || { EMULATOR_ERROR="$bin is not installed"; return 1; }
}

emulator_stop() {
  local pid dir
  for pid in "${EMULATOR_ALL_PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  for dir in "${EMULATOR_ALL_DIRS[@]}"; do rm -rf "$dir"; done
  EMULATOR_ALL_PIDS=()
  EMULATOR_ALL_DIRS=()
  EMULATOR_PID=""
  EMULATOR_DIR=""
}

emulator_start() {
  local name="$1" arg
  shift
  EMULATOR_DIR=$(mktemp -d "${TMPDIR:-/tmp}/silt-$name-XXXXXX")
  EMULATOR_ALL_DIRS+=("$EMULATOR_DIR")
  trap emulator_stop EXIT INT TERM
  # A free port (the kernel's choice).
  EMULATOR_PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  local cmd=()
  mkdir -p "$EMULATOR_DIR/data"
  for arg in "$@"; do
    arg="${arg//@PORT/$EMULATOR_PORT}"
    cmd+=("${arg//@DIR/$EMULATOR_DIR/data}")
  done
  "${cmd[@]}" >"$EMULATOR_DIR/$name.log" 2>&1 &
  EMULATOR_PID=$!
  EMULATOR_ALL_PIDS+=("$EMULATOR_PID")
  for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$EMULATOR_PORT") 2>/dev/null; then return 0; fi
    if ! kill -0 "$EMULATOR_PID" 2>/dev/null; then
      EMULATOR_ERROR="$name did not start: $(tail -3 "$EMULATOR_DIR/$name.log")"
      EMULATOR_PID=""
      return 1
    fi
    sleep 0.1
  done
  EMULATOR_ERROR="$name did not listen on port $EMULATOR_PORT within 10 s"
  return 1
}

# Runs silt_unit_tests with gtest filter $2 (binary dir $1), printing "<label>: N passed, N
# failed, N skipped" (and the failures); adds to the caller's passed/failed/skipped.
emulator_unit_tests() {
  local build="$1" filter="$2" label="$3" log="$EMULATOR_DIR/unit.log" rc p f s
  "$build/silt_unit_tests" --gtest_brief=1 --gtest_filter="$filter" >"$log" 2>&1
  rc=$?
  p=$(grep -oP '^\[  PASSED  \] \K[0-9]+' "$log" | tail -1)
  f=$(grep -oP '^\[  FAILED  \] \K[0-9]+(?= tests?, listed below)' "$log" | tail -1)
  s=$(grep -oP '^\[  SKIPPED \] \K[0-9]+' "$log" | tail -1)
  p=${p:-0}; f=${f:-0}; s=${s:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  echo "$label: $p passed, $f failed, $s skipped"
  [ "$f" -ne 0 ] && grep -vE '^\[       OK \]' "$log" | tail -60
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}

# Runs silt_sql_tests with the given arguments (binary dir $1), printing "<label>: …"; adds to
# the caller's counts.
emulator_sql_tests() {
  local build="$1" label="$2" log="$EMULATOR_DIR/sql.log" rc line p f s
  shift 2
  "$build/silt_sql_tests" "$@" >"$log" 2>&1
  rc=$?
  line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
  s=$(echo "$line" | grep -oP ', \K[0-9]+(?= skipped)')
  p=${p:-0}; f=${f:-0}; s=${s:-0}
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
  echo "$label: $p passed, $f failed, $s skipped"
  [ "$f" -ne 0 ] && grep -E '^(FAIL|  )' "$log" | head -80
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
}
