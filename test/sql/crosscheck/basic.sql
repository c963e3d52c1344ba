-- Cross-check: scans, filters, aggregates, joins and windows over generated tables; silt over
-- the Delta tables, DuckDB over the same Parquet files (see test/interop/crosscheck.sh).
-- table flat: --columns flat --rows 5000 --seed 11
-- table parts: --columns flat --rows 3000 --seed 12 --partition-by b:BOOLEAN

-- name: count
SELECT count(*) AS n FROM ${flat};

-- name: count_filtered
SELECT count(*) AS n, count(i32) AS nn FROM ${flat} WHERE i32 > 0 OR i16 IS NULL;

-- name: group_by_boolean
SELECT b, count(*) AS n, sum(i32) AS total, min(i32) AS lo, max(i32) AS hi FROM ${flat} GROUP BY b;

-- name: avg_by_key
SELECT i8 % 4 AS k, count(*) AS n, avg(i16) AS a FROM ${flat} GROUP BY i8 % 4;

-- name: decimal_sums
SELECT sum(dec9) AS s9, sum(dec18) AS s18, min(dec38) AS lo, max(dec38) AS hi FROM ${flat};

-- name: strings
SELECT upper(s) AS u, length(s) AS len, count(*) AS n FROM ${flat} GROUP BY upper(s), length(s);

-- name: count_distinct
SELECT count(DISTINCT s) AS ns, count(DISTINCT i8) AS n8 FROM ${flat};

-- name: top_n
SELECT id, i32 FROM ${flat} ORDER BY i32 DESC NULLS LAST, id LIMIT 10;

-- name: dates
SELECT year(dt) AS y, count(*) AS n FROM ${flat} WHERE dt IS NOT NULL GROUP BY year(dt);

-- name: case_when
SELECT CASE WHEN i32 IS NULL THEN 'null' WHEN i32 < 0 THEN 'neg' ELSE 'pos' END AS sign,
       count(*) AS n
FROM ${flat}
GROUP BY CASE WHEN i32 IS NULL THEN 'null' WHEN i32 < 0 THEN 'neg' ELSE 'pos' END;

-- name: self_join
SELECT count(*) AS n, sum(a.id + b.id) AS ids
FROM ${flat} a JOIN ${flat} b ON a.i8 = b.i8
WHERE a.id < 200 AND b.id < 200;

-- name: left_join_nulls
SELECT a.id AS id, b.id AS other
FROM (SELECT id, i8 FROM ${flat} WHERE id < 30) a
LEFT JOIN (SELECT id, i8 FROM ${flat} WHERE id >= 4990) b ON a.i8 = b.i8;

-- name: window_row_number
SELECT id, row_number() OVER (PARTITION BY b ORDER BY id) AS rn FROM ${flat} WHERE id < 50;

-- name: partitioned_count
SELECT b, count(*) AS n, count(DISTINCT s) AS ns FROM ${parts} GROUP BY b;

-- name: partition_filter
SELECT count(*) AS n FROM ${parts} WHERE b = true AND i32 > 0;
