"use strict";
// memorywire v1 codec: read a document in any encoding (checking it in the
// four phases of json-format.md §2.3) and write it in the canonical form of
// any encoding.

const { loadModel } = require("./model");
const { DEFAULT_LIMITS } = require("./limits");
const { MwError } = require("./errors");
const { parseJson } = require("./json-read");
const { parseMsgpack } = require("./msgpack-read");
const { mapGeneric } = require("./generic-map");
const { readProtobuf } = require("./pb-read");
const { validate } = require("./validate");
const { writeJson, writeMsgpack, writeProtobuf } = require("./writers");

const ENCODINGS = ["json", "msgpack", "protobuf"];

// A decoded document: its type, typed tree, the encoding it came from,
// whether it is of a newer minor version, and the pointers of its unknown
// content in input order.
class Document {
  constructor(type, root, encoding, newer, unknowns) {
    this.type = type;
    this.root = root;
    this.encoding = encoding;
    this.newer = newer;
    this.unknowns = unknowns;
  }
}

function decode(typeName, encoding, bytes, options = {}) {
  const model = loadModel();
  const msg = model.documentType(typeName);
  if (!msg) throw new Error(`unknown message type ${typeName}`);
  const limits = Object.assign({}, DEFAULT_LIMITS, options.limits || {});
  if (!(bytes instanceof Uint8Array)) bytes = new Uint8Array(bytes);
  let res;
  switch (encoding) {
    case "json":
      res = mapGeneric("json", parseJson(bytes, limits), msg, limits);
      break;
    case "msgpack":
      res = mapGeneric("msgpack", parseMsgpack(bytes, limits), msg, limits);
      break;
    case "protobuf":
      res = readProtobuf(bytes, msg, limits);
      break;
    default:
      throw new Error(`unknown encoding ${encoding}`);
  }
  validate(model, res.root, res.newer);
  return new Document(msg, res.root, encoding, res.newer, res.unknowns);
}

// Writes a document in the canonical form of `encoding`. Unknown content of
// a newer minor version is written again in its own encoding and makes a
// conversion to another encoding fail with UNREPRESENTABLE (versioning.md
// §3.4), unless options.dropUnknown is set.
function encode(doc, encoding, options = {}) {
  const same = encoding === doc.encoding;
  if (!same && doc.unknowns.length > 0 && !options.dropUnknown) {
    throw new MwError("UNREPRESENTABLE", doc.unknowns[0], `unknown content of a newer minor version cannot be written in ${encoding}`, 5);
  }
  switch (encoding) {
    case "json": return writeJson(doc.root, same);
    case "msgpack": return writeMsgpack(doc.root, same);
    case "protobuf": return writeProtobuf(doc.root, same);
  }
  throw new Error(`unknown encoding ${encoding}`);
}

function convert(typeName, from, bytes, to, options = {}) {
  return encode(decode(typeName, from, bytes, options), to, options);
}

module.exports = { decode, encode, convert, Document, MwError, ENCODINGS, DEFAULT_LIMITS, loadModel };
