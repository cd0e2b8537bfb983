"use strict";
// Phases 2 (version) and 3 (mapping) of reading JSON and MessagePack: the
// generic tree of json-read.js / msgpack-read.js is checked against the
// message model and turned into the typed document tree (see doc.js).

const { MwError, ptr } = require("./errors");
const { decodeBase64 } = require("./base64");
const { parseTimestamp, inRange } = require("./timestamp");
const { parseJsonFloat, INT64_MIN, INT64_MAX, MAX_SAFE, UINT32_MAX, numberToF32Bits } = require("./numbers");
const { MsgNode, isDefault } = require("./doc");
const { checkVersionString } = require("./version");

const UNKNOWN_ENUM_NAME = /^[a-z][a-z0-9_]*$/;

const e3 = (reason, pointer, message) => new MwError(reason, pointer, message, 3);

// Generic-node accessors, so that one mapper serves both formats.
const G = {
  json: {
    isNull: (g) => g.t === "z",
    isObj: (g) => g.t === "o",
    members: (g) => g.m,
    isArr: (g) => g.t === "a",
    items: (g) => g.v,
    isStr: (g) => g.t === "s",
    isBool: (g) => g.t === "b",
    typeName: (g) => ({ o: "object", a: "array", s: "string", n: "number", b: "boolean", z: "null" })[g.t],
  },
  msgpack: {
    isNull: (g) => g.t === "nil",
    isObj: (g) => g.t === "map",
    members: (g) => g.m,
    isArr: (g) => g.t === "arr",
    items: (g) => g.v,
    isStr: (g) => g.t === "str",
    isBool: (g) => g.t === "bool",
    typeName: (g) => ({ map: "map", arr: "array", str: "str", bin: "bin", int: "int", f32: "float 32", f64: "float 64", nil: "nil", bool: "bool", ext: "ext" })[g.t],
  },
};

// Phase 1 completion for JSON: max_string_bytes applies to every string but
// those of Bytes fields, whose type the parser did not know.
function checkLongStrings(root, msg) {
  if (!root.longStrings || root.longStrings.length === 0) return;
  const walkAny = (g, p) => {
    if (g.t === "s" && g.long) throw new MwError("STRING_TOO_LONG", p, "string longer than max_string_bytes", 1);
    if (g.t === "o") for (const [k, v] of g.m) walkAny(v, ptr(p, k));
    if (g.t === "a") g.v.forEach((v, i) => walkAny(v, ptr(p, i)));
  };
  const walkMsg = (g, m, p) => {
    if (g.t !== "o") return walkAny(g, p);
    for (const [k, v] of g.m) {
      const f = m && m.byName.get(k);
      const mp = ptr(p, k);
      if (f && f.kind === "scalar" && f.scalar === "bytes") {
        if (f.repeated && v.t === "a") v.v.forEach((x, i) => { if (x.t !== "s") walkAny(x, ptr(mp, i)); });
        else if (v.t !== "s") walkAny(v, mp);
        continue;
      }
      if (f && f.kind === "message") {
        if (f.repeated && v.t === "a") v.v.forEach((x, i) => walkMsg(x, f.message, ptr(mp, i)));
        else walkMsg(v, f.message, mp);
        continue;
      }
      walkAny(v, mp);
    }
  };
  walkMsg(root, msg, "");
}

// Phase 2: the version of the document (versioning.md §1.4). Returns
// {newer:boolean, version:string|null}.
function checkVersion(root, msg, fmt) {
  const f = msg.byName.get("specversion");
  if (!f) {
    // A document type without specversion: an Error is read as a document of
    // a newer minor version (versioning.md §1.2); other message types (which
    // are not documents of the specification) are read as version 1.0.
    return { newer: msg.name === "memorywire.v1.Error", version: null };
  }
  const acc = G[fmt];
  const member = acc.members(root).find(([k]) => k === "specversion");
  if (!member) throw new MwError("REQUIRED_FIELD_MISSING", "/specversion", "the document has no specversion", 2);
  const g = member[1];
  if (acc.isNull(g)) throw new MwError("NULL_VALUE", "/specversion", "specversion is null", 2);
  if (!acc.isStr(g)) throw new MwError("TYPE_MISMATCH", "/specversion", "specversion is not a string", 2);
  return checkVersionString(g.v);
}

class Mapper {
  constructor(fmt, ctx) {
    this.fmt = fmt;
    this.acc = G[fmt];
    this.ctx = ctx; // {newer, limits, unknowns: [pointer...]}
  }

  noteUnknown(p) {
    this.ctx.unknowns.push(p);
  }

  typeMismatch(p, g, want) {
    return e3("TYPE_MISMATCH", p, `expected ${want}, found ${this.acc.typeName(g)}`);
  }

  message(g, m, p) {
    const acc = this.acc;
    if (acc.isNull(g)) throw e3("NULL_VALUE", p, "null is not a value of a message field");
    if (!acc.isObj(g)) throw this.typeMismatch(p, g, "an object");
    const node = new MsgNode(m);
    for (const [name, v] of acc.members(g)) {
      const mp = ptr(p, name);
      const f = m.byName.get(name);
      if (!f) {
        if (!this.ctx.newer) throw e3("UNKNOWN_FIELD", mp, `"${name}" is not a field of ${m.name}`);
        this.noteUnknown(mp);
        node.unknown.push([name, this.unknownValue(v, mp)]);
        continue;
      }
      const val = this.field(v, f, mp);
      node.order.push(name);
      if (val === undefined) continue; // implicit-presence default
      node.f.set(name, val);
    }
    this.afterMessage(node, p);
    return node;
  }

  // Phase-3 checks that need the whole message: max_dimensions.
  afterMessage(node, p) {
    for (const f of node.m.fields) {
      if (f.kind !== "f32vec") continue;
      const v = node.f.get(f.name);
      if (v && v.length > this.ctx.limits.maxDimensions && v.length <= (f.rules.maxItems ?? Infinity)) {
        const where = node.m.name === "memorywire.v1.Embedding" ? ptr(p, "dimensions") : ptr(p, f.name);
        throw e3("TOO_MANY_ITEMS", where, `vector with more than ${this.ctx.limits.maxDimensions} values`);
      }
    }
  }

  // Maps one member to the field's typed value; undefined for an
  // implicit-presence default (treated as absent).
  field(g, f, p) {
    const acc = this.acc;
    if (f.kind === "value") return this.value(g, p, false);
    if (acc.isNull(g)) throw e3("NULL_VALUE", p, "null is not a value of this field");
    if (f.kind === "f32vec") {
      const v = this.f32vec(g, p);
      return v.length === 0 ? undefined : v;
    }
    if (f.kind === "map") {
      if (!acc.isObj(g)) throw this.typeMismatch(p, g, "an object");
      const entries = acc.members(g).map(([k, v]) => [k, this.value(v, ptr(p, k), false)]);
      return entries.length === 0 ? undefined : entries;
    }
    if (f.repeated) {
      if (!acc.isArr(g)) throw this.typeMismatch(p, g, "an array");
      const out = [];
      acc.items(g).forEach((x, i) => {
        const ep = ptr(p, i);
        if (acc.isNull(x)) throw e3("NULL_VALUE", ep, "null element of a list");
        out.push(this.single(x, f, ep));
      });
      if (this.ctx.limits.maxBatchRecords !== undefined && isBatchField(f) && out.length > this.ctx.limits.maxBatchRecords && out.length <= (f.rules.maxItems ?? Infinity)) {
        throw e3("TOO_MANY_ITEMS", p, `more than ${this.ctx.limits.maxBatchRecords} records in one batch`);
      }
      return out.length === 0 ? undefined : out;
    }
    const v = this.single(g, f, p);
    if (!f.explicit && isDefault(f, v)) return undefined;
    return v;
  }

  single(g, f, p) {
    const acc = this.acc;
    switch (f.kind) {
      case "message": return this.message(g, f.message, p);
      case "timestamp": return this.timestamp(g, p);
      case "enum": {
        if (!acc.isStr(g)) throw this.typeMismatch(p, g, "a string (enum name)");
        const num = f.enum.byName.get(g.v);
        if (num !== undefined) return num;
        if (this.ctx.newer && g.v !== "unspecified" && UNKNOWN_ENUM_NAME.test(g.v)) {
          this.noteUnknown(p);
          return { unk: g.v };
        }
        throw e3("UNKNOWN_ENUM_VALUE", p, `"${g.v}" is not a value of ${f.enum.name}`);
      }
      case "scalar": return this.scalar(g, f.scalar, p);
    }
    throw new Error("unexpected field kind " + f.kind);
  }

  scalar(g, type, p) {
    const acc = this.acc;
    switch (type) {
      case "string":
        if (!acc.isStr(g)) throw this.typeMismatch(p, g, "a string");
        return g.v;
      case "bool":
        if (!acc.isBool(g)) throw this.typeMismatch(p, g, "a boolean");
        return g.v;
      case "bytes":
        if (this.fmt === "json") {
          if (!acc.isStr(g)) throw this.typeMismatch(p, g, "a base64 string");
          const b = decodeBase64(g.v);
          if (b === null) throw e3("INVALID_BASE64", p, "not canonical base64 with padding");
          return b;
        }
        if (g.t !== "bin") throw this.typeMismatch(p, g, "a bin");
        return g.v;
      case "uint32":
      case "uint64": {
        let big;
        if (this.fmt === "json") {
          if (g.t !== "n") throw this.typeMismatch(p, g, "an integer");
          if (!g.int) throw e3("TYPE_MISMATCH", p, "number token with a fraction or an exponent for an integer field");
          big = jsonInt(g.raw, p);
        } else {
          if (g.t !== "int") throw this.typeMismatch(p, g, "an integer");
          big = g.v;
        }
        const max = type === "uint32" ? UINT32_MAX : MAX_SAFE;
        if (big < 0n || big > max) throw e3("NUMBER_OUT_OF_RANGE", p, `${big} is outside the range of ${type}`);
        return Number(big);
      }
      case "double": {
        let x;
        if (this.fmt === "json") {
          if (g.t !== "n") throw this.typeMismatch(p, g, "a number");
          x = parseJsonFloat(g.raw);
        } else if (g.t === "f64" || g.t === "f32") {
          x = g.v;
        } else if (g.t === "int") {
          x = Number(g.v);
        } else throw this.typeMismatch(p, g, "a float");
        if (!Number.isFinite(x)) throw e3("NON_FINITE_NUMBER", p, "NaN or an infinity");
        return x;
      }
    }
    throw new Error("unsupported scalar type " + type);
  }

  timestamp(g, p) {
    if (this.fmt === "json") {
      if (!this.acc.isStr(g)) throw this.typeMismatch(p, g, "an RFC 3339 string");
      const ts = parseTimestamp(g.v);
      if (!ts) throw e3("INVALID_TIMESTAMP", p, `"${g.v}" is not a valid timestamp`);
      return ts;
    }
    if (g.t !== "ext") throw this.typeMismatch(p, g, "a timestamp ext");
    if (g.type !== -1) throw e3("TYPE_MISMATCH", p, `ext type ${g.type} is not the timestamp type -1`);
    return mpTimestamp(g.data, p);
  }

  f32vec(g, p) {
    const acc = this.acc;
    if (this.fmt === "json") {
      if (!acc.isArr(g)) throw this.typeMismatch(p, g, "an array of numbers");
      return acc.items(g).map((x, i) => {
        const ep = ptr(p, i);
        if (acc.isNull(x)) throw e3("NULL_VALUE", ep, "null element of a vector");
        if (x.t !== "n") throw this.typeMismatch(ep, x, "a number");
        const d = parseJsonFloat(x.raw);
        if (!Number.isFinite(d)) throw e3("NON_FINITE_NUMBER", ep, "number overflows binary64");
        const f = Math.fround(d);
        if (!Number.isFinite(f)) throw e3("NUMBER_OUT_OF_RANGE", ep, "number overflows binary32");
        return numberToF32Bits(f);
      });
    }
    if (g.t !== "bin") throw this.typeMismatch(p, g, "a bin (little-endian float32 vector)");
    const b = g.v;
    if (b.length % 4 !== 0) throw e3("INVALID_VECTOR", p, "vector length is not a multiple of 4");
    const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const out = [];
    for (let k = 0; k < b.length; k += 4) {
      const bits = dv.getUint32(k, true);
      if ((bits & 0x7f800000) === 0x7f800000) throw e3("NON_FINITE_NUMBER", ptr(p, k / 4), "NaN or an infinity");
      out.push(bits);
    }
    return out;
  }

  // A Value (core.md §3.4). `ext` allows bin and timestamp objects
  // (unknown MessagePack content, msgpack-format.md §6).
  value(g, p, ext) {
    const acc = this.acc;
    if (this.fmt === "json") {
      switch (g.t) {
        case "z": return { k: "null" };
        case "b": return { k: "bool", v: g.v };
        case "s": return { k: "str", v: g.v };
        case "n":
          if (g.int) {
            const v = jsonInt(g.raw, p);
            if (v < INT64_MIN || v > INT64_MAX) throw e3("NUMBER_OUT_OF_RANGE", p, "integer outside the signed 64-bit range");
            return { k: "int", v };
          } else {
            const x = parseJsonFloat(g.raw);
            if (!Number.isFinite(x)) throw e3("NON_FINITE_NUMBER", p, "number overflows binary64");
            return { k: "float", v: x };
          }
        case "a": return { k: "list", v: g.v.map((x, i) => this.value(x, ptr(p, i), ext)) };
        case "o": return { k: "map", v: g.m.map(([k, x]) => [k, this.value(x, ptr(p, k), ext)]) };
      }
    } else {
      switch (g.t) {
        case "nil": return { k: "null" };
        case "bool": return { k: "bool", v: g.v };
        case "str": return { k: "str", v: g.v };
        case "int":
          if (g.v > INT64_MAX) throw e3("NUMBER_OUT_OF_RANGE", p, "integer outside the signed 64-bit range");
          return { k: "int", v: g.v };
        case "f32":
        case "f64":
          if (!Number.isFinite(g.v)) throw e3("NON_FINITE_NUMBER", p, "NaN or an infinity");
          return { k: "float", v: g.v };
        case "arr": return { k: "list", v: g.v.map((x, i) => this.value(x, ptr(p, i), ext)) };
        case "map": return { k: "map", v: g.m.map(([k, x]) => [k, this.value(x, ptr(p, k), ext)]) };
        case "bin":
          if (ext) return { k: "bin", v: g.v };
          throw e3("TYPE_MISMATCH", p, "bin inside a Value");
        case "ext":
          if (ext && g.type === -1) return { k: "ts", v: mpTimestamp(g.data, p) };
          throw e3("TYPE_MISMATCH", p, g.type === -1 ? "timestamp inside a Value" : `ext type ${g.type}`);
      }
    }
    throw new Error("unexpected generic node " + g.t);
  }

  unknownValue(g, p) {
    return this.value(g, p, this.fmt === "msgpack");
  }
}

function isBatchField(f) {
  const n = f.parent.name;
  return (n === "memorywire.v1.PutRequest" && f.name === "items") ||
    (n === "memorywire.v1.ExportResponse" && f.name === "records") ||
    (n === "memorywire.v1.ImportRequest" && f.name === "records");
}

function jsonInt(raw, p) {
  // More than 19 digits is out of every range at once (json-format.md §3.8).
  const digits = raw[0] === "-" ? raw.length - 1 : raw.length;
  if (digits > 20) throw e3("NUMBER_OUT_OF_RANGE", p, "integer token of more than 20 digits");
  return BigInt(raw);
}

function mpTimestamp(d, p) {
  const dv = new DataView(d.buffer, d.byteOffset, d.byteLength);
  let s, n;
  if (d.length === 4) {
    s = BigInt(dv.getUint32(0));
    n = 0;
  } else if (d.length === 8) {
    const v = dv.getBigUint64(0);
    n = Number(v >> 34n);
    s = v & 0x3ffffffffn;
  } else if (d.length === 12) {
    n = dv.getUint32(0);
    s = dv.getBigInt64(4);
  } else {
    throw e3("INVALID_TIMESTAMP", p, `timestamp ext with ${d.length} bytes of data`);
  }
  if (!inRange(s, n)) throw e3("INVALID_TIMESTAMP", p, "timestamp out of range or nanoseconds ≥ 10^9");
  return { s: Number(s), n };
}

// Reads a generic tree (phases 2 and 3). Returns {root, newer, unknowns}.
function mapGeneric(fmt, root, msg, limits) {
  if (fmt === "json") checkLongStrings(root, msg);
  const { newer } = checkVersion(root, msg, fmt);
  const ctx = { newer, limits, unknowns: [] };
  const mapper = new Mapper(fmt, ctx);
  const node = mapper.message(root, msg, "");
  return { root: node, newer, unknowns: ctx.unknowns };
}

module.exports = { mapGeneric, mpTimestamp };
