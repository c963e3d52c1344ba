#!/usr/bin/env node
// DuckDB as the interop oracle for silt's Parquet reader/writer.
//
//   dump FILE [OUT]        canonical JSONL of the file's rows, in file order (stdout or OUT)
//   dump-all DIR           for every DIR/X.parquet: X.duckdb.jsonl, .duckdb.types, .duckdb.meta
//   schema FILE            name<TAB>sparktype per top-level column
//   meta FILE              row groups, codecs, page header versions, dictionary pages, encodings
//   compare EXP ACT        semantic comparison of two canonical JSONL files; exit 1 on mismatch
//   write DIR              DuckDB-written files covering its types × codecs × options,
//                          each with DIR/NAME.expected.jsonl and DIR/NAME.expected.types
//
// The canonical format is the one `silt parquet cat --json` prints (see README.md here).

import fs from 'node:fs';
import path from 'node:path';

import { floorDiv, formatDays, formatDecimal, formatMicros, parseJson } from './json_values.mjs';

// ---------------------------------------------------------------------------------------------
// DuckDB session (imported lazily so that `compare` does not pay for loading the native module)

async function openDuckDB() {
  const duck = await import('@duckdb/node-api');
  const db = await duck.DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  // UTC so that TIMESTAMPTZ <-> TIMESTAMP casts in `write` are the identity; one thread keeps
  // COPY output deterministic (row group boundaries, row order).
  await conn.run("SET TimeZone = 'UTC'");
  await conn.run('SET threads = 1');
  await conn.run('SET preserve_insertion_order = true');
  return { duck, db, conn };
}

const sqlString = (s) => "'" + s.replaceAll("'", "''") + "'";

// ---------------------------------------------------------------------------------------------
// Canonical value encoding (DuckDB value + its DuckDBType -> JSON text)

// Shortest round-trip text of a double; non-finite values as strings (contract), -0 kept.
function formatDouble(x) {
  if (Number.isNaN(x)) return '"NaN"';
  if (x === Infinity) return '"Infinity"';
  if (x === -Infinity) return '"-Infinity"';
  if (Object.is(x, -0)) return '-0';
  return String(x); // JS Number#toString is the shortest round-trip form and valid JSON
}

const hex = (bytes) => '0x' + Buffer.from(bytes).toString('hex');

function intervalBytes(v) {
  // Parquet INTERVAL: 12 bytes little-endian (months, days, milliseconds), as DuckDB writes it.
  const b = Buffer.alloc(12);
  b.writeUInt32LE(v.months >>> 0, 0);
  b.writeUInt32LE(v.days >>> 0, 4);
  b.writeUInt32LE(Number(floorDiv(v.micros, 1000n)) >>> 0, 8);
  return b;
}

function makeEncoder(T) {
  // T = DuckDBTypeId enum
  const enc = (type, v) => {
    if (v === null || v === undefined) return 'null';
    switch (type.typeId) {
      case T.BOOLEAN: return v ? 'true' : 'false';
      case T.TINYINT: case T.SMALLINT: case T.INTEGER: case T.BIGINT: case T.HUGEINT:
      case T.UTINYINT: case T.USMALLINT: case T.UINTEGER:
        return String(v);
      case T.UBIGINT: return JSON.stringify(String(v)); // Spark decimal(20,0): a decimal string
      case T.FLOAT: case T.DOUBLE: return formatDouble(Number(v));
      case T.DECIMAL: return JSON.stringify(formatDecimal(BigInt(v.value), type.scale));
      case T.VARCHAR: case T.ENUM: return JSON.stringify(v);
      case T.BLOB: return JSON.stringify(hex(v.bytes));
      case T.DATE: return JSON.stringify(formatDays(v.days));
      case T.TIMESTAMP: case T.TIMESTAMP_TZ: return JSON.stringify(formatMicros(v.micros));
      case T.TIMESTAMP_MS: return JSON.stringify(formatMicros(v.millis * 1000n));
      case T.TIMESTAMP_S: return JSON.stringify(formatMicros(v.seconds * 1000000n));
      case T.TIMESTAMP_NS: return JSON.stringify(formatMicros(floorDiv(v.nanos, 1000n)));
      // Doubtful mappings (see SKIP in run.sh): the raw Parquet representation.
      case T.TIME: return String(v.micros);
      case T.TIME_TZ: return String(v.micros);
      case T.UUID: return JSON.stringify(v.toString()); // 8-4-4-4-12 lowercase hex
      case T.INTERVAL: return JSON.stringify(hex(intervalBytes(v)));
      case T.LIST: case T.ARRAY:
        return '[' + v.items.map((x) => enc(type.valueType, x)).join(',') + ']';
      case T.STRUCT:
        return '{' + type.entryNames.map((n, i) =>
          JSON.stringify(n) + ':' + enc(type.entryTypes[i], v.entries[n])).join(',') + '}';
      case T.MAP:
        return '[' + v.entries.map((e) =>
          '[' + enc(type.keyType, e.key) + ',' + enc(type.valueType, e.value) + ']').join(',') + ']';
      default:
        throw new Error(`unsupported DuckDB type ${type.toString()}`);
    }
  };
  return enc;
}

// DuckDB type -> Spark simple type string (the contract of `silt parquet schema --types`).
function makeSparkType(T) {
  const st = (type) => {
    switch (type.typeId) {
      case T.BOOLEAN: return 'boolean';
      case T.TINYINT: return 'tinyint';
      case T.SMALLINT: return 'smallint';
      case T.INTEGER: return 'int';
      case T.BIGINT: return 'bigint';
      case T.UTINYINT: return 'smallint'; // unsigned -> next wider signed type
      case T.USMALLINT: return 'int';
      case T.UINTEGER: return 'bigint';
      case T.UBIGINT: return 'decimal(20,0)';
      case T.FLOAT: return 'float';
      case T.DOUBLE: return 'double';
      case T.DECIMAL: return `decimal(${type.width},${type.scale})`;
      case T.VARCHAR: case T.ENUM: return 'string'; // JSON is a VARCHAR alias here
      case T.BLOB: return 'binary';
      case T.DATE: return 'date';
      case T.TIMESTAMP_TZ: return 'timestamp';
      case T.TIMESTAMP: case T.TIMESTAMP_MS: case T.TIMESTAMP_S: case T.TIMESTAMP_NS:
        return 'timestamp_ntz';
      // Doubtful mappings: raw Parquet physical representation.
      case T.TIME: case T.TIME_TZ: return 'bigint';
      case T.UUID: return 'string';
      case T.INTERVAL: return 'binary';
      case T.LIST: case T.ARRAY: return `array<${st(type.valueType)}>`;
      case T.STRUCT:
        return 'struct<' + type.entryNames.map((n, i) => `${n}:${st(type.entryTypes[i])}`).join(',') + '>';
      case T.MAP: return `map<${st(type.keyType)},${st(type.valueType)}>`;
      default: return `unsupported(${type.toString()})`;
    }
  };
  return st;
}

// Streams `SELECT *` of FILE in file order, calling onLine(jsonText) per row.
async function dumpRows(session, file, onLine) {
  const { duck, conn } = session;
  const enc = makeEncoder(duck.DuckDBTypeId);
  // file_row_number + ORDER BY guarantees file order regardless of threads; the column is
  // dropped again so the output has exactly the file's columns.
  const sql = `SELECT * EXCLUDE (file_row_number) FROM read_parquet(${sqlString(file)}, file_row_number = true) ORDER BY file_row_number`;
  const result = await conn.stream(sql);
  const names = [];
  const types = [];
  for (let i = 0; i < result.columnCount; i++) {
    names.push(JSON.stringify(result.columnName(i)));
    types.push(result.columnType(i));
  }
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    for (const row of chunk.getRows()) {
      onLine('{' + row.map((v, i) => names[i] + ':' + enc(types[i], v)).join(',') + '}');
    }
  }
}

async function schemaLines(session, file) {
  const { duck, conn } = session;
  const st = makeSparkType(duck.DuckDBTypeId);
  const reader = await conn.runAndReadAll(`SELECT * FROM read_parquet(${sqlString(file)}) LIMIT 0`);
  return reader.columnNames().map((n, i) => `${n}\t${st(reader.columnType(i))}`);
}

// What the writer really did: codecs, page header versions, dictionary pages, row groups.
// Page type = first field of the Thrift-compact PageHeader at the page offset (0x15 = field 1,
// i32; then a zigzag varint: DATA_PAGE 0, DICTIONARY_PAGE 2, DATA_PAGE_V2 3).
async function metaLine(session, file) {
  const rows = (await session.conn.runAndReadAll(
    `SELECT row_group_id, compression, encodings, dictionary_page_offset, data_page_offset
     FROM parquet_metadata(${sqlString(file)})`)).getRows();
  const buf = fs.readFileSync(file);
  const pageType = (off) => (buf[Number(off)] === 0x15 ? buf[Number(off) + 1] >> 1 : -1);
  const codecs = new Set(), pages = new Set(), encs = new Set(), groups = new Set();
  let dict = 0;
  for (const [rg, comp, enc, dictOff, dataOff] of rows) {
    groups.add(rg); codecs.add(comp);
    for (const e of enc.split(/,\s*/).filter(Boolean)) encs.add(e);
    if (dictOff !== null && pageType(dictOff) === 2) dict++;
    const t = pageType(dataOff);
    pages.add(t === 0 ? 'v1' : t === 3 ? 'v2' : t === 2 ? 'dict' : '?');
  }
  const j = (x) => [...x].sort().join(',');
  return `row_groups=${groups.size} codecs=${j(codecs)} pages=${j(pages)} dictionary_chunks=${dict} encodings=${j(encs)}`;
}

async function dumpToFile(session, file, out) {
  const fd = fs.openSync(out, 'w');
  let buf = [];
  await dumpRows(session, file, (line) => {
    buf.push(line);
    if (buf.length >= 4096) { fs.writeSync(fd, buf.join('\n') + '\n'); buf = []; }
  });
  if (buf.length) fs.writeSync(fd, buf.join('\n') + '\n');
  fs.closeSync(fd);
}

// Rows keep their column names (parseJson's objects as entries).
const KEYS = { keepKeys: true };

function numEqual(a, b) {
  if (a.int && b.int) return BigInt(a.s) === BigInt(b.s);
  return Object.is(Number(a.s), Number(b.s)); // doubles: same value, -0 distinct from 0
}

function show(v) {
  switch (v.k) {
    case 'num': return v.s;
    case 'str': return JSON.stringify(v.v);
    case 'bool': return String(v.v);
    case 'null': return 'null';
    case 'arr': return '[' + v.items.map(show).join(',') + ']';
    case 'obj': return '{' + v.entries.map(([k, x]) => JSON.stringify(k) + ':' + show(x)).join(',') + '}';
  }
}

const clip = (s) => (s.length > 160 ? s.slice(0, 157) + '...' : s);

// Returns null when equal, else [path, description].
function diff(e, a, p) {
  if (e.k !== a.k) return [p, `expected ${clip(show(e))}, got ${clip(show(a))}`];
  switch (e.k) {
    case 'num': return numEqual(e, a) ? null : [p, `expected ${e.s}, got ${a.s}`];
    case 'str': case 'bool':
      return e.v === a.v ? null : [p, `expected ${clip(show(e))}, got ${clip(show(a))}`];
    case 'null': return null;
    case 'arr':
      if (e.items.length !== a.items.length)
        return [p, `expected ${e.items.length} elements ${clip(show(e))}, got ${a.items.length} ${clip(show(a))}`];
      for (let j = 0; j < e.items.length; j++) {
        const d = diff(e.items[j], a.items[j], `${p}[${j}]`);
        if (d) return d;
      }
      return null;
    case 'obj': {
      const ek = e.entries.map(([k]) => k), ak = a.entries.map(([k]) => k);
      if (ek.join('\u0000') !== ak.join('\u0000'))
        return [p || '(row)', `expected keys ${JSON.stringify(ek)}, got ${JSON.stringify(ak)}`];
      for (let j = 0; j < e.entries.length; j++) {
        const d = diff(e.entries[j][1], a.entries[j][1], p ? `${p}.${ek[j]}` : ek[j]);
        if (d) return d;
      }
      return null;
    }
  }
}

function readLines(file) {
  const t = fs.readFileSync(file, 'utf8');
  const lines = t.split('\n');
  if (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// Row-level diff: every top-level column is checked, so one bad column cannot hide another.
function diffRow(e, a) {
  if (e.k !== 'obj' || a.k !== 'obj') return [diff(e, a, '')].filter(Boolean);
  const ek = e.entries.map(([k]) => k), ak = a.entries.map(([k]) => k);
  if (ek.join('\u0000') !== ak.join('\u0000'))
    return [['(columns)', `expected ${JSON.stringify(ek)}, got ${JSON.stringify(ak)}`]];
  const out = [];
  for (let j = 0; j < e.entries.length; j++) {
    const d = diff(e.entries[j][1], a.entries[j][1], ek[j]);
    if (d) out.push(d);
  }
  return out;
}

function compareFiles(expFile, actFile, maxDiffs = 6) {
  const exp = readLines(expFile), act = readLines(actFile);
  const shown = [];
  const n = Math.min(exp.length, act.length);
  let bad = 0;
  const perColumn = new Map(); // column -> number of rows where it differs
  for (let r = 0; r < n; r++) {
    if (exp[r] === act[r]) continue; // fast path: identical text
    let ds;
    try {
      ds = diffRow(parseJson(exp[r], KEYS), parseJson(act[r], KEYS));
    } catch (err) {
      ds = [['(parse)', `${err.message}: ${clip(act[r])}`]];
    }
    if (!ds.length) continue;
    bad++;
    for (const [p, msg] of ds) {
      const col = p.split(/[.[]/)[0];
      const seen = perColumn.get(col) || 0;
      perColumn.set(col, seen + 1);
      // Show the first difference of each column (up to maxDiffs columns).
      if (!seen && shown.length < maxDiffs) shown.push(`row ${r} column ${p}: ${msg}`);
    }
  }
  const out = [...shown];
  if (exp.length !== act.length) out.unshift(`row count: expected ${exp.length}, got ${act.length}`);
  if (bad) out.push(`${bad} of ${n} rows differ; by column: ` +
    [...perColumn].map(([c, k]) => `${c}=${k}`).join(' '));
  return out;
}

// ---------------------------------------------------------------------------------------------
// write: DuckDB-written files

const ROWS = 2000;

// Every value is a deterministic function of i; special values sit at fixed i so that every
// file has them (i=1 minimums, i=2 maximums, i%k==0 NULLs).
const BASE_SELECT = `
SELECT
  i::BIGINT AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE i % 2 = 0 END AS c_bool,
  CASE WHEN i % 11 = 0 THEN NULL WHEN i = 1 THEN -128 WHEN i = 2 THEN 127
       ELSE (h % 256) - 128 END::TINYINT AS c_tinyint,
  CASE WHEN i % 11 = 1 AND i > 1 THEN NULL WHEN i = 1 THEN -32768 WHEN i = 2 THEN 32767
       ELSE (h % 65536) - 32768 END::SMALLINT AS c_smallint,
  CASE WHEN i % 13 = 0 THEN NULL WHEN i = 1 THEN -2147483648 WHEN i = 2 THEN 2147483647
       ELSE (h % 4294967296) - 2147483648 END::INTEGER AS c_int,
  CASE WHEN i % 17 = 0 THEN NULL WHEN i = 1 THEN -9223372036854775808 WHEN i = 2 THEN 9223372036854775807
       ELSE (h // 2)::BIGINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END) END::BIGINT AS c_bigint,
  CASE WHEN i % 19 = 0 THEN NULL WHEN i = 2 THEN 255 ELSE h % 256 END::UTINYINT AS c_utinyint,
  CASE WHEN i % 19 = 1 THEN NULL WHEN i = 2 THEN 65535 ELSE h % 65536 END::USMALLINT AS c_usmallint,
  CASE WHEN i % 19 = 2 AND i > 2 THEN NULL WHEN i = 2 THEN 4294967295 ELSE h % 4294967296 END::UINTEGER AS c_uinteger,
  CASE WHEN i % 19 = 3 THEN NULL WHEN i = 2 THEN 18446744073709551615 ELSE hu END::UBIGINT AS c_ubigint,
  CASE WHEN i % 23 = 0 THEN NULL WHEN i % 50 = 3 THEN 'NaN'::FLOAT WHEN i % 50 = 4 THEN 'inf'::FLOAT
       WHEN i % 50 = 5 THEN '-inf'::FLOAT WHEN i % 50 = 6 THEN '-0.0'::FLOAT WHEN i = 1 THEN 3.4028235e38::FLOAT
       WHEN i = 2 THEN 1.4e-45::FLOAT ELSE ((h % 2000001)::DOUBLE - 1000000) / 7.0 END::FLOAT AS c_float,
  CASE WHEN i % 23 = 1 THEN NULL WHEN i % 50 = 3 THEN 'NaN'::DOUBLE WHEN i % 50 = 4 THEN 'inf'::DOUBLE
       WHEN i % 50 = 5 THEN '-inf'::DOUBLE WHEN i % 50 = 6 THEN '-0.0'::DOUBLE WHEN i = 1 THEN 1.7976931348623157e308
       WHEN i = 2 THEN 5e-324 WHEN i % 50 = 7 THEN 1e21 WHEN i % 50 = 8 THEN 1.5e-7
       ELSE ((h % 2000000001)::DOUBLE - 1000000000) / 3.0 END::DOUBLE AS c_double,
  CASE WHEN i % 29 = 0 THEN NULL WHEN i = 1 THEN '-99.99' WHEN i = 2 THEN '99.99'
       ELSE (CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || (h % 100) || '.' || lpad((h2 % 100)::VARCHAR, 2, '0')
       END::DECIMAL(4,2) AS c_dec4_2,
  CASE WHEN i % 29 = 1 THEN NULL WHEN i = 2 THEN '999999.999'
       ELSE (CASE WHEN i % 3 = 0 THEN '-' ELSE '' END) || (h % 1000000) || '.' || lpad((h2 % 1000)::VARCHAR, 3, '0')
       END::DECIMAL(9,3) AS c_dec9_3,
  CASE WHEN i % 29 = 2 AND i > 2 THEN NULL WHEN i = 1 THEN '-999999999999.999999' WHEN i = 2 THEN '999999999999.999999'
       ELSE (CASE WHEN i % 2 = 1 THEN '-' ELSE '' END) || (h % 1000000000000) || '.' || lpad((h2 % 1000000)::VARCHAR, 6, '0')
       END::DECIMAL(18,6) AS c_dec18_6,
  CASE WHEN i % 29 = 3 THEN NULL WHEN i = 1 THEN '-9999999999999999999999999999.9999999999'
       WHEN i = 2 THEN '9999999999999999999999999999.9999999999'
       ELSE (CASE WHEN i % 2 = 0 THEN '-' ELSE '' END) || (h % 10000000000) || lpad((h2 % 1000000000000000000)::VARCHAR, 18, '0')
            || '.' || lpad((h3 % 10000000000)::VARCHAR, 10, '0')
       END::DECIMAL(38,10) AS c_dec38_10,
  CASE WHEN i % 13 = 0 THEN NULL WHEN i % 13 = 1 THEN '' WHEN i % 13 = 2 THEN 'héllo wörld ✓ 日本語 🎉 ' || i
       WHEN i % 13 = 3 THEN repeat('long-', 400) || i
       WHEN i % 13 = 4 THEN 'quote " backslash \\ slash / tab' || chr(9) || 'nl' || chr(10) || 'ctl' || chr(1) || i
       ELSE 'str_' || h END AS c_string,
  CASE WHEN i % 10 = 9 THEN NULL ELSE 'category_' || (h % 12) END AS c_dict_string,
  CASE WHEN i % 9 = 0 THEN NULL WHEN i % 9 = 1 THEN ''::BLOB
       ELSE ('\\x00\\xFF\\x7F' || (h % 100000))::BLOB END AS c_blob,
  CASE WHEN i % 31 = 0 THEN NULL WHEN i = 1 THEN DATE '0001-01-01' WHEN i = 2 THEN DATE '9999-12-31'
       WHEN i = 3 THEN DATE '1969-12-31' WHEN i = 4 THEN DATE '1582-10-04'
       ELSE DATE '1970-01-01' + ((h % 80000)::INTEGER - 40000) END AS c_date,
  CASE WHEN i % 37 = 0 THEN NULL ELSE ts END AS c_timestamp_ntz,
  CASE WHEN i % 37 = 1 THEN NULL ELSE ts::TIMESTAMPTZ END AS c_timestamp,
  CASE WHEN i % 37 = 2 THEN NULL ELSE ts::TIMESTAMP_MS END AS c_timestamp_ms,
  CASE WHEN i % 37 = 3 THEN NULL ELSE ts::TIMESTAMP_S END AS c_timestamp_s,
  CASE WHEN i % 5 = 0 THEN NULL ELSE json_object('k', i, 'arr', [i, i + 1], 's', 'x' || (h % 10)) END AS c_json,
  CASE WHEN i % 8 = 0 THEN NULL ELSE (['sad', 'ok', 'happy'])[(h % 3) + 1]::mood END AS c_enum,
  CASE WHEN i % 6 = 0 THEN NULL
       ELSE {'a': CASE WHEN i % 4 = 1 THEN NULL ELSE (h % 1000)::INTEGER END,
             'b': CASE WHEN i % 4 = 2 THEN NULL ELSE 'b' || i END,
             'c': CASE WHEN i % 4 = 3 THEN NULL ELSE {'d': (h % 100)::DOUBLE / 4, 'e': [i, NULL]::BIGINT[]} END} END AS c_struct,
  CASE WHEN i % 6 = 0 THEN NULL WHEN i % 6 = 1 THEN []::INTEGER[] WHEN i % 6 = 2 THEN [NULL]::INTEGER[]
       ELSE range((h % 6)::BIGINT)::INTEGER[] END AS c_list,
  CASE WHEN i % 7 = 0 THEN NULL WHEN i % 7 = 1 THEN []::VARCHAR[]
       ELSE ['x' || i, NULL, '', 'y'] END AS c_list_string,
  CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN [[]]::BIGINT[][]
       ELSE [range(i % 3), NULL, [], [i, NULL]] END::BIGINT[][] AS c_nested_list,
  CASE WHEN i % 6 = 0 THEN NULL WHEN i % 6 = 1 THEN MAP {}::MAP(VARCHAR, INTEGER)
       ELSE MAP(['k' || (i % 10), 'z'], [(h % 100)::INTEGER, NULL]) END AS c_map,
  CASE WHEN i % 8 = 0 THEN NULL WHEN i % 8 = 1 THEN MAP {}::MAP(INTEGER, VARCHAR[])
       ELSE MAP([i::INTEGER, -1], [['a', NULL], NULL]) END AS c_map_of_list,
  CASE WHEN i % 5 = 0 THEN NULL WHEN i % 5 = 1 THEN []
       ELSE [{'x': i::INTEGER, 'y': 'v' || i}, NULL, {'x': NULL, 'y': NULL}] END AS c_list_of_struct
FROM (
  SELECT i, hash(i) AS hu, (hash(i) >> 1)::BIGINT AS h, (hash(i * 31 + 7) >> 1)::BIGINT AS h2,
         (hash(i * 131 + 3) >> 1)::BIGINT AS h3,
         make_timestamp((((hash(i + 5) >> 1)::BIGINT % 4000000000000000) - 2000000000000000)) AS ts
  FROM range(${ROWS}) t(i)
) s
ORDER BY i`;

// Types whose Spark/silt mapping is doubtful: written to their own file, reported as SKIP.
const EXTRA_SELECT = `
SELECT
  i::BIGINT AS id,
  CASE WHEN i % 7 = 0 THEN NULL ELSE uuid_from(h) END AS c_uuid,
  CASE WHEN i % 7 = 1 THEN NULL ELSE make_time(h % 24, h2 % 60, (h3 % 60000000)::DOUBLE / 1e6) END AS c_time,
  CASE WHEN i % 7 = 2 THEN NULL ELSE to_months((h % 30)::INTEGER) + to_days((h2 % 40)::INTEGER) + to_milliseconds((h3 % 86400000)::BIGINT) END AS c_interval,
  CASE WHEN i % 7 = 3 THEN NULL ELSE make_timestamp_ns(((h % 4000000000000000000)::BIGINT - 2000000000000000000)) END AS c_timestamp_ns
FROM (SELECT i, (hash(i) >> 1)::BIGINT AS h, (hash(i * 31 + 7) >> 1)::BIGINT AS h2, (hash(i * 131 + 3) >> 1)::BIGINT AS h3 FROM range(${ROWS}) t(i)) s
ORDER BY i`;

const CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw', 'brotli']; // 'lz4' = lz4_raw

function variants() {
  const v = [];
  for (const c of CODECS) v.push({ name: `alltypes_${c}`, table: 'base', opts: `COMPRESSION ${c}` });
  for (const c of ['uncompressed', 'snappy', 'zstd', 'gzip'])
    v.push({ name: `alltypes_v2_${c}`, table: 'base', opts: `COMPRESSION ${c}, PARQUET_VERSION V2` });
  // PARQUET_VERSION V2 = V2 encodings (DELTA_*, BYTE_STREAM_SPLIT); the page headers stay v1.
  // Several row groups (DuckDB rounds row group boundaries to its 2048-row vectors).
  v.push({ name: 'alltypes_rowgroups', table: 'big', opts: 'COMPRESSION snappy, ROW_GROUP_SIZE 2048' });
  v.push({ name: 'alltypes_rowgroups_v2', table: 'big', opts: 'COMPRESSION zstd, ROW_GROUP_SIZE 2048, PARQUET_VERSION V2' });
  // One file per doubtful type, so that one unsupported type does not hide the others.
  for (const t of ['uuid', 'time', 'interval', 'timestamp_ns'])
    v.push({ name: `extra_${t}`, table: 'extra', cols: `id, c_${t}`, opts: 'COMPRESSION snappy', doubtful: true });
  return v;
}

async function writeAll(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const s = await openDuckDB();
  const { conn } = s;
  await conn.run("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
  // uuid_from: deterministic UUIDs from a hash (DuckDB has no seeded uuid()).
  await conn.run("CREATE MACRO uuid_from(x) AS (lpad(printf('%x', x), 16, '0') || lpad(printf('%x', hash(x)), 16, '0'))::UUID");
  await conn.run(`CREATE TABLE base AS ${BASE_SELECT}`);
  await conn.run(`CREATE TABLE big AS ${BASE_SELECT.replace(`range(${ROWS})`, 'range(7000)')}`);
  await conn.run(`CREATE TABLE extra AS ${EXTRA_SELECT}`);
  const manifest = [];
  for (const v of variants()) {
    const file = path.join(dir, `${v.name}.parquet`);
    await conn.run(`COPY (SELECT ${v.cols || '*'} FROM ${v.table} ORDER BY id) TO ${sqlString(file)} (FORMAT parquet, ${v.opts})`);
    await dumpToFile(s, file, path.join(dir, `${v.name}.expected.jsonl`));
    fs.writeFileSync(path.join(dir, `${v.name}.expected.types`), (await schemaLines(s, file)).join('\n') + '\n');
    manifest.push(`${v.name}\t${v.doubtful ? 'doubtful' : 'exact'}\t${await metaLine(s, file)}`);
  }
  fs.writeFileSync(path.join(dir, 'MANIFEST.tsv'), manifest.join('\n') + '\n');
  process.stdout.write(manifest.join('\n') + '\n');
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const [cmd, ...args] = process.argv.slice(2);
  const usage = () => { console.error('usage: duckdb_tool.mjs dump FILE [OUT] | dump-all DIR | schema FILE | meta FILE | compare EXP ACT | write DIR'); process.exit(2); };
  switch (cmd) {
    case 'dump': {
      if (!args[0]) usage();
      const s = await openDuckDB();
      if (args[1]) await dumpToFile(s, args[0], args[1]);
      else {
        let buf = [];
        await dumpRows(s, args[0], (l) => { buf.push(l); if (buf.length >= 4096) { process.stdout.write(buf.join('\n') + '\n'); buf = []; } });
        if (buf.length) process.stdout.write(buf.join('\n') + '\n');
      }
      break;
    }
    case 'dump-all': {
      if (!args[0]) usage();
      const s = await openDuckDB();
      let failed = 0;
      for (const f of fs.readdirSync(args[0]).filter((f) => f.endsWith('.parquet')).sort()) {
        const base = path.join(args[0], f.slice(0, -'.parquet'.length));
        try {
          await dumpToFile(s, base + '.parquet', base + '.duckdb.jsonl');
          fs.writeFileSync(base + '.duckdb.types', (await schemaLines(s, base + '.parquet')).join('\n') + '\n');
          fs.writeFileSync(base + '.duckdb.meta', (await metaLine(s, base + '.parquet')) + '\n');
        } catch (err) {
          // Leave an error file: run.sh reports it as the reason of that file's failures.
          failed++;
          fs.writeFileSync(base + '.duckdb.error', String(err.message).split('\n')[0] + '\n');
        }
      }
      process.exitCode = failed ? 1 : 0;
      break;
    }
    case 'schema': {
      if (!args[0]) usage();
      const s = await openDuckDB();
      process.stdout.write((await schemaLines(s, args[0])).join('\n') + '\n');
      break;
    }
    case 'meta': {
      if (!args[0]) usage();
      const s = await openDuckDB();
      console.log(await metaLine(s, args[0]));
      break;
    }
    case 'compare': {
      if (args.length < 2) usage();
      const diffs = compareFiles(args[0], args[1]);
      if (diffs.length) { console.log(diffs.join('\n')); process.exitCode = 1; }
      break;
    }
    case 'write': {
      if (!args[0]) usage();
      await writeAll(args[0]);
      break;
    }
    default: usage();
  }
}

main().catch((err) => { console.error(`duckdb_tool: ${err.message}`); process.exit(2); });
