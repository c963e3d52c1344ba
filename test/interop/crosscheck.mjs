#!/usr/bin/env node
// The SQL cross-check: each query of test/sql/crosscheck/*.sql runs in `silt sql --mode json`
// over Delta tables that `silt delta gen` wrote and in DuckDB over the same tables' Parquet data
// files; the results must be equal as multisets of rows (columns by position, numbers by value
// with a relative tolerance of 1e-9 for doubles; integers and decimals exactly).
//
//   node crosscheck.mjs SILT_BINARY WORK_DIR QUERY_FILE...
//
// Query file format (see test/sql/crosscheck/basic.sql):
//   -- table NAME: ARGS            `silt delta gen WORK/NAME ARGS`; `--partition-by COL:TYPE`
//                                  partitions by COL, and DuckDB reads COL from the directory
//                                  names as TYPE (DuckDB type name)
//   -- setup NAME: SQL             `silt sql -e SQL` on table NAME (as ${NAME}) after it is
//                                  generated, before DuckDB lists its data files (several lines
//                                  run in order; e.g. DELETE, then OPTIMIZE / REORG … PURGE and
//                                  VACUUM … RETAIN 0 HOURS so that only live, DV-free files remain)
//   -- name: QUERY_NAME            starts a query; its SQL runs up to the next `-- name:`
//   -- duckdb: SQL                 (inside a query) DuckDB's own spelling, up to the query's end
//   ${NAME}                        a table: delta.`path` for silt, a view over the data files
//                                  for DuckDB
// Queries must give every column an alias (names are not compared, and JSON objects would
// reorder numeric keys). The tables must have no deletion vectors and no removed files (DuckDB
// reads every data file).
//
// Prints PASS/FAIL per query and a last line "N passed, N failed".

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { floorDiv, formatDays, formatDecimal, formatMicros, parseJson } from './json_values.mjs';

// ---------------------------------------------------------------------------------------------
// Query files

function parseQueryFile(file) {
  const tables = [];
  const queries = [];
  let cur = null;
  let inDuck = false;
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  lines.forEach((line, i) => {
    let m;
    if ((m = /^--\s*table\s+(\w+)\s*:\s*(.*)$/.exec(line))) {
      tables.push({ name: m[1], args: m[2].trim().split(/\s+/).filter(Boolean), setup: [] });
    } else if ((m = /^--\s*setup\s+(\w+)\s*:\s*(.*)$/.exec(line))) {
      const t = tables.find((x) => x.name === m[1]);
      if (!t) throw new Error(`line ${i + 1}: setup for unknown table ${m[1]}`);
      t.setup.push(m[2]);
    } else if ((m = /^--\s*name\s*:\s*(\S+)\s*$/.exec(line))) {
      cur = { name: m[1], line: i + 1, silt: '', duckdb: null };
      queries.push(cur);
      inDuck = false;
    } else if (cur && (m = /^--\s*duckdb\s*:(.*)$/.exec(line))) {
      inDuck = true;
      cur.duckdb = m[1] + '\n';
    } else if (cur && !/^--/.test(line)) {
      if (inDuck) cur.duckdb += line + '\n';
      else cur.silt += line + '\n';
    }
  });
  const strip = (s) => s.trim().replace(/;\s*$/, '').trim();
  for (const q of queries) {
    q.silt = strip(q.silt);
    q.duckdb = q.duckdb === null ? q.silt : strip(q.duckdb);
  }
  return { tables, queries: queries.filter((q) => q.silt.length > 0) };
}

// ---------------------------------------------------------------------------------------------
// Values: both sides become trees of {k: 'num'|'str'|'bool'|'null'|'arr', ...}; numbers keep their
// text so that int64/int128 compare exactly.

// A DuckDB value (node-api) of type `type` → value tree, in silt's JSON conventions.
function makeConverter(T) {
  const conv = (type, v) => {
    if (v === null || v === undefined) return { k: 'null' };
    switch (type.typeId) {
      case T.BOOLEAN: return { k: 'bool', v: Boolean(v) };
      case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
      case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT:
        return { k: 'num', s: String(v) };
      case T.FLOAT: case T.DOUBLE: {
        const x = Number(v);
        if (Number.isNaN(x)) return { k: 'str', v: 'NaN' };
        if (x === Infinity) return { k: 'str', v: 'Infinity' };
        if (x === -Infinity) return { k: 'str', v: '-Infinity' };
        return { k: 'num', s: String(x) };
      }
      case T.DECIMAL: return { k: 'str', v: formatDecimal(BigInt(v.value), type.scale) };
      case T.VARCHAR: case T.ENUM: return { k: 'str', v: String(v) };
      case T.BLOB: return { k: 'str', v: '0x' + Buffer.from(v.bytes).toString('hex') };
      case T.DATE: return { k: 'str', v: formatDays(v.days) };
      case T.TIMESTAMP: case T.TIMESTAMP_TZ: return { k: 'str', v: formatMicros(v.micros) };
      case T.TIMESTAMP_MS: return { k: 'str', v: formatMicros(v.millis * 1000n) };
      case T.TIMESTAMP_S: return { k: 'str', v: formatMicros(v.seconds * 1000000n) };
      case T.TIMESTAMP_NS: return { k: 'str', v: formatMicros(floorDiv(v.nanos, 1000n)) };
      case T.LIST: case T.ARRAY: return { k: 'arr', items: v.items.map((x) => conv(type.valueType, x)) };
      case T.STRUCT:
        return { k: 'arr', items: type.entryNames.map((n, i) => conv(type.entryTypes[i], v.entries[n])) };
      case T.MAP:
        return {
          k: 'arr',
          items: v.entries.map((e) => ({ k: 'arr', items: [conv(type.keyType, e.key), conv(type.valueType, e.value)] })),
        };
      default: throw new Error(`unsupported DuckDB result type ${type.toString()}`);
    }
  };
  return conv;
}

const NUMERIC = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
const SPECIAL = new Set(['NaN', 'Infinity', '-Infinity']);
// Numbers, and strings that hold one (decimals are strings in silt's JSON): the text.
function numText(v) {
  if (v.k === 'num') return v.s;
  if (v.k === 'str' && (NUMERIC.test(v.v) || SPECIAL.has(v.v))) return v.v;
  return null;
}
function numEqual(a, b) {
  if (/^-?[0-9]+$/.test(a) && /^-?[0-9]+$/.test(b)) return BigInt(a) === BigInt(b);
  const x = Number(a), y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
  if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
  const d = Math.abs(x - y);
  return d <= 1e-12 || d <= 1e-9 * Math.max(Math.abs(x), Math.abs(y));
}
// Decimal texts compare exactly, whatever their scale ("12.30" = "12.3"): decimal(38) values
// must not pass through doubles.
function normDecimal(t) {
  let [i, f = ''] = t.split('.');
  f = f.replace(/0+$/, '');
  const neg = i.startsWith('-');
  i = i.replace(/^-/, '').replace(/^0+(?=[0-9])/, '');
  const out = f ? `${i}.${f}` : i;
  return neg && out !== '0' ? '-' + out : out;
}
function valueEqual(a, b) {
  const na = numText(a), nb = numText(b);
  if (a.k === 'str' && b.k === 'str' && na !== null && nb !== null && NUMERIC.test(na) && NUMERIC.test(nb) &&
      !/[eE]/.test(na + nb)) {
    return normDecimal(na) === normDecimal(nb);  // both decimals (silt and DuckDB print them as strings)
  }
  if (na !== null && nb !== null) return numEqual(na, nb);
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'null': return true;
    case 'bool': return a.v === b.v;
    case 'str': return a.v === b.v;
    case 'num': return numEqual(a.s, b.s);
    case 'arr': return a.items.length === b.items.length && a.items.every((x, i) => valueEqual(x, b.items[i]));
    default: return false;
  }
}
// Sort key: numbers rounded to 12 significant digits so that near-equal values sort alike.
function key(v) {
  const n = numText(v);
  if (n !== null) {
    const x = Number(n);
    return 'n' + (Number.isFinite(x) ? x.toPrecision(12) : n);
  }
  switch (v.k) {
    case 'null': return '0';
    case 'bool': return 'b' + v.v;
    case 'str': return 's' + JSON.stringify(v.v);
    case 'arr': return '[' + v.items.map(key).join(',') + ']';
    default: return '?';
  }
}
function show(v) {
  switch (v.k) {
    case 'null': return 'null';
    case 'bool': return String(v.v);
    case 'num': return v.s;
    case 'str': return JSON.stringify(v.v);
    case 'arr': return '[' + v.items.map(show).join(',') + ']';
    default: return '?';
  }
}

// Multiset comparison of rows (each an 'arr' value); returns difference lines ([] = equal).
function compareRows(expected, actual) {
  const out = [];
  const ncE = expected.length ? expected[0].items.length : null;
  const ncA = actual.length ? actual[0].items.length : null;
  if (ncE !== null && ncA !== null && ncE !== ncA) {
    return [`DuckDB returned ${ncE} column(s), silt ${ncA}`];
  }
  if (expected.length !== actual.length) {
    out.push(`DuckDB returned ${expected.length} row(s), silt ${actual.length}`);
  }
  const e = [...expected].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  const a = [...actual].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : 0));
  if (out.length === 0 && e.every((row, i) => valueEqual(row, a[i]))) return [];
  // Sorted pairing failed (or counts differ): match greedily to name the rows that differ.
  const used = new Array(a.length).fill(false);
  const missing = [];
  for (const row of e) {
    const j = a.findIndex((x, k) => !used[k] && valueEqual(row, x));
    if (j < 0) missing.push(row);
    else used[j] = true;
  }
  const extra = a.filter((_, k) => !used[k]);
  if (missing.length === 0 && extra.length === 0) return [];
  for (const r of missing.slice(0, 5)) out.push(`only in DuckDB: ${show(r)}`);
  for (const r of extra.slice(0, 5)) out.push(`only in silt:   ${show(r)}`);
  if (missing.length + extra.length > 10) out.push(`(${missing.length} + ${extra.length} rows differ in all)`);
  return out;
}

// ---------------------------------------------------------------------------------------------

function dataFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const ent of fs.readdirSync(d, { withFileTypes: true })) {
      if (ent.name === '_delta_log') continue;
      const p = path.join(d, ent.name);
      if (ent.isDirectory()) walk(p);
      else if (ent.name.endsWith('.parquet')) out.push(p);
    }
  };
  walk(dir);
  return out.sort();
}

const sqlString = (s) => "'" + s.replaceAll("'", "''") + "'";
const quoteIdent = (s) => '"' + s.replaceAll('"', '""') + '"';

async function main() {
  const [silt, work, ...files] = process.argv.slice(2);
  if (!silt || !work || files.length === 0) {
    console.error('usage: crosscheck.mjs SILT_BINARY WORK_DIR QUERY_FILE...');
    process.exit(2);
  }
  const duck = await import('@duckdb/node-api');
  const conv = makeConverter(duck.DuckDBTypeId);
  let passed = 0, failed = 0;
  const fail = (name, lines) => {
    failed++;
    console.log(`FAIL ${name}`);
    for (const l of lines) console.log('    ' + String(l).split('\n').join('\n    '));
  };
  const warehouse = path.join(work, 'warehouse');
  for (const file of files) {
    const base = path.basename(file, '.sql');
    let spec;
    try {
      spec = parseQueryFile(file);
    } catch (err) {
      fail(`${base}`, [`cannot read ${file}: ${err.message}`]);
      continue;
    }
    const db = await duck.DuckDBInstance.create(':memory:');
    const conn = await db.connect();
    await conn.run("SET TimeZone = 'UTC'");
    // Tables: generated by silt, read by DuckDB as views over the data files.
    const siltNames = {}, duckNames = {};
    let setupFailed = false;
    for (const t of spec.tables) {
      const dir = path.join(work, base, t.name);
      const args = [];
      const parts = [];
      for (let i = 0; i < t.args.length; i++) {
        if (t.args[i] === '--partition-by' && i + 1 < t.args.length) {
          const [col, type] = t.args[++i].split(':');
          parts.push({ col, type: type || 'VARCHAR' });
          args.push('--partition-by', col);
        } else {
          args.push(t.args[i]);
        }
      }
      try {
        execFileSync(silt, ['delta', 'gen', dir, ...args], { stdio: 'pipe' });
        const self = 'delta.`' + dir.replaceAll('`', '``') + '`';
        for (const sql of t.setup) {
          execFileSync(silt, ['sql', '--warehouse', warehouse, '-e', sql.replaceAll('${' + t.name + '}', self)],
            { stdio: 'pipe' });
        }
        const list = '[' + dataFiles(dir).map(sqlString).join(', ') + ']';
        let select = '*';
        let opts = '';
        if (parts.length) {
          // Delta writes null partition values as __HIVE_DEFAULT_PARTITION__.
          opts = ', hive_partitioning = true, hive_types_autocast = false';
          select = '* REPLACE (' + parts.map((p) =>
            `CAST(NULLIF(${quoteIdent(p.col)}, '__HIVE_DEFAULT_PARTITION__') AS ${p.type}) AS ${quoteIdent(p.col)}`).join(', ') + ')';
        }
        await conn.run(`CREATE VIEW ${quoteIdent(t.name)} AS SELECT ${select} FROM read_parquet(${list}${opts})`);
        siltNames[t.name] = 'delta.`' + dir.replaceAll('`', '``') + '`';
        duckNames[t.name] = quoteIdent(t.name);
      } catch (err) {
        fail(`${base}/setup/${t.name}`, [String(err.stderr || err.message).trim().split('\n')[0]]);
        setupFailed = true;
      }
    }
    if (setupFailed) continue;
    const subst = (sql, names) => sql.replace(/\$\{(\w+)\}/g, (m, n) => {
      if (!(n in names)) throw new Error(`unknown table \${${n}}`);
      return names[n];
    });
    for (const q of spec.queries) {
      const name = `${base}/${q.name}`;
      let siltSql, duckSql;
      try {
        siltSql = subst(q.silt, siltNames);
        duckSql = subst(q.duckdb, duckNames);
      } catch (err) {
        fail(name, [`${file}:${q.line}: ${err.message}`]);
        continue;
      }
      let expected;
      try {
        const reader = await conn.runAndReadAll(duckSql);
        const types = [];
        for (let i = 0; i < reader.columnCount; i++) types.push(reader.columnType(i));
        expected = reader.getRows().map((row) => ({ k: 'arr', items: row.map((v, i) => conv(types[i], v)) }));
      } catch (err) {
        fail(name, [`DuckDB failed: ${err.message.split('\n')[0]}`, duckSql]);
        continue;
      }
      let actual;
      try {
        const out = execFileSync(silt, ['sql', '--warehouse', warehouse, '--mode', 'json', '-e', siltSql],
          { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 }).toString();
        actual = out.split('\n').filter((l) => l.trim().length > 0).map(parseJson);
      } catch (err) {
        fail(name, [`silt failed: ${String(err.stderr || err.message).trim().split('\n')[0]}`, siltSql]);
        continue;
      }
      const diffs = compareRows(expected, actual);
      if (diffs.length === 0) {
        passed++;
        console.log(`PASS ${name} (${actual.length} rows)`);
      } else {
        fail(name, [...diffs, siltSql]);
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((err) => {
  console.error(`crosscheck: ${err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
