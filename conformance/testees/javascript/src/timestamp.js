"use strict";
// Timestamps: seconds since 1970-01-01T00:00:00Z (no leap seconds) and
// nanoseconds 0..999999999, limited to 0001-01-01T00:00:00Z ..
// 9999-12-31T23:59:59.999999999Z (core.md §3.8).

const MIN_SECONDS = -62135596800;
const MAX_SECONDS = 253402300799;

function daysFromCivil(y, m, d) {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z) {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const y = yoe + era * 400;
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [y + (m <= 2 ? 1 : 0), m, d];
}

function isLeap(y) {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const RFC3339 = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?Z$/;

// Parses the JSON form; returns {s, n} (s a Number) or null when invalid.
function parseTimestamp(str) {
  const m = RFC3339.exec(str);
  if (!m) return null;
  const y = +m[1], mo = +m[2], d = +m[3], h = +m[4], mi = +m[5], se = +m[6];
  if (y < 1 || mo < 1 || mo > 12 || d < 1) return null;
  const dim = mo === 2 && isLeap(y) ? 29 : MONTH_DAYS[mo - 1];
  if (d > dim || h > 23 || mi > 59 || se > 59) return null;
  const n = m[7] ? +(m[7] + "0".repeat(9 - m[7].length)) : 0;
  const s = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
  return { s, n };
}

function pad(n, w) {
  return String(n).padStart(w, "0");
}

// Canonical JSON form: fraction omitted when zero, else 3, 6 or 9 digits.
function formatTimestamp(ts) {
  const s = Number(ts.s);
  const days = Math.floor(s / 86400);
  const rem = s - days * 86400;
  const [y, m, d] = civilFromDays(days);
  const h = Math.floor(rem / 3600), mi = Math.floor((rem % 3600) / 60), se = rem % 60;
  let out = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}T${pad(h, 2)}:${pad(mi, 2)}:${pad(se, 2)}`;
  const n = ts.n;
  if (n !== 0) {
    let f = pad(n, 9);
    if (f.endsWith("000000")) f = f.slice(0, 3);
    else if (f.endsWith("000")) f = f.slice(0, 6);
    out += "." + f;
  }
  return out + "Z";
}

function inRange(s, n) {
  // s may be a BigInt (Protobuf int64, MessagePack timestamp 96).
  const sn = typeof s === "bigint" ? s : BigInt(s);
  return n >= 0 && n <= 999999999 && sn >= BigInt(MIN_SECONDS) && sn <= BigInt(MAX_SECONDS);
}

module.exports = { parseTimestamp, formatTimestamp, inRange, MIN_SECONDS, MAX_SECONDS };
