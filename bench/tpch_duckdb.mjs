#!/usr/bin/env node
// TPC-H benchmark, DuckDB side (DuckDB from bench/peers, pinned): runs the queries of
// bench/tpch/queries.sql over views of the Parquet files of the Delta tables tpch_bench wrote
// (all files are live: the generator only appends), best of N runs, timed around the query only,
// and compares each FULL answer with silt's dump (bench/tpch/tpch.mjs's compareAnswers).
//
//   node bench/tpch_duckdb.mjs DATA_DIR --sf 1 --threads N [--runs 3] [--timeout 300]
//        [--memory-limit 4GB] [--silt-dir DIR] [--query q01,q02] [--max-repeat-seconds 20]
//
// Prints per query `bench=tpch_<name> engine=duckdb threads=<n> seconds=<best> rows=<n>` (or
// `error=tpch_<name> engine=duckdb threads=<n> <message>`, `timeout=…`), and with --silt-dir
// (silt's answers as DIR/<name>.jsonl) `answer=tpch_<name> threads=<n> equal=yes|no|n/a [why]`.
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareAnswers, createDuckdbViews, duckdbRows, loadQueries, parseJsonLines } from './tpch/tpch.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, 'peers', 'package.json'));
const duck = await import(require.resolve('@duckdb/node-api'));

const args = process.argv.slice(2);
const opt = (n, d) => { const i = args.indexOf(n); return i >= 0 ? args[i + 1] : d; };
const data = path.resolve(args[0]);
const sf = Number(opt('--sf', '1'));
const threads = Number(opt('--threads', '1'));
const runs = Number(opt('--runs', '3'));
const timeoutS = Number(opt('--timeout', '300'));
const maxRepeat = Number(opt('--max-repeat-seconds', '20'));
const memoryLimit = opt('--memory-limit', '');
const siltDir = opt('--silt-dir', '');
const only = opt('--query', '') ? opt('--query', '').split(',') : null;

const db = await duck.DuckDBInstance.create(':memory:');
const conn = await db.connect();
await conn.run(`SET threads = ${threads}`);
if (memoryLimit) await conn.run(`SET memory_limit = '${memoryLimit}'`);
await createDuckdbViews(conn, data);

for (const q of loadQueries(sf, only)) {
  const tag = `tpch_${q.name} engine=duckdb threads=${threads}`;
  let best = Infinity;
  let rows = null;
  let failure = null;
  for (let r = 0; r < runs; r++) {
    let timedOut = false;
    const timer = setTimeout(() => { timedOut = true; conn.interrupt(); }, timeoutS * 1000);
    const t0 = process.hrtime.bigint();
    try {
      const reader = await conn.runAndReadAll(q.sql);
      const s = Number(process.hrtime.bigint() - t0) / 1e9;
      best = Math.min(best, s);
      if (r === 0) rows = duckdbRows(duck, reader);
      if (s > maxRepeat) r = runs;
    } catch (e) {
      failure = timedOut ? `timeout=${tag} after ${timeoutS} s` : `error=${tag} ${String(e.message).split('\n')[0]}`;
    } finally {
      clearTimeout(timer);
    }
    if (failure) break;
  }
  if (failure) console.log(failure);
  else console.log(`bench=${tag} seconds=${best.toFixed(6)} rows=${rows.length}`);
  if (siltDir) {
    const file = path.join(siltDir, `${q.name}.jsonl`);
    let verdict;
    if (failure) verdict = 'equal=n/a (DuckDB failed)';
    else if (!fs.existsSync(file)) verdict = 'equal=n/a (no silt answer)';
    else {
      const diff = compareAnswers(parseJsonLines(fs.readFileSync(file, 'utf8')), rows);
      verdict = diff === null ? (rows.length ? 'equal=yes' : 'equal=yes (both empty)') : `equal=no ${diff}`;
    }
    console.log(`answer=tpch_${q.name} threads=${threads} ${verdict}`);
  }
}
