"use strict";
// Phase 4 of reading (json-format.md §2.3): the constraints of core.md and
// operations.md, and of the (rules) options of the .proto files, checked on
// the typed document tree, whatever encoding it was read from.

const { MwError, ptr } = require("./errors");
const { codePointLength } = require("./text");
const { checkFormat } = require("./formats");
const { parseTimestamp } = require("./timestamp");
const { decodeBase64 } = require("./base64");

const e4 = (reason, pointer, message) => new MwError(reason, pointer, message, 4);

const RECORD = "memorywire.v1.MemoryRecord";
const DELETED = 4; // RECORD_STATUS_DELETED

class Validator {
  constructor(model, newer) {
    this.model = model;
    this.newer = newer;
  }

  document(root) {
    this.message(root, "", { top: true });
  }

  message(node, p, opts) {
    const m = node.m;
    // Oneof groups: at most one member (JSON and MessagePack can carry two).
    for (const [, members] of m.oneofs) {
      const present = node.order.filter((n) => members.includes(n) && node.has(n));
      if (present.length > 1) throw e4("ONEOF_CONFLICT", ptr(p, present[1]), `"${present[0]}" and "${present[1]}" are members of one oneof`);
    }
    if (m.name === RECORD && !opts.top && node.has("specversion")) {
      throw e4("UNKNOWN_FIELD", ptr(p, "specversion"), "a nested record carries no specversion");
    }
    for (const f of m.fields) {
      const fp = ptr(p, f.name);
      if (!node.has(f.name)) {
        if (f.rules.required) throw e4("REQUIRED_FIELD_MISSING", fp, `${f.name} is REQUIRED`);
        continue;
      }
      this.field(node.get(f.name), f, fp);
    }
    const special = SPECIAL[m.name];
    if (special) special.call(this, node, p, opts);
  }

  field(v, f, fp) {
    const r = f.rules;
    if (f.repeated) {
      const n = v.length;
      if (r.minItems !== undefined && n < r.minItems) throw e4("COUNT_OUT_OF_RANGE", fp, `${n} elements; at least ${r.minItems} needed`);
      if (r.maxItems !== undefined && n > r.maxItems) throw e4("COUNT_OUT_OF_RANGE", fp, `${n} elements; at most ${r.maxItems} allowed`);
      if (f.kind === "map") {
        if (f.keyPatternRe) {
          for (const [k] of v) if (!f.keyPatternRe.test(k)) throw e4("PATTERN_MISMATCH", ptr(fp, k), `key "${k}" does not match ${r.keyPattern}`);
        }
        return;
      }
      if (f.kind === "f32vec") return;
      v.forEach((x, i) => this.single(x, f, ptr(fp, i)));
      return;
    }
    this.single(v, f, fp);
  }

  single(v, f, fp) {
    const r = f.rules;
    switch (f.kind) {
      case "message":
        this.message(v, fp, { top: false });
        return;
      case "scalar":
        if (f.scalar === "string") {
          if (r.minLength !== undefined || r.maxLength !== undefined) {
            const n = codePointLength(v);
            if (r.minLength !== undefined && n < r.minLength) throw e4("LENGTH_OUT_OF_RANGE", fp, `${n} code points; at least ${r.minLength} needed`);
            if (r.maxLength !== undefined && n > r.maxLength) throw e4("LENGTH_OUT_OF_RANGE", fp, `${n} code points; at most ${r.maxLength} allowed`);
          }
          if (f.patternRe && !f.patternRe.test(v)) throw e4("PATTERN_MISMATCH", fp, `does not match ${r.pattern}`);
          if (r.format && !checkFormat(r.format, v)) throw e4("INVALID_FORMAT", fp, `not a valid ${r.format}`);
          return;
        }
        if (typeof v === "number") {
          // -0.0 equals 0 for the bounds.
          if (r.minimum !== undefined && v < r.minimum) throw e4("VALUE_OUT_OF_RANGE", fp, `${v} is less than ${r.minimum}`);
          if (r.maximum !== undefined && v > r.maximum) throw e4("VALUE_OUT_OF_RANGE", fp, `${v} is greater than ${r.maximum}`);
        }
        return;
      default:
        return;
    }
  }

  // Whether a oneof that needs a member is completed by unknown content
  // (versioning.md §3.2 item 3).
  completedByUnknown(node) {
    return this.newer && node.unknown.length > 0;
  }
}

function presentMember(node, oneofName) {
  const members = node.m.oneofs.get(oneofName) || [];
  return members.find((n) => node.has(n));
}

function enumName(model, enumTypeName, v) {
  if (typeof v !== "number") return undefined;
  return model.enum(enumTypeName).byNumber.get(v);
}

const SPECIAL = {
  [RECORD](node, p) {
    const member = presentMember(node, "payload");
    const lifecycle = node.get("lifecycle");
    const status = lifecycle ? lifecycle.get("status") : undefined;
    if (status === DELETED) {
      if (member) throw e4("KIND_MISMATCH", ptr(p, member), "a tombstone carries no payload");
      return;
    }
    if (!member) {
      if (this.completedByUnknown(node)) return;
      throw e4("REQUIRED_FIELD_MISSING", p, "the record has no payload");
    }
    if (member === "encrypted") return;
    const kind = node.get("kind");
    if (kind === undefined) return; // REQUIRED_FIELD_MISSING reported above
    const want = enumName(this.model, "memorywire.v1.RecordKind", kind);
    if (member !== want) throw e4("KIND_MISMATCH", ptr(p, member), `kind ${want || JSON.stringify(kind.unk)} does not match payload "${member}"`);
  },

  "memorywire.v1.ContentPart"(node, p) {
    if (!presentMember(node, "part") && !this.completedByUnknown(node)) throw e4("REQUIRED_FIELD_MISSING", p, "the content part has no member");
  },

  "memorywire.v1.Filter"(node, p) {
    if (!presentMember(node, "expression") && !this.completedByUnknown(node)) throw e4("REQUIRED_FIELD_MISSING", p, "the filter has no expression");
  },

  "memorywire.v1.MediaPart"(node, p) {
    if (!node.has("uri") && !node.has("data") && !node.has("file_id")) throw e4("REQUIRED_FIELD_MISSING", p, "a media part needs uri, data or file_id");
  },

  "memorywire.v1.ToolResult"(node, p) {
    if (node.has("output") && node.has("output_parts")) throw e4("ONEOF_CONFLICT", ptr(p, "output_parts"), "output and output_parts are exclusive");
  },

  "memorywire.v1.Embedding"(node, p) {
    if (node.has("dimensions") && node.has("values") && node.get("dimensions") !== node.get("values").length) {
      throw e4("DIMENSION_MISMATCH", ptr(p, "dimensions"), `dimensions is ${node.get("dimensions")} but there are ${node.get("values").length} values`);
    }
  },

  "memorywire.v1.Procedure"(node, p) {
    const states = node.get("states") || [];
    for (const name of ["initial_state", "current_state"]) {
      if (node.has(name) && !states.includes(node.get(name))) throw e4("VALUE_OUT_OF_RANGE", ptr(p, name), `"${node.get(name)}" is not one of the states`);
    }
  },

  "memorywire.v1.HistoryRequest"(node, p) {
    const thread = node.get("thread");
    if (thread !== undefined && typeof thread !== "number") return;
    const n = (node.get("agents") || []).length;
    const between = enumName(this.model, "memorywire.v1.HistoryThread", thread) === "between";
    if (between ? n !== 2 : n !== 0) throw e4("COUNT_OUT_OF_RANGE", ptr(p, "agents"), between ? "a between read names exactly two agents" : "agents are given only for a between read");
  },

  "memorywire.v1.VectorQuery"(node, p) {
    const values = node.get("values");
    if (values && values.every((b) => (b & 0x7fffffff) === 0)) throw e4("INVALID_VECTOR", ptr(p, "values"), "the query vector has zero norm");
  },

  "memorywire.v1.UpdateRequest"(node, p) {
    const patch = node.get("patch");
    if (patch && patch.k !== "map") throw e4("TYPE_MISMATCH", ptr(p, "patch"), "the patch is not a map");
  },

  "memorywire.v1.ReviewRequest"(node, p) {
    const decision = enumName(this.model, "memorywire.v1.ReviewDecision", node.get("decision"));
    const patch = node.get("patch");
    if (decision === "amend" && !patch) throw e4("REQUIRED_FIELD_MISSING", ptr(p, "patch"), "amend needs a patch");
    if ((decision === "approve" || decision === "reject") && patch) throw e4("ONEOF_CONFLICT", ptr(p, "patch"), `${decision} takes no patch`);
    if (patch && patch.k !== "map") throw e4("TYPE_MISMATCH", ptr(p, "patch"), "the patch is not a map");
  },

  "memorywire.v1.DeleteRequest"(node, p) {
    const ids = node.get("ids");
    if (ids && node.has("filter")) throw e4("ONEOF_CONFLICT", ptr(p, "filter"), "ids and filter are exclusive");
    if (!ids && !node.has("filter") && !this.completedByUnknown(node)) throw e4("REQUIRED_FIELD_MISSING", ptr(p, "ids"), "ids or filter is needed");
    if (node.has("expected_revision") && (!ids || ids.length !== 1)) throw e4("COUNT_OUT_OF_RANGE", ptr(p, "ids"), "expected_revision needs exactly one id");
  },

  "memorywire.v1.ExpirePolicy"(node, p) {
    const any = node.has("older_than_seconds") || node.has("not_accessed_seconds") || node.has("importance_below") || node.get("past_expiry") === true;
    if (!any && !this.completedByUnknown(node)) throw e4("REQUIRED_FIELD_MISSING", p, "the policy has no criterion");
    if (node.has("half_life_seconds") && !node.has("importance_below")) throw e4("REQUIRED_FIELD_MISSING", ptr(p, "importance_below"), "half_life_seconds needs importance_below");
  },

  "memorywire.v1.CompactRequest"(node, p) {
    const s = node.get("summary");
    if (!s) return;
    const sp = ptr(p, "summary");
    const kind = s.get("kind");
    if (kind !== undefined && enumName(this.model, "memorywire.v1.RecordKind", kind) !== "summary") throw e4("KIND_MISMATCH", ptr(sp, "kind"), "the summary record is not of kind summary");
    if (s.has("encrypted")) throw e4("KIND_MISMATCH", ptr(sp, "encrypted"), "the summary record is encrypted");
  },

  "memorywire.v1.Comparison"(node, p) {
    checkComparison.call(this, node, p);
  },
};

// ---- The filter language (operations.md §5) ----

// Resolves a comparison's field pointer in the record model. Returns a
// static type {t, ...} or {t:"dynamic"}; null when it names no field.
function resolveField(model, pointer) {
  if (pointer === "" || pointer[0] !== "/") return null;
  const tokens = pointer.slice(1).split("/").map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
  let cur = { t: "message", m: model.message(RECORD) };
  for (const tok of tokens) {
    switch (cur.t) {
      case "message": {
        const f = cur.m.byName.get(tok);
        if (!f) return null;
        cur = fieldType(f, f.repeated);
        break;
      }
      case "list":
        if (!/^(0|[1-9][0-9]*)$/.test(tok)) return null;
        cur = cur.elem;
        break;
      case "map":
        cur = { t: "dynamic" };
        break;
      case "dynamic":
        break;
      default:
        return null;
    }
  }
  return cur;
}

function fieldType(f, asList) {
  if (asList) {
    if (f.kind === "map") return { t: "map" };
    return { t: "list", elem: fieldType(f, false) };
  }
  switch (f.kind) {
    case "message": return { t: "message", m: f.message };
    case "timestamp": return { t: "timestamp" };
    case "value": return { t: "dynamic" };
    case "map": return { t: "map" };
    case "enum": return { t: "enum", e: f.enum };
    case "f32vec": return { t: "number" };
    case "scalar":
      switch (f.scalar) {
        case "string": return { t: "string" };
        case "bool": return { t: "bool" };
        case "bytes": return { t: "bytes" };
        default: return { t: "number" };
      }
  }
  return { t: "dynamic" };
}

const TS_FILTER = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$/;

// Checks that value v (a Value) is accepted by static type st.
function checkValueForType(v, st, vp) {
  const mismatch = (what) => e4("TYPE_MISMATCH", vp, `the value is not ${what}`);
  switch (st.t) {
    case "string":
      if (v.k !== "str") throw mismatch("a string");
      return;
    case "number":
      if (v.k !== "int" && v.k !== "float") throw mismatch("a number");
      return;
    case "bool":
      if (v.k !== "bool") throw mismatch("a boolean");
      return;
    case "timestamp":
      if (v.k !== "str") throw mismatch("a timestamp string");
      if (!TS_FILTER.test(v.v) || !parseTimestamp(v.v)) throw e4("INVALID_TIMESTAMP", vp, `"${v.v}" is not a valid timestamp`);
      return;
    case "enum":
      if (v.k !== "str") throw mismatch("an enum name");
      if (!st.e.byName.has(v.v)) throw e4("UNKNOWN_ENUM_VALUE", vp, `"${v.v}" is not a value of ${st.e.name}`);
      return;
    case "bytes":
      if (v.k !== "str") throw mismatch("a base64 string");
      if (decodeBase64(v.v) === null) throw e4("INVALID_BASE64", vp, "not canonical base64");
      return;
    case "message":
    case "map":
      if (v.k !== "map") throw mismatch("a map");
      return;
    case "list":
      if (v.k !== "list") throw mismatch("a list");
      return;
  }
}

function checkComparison(node, p) {
  const fieldPtr = node.get("field");
  const opNum = node.get("operator");
  const vp = ptr(p, "value");
  const value = node.get("value");
  let st = null;
  if (fieldPtr !== undefined) {
    st = resolveField(this.model, fieldPtr);
    if (!st) throw e4("UNKNOWN_FIELD", ptr(p, "field"), `"${fieldPtr}" names no field of the record model`);
  }
  if (typeof opNum !== "number") return; // absent (reported) or unknown (newer minor)
  const op = this.model.enum("memorywire.v1.ComparisonOperator").byNumber.get(opNum);
  if (op === "exists") {
    if (value) throw e4("TYPE_MISMATCH", vp, "exists takes no value");
    return;
  }
  if (!value) throw e4("REQUIRED_FIELD_MISSING", vp, `${op} needs a value`);
  // Values no field accepts for the operator.
  if (op === "in" && value.k !== "list") throw e4("TYPE_MISMATCH", vp, "in needs a list");
  if (op === "prefix" && value.k !== "str") throw e4("TYPE_MISMATCH", vp, "prefix needs a string");
  if ((op === "gt" || op === "gte" || op === "lt" || op === "lte") && !(value.k === "int" || value.k === "float" || value.k === "str")) {
    throw e4("TYPE_MISMATCH", vp, `${op} needs a number or a string`);
  }
  if (!st || st.t === "dynamic") return;
  // Operators the static type does not support.
  const ordered = st.t === "string" || st.t === "number" || st.t === "timestamp";
  if ((op === "gt" || op === "gte" || op === "lt" || op === "lte") && !ordered) throw e4("TYPE_MISMATCH", vp, `${op} on a field that has no order`);
  if (op === "prefix" && st.t !== "string") throw e4("TYPE_MISMATCH", vp, "prefix on a field that is not a string");
  if (op === "contains" && st.t !== "list") throw e4("TYPE_MISMATCH", vp, "contains on a field that is not a list");
  if (op === "in") {
    value.v.forEach((el, i) => checkValueForType(el, st, ptr(vp, i)));
    return;
  }
  if (op === "contains") {
    if (st.elem.t !== "dynamic") checkValueForType(value, st.elem, vp);
    return;
  }
  checkValueForType(value, st, vp);
}

function validate(model, root, newer) {
  new Validator(model, newer).document(root);
}

module.exports = { validate, resolveField };
