#!/usr/bin/env bash
# UniForm (Iceberg) end to end: tables written by `silt sql` (INSERT, DELETE, UPDATE, OPTIMIZE,
# REORG … UPGRADE UNIFORM), then their Iceberg metadata checked by validate_iceberg.py, which
# reads it with Apache Avro's Python implementation (python3-avro) and replays the Delta log by
# itself: exactly the live data files, their row counts, sizes and partition values.
# Usage: test/uniform/run.sh SILT_BINARY. Ends with one "N passed, N failed[, N skipped]" line.
set -uo pipefail
SILT=${1:?usage: $0 SILT_BINARY}
SILT=$(cd "$(dirname "$SILT")" && pwd)/$(basename "$SILT")
HERE=$(cd "$(dirname "$0")" && pwd)
# The Debian interpreter: python3-avro installs there (a pyenv python3 on PATH may lack it).
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3
passed=0
failed=0
skipped=0
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if ! "$PY" -c 'import avro' 2>/dev/null; then
  echo "SKIP uniform: python3-avro is not installed (scripts/install-deps.sh installs it)"
  echo "0 passed, 0 failed, 1 skipped"
  exit 0
fi

sql() { (cd "$WORK" && "$SILT" sql -e "$1" 2>&1); }

# validate NAME TABLE_DIR: the metadata against the table's own row count.
validate() {
  local name=$1 dir=$2 rows out
  rows=$(sql "SELECT count(*) AS n FROM delta.\`$dir\`" | grep -oE '[0-9]+' | tail -1)
  if out=$("$PY" "$HERE/validate_iceberg.py" "$dir" "$rows" 2>&1); then
    echo "PASS $name ($rows rows)"; passed=$((passed + 1))
  else
    echo "FAIL $name"; echo "$out" | head -20; failed=$((failed + 1))
  fi
}

# step NAME SQL: a statement that must succeed.
step() {
  local out
  if ! out=$(sql "$2") || grep -q 'Error\|error' <<<"$out"; then
    echo "FAIL $1: $out" | head -5; failed=$((failed + 1)); return 1
  fi
}

T=$WORK/plain
step "create" "CREATE TABLE delta.\`$T\` (id BIGINT NOT NULL, name STRING, s STRUCT<x: INT, y: DATE>)
  USING DELTA TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')" && validate "create (empty)" "$T"
step "insert" "INSERT INTO delta.\`$T\` VALUES (1, 'a', named_struct('x', 1, 'y', DATE'2024-01-01')),
  (2, NULL, NULL), (3, 'c', named_struct('x', 3, 'y', NULL))" && validate "insert" "$T"
step "insert 2" "INSERT INTO delta.\`$T\` SELECT id, CAST(id AS STRING), NULL FROM range(10, 60)" &&
  validate "second insert" "$T"
step "delete" "DELETE FROM delta.\`$T\` WHERE id % 3 = 0" && validate "delete" "$T"
step "update" "UPDATE delta.\`$T\` SET name = 'u' WHERE id < 20" && validate "update" "$T"
step "optimize" "OPTIMIZE delta.\`$T\`" && validate "optimize" "$T"

P=$WORK/partitioned
step "create partitioned" "CREATE TABLE delta.\`$P\` (v INT, p STRING, d DATE, k INT) USING DELTA
  PARTITIONED BY (p, d) TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')" &&
  step "insert partitioned" "INSERT INTO delta.\`$P\` VALUES (1, 'a', DATE'2024-01-01', 1),
  (2, 'a', DATE'2024-01-02', 2), (3, NULL, NULL, 3), (4, 'b c', DATE'2024-01-01', 4)" &&
  validate "partitioned insert" "$P"
step "delete partition" "DELETE FROM delta.\`$P\` WHERE p = 'a' AND v = 1" &&
  validate "partitioned delete" "$P"
step "ctas" "CREATE TABLE delta.\`$WORK/ctas\` USING DELTA TBLPROPERTIES (
  'delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')
  AS SELECT id, id * 2 AS twice FROM range(0, 100)" && validate "ctas" "$WORK/ctas"

step "replace" "CREATE OR REPLACE TABLE delta.\`$WORK/ctas\` (a INT, b STRING) USING DELTA
  TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')" &&
  step "insert after replace" "INSERT INTO delta.\`$WORK/ctas\` VALUES (1, 'x')" &&
  validate "create or replace" "$WORK/ctas"

# ALTER on a table without deletion vectors: column mapping and UniForm in one statement.
A=$WORK/altered
step "create plain" "CREATE TABLE delta.\`$A\` (id INT) USING DELTA
  TBLPROPERTIES ('delta.enableDeletionVectors' = 'false')" &&
  step "insert plain" "INSERT INTO delta.\`$A\` SELECT id FROM range(0, 7)" &&
  step "alter" "ALTER TABLE delta.\`$A\` SET TBLPROPERTIES ('delta.columnMapping.mode' = 'name',
  'delta.enableIcebergCompatV2' = 'true', 'delta.universalFormat.enabledFormats' = 'iceberg')" &&
  validate "alter enables uniform" "$A"

# REORG … UPGRADE UNIFORM on a table with deletion vectors and no column mapping.
R=$WORK/reorg
step "create dv table" "CREATE TABLE delta.\`$R\` (id INT, v STRING) USING DELTA
  TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')" &&
  step "insert dv table" "INSERT INTO delta.\`$R\` SELECT id, CAST(id AS STRING) FROM range(0, 40)" &&
  step "delete with dv" "DELETE FROM delta.\`$R\` WHERE id < 5" &&
  step "reorg upgrade" "REORG TABLE delta.\`$R\` APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2))" &&
  validate "reorg upgrade uniform" "$R"
step "insert after reorg" "INSERT INTO delta.\`$R\` VALUES (100, 'x')" &&
  validate "insert after reorg" "$R"

# Array, map and nested struct columns: Delta's nested column mapping ids on CREATE and ALTER …
# ADD COLUMNS, Iceberg's element/key/value ids, and the same ids in the data files' Parquet schema.
N=$WORK/nested
UF="TBLPROPERTIES ('delta.enableIcebergCompatV2' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')"
step "create nested" "CREATE TABLE delta.\`$N\` (id INT, tags ARRAY<STRING>, attrs MAP<STRING, INT>,
  s STRUCT<a: INT, b: ARRAY<STRUCT<c: INT, d: MAP<INT, ARRAY<INT>>>>>) USING DELTA $UF" &&
  step "insert nested" "INSERT INTO delta.\`$N\` VALUES (1, array('a', 'b'), map('k', 1),
  named_struct('a', 1, 'b', array(named_struct('c', 2, 'd', map(3, array(4, 5)))))),
  (2, NULL, map(), NULL)" && validate "nested columns" "$N"
step "add nested columns" "ALTER TABLE delta.\`$N\` ADD COLUMNS (more ARRAY<ARRAY<BIGINT>>,
  kv MAP<INT, STRUCT<x: INT, y: ARRAY<STRING>>>)" &&
  step "insert after add" "INSERT INTO delta.\`$N\` VALUES (3, array('z'), NULL, NULL,
  array(array(7)), map(1, named_struct('x', 1, 'y', array('w'))))" &&
  validate "nested columns added" "$N"
step "ctas nested" "CREATE TABLE delta.\`$WORK/ctas_nested\` USING DELTA $UF
  AS SELECT id, array(id, id + 1) AS arr, map('k', id) AS m FROM range(0, 20)" &&
  validate "ctas nested" "$WORK/ctas_nested"

# Decimal, binary and timestamp_ntz partition values (Iceberg's fixed-size decimal in the tuple).
D=$WORK/decimal_parts
step "create decimal partitioned" "CREATE TABLE delta.\`$D\` (v INT, d DECIMAL(10, 2),
  big DECIMAL(30, 5), b BINARY, ts TIMESTAMP_NTZ) USING DELTA PARTITIONED BY (d, big, b, ts) $UF" &&
  step "insert decimal partitions" "INSERT INTO delta.\`$D\` VALUES
  (1, 12.34, -123456789012345678901.5, X'6869', TIMESTAMP_NTZ'2024-01-02 03:04:05'),
  (2, -0.01, 0, X'', TIMESTAMP_NTZ'1960-01-01 00:00:00'), (3, NULL, NULL, NULL, NULL)" &&
  validate "decimal partitions" "$D"

# IcebergCompatV1 (no arrays or maps): the same metadata, then REORG … UPGRADE UNIFORM to V2.
V1=$WORK/v1
step "create v1" "CREATE TABLE delta.\`$V1\` (id INT, p STRING, s STRUCT<x: INT>) USING DELTA
  PARTITIONED BY (p) TBLPROPERTIES ('delta.enableIcebergCompatV1' = 'true',
  'delta.universalFormat.enabledFormats' = 'iceberg')" &&
  step "insert v1" "INSERT INTO delta.\`$V1\` VALUES (1, 'a', named_struct('x', 1)), (2, 'b', NULL)" &&
  validate "icebergCompatV1" "$V1"
step "v1 to v2" "REORG TABLE delta.\`$V1\` APPLY (UPGRADE UNIFORM(ICEBERG_COMPAT_VERSION = 2))" &&
  validate "icebergCompatV1 upgraded to V2" "$V1"

# Snapshot history: every conversion keeps the earlier snapshots (Iceberg's default 5 days) …
H=$WORK/history
step "create history" "CREATE TABLE delta.\`$H\` (id INT) USING DELTA $UF" &&
  step "history 1" "INSERT INTO delta.\`$H\` VALUES (1)" &&
  step "history 2" "INSERT INTO delta.\`$H\` VALUES (2)" &&
  step "history 3" "DELETE FROM delta.\`$H\` WHERE id = 1" &&
  EXPECT_SNAPSHOTS=4 validate "snapshot history" "$H"
# … and expires them past history.expire.max-snapshot-age-ms, with their manifests.
step "expire all" "ALTER TABLE delta.\`$H\` SET TBLPROPERTIES (
  'delta.universalFormat.config.history.expire.max-snapshot-age-ms' = '0')" &&
  step "history 4" "INSERT INTO delta.\`$H\` VALUES (4)" &&
  EXPECT_SNAPSHOTS=1 validate "snapshot expiry" "$H"

echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ]
