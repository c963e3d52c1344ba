#!/usr/bin/env node
// Reads Parquet data files of a Delta table with DuckDB (hive partitions from the paths) and
// prints the rows as JSON: [[id, name, amount text, day text, p], ...].
//
//   node duckdb_read.mjs INTEROP_DIR FILE...    (INTEROP_DIR: test/interop, where
//                                                @duckdb/node-api is installed)
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [interop, ...files] = process.argv.slice(2);
const require = createRequire(path.join(interop, 'package.json'));
const duck = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
const db = await duck.DuckDBInstance.create(':memory:');
const conn = await db.connect();
const list = '[' + files.map((f) => "'" + f.replaceAll("'", "''") + "'").join(', ') + ']';
const reader = await conn.runAndReadAll(
  `SELECT id, name, CAST(amount AS VARCHAR), CAST(day AS VARCHAR), p FROM read_parquet(${list}, ` +
  `hive_partitioning = true, hive_types_autocast = false)`);
const rows = reader.getRows().map((r) => r.map((v) => (typeof v === 'bigint' ? Number(v) : v)));
console.log(JSON.stringify(rows));
