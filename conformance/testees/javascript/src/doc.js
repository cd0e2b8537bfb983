"use strict";
// The typed document tree, independent of the encoding it was read from.
//
// MsgNode: one message. `f` maps field names to values; a field that is not
// in `f` is absent (implicit-presence defaults are never stored). `order`
// lists the known members in input order (for ONEOF_CONFLICT). `unknown`
// holds the unknown content of a document of a newer minor version, in the
// form of the encoding it was read from: [name, Value] pairs for JSON and
// MessagePack, raw records (Uint8Array) for Protobuf.
//
// Field values:
//   string -> string, bool -> boolean, uint32/uint64 -> number,
//   double -> number (sign of zero kept), bytes -> Uint8Array,
//   timestamp -> {s:number, n:number}, enum -> number, or {unk: name|number}
//   for an unknown value of a newer minor, f32vec -> array of uint32 bit
//   patterns, message -> MsgNode, value -> Value, map -> [[key, Value]...],
//   repeated -> array of the element values.
// Value: {k:"null"} | {k:"bool", v} | {k:"int", v:BigInt} | {k:"float", v}
//   | {k:"str", v} | {k:"list", v:[Value]} | {k:"map", v:[[key, Value]]}
//   | {k:"bin", v:Uint8Array} | {k:"ts", v:{s,n}}   (the last two only in
//   unknown MessagePack content)

class MsgNode {
  constructor(m) {
    this.m = m;
    this.f = new Map();
    this.order = [];
    this.unknown = [];
  }
  has(name) {
    return this.f.has(name);
  }
  get(name) {
    return this.f.get(name);
  }
}

// Whether a singular value of an implicit-presence field is its default.
function isDefault(f, v) {
  switch (f.kind) {
    case "enum": return v === 0;
    case "scalar":
      switch (f.scalar) {
        case "string": return v === "";
        case "bool": return v === false;
        case "bytes": return v.length === 0;
        case "double": case "float": return v === 0 && !Object.is(v, -0);
        default: return v === 0 || v === 0n;
      }
  }
  return false;
}

module.exports = { MsgNode, isDefault };
