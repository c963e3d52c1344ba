#!/usr/bin/env bash
# Checks that C++ files are formatted as .clang-format says (clang-format --dry-run -Werror).
# Checks the files listed in scripts/format-files.txt (paths or globs, relative to the repository
# root), or with --all every *.h/*.cc tracked by git. Fix a failure with `make format` or
# `clang-format -i FILE`. Run by `make test` (scripts/run-tests.sh); ends with one
# "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$FORMAT" >/dev/null; then
  echo "SKIP: $FORMAT not installed"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi
files=()
if [ "${1:-}" = "--all" ]; then
  mapfile -t files < <(git ls-files '*.h' '*.cc')
else
  shopt -s globstar nullglob
  while IFS= read -r pattern; do
    case "$pattern" in '' | '#'*) continue ;; esac
    # shellcheck disable=SC2206  # the pattern is a glob on purpose
    matched=($pattern)
    [ ${#matched[@]} -eq 0 ] && echo "note: $pattern matches no file"
    files+=("${matched[@]}")
  done < scripts/format-files.txt
fi
passed=0
failed=0
for f in "${files[@]}"; do
  if "$FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
    passed=$((passed + 1))
  else
    echo "FAIL: $f is not formatted (clang-format -i $f)"
    failed=$((failed + 1))
  fi
done
echo "${passed} passed, ${failed} failed"
[ "$failed" -eq 0 ]
