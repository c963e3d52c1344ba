#!/usr/bin/env bash
# Checks that the build enforces the layer order of docs/ARCHITECTURE.md: each src/<layer>
# compiles with one include directory, <build>/layers/<layer>/, which shows only the layers it may
# use, so a wrong-way include does not compile. Run by `make test` (scripts/run-tests.sh) and CTest.
#   1. The table below (the contract) matches what each layer's include directory shows.
#   2. Every source of a layer is compiled with its layer's directory and never with src/.
#   3. Every `#include "<layer>/..."` in src/ is allowed by the table.
#   4. A planted wrong-way include makes a real layer source fail to compile with its exact
#      build command, while the same source without it compiles (so the check can fail).
#   5. include/silt/ (the public API) stands alone: each header compiles with only include/, and
#      examples/embed.cc, built that way, runs.
# Usage: scripts/check-layers.sh [BUILD_DIR]   (default build/release, configured by CMake)
# Ends with one "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${1:-build/release}
BUILD=$(cd "$BUILD" 2>/dev/null && pwd) || { echo "no build directory ${1:-build/release}"; echo "0 passed, 1 failed"; exit 1; }
LAYERS=$BUILD/layers
CXX=${CXX:-c++}
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

# The layers, bottom to top, and what each may include besides itself (docs/ARCHITECTURE.md).
ORDER=(common vector io parquet delta sql exec planner ops maintenance commands engine server cli)
declare -A USES=(
  [common]=""
  [vector]="common"
  [io]="common vector"
  [parquet]="common vector io"
  [delta]="common vector io parquet"
  [sql]="common vector"
  [exec]="common vector io parquet delta"
  [planner]="common vector io parquet delta sql exec"
  [ops]="common vector io parquet delta exec"
  [maintenance]="common vector io parquet delta sql exec planner ops"
  [commands]="common vector io parquet delta sql exec planner ops maintenance"
  [engine]="common vector io parquet delta sql exec planner ops maintenance commands"
  [server]="common vector io parquet delta sql exec planner ops maintenance commands engine"
  [cli]="common vector io parquet delta sql exec planner ops maintenance commands engine server"
)

allowed() {  # allowed LAYER USED
  [ "$1" = "$2" ] && return 0
  case " ${USES[$1]} " in *" $2 "*) return 0 ;; esac
  return 1
}

# Layers with code in this tree (ops may not exist yet).
present=()
for l in "${ORDER[@]}"; do [ -d "src/$l" ] && present+=("$l"); done

# 1. What each layer's include directory shows, probed with __has_include on a real header.
for l in "${present[@]}"; do
  if [ ! -d "$LAYERS/$l" ]; then
    # A fuzz build configures only the decoding layers.
    continue
  fi
  for u in "${present[@]}"; do
    header=$(cd src && find "$u" -name '*.h' | sort | head -1)
    [ -n "$header" ] || continue
    if printf '#if !__has_include("%s")\n#error hidden\n#endif\n' "$header" |
      "$CXX" -std=c++20 -E -P -I"$LAYERS/$l" -x c++ - >/dev/null 2>&1; then
      visible=1
    else
      visible=0
    fi
    if allowed "$l" "$u"; then
      [ $visible = 1 ] && pass || fail "$l cannot see $u/ (layers/$l is missing a link)"
    else
      [ $visible = 0 ] && pass || fail "$l sees $u/, which it may not include"
    fi
  done
done

# Parses compile_commands.json into "file<TAB>directory<TAB>command" lines (JSON unescaped).
commands() {
  awk '
    function value(line) { sub(/^[^:]*: "/, "", line); sub(/",?[ \t]*$/, "", line);
      gsub(/\\\\/, "\001", line); gsub(/\\"/, "\"", line); gsub("\001", "\\", line); return line }
    /^  "directory":/ { dir = value($0) }
    /^  "command":/ { cmd = value($0) }
    /^  "file":/ { print value($0) "\t" dir "\t" cmd }
  ' "$BUILD/compile_commands.json"
}

# 2. Each layer source compiles with exactly its layer's include directory.
if [ ! -f "$BUILD/compile_commands.json" ]; then
  fail "$BUILD/compile_commands.json is missing (configure with CMake first)"
else
  while IFS=$'\t' read -r file dir cmd; do
    rel=${file#"$ROOT"/src/}
    [ "$rel" != "$file" ] || continue  # tests, fuzzers, benchmarks are white-box
    layer=${rel%%/*}
    [ "$rel" = "cli/main.cc" ] && layer=cli
    includes=$(grep -oE -- '(^| )-I ?[^ ]+' <<<"$cmd" | sed -E 's/^ ?-I ?//' | tr '\n' ' ')
    if [ "$includes" = "$LAYERS/$layer " ]; then
      pass
    else
      fail "src/$rel compiles with include directories '$includes' (want only $LAYERS/$layer)"
    fi
  done < <(commands)
fi

# 3. The includes in the source tree follow the table (names the offending line).
for l in "${present[@]}"; do
  while IFS= read -r hit; do
    used=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$hit")
    [ -d "src/$used" ] || continue  # not a layer (e.g. silt/silt.h, the public API)
    if allowed "$l" "$used"; then pass; else fail "wrong-way include: $hit"; fi
  done < <(grep -rnE '^#include "[a-z_]+/' "src/$l" || true)
done

# 4. A planted wrong-way include fails the real build command; the untouched copy compiles.
# probe SOURCE PLANTED_INCLUDE
probe() {
  local source=$ROOT/src/$1 planted=$2 line file dir cmd tmp
  line=$(commands | awk -F'\t' -v f="$source" '$1 == f' | head -1)
  if [ -z "$line" ]; then
    [ -d "$LAYERS/${1%%/*}" ] && fail "no compile command for src/$1"
    return
  fi
  IFS=$'\t' read -r file dir cmd <<<"$line"
  tmp=$(mktemp -d)
  cp "$source" "$tmp/clean.cc"
  { echo "#include \"$planted\""; cat "$source"; } >"$tmp/planted.cc"
  # The same command, checking syntax only, on the copies (ccache left out).
  cmd=${cmd#*ccache }
  cmd=$(sed -E 's/ -o [^ ]+//; s/ -c [^ ]+$//' <<<"$cmd")
  if (cd "$dir" && eval "$cmd -fsyntax-only $tmp/clean.cc") >"$tmp/clean.log" 2>&1; then
    pass
  else
    fail "src/$1 does not compile as is:"; head -5 "$tmp/clean.log"
  fi
  if (cd "$dir" && eval "$cmd -fsyntax-only $tmp/planted.cc") >"$tmp/planted.log" 2>&1; then
    fail "src/$1 with #include \"$planted\" compiled: the wrong-way include was not caught"
  elif grep -qE "$planted(: No such file|' file not found)" "$tmp/planted.log"; then  # gcc, clang
    pass
  else
    fail "src/$1 with #include \"$planted\" failed for another reason:"; head -5 "$tmp/planted.log"
  fi
  rm -rf "$tmp"
}
probe exec/row_hash.cc planner/binder.h  # execution must not know the planner
probe sql/lexer.cc exec/operator.h       # the parser must not know execution
probe delta/z85.cc exec/operator.h       # the Delta protocol must not know execution
probe exec/row_hash.cc silt/silt.h       # only engine and cli implement or use the Database API

# 5. The public API stands alone: each header of include/silt/ compiles with include/ as the only
#    include directory, an internal header does not, and the embedder's program (built that way,
#    examples/embed.cc) runs.
for header in include/silt/*.h; do
  if printf '#include "silt/%s"\n' "${header##*/}" |
    "$CXX" -std=c++20 -fsyntax-only -I"$ROOT/include" -x c++ - >/dev/null 2>&1; then
    pass
  else
    fail "$header does not compile on its own with only include/ on the include path"
  fi
done
if printf '#include "common/status.h"\n' | "$CXX" -std=c++20 -fsyntax-only -I"$ROOT/include" -x c++ - >/dev/null 2>&1; then
  fail "an internal header (common/status.h) compiled with only include/: the check cannot fail"
else
  pass
fi
if [ -x "$BUILD/silt_embed_example" ]; then
  out=$("$BUILD/silt_embed_example" 2>&1)
  if grep -qP '^click\t2$' <<<"$out" && grep -q '^error class: TABLE_OR_VIEW_NOT_FOUND$' <<<"$out"; then
    pass
  else
    fail "silt_embed_example printed:"; echo "$out" | head -10
  fi
fi

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
