-- Cross-check after maintenance (issue 7): silt rewrites a table's files with INSERT, DELETE and
-- UPDATE (deletion vectors), OPTIMIZE, REORG … APPLY (PURGE) and VACUUM RETAIN 0 HOURS; then
-- DuckDB reads the remaining data files (only live, DV-free files are left) and must see exactly
-- the rows silt's Delta reader returns — the rewritten files hold every live row and no deleted one.
-- table m: --columns flat --rows 4000 --seed 21 --property delta.enableDeletionVectors=true
-- setup m: INSERT INTO ${m} SELECT * FROM ${m} WHERE id < 300
-- setup m: INSERT INTO ${m} SELECT * FROM ${m} WHERE id >= 3900
-- setup m: DELETE FROM ${m} WHERE id % 7 = 0 OR i32 IS NULL
-- setup m: OPTIMIZE ${m}
-- setup m: DELETE FROM ${m} WHERE id % 11 = 3
-- setup m: UPDATE ${m} SET s = concat(s, '!'), i64 = i64 + 1 WHERE id % 13 = 5
-- setup m: REORG TABLE ${m} APPLY (PURGE)
-- setup m: SET spark.databricks.delta.retentionDurationCheck.enabled = false; VACUUM ${m} RETAIN 0 HOURS
-- table p: --columns flat --rows 3000 --seed 22 --partition-by b:BOOLEAN --property delta.enableDeletionVectors=true
-- setup p: INSERT INTO ${p} SELECT * FROM ${p} WHERE id < 500
-- setup p: DELETE FROM ${p} WHERE id % 5 = 1
-- setup p: OPTIMIZE ${p} ZORDER BY (i32, s)
-- setup p: DELETE FROM ${p} WHERE id % 9 = 2
-- setup p: REORG TABLE ${p} WHERE b = true APPLY (PURGE)
-- setup p: OPTIMIZE ${p} WHERE b IS NULL OR b = false
-- setup p: SET spark.databricks.delta.retentionDurationCheck.enabled = false; VACUUM ${p} RETAIN 0 HOURS

-- name: all_rows
SELECT id AS id, b AS b, i8 AS i8, i16 AS i16, i32 AS i32, i64 AS i64, f32 AS f32, f64 AS f64,
       dec9 AS dec9, dec18 AS dec18, dec38 AS dec38, s AS s, dt AS dt, ts AS ts, req_i32 AS req_i32, req_s AS req_s
FROM ${m};

-- name: counts
SELECT count(*) AS n, count(DISTINCT id) AS ids, sum(i32) AS s32, max(s) AS ms FROM ${m};

-- name: partitioned_rows
SELECT id AS id, b AS b, i32 AS i32, s AS s, dec18 AS dec18, dt AS dt FROM ${p};

-- name: partitioned_counts
SELECT b AS b, count(*) AS n, sum(id) AS ids FROM ${p} GROUP BY b;
