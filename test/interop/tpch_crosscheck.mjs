#!/usr/bin/env node
// All 22 TPC-H queries (bench/tpch/queries.sql) at a small scale: silt (`silt sql --mode json`,
// one process per query, with a timeout) over the Delta tables of `silt delta gen-tpch`, DuckDB
// over the same Parquet files; the FULL answers must be equal, in order (bench/tpch/tpch.mjs).
// Queries listed in tpch_known_failures.txt are reported as SKIP and not counted.
//
//   node tpch_crosscheck.mjs SILT_BINARY DATA_DIR WAREHOUSE SF [QUERY_NAME...]
//
// Prints PASS/FAIL/SKIP per query and a last line "N passed, N failed, N skipped".
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareAnswers, createDuckdbViews, duckdbRows, loadQueries, parseJsonLines, siltSetupSql } from '../../bench/tpch/tpch.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const [silt, data, warehouse, sfText, ...only] = process.argv.slice(2);
if (!silt || !data || !warehouse || !sfText) {
  console.error('usage: tpch_crosscheck.mjs SILT_BINARY DATA_DIR WAREHOUSE SF [QUERY_NAME...]');
  process.exit(2);
}
const timeoutMs = Number(process.env.TPCH_CHECK_TIMEOUT || 20) * 1000;

const known = new Map();
for (const line of fs.readFileSync(path.join(here, 'tpch_known_failures.txt'), 'utf8').split('\n')) {
  const m = /^(\w+)\s*(.*)$/.exec(line.trim());
  if (m && !line.trim().startsWith('#')) known.set(m[1], m[2]);
}

// Known failures get a short timeout (a nested-loop join must not eat the suite's time budget).
const knownTimeoutMs = Number(process.env.TPCH_CHECK_KNOWN_TIMEOUT || 3) * 1000;

const runSilt = (sql, timeout = timeoutMs) =>
  execFileSync(silt, ['sql', '--warehouse', warehouse, '--mode', 'json', '-e', sql], {
    encoding: 'utf8', timeout, maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'],
  });

const duck = await import('@duckdb/node-api');
const db = await duck.DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run('SET threads = 2');
await createDuckdbViews(conn, data);
runSilt(siltSetupSql(data).join(';\n'));

let passed = 0, failed = 0, skipped = 0;
for (const q of loadQueries(Number(sfText), only)) {
  const t0 = Date.now();
  let problem = null;
  let rows = 0;
  const timeout = known.has(q.name) ? knownTimeoutMs : timeoutMs;
  try {
    const siltRows = parseJsonLines(runSilt(q.sql, timeout));
    rows = siltRows.length;
    const reader = await conn.runAndReadAll(q.sql);
    const duckRows = duckdbRows(duck, reader);
    if (duckRows.length === 0) problem = 'DuckDB returned no rows (the data selects nothing: a generator problem)';
    else problem = compareAnswers(siltRows, duckRows);
    if (!problem) problem = null;
    else problem = `answers differ: ${problem}`;
  } catch (e) {
    if (e.code === 'ETIMEDOUT' || e.signal === 'SIGTERM') problem = `silt did not finish in ${timeout / 1000} s`;
    else problem = `error: ${String(e.stderr || e.message).trim().split('\n')[0].slice(0, 300)}`;
  }
  const secs = ((Date.now() - t0) / 1000).toFixed(2);
  if (known.has(q.name)) {
    if (problem) {
      skipped++;
      console.log(`SKIP ${q.name} (known failure: ${known.get(q.name)}) ${problem}`);
    } else {
      passed++;
      console.log(`PASS ${q.name} (${secs} s) — listed in tpch_known_failures.txt but passes now: remove it from the list`);
    }
  } else if (problem) {
    failed++;
    console.log(`FAIL ${q.name} (${secs} s) ${problem}`);
  } else {
    passed++;
    console.log(`PASS ${q.name} (${rows} rows, ${secs} s)`);
  }
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed ? 1 : 0);
