// Value helpers shared by the DuckDB oracles (duckdb_tool.mjs, crosscheck.mjs) and the TPC-H
// comparison (bench/tpch/tpch.mjs): a JSON parser whose numbers keep their source text, and the
// text forms silt prints for DuckDB's dates, timestamps and decimals.
//
// parseJson returns trees of {k: 'num'|'str'|'bool'|'null'|'arr'|'obj', ...}: a number keeps its
// text in `s` (int64 / decimal(38) values stay exact) and says in `int` whether it has neither
// fraction nor exponent; an object becomes {k: 'arr', items} of its values by position (rows of
// `silt sql --mode json`, structs), or with {keepKeys: true} {k: 'obj', entries: [[key, value]]}.

export const pad = (n, w) => String(n).padStart(w, '0');

// Days since 1970-01-01 -> proleptic Gregorian YYYY-MM-DD (Hinnant's civil_from_days).
export function formatDays(days) {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y < 0 ? '-' + pad(-y, 4) : pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

const MICROS_PER_DAY = 86400000000n;

// Microseconds since the epoch (bigint, may be negative) -> "YYYY-MM-DD HH:MM:SS.ffffff".
export function formatMicros(micros) {
  let days = micros / MICROS_PER_DAY;
  let rem = micros % MICROS_PER_DAY;
  if (rem < 0n) { rem += MICROS_PER_DAY; days -= 1n; } // floor division for pre-1970 values
  const secs = rem / 1000000n, frac = rem % 1000000n;
  return `${formatDays(Number(days))} ${pad(secs / 3600n, 2)}:${pad((secs / 60n) % 60n, 2)}:${pad(secs % 60n, 2)}.${pad(frac, 6)}`;
}

// Floor division of bigints.
export function floorDiv(a, b) {
  const q = a / b;
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q;
}

// Unscaled bigint + scale -> exactly `scale` fraction digits.
export function formatDecimal(unscaled, scale) {
  const neg = unscaled < 0n;
  let digits = (neg ? -unscaled : unscaled).toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = digits.slice(0, -scale) + '.' + digits.slice(-scale);
  }
  return (neg ? '-' : '') + digits;
}

export function parseJson(text, { keepKeys = false } = {}) {
  let i = 0;
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const fail = (msg) => { throw new Error(`${msg} at offset ${i} of ${text.slice(0, 200)}`); };
  const str = () => {
    // Find the closing quote, then let JSON.parse do the unescaping.
    const start = i++;
    while (i < text.length && text[i] !== '"') { if (text[i] === '\\') i++; i++; }
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i));
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const obj = c === '{' && keepKeys;
      const done = (items) => (obj ? { k: 'obj', entries: items } : { k: 'arr', items });
      i++;
      const items = [];
      ws();
      if (text[i] === close) { i++; return done(items); }
      for (;;) {
        ws();
        let key = null;
        if (c === '{') {
          if (text[i] !== '"') fail('expected key');
          key = str();
          ws();
          if (text[i++] !== ':') fail('expected :');
        }
        const v = value();
        items.push(obj ? [key, v] : v);
        ws();
        if (text[i] === ',') { i++; continue; }
        if (text[i] === close) { i++; return done(items); }
        fail(`expected , or ${close}`);
      }
    }
    if (c === '"') return { k: 'str', v: str() };
    if (text.startsWith('true', i)) { i += 4; return { k: 'bool', v: true }; }
    if (text.startsWith('false', i)) { i += 5; return { k: 'bool', v: false }; }
    if (text.startsWith('null', i)) { i += 4; return { k: 'null' }; }
    const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(i, i + 400));
    if (!m) fail('unexpected character');
    i += m[0].length;
    return { k: 'num', s: m[0], int: m[2] === undefined && m[3] === undefined };
  };
  const v = value();
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

// Rows of a JSON-lines text (one row per non-empty line).
export function parseJsonLines(text, options = {}) {
  return text.split('\n').filter((l) => l.trim() !== '').map((l) => parseJson(l, options));
}
