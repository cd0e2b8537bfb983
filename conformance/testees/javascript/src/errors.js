"use strict";
// A rejected document: one violation with a reason token of
// operations.md §3.3, the JSON Pointer of the offending member ("" for the
// document as a whole) and the phase of json-format.md §2.3 it belongs to
// (1 well-formedness and limits, 2 version, 3 mapping, 4 constraints;
// 5 for a failure to write, such as UNREPRESENTABLE).
class MwError extends Error {
  constructor(reason, pointer, message, phase) {
    super(message || reason);
    this.reason = reason;
    this.pointer = pointer || "";
    this.phase = phase || 0;
  }
  get stage() {
    return this.phase === 1 ? "parse" : "validation";
  }
}

function fail(reason, pointer, message, phase) {
  throw new MwError(reason, pointer, message, phase);
}

// RFC 6901 reference token escaping.
function esc(token) {
  return String(token).replace(/~/g, "~0").replace(/\//g, "~1");
}
function ptr(base, token) {
  return base + "/" + esc(token);
}

module.exports = { MwError, fail, esc, ptr };
