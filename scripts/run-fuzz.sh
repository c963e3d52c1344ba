#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR for SECONDS each, seeded with the committed corpora in
# test/fuzz/corpus/<target>, the conformance Parquet files (when present) and files silt writes.
# Prints "N passed, N failed" (one per target).
set -uo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/fuzz}
seconds=${2:-60}
corpus_root=build/fuzz-corpus
mkdir -p "$corpus_root/parquet" "$corpus_root/delta_log" "$corpus_root/deletion_vector"
# Seeds: real commit files and DV bitmaps from the conformance tables (when present).
if [ -z "$(ls -A "$corpus_root/delta_log" 2>/dev/null)" ]; then
  find ../shared/conformance -path '*_delta_log/*.json' -size -64k 2>/dev/null | head -200 | while read -r f; do
    cp "$f" "$corpus_root/delta_log/$(echo "$f" | md5sum | cut -c1-16).json"
  done
  find ../shared/conformance -name 'deletion_vector_*.bin' 2>/dev/null | head -50 | while read -r f; do
    # A DV file is [version][size BE][bitmap][crc]; the bitmap starts at byte 5.
    tail -c +6 "$f" | head -c -4 > "$corpus_root/deletion_vector/$(basename "$f")" 2>/dev/null || true
  done
fi
seed=$corpus_root/parquet
if [ -z "$(ls -A "$seed" 2>/dev/null)" ]; then
  # Small real files as seeds (the fuzzer mutates them).
  find ../shared/conformance -name '*.parquet' -size -64k 2>/dev/null | head -300 | while read -r f; do
    cp "$f" "$seed/$(echo "$f" | md5sum | cut -c1-16).parquet"
  done
  if [ -x build/release/silt ]; then
    for set in flat nested; do
      for codec in none snappy zstd gzip; do
        build/release/silt parquet gen "$seed/gen-$set-$codec.parquet" --rows 50 --columns $set --codec $codec >/dev/null 2>&1 || true
        build/release/silt parquet gen "$seed/gen-$set-$codec-v2.parquet" --rows 50 --columns $set --codec $codec --page-version 2 >/dev/null 2>&1 || true
      done
    done
  fi
fi
# SQL seeds: every statement of Spark's SQL golden files (one file each).
sql_seed=$corpus_root/sql_engine
if [ -z "$(ls -A "$sql_seed" 2>/dev/null)" ]; then
  mkdir -p "$sql_seed"
  for f in ../shared/conformance/spark-sql/inputs/*.sql ../shared/conformance/spark-sql/inputs/*/*/*.sql; do
    [ -f "$f" ] || continue
    awk -v dir="$sql_seed" -v base="$(basename "$f" .sql)" '
      /^--/ { next }
      { stmt = stmt $0 "\n" }
      /;[[:space:]]*$/ { n++; printf "%s", stmt > (dir "/" base "-" n ".sql"); close(dir "/" base "-" n ".sql"); stmt = "" }
    ' "$f"
  done
fi
passed=0; failed=0
for fuzzer in "$build"/*_fuzzer; do
  [ -x "$fuzzer" ] || continue
  name=$(basename "$fuzzer")
  work=$corpus_root/${name%_fuzzer}-work
  mkdir -p "$work"
  case $name in
    parquet_fuzzer) seeds=$corpus_root/parquet ;;
    delta_log_fuzzer) seeds=$corpus_root/delta_log ;;
    deletion_vector_fuzzer) seeds=$corpus_root/deletion_vector ;;
    sql_parser_fuzzer) seeds=test/fuzz/sql_corpus ;;  # checked-in SQL seeds
    sql_engine_fuzzer) seeds="$sql_seed test/fuzz/sql_corpus" ;;
    *) seeds=$work ;;
  esac
  # Committed seeds (test/fuzz/corpus/<target>: small real and hostile inputs) come first.
  committed=test/fuzz/corpus/${name%_fuzzer}
  [ -d "$committed" ] || committed=
  dict=
  [ "$name" = sql_engine_fuzzer ] && dict=-dict=test/fuzz/sql.dict
  # shellcheck disable=SC2086  # $seeds and $dict: word lists
  if "$fuzzer" $dict -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
      -print_final_stats=1 "$work" $seeds $committed >"$corpus_root/$name.log" 2>&1; then
    echo "PASS $name ($(grep -o 'stat::number_of_executed_units: [0-9]*' "$corpus_root/$name.log" | awk '{print $2}') runs)"
    passed=$((passed + 1))
  else
    echo "FAIL $name"; tail -40 "$corpus_root/$name.log"
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
