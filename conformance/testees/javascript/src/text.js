"use strict";
// Strings: strict UTF-8, code point counting and ordering.

const strictDecoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

// Decodes well-formed UTF-8 (no overlong forms, no encoded surrogates, nothing
// above U+10FFFF); returns null when the bytes are not well-formed.
function decodeUtf8(bytes) {
  // Fast path for ASCII.
  let ascii = true;
  for (let i = 0; i < bytes.length; i++) if (bytes[i] >= 0x80) { ascii = false; break; }
  if (ascii) {
    if (bytes.length < 4096) return String.fromCharCode.apply(null, bytes);
  }
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return null;
  }
}

function encodeUtf8(s) {
  return encoder.encode(s);
}

function utf8Length(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

function codePointLength(s) {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) i++;
    n++;
  }
  return n;
}

// Compares two strings by code points (equivalently by their UTF-8 bytes).
function compareCodePoints(a, b) {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i), y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (supplementary planes) sort after every BMP code point.
    const xs = x >= 0xd800 && x <= 0xdfff, ys = y >= 0xd800 && y <= 0xdfff;
    if (xs && !ys) return 1;
    if (ys && !xs) return -1;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

module.exports = { decodeUtf8, encodeUtf8, utf8Length, codePointLength, compareCodePoints };
