"use strict";
// Phase 1 of reading MessagePack (msgpack-format.md §2.1, §2.3, §3.1, §5):
// one MessagePack object, a map, parsed into a generic tree, with 0xc1,
// truncation, trailing bytes, ill-formed UTF-8, non-str keys, duplicate keys
// and the resource limits rejected.
//
// Nodes: {t:"map", m:[[key, node]...]} | {t:"arr", v:[...]} | {t:"str", v} |
//        {t:"bin", v:Uint8Array} | {t:"int", v:BigInt} | {t:"f32", v:Number} |
//        {t:"f64", v:Number} | {t:"nil"} | {t:"bool", v} |
//        {t:"ext", type, data:Uint8Array}

const { MwError, ptr } = require("./errors");
const { decodeUtf8 } = require("./text");

function parseMsgpack(bytes, limits) {
  const n = bytes.length;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let i = 0;
  const err = (reason, pointer, msg, at) => new MwError(reason, pointer, `${msg} (byte offset ${at === undefined ? i : at})`, 1);
  const need = (k, what) => {
    if (n - i < k) throw err("TRUNCATED", "", `document ends inside ${what}`);
  };
  const u8 = () => { need(1, "a value"); return bytes[i++]; };
  const u16 = () => { need(2, "a value"); const v = dv.getUint16(i); i += 2; return v; };
  const u32 = () => { need(4, "a value"); const v = dv.getUint32(i); i += 4; return v; };

  const readStr = (len, where) => {
    if (n - i < len) throw err("TRUNCATED", "", "declared str length runs past the end of the input");
    if (len > limits.maxStringBytes) throw err("STRING_TOO_LONG", where, "string longer than max_string_bytes");
    const s = decodeUtf8(bytes.subarray(i, i + len));
    if (s === null) throw err("INVALID_UTF8", where, "string is not well-formed UTF-8");
    i += len;
    return s;
  };
  const readBin = (len) => {
    if (n - i < len) throw err("TRUNCATED", "", "declared bin length runs past the end of the input");
    const b = bytes.subarray(i, i + len);
    i += len;
    return b;
  };
  const readExt = (len, where) => {
    need(1, "an ext type");
    const type = (bytes[i] << 24) >> 24;
    i++;
    if (n - i < len) throw err("TRUNCATED", "", "declared ext length runs past the end of the input");
    // An ext of another type is well-formed MessagePack that no field
    // accepts: the mapper rejects it (phase 3, msgpack-format.md §2.1).
    const data = bytes.subarray(i, i + len);
    i += len;
    return { t: "ext", type, data };
  };

  const readArray = (count, where, depth) => {
    if (depth > limits.maxDepth) throw err("NESTING_TOO_DEEP", where, `nesting deeper than ${limits.maxDepth}`);
    if (count > n - i) throw err("TRUNCATED", "", "declared array length runs past the end of the input");
    if (count > limits.maxItems) throw err("TOO_MANY_ITEMS", where, `array with more than ${limits.maxItems} elements`);
    const v = [];
    for (let k = 0; k < count; k++) v.push(readValue(ptr(where, k), depth));
    return { t: "arr", v };
  };

  const readMap = (count, where, depth) => {
    if (depth > limits.maxDepth) throw err("NESTING_TOO_DEEP", where, `nesting deeper than ${limits.maxDepth}`);
    if (count > n - i) throw err("TRUNCATED", "", "declared map length runs past the end of the input");
    if (count > limits.maxItems) throw err("TOO_MANY_ITEMS", where, `map with more than ${limits.maxItems} entries`);
    const m = [];
    const keys = new Set();
    for (let k = 0; k < count; k++) {
      const at = i;
      const c = u8();
      let len;
      if (c >= 0xa0 && c <= 0xbf) len = c & 0x1f;
      else if (c === 0xd9) len = u8();
      else if (c === 0xda) len = u16();
      else if (c === 0xdb) len = u32();
      else if (c === 0xc1) throw err("INVALID_WIRE_FORMAT", "", "byte 0xc1 is never used", at);
      else throw err("TYPE_MISMATCH", where, "map key is not a str", at);
      // An ill-formed key is reported at the map that holds it.
      const key = readStr(len, where);
      const kp = ptr(where, key);
      if (len > limits.maxStringBytes) throw err("STRING_TOO_LONG", kp, "key longer than max_string_bytes");
      if (keys.has(key)) throw err("DUPLICATE_KEY", kp, `key "${key}" occurs twice`);
      keys.add(key);
      m.push([key, readValue(kp, depth)]);
    }
    return { t: "map", m };
  };

  const readValue = (where, depth) => {
    const at = i;
    const c = u8();
    if (c <= 0x7f) return { t: "int", v: BigInt(c) };
    if (c >= 0xe0) return { t: "int", v: BigInt(c - 256) };
    if (c >= 0x80 && c <= 0x8f) return readMap(c & 0x0f, where, depth + 1);
    if (c >= 0x90 && c <= 0x9f) return readArray(c & 0x0f, where, depth + 1);
    if (c >= 0xa0 && c <= 0xbf) return { t: "str", v: readStr(c & 0x1f, where) };
    switch (c) {
      case 0xc0: return { t: "nil" };
      case 0xc1: throw err("INVALID_WIRE_FORMAT", "", "byte 0xc1 is never used", at);
      case 0xc2: return { t: "bool", v: false };
      case 0xc3: return { t: "bool", v: true };
      case 0xc4: return { t: "bin", v: readBin(u8()) };
      case 0xc5: return { t: "bin", v: readBin(u16()) };
      case 0xc6: return { t: "bin", v: readBin(u32()) };
      case 0xc7: return readExt(u8(), where);
      case 0xc8: return readExt(u16(), where);
      case 0xc9: return readExt(u32(), where);
      case 0xca: { need(4, "a float 32"); const v = dv.getFloat32(i); i += 4; return { t: "f32", v }; }
      case 0xcb: { need(8, "a float 64"); const v = dv.getFloat64(i); i += 8; return { t: "f64", v }; }
      case 0xcc: return { t: "int", v: BigInt(u8()) };
      case 0xcd: return { t: "int", v: BigInt(u16()) };
      case 0xce: return { t: "int", v: BigInt(u32()) };
      case 0xcf: { need(8, "a uint 64"); const v = dv.getBigUint64(i); i += 8; return { t: "int", v }; }
      case 0xd0: { need(1, "an int 8"); const v = dv.getInt8(i); i += 1; return { t: "int", v: BigInt(v) }; }
      case 0xd1: { need(2, "an int 16"); const v = dv.getInt16(i); i += 2; return { t: "int", v: BigInt(v) }; }
      case 0xd2: { need(4, "an int 32"); const v = dv.getInt32(i); i += 4; return { t: "int", v: BigInt(v) }; }
      case 0xd3: { need(8, "an int 64"); const v = dv.getBigInt64(i); i += 8; return { t: "int", v }; }
      case 0xd4: return readExt(1, where);
      case 0xd5: return readExt(2, where);
      case 0xd6: return readExt(4, where);
      case 0xd7: return readExt(8, where);
      case 0xd8: return readExt(16, where);
      case 0xd9: return { t: "str", v: readStr(u8(), where) };
      case 0xda: return { t: "str", v: readStr(u16(), where) };
      case 0xdb: return { t: "str", v: readStr(u32(), where) };
      case 0xdc: return readArray(u16(), where, depth + 1);
      case 0xdd: return readArray(u32(), where, depth + 1);
      case 0xde: return readMap(u16(), where, depth + 1);
      case 0xdf: return readMap(u32(), where, depth + 1);
    }
    throw err("INVALID_WIRE_FORMAT", "", `unknown format byte 0x${c.toString(16)}`, at);
  };

  if (n > limits.maxDocumentBytes) throw new MwError("DOCUMENT_TOO_LARGE", "", `document of ${n} bytes is larger than max_document_bytes`, 1);
  if (n === 0) throw new MwError("TRUNCATED", "", "empty input", 1);
  const root = readValue("", 0);
  if (i < n) throw err("TRAILING_DATA", "", "bytes after the document");
  if (root.t !== "map") throw new MwError("TYPE_MISMATCH", "", "top-level object is not a map", 1);
  return root;
}

module.exports = { parseMsgpack };
