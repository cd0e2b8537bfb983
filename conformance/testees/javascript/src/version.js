"use strict";
// specversion (versioning.md §1.4). This implementation is a reader and
// writer of version 1.0.
const { MwError } = require("./errors");

const READER_MAJOR = 1;
const READER_MINOR = 0;
const VERSION_RE = /^[1-9][0-9]*\.(0|[1-9][0-9]*)$/;

function checkVersionString(v) {
  if (v === "") throw new MwError("REQUIRED_FIELD_MISSING", "/specversion", "specversion is empty", 2);
  if (!VERSION_RE.test(v)) throw new MwError("PATTERN_MISMATCH", "/specversion", `"${v}" is not MAJOR.MINOR`, 2);
  // The pattern excludes leading zeros, so the versions compare as digit
  // strings (no conversion of arbitrarily long numbers).
  const [maj, min] = v.split(".");
  if (maj !== String(READER_MAJOR)) throw new MwError("UNSUPPORTED_VERSION", "/specversion", `major version ${maj.length > 20 ? maj.slice(0, 20) + "…" : maj} is not 1`, 2);
  const newer = min.length > String(READER_MINOR).length || (min.length === String(READER_MINOR).length && min > String(READER_MINOR));
  return { newer, version: v };
}

module.exports = { checkVersionString };
