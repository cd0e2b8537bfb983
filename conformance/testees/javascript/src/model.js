"use strict";
// The schema model of memorywire v1, built at startup from the compiled
// .proto files (descriptors.binpb, a FileDescriptorSet made by `buf build`).
// Every message, field, number, presence and (rules) option comes from there;
// nothing about the messages is hard-coded except the special types that the
// format documents map specially (Timestamp, Value, repeated MapEntry, packed
// float vectors).

const fs = require("node:fs");
const path = require("node:path");
const { fromBinary, createFileRegistry, getExtension, hasExtension, ScalarType } = require("@bufbuild/protobuf");
const { FileDescriptorSetSchema } = require("@bufbuild/protobuf/wkt");

const DESCRIPTORS = path.join(__dirname, "..", "descriptors.binpb");

const SCALAR_NAMES = {
  [ScalarType.DOUBLE]: "double",
  [ScalarType.FLOAT]: "float",
  [ScalarType.INT64]: "int64",
  [ScalarType.UINT64]: "uint64",
  [ScalarType.INT32]: "int32",
  [ScalarType.FIXED64]: "fixed64",
  [ScalarType.FIXED32]: "fixed32",
  [ScalarType.BOOL]: "bool",
  [ScalarType.STRING]: "string",
  [ScalarType.BYTES]: "bytes",
  [ScalarType.UINT32]: "uint32",
  [ScalarType.SFIXED32]: "sfixed32",
  [ScalarType.SFIXED64]: "sfixed64",
  [ScalarType.SINT32]: "sint32",
  [ScalarType.SINT64]: "sint64",
};

function bigOrUndef(v) {
  return v === undefined || v === null ? undefined : Number(v);
}

class EnumModel {
  constructor(desc) {
    this.name = desc.typeName;
    const zero = desc.values.find((v) => v.number === 0);
    // The prefix is the enum's name in upper snake case followed by "_":
    // the name of the zero value without "UNSPECIFIED".
    this.prefix = zero && zero.name.endsWith("_UNSPECIFIED") ? zero.name.slice(0, -"UNSPECIFIED".length) : "";
    this.byNumber = new Map();
    this.byName = new Map();
    for (const v of desc.values) {
      if (v.number === 0) continue;
      let n = v.name;
      if (this.prefix && n.startsWith(this.prefix)) n = n.slice(this.prefix.length);
      n = n.toLowerCase();
      this.byNumber.set(v.number, n);
      this.byName.set(n, v.number);
    }
  }
}

class FieldModel {
  constructor(msg, desc, model) {
    this.parent = msg;
    this.name = desc.name;
    this.number = desc.number;
    this.repeated = desc.fieldKind === "list";
    this.oneof = desc.oneof ? desc.oneof.name : null;
    this.proto3Optional = !!desc.proto.proto3Optional;
    const o = desc.proto.options;
    let rules = null;
    if (o && model.rulesExt && hasExtension(o, model.rulesExt)) rules = getExtension(o, model.rulesExt);
    this.rules = {
      required: !!(rules && rules.required),
      minLength: rules ? bigOrUndef(rules.minLength) : undefined,
      maxLength: rules ? bigOrUndef(rules.maxLength) : undefined,
      pattern: rules && rules.pattern ? rules.pattern : "",
      minItems: rules ? bigOrUndef(rules.minItems) : undefined,
      maxItems: rules ? bigOrUndef(rules.maxItems) : undefined,
      minimum: rules && rules.minimum !== undefined ? rules.minimum : undefined,
      maximum: rules && rules.maximum !== undefined ? rules.maximum : undefined,
      format: rules && rules.format ? rules.format : "",
      keyPattern: rules && rules.keyPattern ? rules.keyPattern : "",
    };
    if (this.rules.pattern) this.patternRe = new RegExp(this.rules.pattern, "u");
    if (this.rules.keyPattern) this.keyPatternRe = new RegExp(this.rules.keyPattern, "u");
    // kind: scalar | enum | message | timestamp | value | map | f32vec
    this._desc = desc;
  }

  resolve(model) {
    const desc = this._desc;
    delete this._desc;
    if (desc.fieldKind === "scalar" || (desc.fieldKind === "list" && desc.listKind === "scalar")) {
      this.scalar = SCALAR_NAMES[desc.scalar];
      if (this.repeated && this.scalar === "float") this.kind = "f32vec";
      else this.kind = "scalar";
    } else if (desc.fieldKind === "enum" || (desc.fieldKind === "list" && desc.listKind === "enum")) {
      this.kind = "enum";
      this.enum = model.enum(desc.enum.typeName);
    } else if (desc.fieldKind === "message" || (desc.fieldKind === "list" && desc.listKind === "message")) {
      const tn = desc.message.typeName;
      if (tn === "google.protobuf.Timestamp") this.kind = "timestamp";
      else if (tn === "memorywire.v1.Value") this.kind = "value";
      else if (tn === "memorywire.v1.MapEntry" && this.repeated) this.kind = "map";
      else {
        this.kind = "message";
        this.message = model.message(tn);
      }
    } else if (desc.fieldKind === "map") {
      throw new Error("proto map fields are not used by memorywire: " + this.name);
    } else {
      throw new Error("unsupported field kind " + desc.fieldKind);
    }
    // Explicit presence: message-typed fields, oneof members, proto3 optional.
    this.explicit = this.proto3Optional || !!this.oneof || (!this.repeated && (this.kind === "message" || this.kind === "timestamp" || this.kind === "value"));
    // Wire type of one element.
    if (this.kind === "enum") this.wireType = 0;
    else if (this.kind === "f32vec") this.wireType = 5;
    else if (this.kind === "scalar") {
      switch (this.scalar) {
        case "double": case "fixed64": case "sfixed64": this.wireType = 1; break;
        case "float": case "fixed32": case "sfixed32": this.wireType = 5; break;
        case "string": case "bytes": this.wireType = 2; break;
        default: this.wireType = 0;
      }
    } else this.wireType = 2;
    this.packable = this.repeated && (this.wireType === 0 || this.wireType === 1 || this.wireType === 5);
  }
}

class MessageModel {
  constructor(desc, model) {
    this.name = desc.typeName;
    this.fields = desc.fields.map((f) => new FieldModel(this, f, model));
    this.fields.sort((a, b) => a.number - b.number);
    this.byName = new Map(this.fields.map((f) => [f.name, f]));
    this.byNumber = new Map(this.fields.map((f) => [f.number, f]));
    this.oneofs = new Map();
    for (const o of desc.oneofs) this.oneofs.set(o.name, o.fields.map((f) => f.name));
  }
}

class Model {
  constructor(bytes) {
    const set = fromBinary(FileDescriptorSetSchema, bytes);
    this.registry = createFileRegistry(set);
    this.rulesExt = this.registry.getExtension("memorywire.v1.rules");
    this.messages = new Map();
    this.enums = new Map();
    const pending = [];
    for (const t of this.registry) {
      if (t.kind === "message" && t.typeName.startsWith("memorywire.")) {
        const m = new MessageModel(t, this);
        this.messages.set(t.typeName, m);
        pending.push(m);
      }
    }
    for (const m of pending) for (const f of m.fields) f.resolve(this);
  }

  message(name) {
    const m = this.messages.get(name);
    if (!m) throw new Error("unknown message " + name);
    return m;
  }

  enum(name) {
    let e = this.enums.get(name);
    if (!e) {
      const d = this.registry.getEnum(name);
      if (!d) throw new Error("unknown enum " + name);
      e = new EnumModel(d);
      this.enums.set(name, e);
    }
    return e;
  }

  // The top-level document types this codec reads: every message of the
  // memorywire.v1 package except the internals of Value.
  documentType(name) {
    if (name === "memorywire.v1.Value" || name === "memorywire.v1.ValueList" || name === "memorywire.v1.ValueMap" || name === "memorywire.v1.MapEntry" || name === "memorywire.v1.FieldRules") return null;
    return this.messages.get(name) || null;
  }
}

let cached = null;
function loadModel() {
  if (!cached) cached = new Model(fs.readFileSync(DESCRIPTORS));
  return cached;
}

module.exports = { loadModel, Model, MessageModel, FieldModel, EnumModel };
