#!/usr/bin/env node
// DuckDB side of bench/run.sh (DuckDB from bench/peers, pinned).
//
//   scan FILE --threads N [--runs R]           best-of-R full decode of every column
//   write FILE --threads N [--runs R] [--codec C]
//                                              best-of-R COPY of FILE's rows (held in memory) to Parquet
//   gen KIND OUT --rows N [--codec C]          fallback data (when `silt parquet gen` is missing)
//
// Prints one line: `seconds=<best> rows=<n>` (scan: `cpu_seconds=<least> seconds=<best> rows=<n>`).
// Times are measured around the query only (no process start, no module load), like
// `silt parquet scan`'s own seconds= and cpu_seconds=.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, 'peers', 'package.json'));
const { DuckDBInstance, DuckDBTypeId: T } = await import(require.resolve('@duckdb/node-api'));

const sql = (s) => "'" + s.replaceAll("'", "''") + "'";

function opt(args, name, dflt) {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : dflt;
}

async function open(threads) {
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  await conn.run(`SET threads = ${threads}`);
  return conn;
}

// Aggregates that need every value decoded yet cost little beyond decoding. Plain min/max/count
// do NOT work: DuckDB 1.5 answers them from the Parquet row-group statistics without reading a
// page (EXPLAIN shows a one-row COLUMN_DATA_SCAN; count(*) comes from the footer), and it
// propagates statistics through cheap expressions like `c + 0` too. bit_xor / sum / strlen have no
// statistics shortcut, so the scan must decode every value (checked with EXPLAIN by `explain`).
// Lists/maps: DuckDB materializes the child vector when the column is read, so a length aggregate
// is enough; structs are reduced field by field (DuckDB prunes unreferenced struct fields).
function aggsFor(expr, type) {
  switch (type.typeId) {
    case T.BOOLEAN: return [`sum(${expr}::INTEGER)`];
    case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
    case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT:
      return [`bit_xor(${expr})`];
    case T.FLOAT: case T.DOUBLE: case T.DECIMAL: return [`sum(${expr})`];
    case T.VARCHAR: case T.ENUM: return [`sum(strlen(${expr}::VARCHAR))`];
    case T.BLOB: return [`sum(octet_length(${expr}))`];
    case T.DATE: case T.TIMESTAMP: case T.TIMESTAMP_TZ: case T.TIMESTAMP_MS: case T.TIMESTAMP_S:
    case T.TIMESTAMP_NS:
      return [`bit_xor(epoch_us(${expr}))`];
    case T.LIST: case T.ARRAY: return [`sum(len(${expr}))`];
    case T.MAP: return [`sum(cardinality(${expr}))`];
    case T.STRUCT:
      return type.entryNames.flatMap((n, i) =>
        aggsFor(`struct_extract(${expr}, ${sql(n)})`, type.entryTypes[i]));
    default: return [`count(${expr})`];
  }
}

async function scanQuery(conn, file) {
  const r = await conn.runAndReadAll(`SELECT * FROM read_parquet(${sql(file)}) LIMIT 0`);
  const aggs = r.columnNames().flatMap((n, i) => aggsFor(`"${n.replaceAll('"', '""')}"`, r.columnType(i)));
  return `SELECT count(*) AS n, ${aggs.join(', ')} FROM read_parquet(${sql(file)})`;
}

// Best wall time of `runs` calls, and the least CPU time (every thread of the process, as silt's
// cpu_seconds=) of a call: on a shared machine the CPU time says more about the work than the wall.
async function timeBest(runs, fn) {
  let best = Infinity;
  let bestCpu = Infinity;
  let out;
  for (let i = 0; i < runs; i++) {
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    out = await fn();
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const c = process.cpuUsage(c0);
    best = Math.min(best, s);
    bestCpu = Math.min(bestCpu, (c.user + c.system) / 1e6);
  }
  return { best, bestCpu, out };
}

// Fallback generators: the same shapes as `silt parquet gen --columns ...` (as far as known).
const GEN = {
  int64: 'SELECT (hash(i) >> 1)::BIGINT AS c_int64 FROM range(N) t(i)',
  double: 'SELECT ((hash(i) >> 11)::DOUBLE / 1e6) AS c_double FROM range(N) t(i)',
  dict_string: "SELECT 'category_' || (hash(i) % 100) AS c_dict_string FROM range(N) t(i)",
  plain_string: "SELECT 'value_' || hash(i) || '_' || (i % 977) AS c_plain_string FROM range(N) t(i)",
  nested: `SELECT {'a': (i % 1000)::INTEGER, 'b': 's' || (i % 100)} AS c_struct,
                  [i, i + 1, NULL]::BIGINT[] AS c_list,
                  MAP(['k' || (i % 7)], [(i % 13)::INTEGER]) AS c_map FROM range(N) t(i)`,
};

async function main() {
  const [cmd, ...args] = process.argv.slice(2);
  const threads = Number(opt(args, '--threads', '1'));
  const runs = Number(opt(args, '--runs', '3'));
  const codec = opt(args, '--codec', 'snappy');
  if (cmd === 'scan') {
    const conn = await open(threads);
    const q = await scanQuery(conn, args[0]);
    const { best, bestCpu, out } = await timeBest(runs, async () => (await conn.runAndReadAll(q)).getRows()[0]);
    console.log(`cpu_seconds=${bestCpu.toFixed(6)} seconds=${best.toFixed(6)} rows=${out[0]}`);
  } else if (cmd === 'explain') {
    const conn = await open(threads);
    const r = await conn.runAndReadAll('EXPLAIN ' + (await scanQuery(conn, args[0])));
    console.log(r.getRows().map((x) => x[1]).join('\n'));
  } else if (cmd === 'write') {
    const conn = await open(threads);
    // The source rows are loaded into memory first (not timed), so only encoding + writing is.
    await conn.run(`CREATE TABLE src AS SELECT * FROM read_parquet(${sql(args[0])})`);
    const rows = (await conn.runAndReadAll('SELECT count(*) FROM src')).getRows()[0][0];
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'silt-bench-')), 'out.parquet');
    const { best } = await timeBest(runs, () =>
      conn.run(`COPY src TO ${sql(out)} (FORMAT parquet, COMPRESSION ${codec === 'none' ? 'uncompressed' : codec})`));
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
    console.log(`seconds=${best.toFixed(6)} rows=${rows}`);
  } else if (cmd === 'gen') {
    const [kind, out] = args;
    const rows = Number(opt(args, '--rows', '1000000'));
    if (!GEN[kind]) throw new Error(`unknown kind ${kind}`);
    const conn = await open(2);
    const { best } = await timeBest(1, () =>
      conn.run(`COPY (${GEN[kind].replace('range(N)', `range(${rows})`)}) TO ${sql(out)} (FORMAT parquet, COMPRESSION ${codec})`));
    console.log(`seconds=${best.toFixed(6)} rows=${rows}`);
  } else {
    console.error('usage: scan_duckdb.mjs scan FILE --threads N | write FILE --threads N | gen KIND OUT --rows N');
    process.exit(2);
  }
}

main().catch((e) => { console.error(`scan_duckdb: ${e.message.split('\n')[0]}`); process.exit(2); });
