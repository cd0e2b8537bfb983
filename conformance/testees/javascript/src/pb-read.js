"use strict";
// Reading Protobuf (protobuf-format.md): the wire format is parsed against
// the message model in one pass. Faults of phase 1 (wire format, UTF-8,
// duplicate map keys, resource limits) are thrown at once; faults of phase 3
// (unknown fields and enum numbers, ranges, non-finite numbers, invalid
// timestamps, Values without a kind) are collected in the order read and
// reported after the version check of phase 2, since unknown content is
// tolerated in a document of a newer minor version.

const { MwError, ptr } = require("./errors");
const { decodeUtf8 } = require("./text");
const { MsgNode, isDefault } = require("./doc");
const { inRange } = require("./timestamp");
const { MAX_SAFE } = require("./numbers");
const { checkVersionString } = require("./version");

const e1 = (reason, pointer, message) => new MwError(reason, pointer, message, 1);

class PbReader {
  constructor(bytes, limits) {
    this.buf = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.limits = limits;
    this.issues = []; // {err, unknown:boolean}
  }

  issue(reason, pointer, message, unknown) {
    this.issues.push({ err: new MwError(reason, pointer, message, 3), unknown: !!unknown });
  }

  // Reads a varint at pos (bounded by end); returns [BigInt, newPos].
  varint(pos, end, where, nested) {
    let result = 0n;
    let shift = 0n;
    for (let k = 0; k < 10; k++) {
      if (pos >= end) {
        if (nested) throw e1("INVALID_WIRE_FORMAT", where, `varint runs past the end of its message (byte offset ${pos})`);
        throw e1("TRUNCATED", "", `input ends inside a varint (byte offset ${pos})`);
      }
      const b = this.buf[pos++];
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return [BigInt.asUintN(64, result), pos];
      shift += 7n;
    }
    throw e1("INVALID_WIRE_FORMAT", where, `varint of more than 10 bytes (byte offset ${pos})`);
  }

  // Splits buf[start, end) into records. `nested`: a message inside a LEN
  // record (overruns are INVALID_WIRE_FORMAT) rather than the document
  // (overruns are TRUNCATED).
  scan(start, end, m, p, nested) {
    const recs = [];
    let pos = start;
    while (pos < end) {
      const tagStart = pos;
      let tag;
      [tag, pos] = this.varint(pos, end, p, nested);
      const num = Number(tag >> 3n);
      const wt = Number(tag & 7n);
      if (num === 0) throw e1("INVALID_WIRE_FORMAT", p, `field number 0 (byte offset ${tagStart})`);
      if (tag >> 3n > 536870911n) throw e1("INVALID_WIRE_FORMAT", p, `field number out of range (byte offset ${tagStart})`);
      if (wt === 3 || wt === 4 || wt === 6 || wt === 7) throw e1("INVALID_WIRE_FORMAT", p, `wire type ${wt} (byte offset ${tagStart})`);
      const f = m ? m.byNumber.get(num) : undefined;
      const fp = f ? ptr(p, f.name) : p;
      const overrun = (what) => {
        if (nested) return e1("INVALID_WIRE_FORMAT", fp, `${what} runs past the end of its message (byte offset ${pos})`);
        return e1("TRUNCATED", "", `input ends inside ${what} (byte offset ${pos})`);
      };
      const rec = { num, wt, tagStart, f };
      switch (wt) {
        case 0:
          [rec.v, pos] = this.varint(pos, end, fp, nested);
          break;
        case 1:
          if (end - pos < 8) throw overrun("a fixed 64-bit value");
          rec.vs = pos; pos += 8;
          break;
        case 5:
          if (end - pos < 4) throw overrun("a fixed 32-bit value");
          rec.vs = pos; pos += 4;
          break;
        case 2: {
          let len;
          [len, pos] = this.varint(pos, end, fp, nested);
          if (len > BigInt(end - pos)) throw overrun("the bytes of a LEN record");
          rec.vs = pos;
          pos += Number(len);
          rec.ve = pos;
          break;
        }
      }
      rec.end = pos;
      recs.push(rec);
    }
    return recs;
  }

  checkWireType(rec, f, fp) {
    if (rec.wt === f.wireType) return;
    if (f.packable && rec.wt === 2) return;
    throw e1("INVALID_WIRE_FORMAT", fp, `wire type ${rec.wt} for field ${f.name}`);
  }

  str(rec, where) {
    const len = rec.ve - rec.vs;
    if (len > this.limits.maxStringBytes) throw e1("STRING_TOO_LONG", where, "string longer than max_string_bytes");
    const s = decodeUtf8(this.buf.subarray(rec.vs, rec.ve));
    if (s === null) throw e1("INVALID_UTF8", where, "string is not well-formed UTF-8");
    return s;
  }

  // Groups the records of singular message-like fields, applying the oneof
  // rule (the last member read wins; a member read again after another one
  // starts afresh) and merging repeated occurrences (protobuf-format.md §4.4).
  group(recs, m) {
    const slices = new Map(); // field name -> [rec...]
    const active = new Map(); // oneof name -> field name
    for (const rec of recs) {
      const f = rec.f;
      if (!f || f.repeated) continue;
      if (f.oneof) {
        const cur = active.get(f.oneof);
        if (cur !== f.name) {
          if (cur !== undefined) slices.delete(cur);
          active.set(f.oneof, f.name);
          slices.set(f.name, []);
        }
      }
      if (rec.wt !== 2) continue;
      if (!slices.has(f.name)) slices.set(f.name, []);
      slices.get(f.name).push(rec);
    }
    return { slices, active };
  }

  // The bytes of a merged singular message: the concatenation of its
  // occurrences (each checked on its own first).
  merged(list, m, fp) {
    if (list.length === 1) return [this.buf, list[0].vs, list[0].ve];
    let total = 0;
    for (const r of list) {
      this.scan(r.vs, r.ve, m, fp, true);
      total += r.ve - r.vs;
    }
    const out = new Uint8Array(total);
    let o = 0;
    for (const r of list) { out.set(this.buf.subarray(r.vs, r.ve), o); o += r.ve - r.vs; }
    return [out, 0, total];
  }

  sub(buf, start, end, fn) {
    if (buf === this.buf) return fn(start, end);
    const saveBuf = this.buf, saveDv = this.dv;
    this.buf = buf;
    this.dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    try {
      return fn(start, end);
    } finally {
      this.buf = saveBuf;
      this.dv = saveDv;
    }
  }

  message(start, end, m, p, depth, nested) {
    if (depth > this.limits.maxDepth) throw e1("NESTING_TOO_DEEP", p, `nesting deeper than ${this.limits.maxDepth}`);
    const recs = this.scan(start, end, m, p, nested);
    const node = new MsgNode(m);
    const { slices, active } = this.group(recs, m);
    const counts = new Map();
    const done = new Set();
    for (const rec of recs) {
      const f = rec.f;
      if (!f) {
        node.unknown.push(this.buf.slice(rec.tagStart, rec.end));
        this.issue("UNKNOWN_FIELD", ptr(p, rec.num), `field number ${rec.num} is not a field of ${m.name}`, true);
        continue;
      }
      const fp = ptr(p, f.name);
      this.checkWireType(rec, f, fp);
      if (f.oneof && active.get(f.oneof) !== f.name) {
        // Cleared by a later member of its oneof; still checked for UTF-8.
        if (f.kind === "scalar" && f.scalar === "string") this.str(rec, fp);
        continue;
      }
      if (!f.repeated) {
        if (!node.order.includes(f.name)) node.order.push(f.name);
        if (f.kind === "message" || f.kind === "timestamp" || f.kind === "value") {
          if (done.has(f.name)) continue;
          done.add(f.name);
          const list = slices.get(f.name) || [];
          const [b, s, e] = list.length ? this.merged(list, f.kind === "message" ? f.message : null, fp) : [new Uint8Array(0), 0, 0];
          let v;
          this.sub(b, s, e, (s2, e2) => {
            if (f.kind === "message") v = this.message(s2, e2, f.message, fp, depth + 1, true);
            else if (f.kind === "timestamp") v = this.timestamp(s2, e2, fp);
            else v = this.value(s2, e2, fp, depth + 1);
          });
          node.f.set(f.name, v);
          continue;
        }
        const v = this.scalarOrEnum(rec, f, fp, false);
        if (v === undefined || (!f.explicit && isDefault(f, v))) node.f.delete(f.name);
        else node.f.set(f.name, v);
        continue;
      }
      // Repeated fields: elements appended in order, packed or not.
      let list = node.f.get(f.name);
      if (!list) {
        list = [];
        node.f.set(f.name, list);
        if (depth + 1 > this.limits.maxDepth) throw e1("NESTING_TOO_DEEP", fp, `nesting deeper than ${this.limits.maxDepth}`);
      }
      if (f.kind === "map") {
        const seen = counts.get(f.name) || new Set();
        counts.set(f.name, seen);
        const [key, val] = this.mapEntry(rec.vs, rec.ve, fp, depth + 1);
        const kp = ptr(fp, key);
        if (seen.has(key)) throw e1("DUPLICATE_KEY", kp, `key "${key}" occurs twice`);
        seen.add(key);
        list.push([key, val]);
      } else if (f.kind === "message") {
        list.push(this.message(rec.vs, rec.ve, f.message, ptr(fp, list.length), depth + 2, true));
      } else if (f.kind === "f32vec") {
        if (rec.wt === 2) {
          const len = rec.ve - rec.vs;
          if (len % 4 !== 0) throw e1("INVALID_WIRE_FORMAT", fp, "packed float field whose length is not a multiple of 4");
          for (let k = rec.vs; k < rec.ve; k += 4) list.push(this.f32(k, ptr(fp, list.length)));
        } else list.push(this.f32(rec.vs, ptr(fp, list.length)));
      } else if (f.packable && rec.wt === 2) {
        let pos = rec.vs;
        while (pos < rec.ve) {
          const el = { wt: f.wireType };
          if (f.wireType === 0) [el.v, pos] = this.varint(pos, rec.ve, fp, true);
          else {
            const w = f.wireType === 1 ? 8 : 4;
            if (rec.ve - pos < w) throw e1("INVALID_WIRE_FORMAT", fp, "packed field whose length is not a multiple of the element size");
            el.vs = pos; pos += w;
          }
          list.push(this.scalarOrEnum(el, f, ptr(fp, list.length), true));
          if (list.length > this.limits.maxItems) throw e1("TOO_MANY_ITEMS", fp, `list with more than ${this.limits.maxItems} elements`);
        }
      } else {
        list.push(this.scalarOrEnum(rec, f, ptr(fp, list.length), true));
      }
      if (list.length > this.limits.maxItems) throw e1("TOO_MANY_ITEMS", fp, `list with more than ${this.limits.maxItems} elements`);
    }
    // Empty repeated fields are absent; max_dimensions and max_batch_records.
    for (const f of m.fields) {
      if (!f.repeated) continue;
      const list = node.f.get(f.name);
      if (!list) continue;
      if (list.length === 0) { node.f.delete(f.name); continue; }
      if (f.kind === "f32vec" && list.length > this.limits.maxDimensions && list.length <= (f.rules.maxItems ?? Infinity)) {
        const where = m.name === "memorywire.v1.Embedding" ? ptr(p, "dimensions") : ptr(p, f.name);
        this.issue("TOO_MANY_ITEMS", where, `vector with more than ${this.limits.maxDimensions} values`);
      }
      if (isBatchField(f) && list.length > this.limits.maxBatchRecords && list.length <= (f.rules.maxItems ?? Infinity)) {
        this.issue("TOO_MANY_ITEMS", ptr(p, f.name), `more than ${this.limits.maxBatchRecords} records in one batch`);
      }
    }
    return node;
  }

  f32(pos, where) {
    const bits = this.dv.getUint32(pos, true);
    if ((bits & 0x7f800000) === 0x7f800000) this.issue("NON_FINITE_NUMBER", where, "NaN or an infinity");
    return bits;
  }

  scalarOrEnum(rec, f, where, element) {
    if (f.kind === "enum") {
      const num = Number(BigInt.asIntN(32, rec.v));
      if (num === 0) {
        if (element) this.issue("UNKNOWN_ENUM_VALUE", where, "enum number 0 as an element of a repeated field");
        return 0;
      }
      if (f.enum.byNumber.has(num)) return num;
      this.issue("UNKNOWN_ENUM_VALUE", where, `${num} is not a value of ${f.enum.name}`, true);
      return { unk: num };
    }
    switch (f.scalar) {
      case "string": return this.str(rec, where);
      case "bytes": return this.buf.slice(rec.vs, rec.ve);
      case "bool": return rec.v !== 0n;
      case "uint32": return Number(BigInt.asUintN(32, rec.v));
      case "uint64":
        if (rec.v > MAX_SAFE) {
          this.issue("NUMBER_OUT_OF_RANGE", where, `${rec.v} is above 2^53-1`);
          return undefined;
        }
        return Number(rec.v);
      case "double": {
        const x = this.dv.getFloat64(rec.vs, true);
        if (!Number.isFinite(x)) { this.issue("NON_FINITE_NUMBER", where, "NaN or an infinity"); return undefined; }
        return x;
      }
    }
    throw new Error("unsupported scalar type " + f.scalar);
  }

  timestamp(start, end, p) {
    const recs = this.scan(start, end, null, p, true);
    let s = 0n, n = 0;
    const unknown = [];
    for (const rec of recs) {
      if (rec.num === 1 || rec.num === 2) {
        if (rec.wt !== 0) throw e1("INVALID_WIRE_FORMAT", p, `wire type ${rec.wt} in a Timestamp`);
        if (rec.num === 1) s = BigInt.asIntN(64, rec.v);
        else n = Number(BigInt.asIntN(32, rec.v));
      } else {
        unknown.push(this.buf.slice(rec.tagStart, rec.end));
        this.issue("UNKNOWN_FIELD", ptr(p, rec.num), `field number ${rec.num} is not a field of google.protobuf.Timestamp`, true);
      }
    }
    if (!inRange(s, n)) this.issue("INVALID_TIMESTAMP", p, "timestamp out of range or nanos outside 0..999999999");
    const ts = { s: Number(s), n };
    if (unknown.length) ts.unknown = unknown;
    return ts;
  }

  // A MapEntry: returns [key, Value].
  mapEntry(start, end, mp, depth) {
    const recs = this.scan(start, end, null, mp, true);
    let keyRec = null;
    const valueRecs = [];
    const unknown = [];
    for (const rec of recs) {
      if (rec.num === 1 || rec.num === 2) {
        if (rec.wt !== 2) throw e1("INVALID_WIRE_FORMAT", mp, `wire type ${rec.wt} in a MapEntry`);
        if (rec.num === 1) keyRec = rec;
        else valueRecs.push(rec);
      } else unknown.push(rec);
    }
    // An ill-formed key is reported at the map that holds it.
    const key = keyRec ? this.str(keyRec, mp) : "";
    const kp = ptr(mp, key);
    for (const rec of unknown) this.issue("UNKNOWN_FIELD", ptr(kp, rec.num), `field number ${rec.num} is not a field of memorywire.v1.MapEntry`, true);
    let val;
    if (valueRecs.length === 0) {
      this.issue("VALUE_KIND_MISSING", kp, "map entry without a value");
      val = { k: "null" };
    } else {
      const [b, s, e] = this.merged(valueRecs, null, kp);
      this.sub(b, s, e, (s2, e2) => { val = this.value(s2, e2, kp, depth + 1); });
    }
    if (unknown.length) val = Object.assign({}, val, { entryUnknown: unknown.map((r) => this.buf.slice(r.tagStart, r.end)) });
    return [key, val];
  }

  // A Value message (protobuf-format.md §3.8); depth is the JSON depth the
  // Value has if it holds a list or a map.
  value(start, end, p, depth) {
    const recs = this.scan(start, end, null, p, true);
    let kind = null; // field number of the active member
    let kindRecs = [];
    const unknown = [];
    for (const rec of recs) {
      if (rec.num >= 1 && rec.num <= 7) {
        const want = rec.num === 4 ? 1 : rec.num >= 5 ? 2 : 0;
        if (rec.wt !== want) throw e1("INVALID_WIRE_FORMAT", p, `wire type ${rec.wt} for Value field ${rec.num}`);
        if (rec.num === 5) this.str(rec, p);
        if (kind !== rec.num) { kind = rec.num; kindRecs = []; }
        kindRecs.push(rec);
      } else {
        unknown.push(rec);
        this.issue("UNKNOWN_FIELD", ptr(p, rec.num), `field number ${rec.num} is not a field of memorywire.v1.Value`, true);
      }
    }
    let v;
    const last = kindRecs[kindRecs.length - 1];
    switch (kind) {
      case null:
        this.issue("VALUE_KIND_MISSING", p, "Value with no kind set");
        v = { k: "null" };
        break;
      case 1: {
        const num = Number(BigInt.asIntN(32, last.v));
        if (num !== 0) this.issue("UNKNOWN_ENUM_VALUE", p, `null_value ${num} is not NULL_VALUE`);
        v = { k: "null" };
        break;
      }
      case 2: v = { k: "bool", v: last.v !== 0n }; break;
      case 3: {
        const u = last.v;
        const z = (u >> 1n) ^ -(u & 1n);
        v = { k: "int", v: BigInt.asIntN(64, z) };
        break;
      }
      case 4: {
        const x = this.dv.getFloat64(last.vs, true);
        if (!Number.isFinite(x)) this.issue("NON_FINITE_NUMBER", p, "NaN or an infinity");
        v = { k: "float", v: x };
        break;
      }
      case 5: v = { k: "str", v: this.str(last, p) }; break;
      case 6:
      case 7: {
        if (depth > this.limits.maxDepth) throw e1("NESTING_TOO_DEEP", p, `nesting deeper than ${this.limits.maxDepth}`);
        const [b, s, e] = this.merged(kindRecs, null, p);
        this.sub(b, s, e, (s2, e2) => { v = kind === 6 ? this.valueList(s2, e2, p, depth) : this.valueMap(s2, e2, p, depth); });
        break;
      }
    }
    if (unknown.length) v.unknown = unknown.map((r) => this.buf.slice(r.tagStart, r.end));
    return v;
  }

  valueList(start, end, p, depth) {
    const recs = this.scan(start, end, null, p, true);
    const items = [];
    const unknown = [];
    for (const rec of recs) {
      if (rec.num === 1) {
        if (rec.wt !== 2) throw e1("INVALID_WIRE_FORMAT", p, `wire type ${rec.wt} in a ValueList`);
        items.push(this.value(rec.vs, rec.ve, ptr(p, items.length), depth + 1));
        if (items.length > this.limits.maxItems) throw e1("TOO_MANY_ITEMS", p, `list with more than ${this.limits.maxItems} elements`);
      } else {
        unknown.push(this.buf.slice(rec.tagStart, rec.end));
        this.issue("UNKNOWN_FIELD", ptr(p, rec.num), `field number ${rec.num} is not a field of memorywire.v1.ValueList`, true);
      }
    }
    const v = { k: "list", v: items };
    if (unknown.length) v.innerUnknown = unknown;
    return v;
  }

  valueMap(start, end, p, depth) {
    const recs = this.scan(start, end, null, p, true);
    const entries = [];
    const seen = new Set();
    const unknown = [];
    for (const rec of recs) {
      if (rec.num === 1) {
        if (rec.wt !== 2) throw e1("INVALID_WIRE_FORMAT", p, `wire type ${rec.wt} in a ValueMap`);
        const [key, val] = this.mapEntry(rec.vs, rec.ve, p, depth);
        if (seen.has(key)) throw e1("DUPLICATE_KEY", ptr(p, key), `key "${key}" occurs twice`);
        seen.add(key);
        entries.push([key, val]);
        if (entries.length > this.limits.maxItems) throw e1("TOO_MANY_ITEMS", p, `map with more than ${this.limits.maxItems} entries`);
      } else {
        unknown.push(this.buf.slice(rec.tagStart, rec.end));
        this.issue("UNKNOWN_FIELD", ptr(p, rec.num), `field number ${rec.num} is not a field of memorywire.v1.ValueMap`, true);
      }
    }
    const v = { k: "map", v: entries };
    if (unknown.length) v.innerUnknown = unknown;
    return v;
  }
}

function isBatchField(f) {
  const n = f.parent.name;
  return (n === "memorywire.v1.PutRequest" && f.name === "items") ||
    (n === "memorywire.v1.ExportResponse" && f.name === "records") ||
    (n === "memorywire.v1.ImportRequest" && f.name === "records");
}

function readProtobuf(bytes, msg, limits) {
  if (bytes.length > limits.maxDocumentBytes) throw e1("DOCUMENT_TOO_LARGE", "", `document of ${bytes.length} bytes is larger than max_document_bytes`);
  const r = new PbReader(bytes, limits);
  const root = r.message(0, bytes.length, msg, "", 1, false);
  // Phase 2.
  let newer;
  const f = msg.byName.get("specversion");
  if (!f) newer = msg.name === "memorywire.v1.Error";
  else {
    const v = root.get("specversion");
    if (v === undefined) throw new MwError("REQUIRED_FIELD_MISSING", "/specversion", "the document has no specversion", 2);
    newer = checkVersionString(v).newer;
  }
  // Phase 3.
  const unknowns = [];
  for (const is of r.issues) {
    if (is.unknown && newer) { unknowns.push(is.err.pointer); continue; }
    throw is.err;
  }
  return { root, newer, unknowns };
}

module.exports = { readProtobuf };
