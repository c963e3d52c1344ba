#!/usr/bin/env bash
# The `silt` command line's usage: `silt help [CMD]`, `silt CMD --help`, exit codes of usage errors.
# Usage: test/cli/usage.sh SILT_BINARY. Ends with one "N passed, N failed" line.
set -uo pipefail
SILT=${1:?usage: $0 SILT_BINARY}
SILT=$(cd "$(dirname "$SILT")" && pwd)/$(basename "$SILT")
passed=0
failed=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

# check NAME WANT_RC GREP_PATTERN [NOT_PATTERN] -- ARGS...: exit code and output (stdout+stderr).
check() {
  local name=$1 want_rc=$2 pattern=$3 not=$4 out rc
  shift 5
  out=$(cd "$WORK" && "$SILT" "$@" 2>&1)
  rc=$?
  if [ "$rc" -ne "$want_rc" ]; then
    echo "FAIL $name: exit $rc, want $want_rc"; echo "$out" | head -5; failed=$((failed + 1))
  elif ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: no line matches '$pattern'"; echo "$out" | head -5; failed=$((failed + 1))
  elif [ -n "$not" ] && grep -qE -- "$not" <<<"$out"; then
    echo "FAIL $name: a line matches '$not'"; echo "$out" | head -5; failed=$((failed + 1))
  else
    echo "PASS $name"; passed=$((passed + 1))
  fi
}

check "help lists every command" 0 'silt maintain' '' -- help
check "no arguments: usage, exit 1" 1 'silt sql \[-e SQL\]' '' --
check "sql --help: that command and its options" 0 '--memory-limit SIZE' 'silt parquet' -- sql --help
check "sql -h" 0 'silt sql \[-e SQL\]' 'silt maintain' -- sql -h
check "help maintain" 0 'silt maintain \[--warehouse DIR\]' 'silt sql' -- help maintain
check "help serve" 0 'silt serve \[--port N\]' 'silt sql' -- help serve
check "parquet cat --help" 0 'silt parquet cat FILE' 'silt delta' -- parquet cat --help
check "help of an unknown command: exit 2" 2 "unknown command 'nosuch'" '' -- help nosuch
check "unknown option: exit 2" 2 "\[USAGE\] unknown option '--nosuch'" '' -- sql --nosuch
check "'--help' inside SQL text is SQL" 0 '^--help$' 'usage:' -- sql --mode tabs -e "SELECT '--help' AS x"

check "help --help: the whole usage" 0 'silt maintain' '' -- help --help
check "--version" 0 '^silt [0-9]+\.[0-9]+\.[0-9]+$' '' -- --version
# Every subcommand answers --help with its own usage line (exit 0), before parsing anything else.
for cmd in version "parquet schema" "parquet meta" "parquet cat" "delta info" "delta files" \
           "delta cat" "delta gen" inspect maintain stream demo sql shell; do
  first=${cmd%% *}
  # shellcheck disable=SC2086
  check "$cmd --help" 0 "^  silt $first" 'unknown|\[USAGE\]' -- $cmd --help
done

echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
