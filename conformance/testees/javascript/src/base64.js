"use strict";
// Bytes in JSON: RFC 4648 §4 base64, standard alphabet, with padding, zero
// unused bits; the encoding of a byte sequence is unique (json-format.md §3.5).
// Checked by a linear scan (a regular expression overflows the stack on
// strings of megabytes).

function isB64Char(c) {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2f;
}

function decodeBase64(s) {
  const n = s.length;
  if (n % 4 !== 0) return null;
  let pad = 0;
  if (n > 0 && s.charCodeAt(n - 1) === 0x3d) pad = s.charCodeAt(n - 2) === 0x3d ? 2 : 1;
  for (let i = 0; i < n - pad; i++) if (!isB64Char(s.charCodeAt(i))) return null;
  const buf = Buffer.from(s, "base64");
  // Non-zero unused bits are not canonical: the re-encoding differs.
  if (buf.toString("base64") !== s) return null;
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

function encodeBase64(bytes) {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64");
}

module.exports = { decodeBase64, encodeBase64 };
