#!/usr/bin/env node
// DuckDB side of bench/dml.sh and bench/compact.sh (DuckDB from bench/peers, pinned): runs the
// ';'-terminated statements read from stdin on a DuckDB database file, one statement per
// "-- time: NAME" marker being timed (around that statement only, autocommit), and prints
// `NAME seconds` lines. A statement after a "-- rows: NAME" marker prints its result rows as
// `rows NAME<TAB>v1<TAB>v2…` lines instead (untimed; for result checks).
//
//   node bench/sql_duckdb.mjs DB_FILE --threads N < script.sql
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, 'peers', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
const threads = Number(opt('--threads', '1'));
const db = await DuckDBInstance.create(args[0]);
const conn = await db.connect();
await conn.run(`SET threads = ${threads}`);

const text = fs.readFileSync(0, 'utf8');
let name = null;
let rowsName = null;
let sql = '';
for (const line of text.split('\n')) {
  const m = line.match(/^-- time: (\S+)/);
  if (m) { name = m[1]; continue; }
  const r = line.match(/^-- rows: (\S+)/);
  if (r) { rowsName = r[1]; continue; }
  if (line.startsWith('--')) continue;
  sql += line + '\n';
  if (line.trimEnd().endsWith(';')) {
    if (rowsName) {
      const reader = await conn.runAndReadAll(sql);
      for (const row of reader.getRows()) {
        console.log(`rows ${rowsName}\t${row.map((v) => (v === null ? 'NULL' : String(v))).join('\t')}`);
      }
      rowsName = null;
      sql = '';
      continue;
    }
    const t0 = process.hrtime.bigint();
    await conn.run(sql);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (name) console.log(`${name} ${s.toFixed(6)}`);
    name = null;
    sql = '';
  }
}
