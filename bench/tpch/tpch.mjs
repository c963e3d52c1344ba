// TPC-H helpers shared by the benchmark (bench/tpch_duckdb.mjs) and the `make test` cross-check
// (test/interop/tpch_crosscheck.mjs): the 22 queries of bench/tpch/queries.sql, DuckDB's views
// over silt's Parquet files, and the comparison of both engines' FULL answers.
//
// Answers compare row by row in the order the query returns them (every TPC-H query orders its
// result), columns by position. Numbers compare by value: integers exactly; two decimals exactly
// when their scales are equal, else within one unit of the last place of the smaller scale (Spark
// and DuckDB pick different result scales for decimal multiplication/division); a double (DuckDB's
// avg and decimal division) within a relative 1e-9 or within one unit of the last place of the
// other side's decimal (avg(l_discount): silt "0.049985", DuckDB 0.04998539…). Strings and dates
// exactly.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { formatDays, formatDecimal, formatMicros, parseJsonLines } from '../../test/interop/json_values.mjs';

export { parseJsonLines };

const here = path.dirname(fileURLToPath(import.meta.url));

export const TABLES = ['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem'];

// Q11's FRACTION is 0.0001 / SF (TPC-H 2.4.11.3), as a decimal literal.
export function fraction(sf) {
  return (0.0001 / sf).toFixed(12).replace(/0+$/, '');
}

// [{name, sql}] in file order; `only` (names) filters.
export function loadQueries(sf, only = null) {
  const text = fs.readFileSync(path.join(here, 'queries.sql'), 'utf8');
  const out = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('-- name: ')) out.push({ name: line.slice(9).trim(), sql: '' });
    else if (out.length && !line.startsWith('--')) out[out.length - 1].sql += line + '\n';
  }
  for (const q of out) q.sql = q.sql.trim().replace(/;\s*$/, '').replaceAll('{fraction}', fraction(sf));
  return only && only.length ? out.filter((q) => only.includes(q.name)) : out;
}

// The Parquet data files of a Delta table the generator wrote (it only appends: all are live).
export function dataFiles(dir) {
  return fs.readdirSync(dir).filter((f) => f.endsWith('.parquet')).sort().map((f) => path.join(dir, f));
}

const sqlString = (s) => "'" + s.replaceAll("'", "''") + "'";

// DuckDB: one view per table over the same Parquet files silt reads.
export async function createDuckdbViews(conn, dataDir) {
  for (const t of TABLES) {
    const files = dataFiles(path.join(dataDir, t));
    if (files.length === 0) throw new Error(`no Parquet files in ${path.join(dataDir, t)}`);
    await conn.run(`CREATE OR REPLACE VIEW ${t} AS SELECT * FROM read_parquet([${files.map(sqlString).join(', ')}])`);
  }
}

// silt: external tables over the Delta tables (idempotent).
export function siltSetupSql(dataDir) {
  return TABLES.map((t) => `CREATE TABLE IF NOT EXISTS ${t} USING DELTA LOCATION ${sqlString(path.join(dataDir, t))}`);
}

// ---------------------------------------------------------------------------------------------
// Values: both sides become trees {k: 'num'|'str'|'bool'|'null'|'arr', ...}; numbers keep their
// text. silt's rows are JSON (Value::ToJson / `silt sql --mode json`: decimals and dates as strings),
// parsed by test/interop/json_values.mjs.

// A DuckDB result (node-api reader after readAll) → rows of value trees.
export function duckdbRows(duck, reader) {
  const T = duck.DuckDBTypeId;
  const conv = (type, v) => {
    if (v === null || v === undefined) return { k: 'null' };
    switch (type.typeId) {
      case T.BOOLEAN: return { k: 'bool', v: Boolean(v) };
      case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
      case T.UTINYINT: case T.USMALLINT: case T.UINTEGER: case T.UBIGINT: case T.UHUGEINT:
        return { k: 'num', s: String(v) };
      case T.FLOAT: case T.DOUBLE: return { k: 'num', s: String(Number(v)) };
      case T.DECIMAL: return { k: 'str', v: formatDecimal(BigInt(v.value), type.scale) };
      case T.VARCHAR: return { k: 'str', v: String(v) };
      case T.DATE: return { k: 'str', v: formatDays(v.days) };
      case T.TIMESTAMP: return { k: 'str', v: formatMicros(v.micros) };
      default: throw new Error(`unsupported DuckDB result type ${type.toString()}`);
    }
  };
  const types = reader.columnTypes();
  return reader.getRows().map((row) => ({ k: 'arr', items: row.map((v, i) => conv(types[i], v)) }));
}

// ---------------------------------------------------------------------------------------------
// Comparison

const NUMERIC = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;
function numText(v) {
  if (v.k === 'num') return v.s;
  if (v.k === 'str' && NUMERIC.test(v.v)) return v.v;
  return null;
}
// Fraction digits of a decimal text; Infinity for a double's exponent form.
const fractionDigits = (t) => (/[eE]/.test(t) ? Infinity : (t.split('.')[1] || '').length);
export function numEqual(a, b) {
  if (a === b) return true;
  if (/^-?[0-9]+$/.test(a) && /^-?[0-9]+$/.test(b)) return BigInt(a) === BigInt(b);
  const x = Number(a), y = Number(b);
  const d = Math.abs(x - y);
  if (d <= 1e-9 * Math.max(Math.abs(x), Math.abs(y))) return true;
  const k = Math.min(fractionDigits(a), fractionDigits(b));
  return Number.isFinite(k) && d <= 10 ** -k * (1 + 1e-9);
}
// Two decimal texts (decimals are strings on both sides): exactly equal, or, when their scales
// differ, within one unit of the last place of the smaller scale (exact BigInt arithmetic).
export function decimalEqual(a, b) {
  const parse = (t) => {
    const [i, f = ''] = t.replace(/^-/, '').split('.');
    return { neg: t.startsWith('-'), i, f };
  };
  const x = parse(a), y = parse(b);
  const scale = Math.max(x.f.length, y.f.length);
  const big = (v) => (v.neg ? -1n : 1n) * BigInt(v.i + v.f.padEnd(scale, '0'));
  let d = big(x) - big(y);
  if (d < 0n) d = -d;
  return d <= 10n ** BigInt(scale - Math.min(x.f.length, y.f.length)) - (x.f.length === y.f.length ? 1n : 0n);
}
export function valueEqual(a, b) {
  const na = numText(a), nb = numText(b);
  if (na !== null && nb !== null) {
    if (a.k === 'str' && b.k === 'str' && !/[eE]/.test(na + nb)) return decimalEqual(na, nb);
    return numEqual(na, nb);
  }
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'null': return true;
    case 'bool': case 'str': return a.v === b.v;
    case 'arr': return a.items.length === b.items.length && a.items.every((x, i) => valueEqual(x, b.items[i]));
    default: return false;
  }
}
export function show(v) {
  switch (v.k) {
    case 'null': return 'null';
    case 'bool': return String(v.v);
    case 'num': return v.s;
    case 'str': return JSON.stringify(v.v);
    case 'arr': return '[' + v.items.map(show).join(',') + ']';
    default: return '?';
  }
}

// Rows that tie on the ORDER BY keys may come in either order (Q11 orders by value only). True when
// every run of consecutive differing rows holds the same rows on both sides and its rows share a
// column value (the tied key), so a real ordering error between different keys is still caught.
function tiesOnly(silt, duckdb) {
  for (let i = 0; i < silt.length;) {
    if (valueEqual(silt[i], duckdb[i])) { i++; continue; }
    let j = i;
    while (j < silt.length && !valueEqual(silt[j], duckdb[j])) j++;
    const a = silt.slice(i, j), b = duckdb.slice(i, j);
    const used = new Array(b.length).fill(false);
    for (const row of a) {
      const k = b.findIndex((other, x) => !used[x] && valueEqual(row, other));
      if (k < 0) return false;
      used[k] = true;
    }
    const shared = a[0].items.some((v, c) => a.every((row) => valueEqual(row.items[c], v)));
    if (!shared) return false;
    i = j;
  }
  return true;
}

// Ordered comparison of full answers: null when equal, else a one-line description.
export function compareAnswers(silt, duckdb) {
  if (silt.length && duckdb.length && silt[0].items.length !== duckdb[0].items.length) {
    return `silt returned ${silt[0].items.length} column(s), DuckDB ${duckdb[0].items.length}`;
  }
  const n = Math.min(silt.length, duckdb.length);
  let first = -1, differing = 0;
  for (let i = 0; i < n; i++) {
    if (!valueEqual(silt[i], duckdb[i])) {
      if (first < 0) first = i;
      differing++;
    }
  }
  if (first < 0 && silt.length === duckdb.length) return null;
  if (silt.length === duckdb.length && tiesOnly(silt, duckdb)) return null;
  const parts = [];
  if (silt.length !== duckdb.length) parts.push(`silt returned ${silt.length} row(s), DuckDB ${duckdb.length}`);
  if (first >= 0) {
    parts.push(`${differing} of ${n} rows differ, first at row ${first}: silt ${show(silt[first])} DuckDB ${show(duckdb[first])}`);
  }
  return parts.join('; ');
}
