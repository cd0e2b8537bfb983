"use strict";
// Canonical writers: JSON (json-format.md §7), MessagePack
// (msgpack-format.md §7) and Protobuf (protobuf-format.md §6).

const { compareCodePoints, encodeUtf8 } = require("./text");
const { formatFloat, f32BitsToNumber } = require("./numbers");
const { formatTimestamp } = require("./timestamp");
const { encodeBase64 } = require("./base64");
const { ByteWriter } = require("./bytes");

const byKey = (a, b) => compareCodePoints(a[0], b[0]);

// ---------------------------------------------------------------- JSON ----

function jsonString(s) {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x22 && c !== 0x5c) continue;
    out += s.slice(start, i);
    switch (c) {
      case 0x22: out += '\\"'; break;
      case 0x5c: out += "\\\\"; break;
      case 0x08: out += "\\b"; break;
      case 0x09: out += "\\t"; break;
      case 0x0a: out += "\\n"; break;
      case 0x0c: out += "\\f"; break;
      case 0x0d: out += "\\r"; break;
      default: out += "\\u00" + c.toString(16).padStart(2, "0");
    }
    start = i + 1;
  }
  return out + s.slice(start) + '"';
}

function jsonValue(v) {
  switch (v.k) {
    case "null": return "null";
    case "bool": return v.v ? "true" : "false";
    case "int": return v.v.toString();
    case "float": return formatFloat(v.v);
    case "str": return jsonString(v.v);
    case "list": return "[" + v.v.map(jsonValue).join(",") + "]";
    case "map": return "{" + v.v.slice().sort(byKey).map(([k, x]) => jsonString(k) + ":" + jsonValue(x)).join(",") + "}";
  }
  throw new Error("Value kind " + v.k + " has no JSON form");
}

function jsonEnum(f, v) {
  if (typeof v === "object") return jsonString(v.unk);
  return jsonString(f.enum.byNumber.get(v));
}

function jsonSingle(f, v, keepUnknown) {
  switch (f.kind) {
    case "message": return jsonMessage(v, keepUnknown);
    case "timestamp": return jsonString(formatTimestamp(v));
    case "value": return jsonValue(v);
    case "enum": return jsonEnum(f, v);
    case "scalar":
      switch (f.scalar) {
        case "string": return jsonString(v);
        case "bool": return v ? "true" : "false";
        case "bytes": return jsonString(encodeBase64(v));
        case "double": case "float": return formatFloat(v);
        default: return String(v);
      }
  }
  throw new Error("field kind " + f.kind);
}

function jsonMessage(node, keepUnknown) {
  const members = [];
  for (const f of node.m.fields) {
    if (!node.has(f.name)) continue;
    const v = node.get(f.name);
    let text;
    if (f.kind === "map") text = "{" + v.slice().sort(byKey).map(([k, x]) => jsonString(k) + ":" + jsonValue(x)).join(",") + "}";
    else if (f.kind === "f32vec") text = "[" + v.map((b) => formatFloat(f32BitsToNumber(b))).join(",") + "]";
    else if (f.repeated) text = "[" + v.map((x) => jsonSingle(f, x, keepUnknown)).join(",") + "]";
    else text = jsonSingle(f, v, keepUnknown);
    members.push([f.name, text]);
  }
  if (keepUnknown) for (const [k, x] of node.unknown) members.push([k, jsonValue(x)]);
  members.sort(byKey);
  return "{" + members.map(([k, t]) => jsonString(k) + ":" + t).join(",") + "}";
}

function writeJson(root, keepUnknown) {
  return encodeUtf8(jsonMessage(root, keepUnknown));
}

// ----------------------------------------------------------- MessagePack --

function mpStr(w, s) {
  const b = encodeUtf8(s);
  const n = b.length;
  if (n <= 31) w.byte(0xa0 | n);
  else if (n <= 0xff) { w.byte(0xd9); w.byte(n); }
  else if (n <= 0xffff) { w.byte(0xda); w.u16(n); }
  else { w.byte(0xdb); w.u32(n); }
  w.bytes(b);
}

function mpBin(w, b) {
  const n = b.length;
  if (n <= 0xff) { w.byte(0xc4); w.byte(n); }
  else if (n <= 0xffff) { w.byte(0xc5); w.u16(n); }
  else { w.byte(0xc6); w.u32(n); }
  w.bytes(b);
}

function mpArrayHeader(w, n) {
  if (n <= 15) w.byte(0x90 | n);
  else if (n <= 0xffff) { w.byte(0xdc); w.u16(n); }
  else { w.byte(0xdd); w.u32(n); }
}

function mpMapHeader(w, n) {
  if (n <= 15) w.byte(0x80 | n);
  else if (n <= 0xffff) { w.byte(0xde); w.u16(n); }
  else { w.byte(0xdf); w.u32(n); }
}

function mpInt(w, v) {
  // v: BigInt or Number (integral).
  const b = typeof v === "bigint" ? v : BigInt(v);
  if (b >= 0n) {
    if (b <= 0x7fn) w.byte(Number(b));
    else if (b <= 0xffn) { w.byte(0xcc); w.byte(Number(b)); }
    else if (b <= 0xffffn) { w.byte(0xcd); w.u16(Number(b)); }
    else if (b <= 0xffffffffn) { w.byte(0xce); w.u32(Number(b)); }
    else { w.byte(0xcf); w.u64(b); }
  } else {
    if (b >= -32n) w.byte(Number(b) & 0xff);
    else if (b >= -128n) { w.byte(0xd0); w.i8(Number(b)); }
    else if (b >= -32768n) { w.byte(0xd1); w.i16(Number(b)); }
    else if (b >= -2147483648n) { w.byte(0xd2); w.i32(Number(b)); }
    else { w.byte(0xd3); w.i64(b); }
  }
}

function mpFloat(w, x) {
  w.byte(0xcb);
  w.f64be(x);
}

function mpTimestamp(w, ts) {
  const s = BigInt(ts.s), n = ts.n;
  if (n === 0 && s >= 0n && s < 2n ** 32n) {
    w.byte(0xd6); w.byte(0xff); w.u32(Number(s));
  } else if (s >= 0n && s < 2n ** 34n) {
    w.byte(0xd7); w.byte(0xff); w.u64((BigInt(n) << 34n) | s);
  } else {
    w.byte(0xc7); w.byte(12); w.byte(0xff); w.u32(n); w.i64(s);
  }
}

function mpValue(w, v) {
  switch (v.k) {
    case "null": w.byte(0xc0); return;
    case "bool": w.byte(v.v ? 0xc3 : 0xc2); return;
    case "int": mpInt(w, v.v); return;
    case "float": mpFloat(w, v.v); return;
    case "str": mpStr(w, v.v); return;
    case "list": mpArrayHeader(w, v.v.length); for (const x of v.v) mpValue(w, x); return;
    case "map": {
      const entries = v.v.slice().sort(byKey);
      mpMapHeader(w, entries.length);
      for (const [k, x] of entries) { mpStr(w, k); mpValue(w, x); }
      return;
    }
    case "bin": mpBin(w, v.v); return;
    case "ts": mpTimestamp(w, v.v); return;
  }
  throw new Error("Value kind " + v.k);
}

function mpSingle(w, f, v, keepUnknown) {
  switch (f.kind) {
    case "message": return mpMessage(w, v, keepUnknown);
    case "timestamp": return mpTimestamp(w, v);
    case "value": return mpValue(w, v);
    case "enum": return mpStr(w, typeof v === "object" ? v.unk : f.enum.byNumber.get(v));
    case "scalar":
      switch (f.scalar) {
        case "string": return mpStr(w, v);
        case "bool": return w.byte(v ? 0xc3 : 0xc2);
        case "bytes": return mpBin(w, v);
        case "double": case "float": return mpFloat(w, v);
        default: return mpInt(w, v);
      }
  }
  throw new Error("field kind " + f.kind);
}

function mpMessage(w, node, keepUnknown) {
  const entries = [];
  for (const f of node.m.fields) if (node.has(f.name)) entries.push([f.name, f]);
  if (keepUnknown) for (const [k, x] of node.unknown) entries.push([k, null, x]);
  entries.sort(byKey);
  mpMapHeader(w, entries.length);
  for (const [name, f, x] of entries) {
    mpStr(w, name);
    if (!f) { mpValue(w, x); continue; }
    const v = node.get(name);
    if (f.kind === "map") {
      const sorted = v.slice().sort(byKey);
      mpMapHeader(w, sorted.length);
      for (const [k, val] of sorted) { mpStr(w, k); mpValue(w, val); }
    } else if (f.kind === "f32vec") {
      const b = new Uint8Array(v.length * 4);
      const dv = new DataView(b.buffer);
      v.forEach((bits, i) => dv.setUint32(i * 4, bits, true));
      mpBin(w, b);
    } else if (f.repeated) {
      mpArrayHeader(w, v.length);
      for (const x of v) mpSingle(w, f, x, keepUnknown);
    } else mpSingle(w, f, v, keepUnknown);
  }
}

function writeMsgpack(root, keepUnknown) {
  const w = new ByteWriter();
  mpMessage(w, root, keepUnknown);
  return w.result();
}

// -------------------------------------------------------------- Protobuf --

function pbTag(w, num, wt) {
  w.varint(num * 8 + wt);
}

function pbLen(w, num, body) {
  pbTag(w, num, 2);
  w.varint(body.length);
  w.bytes(body);
}

function pbSub(fn) {
  const w = new ByteWriter(64);
  fn(w);
  return w.result();
}

function pbTimestampBody(ts, keepUnknown) {
  return pbSub((w) => {
    if (ts.s !== 0) { pbTag(w, 1, 0); w.varint(BigInt.asUintN(64, BigInt(ts.s))); }
    if (ts.n !== 0) { pbTag(w, 2, 0); w.varint(ts.n); }
    if (keepUnknown && ts.unknown) for (const r of ts.unknown) w.bytes(r);
  });
}

function pbValueBody(v, keepUnknown) {
  return pbSub((w) => {
    switch (v.k) {
      case "null": pbTag(w, 1, 0); w.varint(0); break;
      case "bool": pbTag(w, 2, 0); w.varint(v.v ? 1 : 0); break;
      case "int": pbTag(w, 3, 0); w.varint(BigInt.asUintN(64, (v.v << 1n) ^ (v.v >> 63n))); break;
      case "float": pbTag(w, 4, 1); w.f64le(v.v); break;
      case "str": pbLen(w, 5, encodeUtf8(v.v)); break;
      case "list":
        pbLen(w, 6, pbSub((lw) => {
          for (const x of v.v) pbLen(lw, 1, pbValueBody(x, keepUnknown));
          if (keepUnknown && v.innerUnknown) for (const r of v.innerUnknown) lw.bytes(r);
        }));
        break;
      case "map":
        pbLen(w, 7, pbSub((mw) => {
          pbMapEntries(mw, 1, v.v, keepUnknown);
          if (keepUnknown && v.innerUnknown) for (const r of v.innerUnknown) mw.bytes(r);
        }));
        break;
      default:
        throw new Error("Value kind " + v.k + " has no Protobuf form");
    }
    if (keepUnknown && v.unknown) for (const r of v.unknown) w.bytes(r);
  });
}

function pbMapEntries(w, num, entries, keepUnknown) {
  for (const [k, x] of entries.slice().sort(byKey)) {
    pbLen(w, num, pbSub((ew) => {
      if (k !== "") pbLen(ew, 1, encodeUtf8(k));
      pbLen(ew, 2, pbValueBody(x, keepUnknown));
      if (keepUnknown && x.entryUnknown) for (const r of x.entryUnknown) ew.bytes(r);
    }));
  }
}

function pbScalar(w, f, v) {
  const num = f.number;
  switch (f.scalar) {
    case "string": pbLen(w, num, encodeUtf8(v)); return;
    case "bytes": pbLen(w, num, v); return;
    case "bool": pbTag(w, num, 0); w.varint(v ? 1 : 0); return;
    case "double": pbTag(w, num, 1); w.f64le(v); return;
    case "uint32": case "uint64": pbTag(w, num, 0); w.varint(v); return;
  }
  throw new Error("scalar " + f.scalar);
}

function enumNumber(v) {
  return typeof v === "object" ? v.unk : v;
}

function pbMessageBody(node, keepUnknown) {
  return pbSub((w) => {
    for (const f of node.m.fields) {
      if (!node.has(f.name)) continue;
      const v = node.get(f.name);
      const num = f.number;
      switch (f.kind) {
        case "message":
          if (f.repeated) for (const x of v) pbLen(w, num, pbMessageBody(x, keepUnknown));
          else pbLen(w, num, pbMessageBody(v, keepUnknown));
          break;
        case "timestamp":
          pbLen(w, num, pbTimestampBody(v, keepUnknown));
          break;
        case "value":
          pbLen(w, num, pbValueBody(v, keepUnknown));
          break;
        case "map":
          pbMapEntries(w, num, v, keepUnknown);
          break;
        case "f32vec": {
          const b = new Uint8Array(v.length * 4);
          const dv = new DataView(b.buffer);
          v.forEach((bits, i) => dv.setUint32(i * 4, bits, true));
          pbLen(w, num, b);
          break;
        }
        case "enum":
          if (f.repeated) pbLen(w, num, pbSub((pw) => { for (const x of v) pw.varint(BigInt.asUintN(64, BigInt(enumNumber(x)))); }));
          else { pbTag(w, num, 0); w.varint(BigInt.asUintN(64, BigInt(enumNumber(v)))); }
          break;
        case "scalar":
          if (f.repeated) {
            if (f.packable) {
              pbLen(w, num, pbSub((pw) => {
                for (const x of v) {
                  if (f.wireType === 1) pw.f64le(x);
                  else pw.varint(typeof x === "boolean" ? (x ? 1 : 0) : x);
                }
              }));
            } else for (const x of v) pbScalar(w, f, x);
          } else pbScalar(w, f, v);
          break;
      }
    }
    if (keepUnknown) for (const r of node.unknown) w.bytes(r);
  });
}

function writeProtobuf(root, keepUnknown) {
  return pbMessageBody(root, keepUnknown);
}

module.exports = { writeJson, writeMsgpack, writeProtobuf, jsonValue, jsonString };
