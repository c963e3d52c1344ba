#!/usr/bin/env node
// TPC-H-like benchmark, DuckDB side (DuckDB from bench/peers, pinned): runs bench/tpch/queries.sql
// over the Parquet files of the Delta tables tpch_bench wrote (all files are live: the generator
// only appends), best of N runs, timed around the query only.
//
//   node bench/tpch_duckdb.mjs DATA_DIR --threads N [--runs 3]
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, 'peers', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
const data = path.resolve(args[0]);
const threads = Number(opt('--threads', '1'));
const runs = Number(opt('--runs', '3'));

const text = fs.readFileSync(path.join(here, 'tpch', 'queries.sql'), 'utf8');
const queries = [];
for (const line of text.split('\n')) {
  if (line.startsWith('-- name: ')) queries.push({ name: line.slice(9).trim(), sql: '' });
  else if (queries.length && !line.startsWith('--')) queries[queries.length - 1].sql += line + '\n';
}

const db = await DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run(`SET threads = ${threads}`);
for (const q of queries) {
  const sql = q.sql.replace(/\{(\w+)\}/g, (_, t) => `read_parquet('${data}/${t}/*.parquet')`).replace(/;\s*$/, '');
  let best = Infinity;
  let rows = 0;
  let first = '';
  for (let r = 0; r < runs; r++) {
    const t0 = process.hrtime.bigint();
    const reader = await conn.runAndReadAll(sql);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const all = reader.getRowsJS();
    rows = all.length;
    if (rows) first = all[0].map((v) => String(v)).join('|');
    best = Math.min(best, s);
  }
  console.log(`bench=tpch_${q.name} engine=duckdb threads=${threads} seconds=${best.toFixed(6)} rows=${rows}`);
  console.log(`firstrow=tpch_${q.name} ${first}`);
}
