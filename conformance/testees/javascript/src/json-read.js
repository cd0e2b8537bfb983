"use strict";
// Phase 1 of reading JSON (json-format.md §2.1, §2.3, §3.1, §5): one JSON
// text in UTF-8, parsed into a generic tree that keeps the member order, the
// exact number tokens and the integer/float distinction, with duplicate
// member names, lone surrogates, ill-formed UTF-8 and the resource limits
// rejected.
//
// Nodes: {t:"o", m:[[name, node], ...]} | {t:"a", v:[node...]} |
//        {t:"s", v:string, long?:true} | {t:"n", raw:string, int:boolean} |
//        {t:"b", v:boolean} | {t:"z"}

const { MwError, ptr } = require("./errors");
const { decodeUtf8 } = require("./text");

class Truncated extends Error {}

function parseJson(bytes, limits) {
  const n = bytes.length;
  let i = 0;
  const longStrings = [];
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const latin1 = (a, b) => buf.toString("latin1", a, b);

  const err = (reason, pointer, msg) => new MwError(reason, reason === "SYNTAX_ERROR" ? "" : pointer, `${msg || reason} (byte offset ${i})`, 1);
  const syntax = (pointer, msg) => {
    if (i >= n) return err("TRUNCATED", "", "document ends before it is complete");
    return err("SYNTAX_ERROR", pointer, msg || `unexpected byte 0x${bytes[i].toString(16).padStart(2, "0")}`);
  };

  const ws = () => {
    while (i < n) {
      const c = bytes[i];
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };

  // Reads a string starting at the opening quote. `where` is the pointer
  // reported for INVALID_UTF8 / INVALID_UNICODE in it.
  const readString = (where) => {
    i++; // opening quote
    const parts = [];
    let segStart = i;
    const flush = (end) => {
      if (end > segStart) {
        const s = decodeUtf8(bytes.subarray(segStart, end));
        if (s === null) throw err("INVALID_UTF8", where, "string is not well-formed UTF-8");
        parts.push(s);
      }
    };
    for (;;) {
      if (i >= n) throw err("TRUNCATED", "", "document ends inside a string");
      const c = bytes[i];
      if (c === 0x22) {
        flush(i);
        i++;
        return parts.length === 1 ? parts[0] : parts.join("");
      }
      if (c < 0x20) throw err("SYNTAX_ERROR", where, "unescaped control character in a string");
      if (c !== 0x5c) { i++; continue; }
      flush(i);
      i++;
      if (i >= n) throw err("TRUNCATED", "", "document ends inside an escape");
      const e = bytes[i];
      switch (e) {
        case 0x22: parts.push('"'); i++; break;
        case 0x5c: parts.push("\\"); i++; break;
        case 0x2f: parts.push("/"); i++; break;
        case 0x62: parts.push("\b"); i++; break;
        case 0x66: parts.push("\f"); i++; break;
        case 0x6e: parts.push("\n"); i++; break;
        case 0x72: parts.push("\r"); i++; break;
        case 0x74: parts.push("\t"); i++; break;
        case 0x75: {
          const u = readHex4(where);
          if (u >= 0xd800 && u <= 0xdbff) {
            // A high surrogate must be followed at once by an escaped low one.
            if (i + 1 < n && bytes[i] === 0x5c && bytes[i + 1] === 0x75) {
              const save = i;
              i++;
              const lo = readHex4(where);
              if (lo >= 0xdc00 && lo <= 0xdfff) {
                parts.push(String.fromCharCode(u, lo));
                break;
              }
              i = save;
            } else if (i >= n || (i + 1 >= n && bytes[i] === 0x5c)) {
              throw err("TRUNCATED", "", "document ends inside an escape");
            }
            throw err("INVALID_UNICODE", where, "escape denotes a lone surrogate");
          }
          if (u >= 0xdc00 && u <= 0xdfff) throw err("INVALID_UNICODE", where, "escape denotes a lone surrogate");
          parts.push(String.fromCharCode(u));
          break;
        }
        default:
          throw err("SYNTAX_ERROR", where, "invalid escape sequence");
      }
      segStart = i;
    }
  };

  const readHex4 = (where) => {
    i++; // the 'u'
    let v = 0;
    for (let k = 0; k < 4; k++) {
      if (i >= n) throw err("TRUNCATED", "", "document ends inside an escape");
      const c = bytes[i];
      let d;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x37;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x57;
      else throw err("SYNTAX_ERROR", where, "invalid \\u escape");
      v = v * 16 + d;
      i++;
    }
    return v;
  };

  const readNumber = (where) => {
    const start = i;
    let isInt = true;
    if (bytes[i] === 0x2d) i++;
    if (i >= n) throw err("TRUNCATED", "", "document ends inside a number");
    if (bytes[i] === 0x30) {
      i++;
    } else if (bytes[i] >= 0x31 && bytes[i] <= 0x39) {
      while (i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
    } else {
      throw err("SYNTAX_ERROR", where, "invalid number");
    }
    if (i < n && bytes[i] === 0x2e) {
      isInt = false;
      i++;
      if (i >= n) throw err("TRUNCATED", "", "document ends inside a number");
      if (!(bytes[i] >= 0x30 && bytes[i] <= 0x39)) throw err("SYNTAX_ERROR", where, "invalid number");
      while (i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
    }
    if (i < n && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
      isInt = false;
      i++;
      if (i < n && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
      if (i >= n) throw err("TRUNCATED", "", "document ends inside a number");
      if (!(bytes[i] >= 0x30 && bytes[i] <= 0x39)) throw err("SYNTAX_ERROR", where, "invalid number");
      while (i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39) i++;
    }
    // A digit right after a leading zero ("01") is a syntax error.
    if (i < n && bytes[i] >= 0x30 && bytes[i] <= 0x39) throw err("SYNTAX_ERROR", where, "leading zero in a number");
    const raw = latin1(start, i);
    return { t: "n", raw, int: isInt };
  };

  const literal = (word, node, where) => {
    for (let k = 0; k < word.length; k++) {
      if (i >= n) throw err("TRUNCATED", "", "document ends inside a literal");
      if (bytes[i] !== word.charCodeAt(k)) throw err("SYNTAX_ERROR", where, "invalid literal");
      i++;
    }
    return node;
  };

  const readValue = (where, depth) => {
    ws();
    if (i >= n) throw err("TRUNCATED", "", "document ends before a value");
    const c = bytes[i];
    switch (c) {
      case 0x7b: return readObject(where, depth + 1);
      case 0x5b: return readArray(where, depth + 1);
      case 0x22: {
        const start = i;
        const s = readString(where);
        const node = { t: "s", v: s };
        // max_string_bytes does not apply to Bytes fields, whose type is not
        // known here: long strings are marked and checked by the mapper.
        if (i - start > limits.maxStringBytes && Buffer.byteLength(s, "utf8") > limits.maxStringBytes) {
          node.long = true;
          longStrings.push(node);
        }
        return node;
      }
      case 0x74: return literal("true", { t: "b", v: true }, where);
      case 0x66: return literal("false", { t: "b", v: false }, where);
      case 0x6e: return literal("null", { t: "z" }, where);
      default:
        if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return readNumber(where);
        throw err("SYNTAX_ERROR", where, `unexpected byte 0x${c.toString(16).padStart(2, "0")}`);
    }
  };

  const readObject = (where, depth) => {
    if (depth > limits.maxDepth) throw err("NESTING_TOO_DEEP", where, `nesting deeper than ${limits.maxDepth}`);
    i++; // {
    const members = [];
    const names = new Set();
    ws();
    if (i >= n) throw err("TRUNCATED", "", "document ends inside an object");
    if (bytes[i] === 0x7d) { i++; return { t: "o", m: members }; }
    for (;;) {
      ws();
      if (i >= n) throw err("TRUNCATED", "", "document ends inside an object");
      if (bytes[i] !== 0x22) throw syntax(where, "expected a member name");
      const name = readString(where);
      if (name.length * 3 > limits.maxStringBytes && Buffer.byteLength(name, "utf8") > limits.maxStringBytes) {
        throw err("STRING_TOO_LONG", ptr(where, name), "member name longer than max_string_bytes");
      }
      const mp = ptr(where, name);
      if (names.has(name)) throw err("DUPLICATE_KEY", mp, `member "${name}" occurs twice`);
      names.add(name);
      ws();
      if (i >= n) throw err("TRUNCATED", "", "document ends inside an object");
      if (bytes[i] !== 0x3a) throw syntax(mp, "expected ':'");
      i++;
      const v = readValue(mp, depth);
      members.push([name, v]);
      if (members.length > limits.maxItems) throw err("TOO_MANY_ITEMS", where, `object with more than ${limits.maxItems} members`);
      ws();
      if (i >= n) throw err("TRUNCATED", "", "document ends inside an object");
      if (bytes[i] === 0x2c) { i++; continue; }
      if (bytes[i] === 0x7d) { i++; return { t: "o", m: members }; }
      throw syntax(where, "expected ',' or '}'");
    }
  };

  const readArray = (where, depth) => {
    if (depth > limits.maxDepth) throw err("NESTING_TOO_DEEP", where, `nesting deeper than ${limits.maxDepth}`);
    i++; // [
    const items = [];
    ws();
    if (i >= n) throw err("TRUNCATED", "", "document ends inside an array");
    if (bytes[i] === 0x5d) { i++; return { t: "a", v: items }; }
    for (;;) {
      const v = readValue(ptr(where, items.length), depth);
      items.push(v);
      if (items.length > limits.maxItems) throw err("TOO_MANY_ITEMS", where, `array with more than ${limits.maxItems} elements`);
      ws();
      if (i >= n) throw err("TRUNCATED", "", "document ends inside an array");
      if (bytes[i] === 0x2c) { i++; continue; }
      if (bytes[i] === 0x5d) { i++; return { t: "a", v: items }; }
      throw syntax(where, "expected ',' or ']'");
    }
  };

  if (n > limits.maxDocumentBytes) throw new MwError("DOCUMENT_TOO_LARGE", "", `document of ${n} bytes is larger than max_document_bytes`, 1);
  if (n >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw err("SYNTAX_ERROR", "", "byte order mark");
  }
  ws();
  if (i >= n) throw new MwError("SYNTAX_ERROR", "", "empty document", 1);
  const root = readValue("", 0);
  ws();
  if (i < n) throw err("TRAILING_DATA", "", "content after the document");
  if (root.t !== "o") throw new MwError("TYPE_MISMATCH", "", "top-level value is not an object", 1);
  root.longStrings = longStrings;
  return root;
}

module.exports = { parseJson };
