#!/usr/bin/env node
"use strict";
// memorywire conformance testee (protocol v1): 4-byte little-endian
// length-prefixed JSON frames on stdin/stdout. See README.md.

const mw = require("./src/index.js");
const pkg = require("./package.json");

function log(...args) {
  if (process.env.MEMORYWIRE_TESTEE_DEBUG) process.stderr.write(args.join(" ") + "\n");
}

function handshake() {
  return {
    type: "handshake",
    name: "memorywire-js",
    version: pkg.version,
    language: `javascript (Node.js ${process.versions.node})`,
    protocol: 1,
    specversions: ["1.0"],
    encodings: mw.ENCODINGS.slice(),
    capabilities: [],
  };
}

function codec(req) {
  const typeName = req.message_type;
  if (typeof typeName !== "string" || !/^memorywire\.v1\./.test(typeName) || !mw.loadModel().documentType(typeName)) {
    return { type: "unsupported", message: `message type ${typeName} is not supported` };
  }
  const input = req.input || {};
  if (!mw.ENCODINGS.includes(input.encoding)) return { type: "unsupported", message: `input encoding ${input.encoding} is not supported` };
  if (req.output !== null && req.output !== undefined && !mw.ENCODINGS.includes(req.output)) {
    return { type: "unsupported", message: `output encoding ${req.output} is not supported` };
  }
  const bytes = Buffer.from(input.data || "", "base64");
  const data = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  try {
    const doc = mw.decode(typeName, input.encoding, data);
    if (req.output === null || req.output === undefined) return { type: "valid" };
    // This writer only writes canonical output, which is also valid
    // non-canonical output.
    const out = mw.encode(doc, req.output);
    return { type: "payload", data: Buffer.from(out.buffer, out.byteOffset, out.length).toString("base64") };
  } catch (e) {
    if (e instanceof mw.MwError) {
      return { type: "invalid", stage: e.stage, reason: e.reason, pointer: e.pointer, message: e.message };
    }
    throw e;
  }
}

function handle(req) {
  try {
    switch (req && req.type) {
      case "handshake":
        return handshake();
      case "codec":
        return codec(req);
      default:
        return { type: "unsupported", message: `request type ${req && req.type} is not supported` };
    }
  } catch (e) {
    log("runtime error:", e && e.stack);
    return { type: "runtime_error", message: String((e && e.stack) || e) };
  }
}

function writeFrame(obj) {
  const body = Buffer.from(JSON.stringify(obj), "utf8");
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length, 0);
  process.stdout.write(Buffer.concat([head, body]));
}

// Incoming bytes are kept as a list of chunks and joined once per frame, so
// that a large frame arriving in many chunks is not copied over and over.
let chunks = [];
let buffered = 0;
let done = false;

function take(n) {
  const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
  const out = all.subarray(0, n);
  const rest = all.subarray(n);
  chunks = rest.length ? [rest] : [];
  buffered = rest.length;
  return out;
}

function peekLength() {
  if (chunks[0].length < 4) {
    const all = Buffer.concat(chunks, buffered);
    chunks = [all];
  }
  return chunks[0].readUInt32LE(0);
}

function pump() {
  while (!done && buffered >= 4) {
    const len = peekLength();
    if (buffered < 4 + len) return;
    const body = take(4 + len).subarray(4);
    let req;
    try {
      req = JSON.parse(body.toString("utf8"));
    } catch (e) {
      writeFrame({ type: "runtime_error", message: "malformed request frame: " + e.message });
      continue;
    }
    if (req && req.type === "shutdown") {
      done = true;
      process.exit(0);
    }
    log("request", req && req.id);
    writeFrame(handle(req));
  }
}

process.stdin.on("data", (chunk) => {
  chunks.push(chunk);
  buffered += chunk.length;
  pump();
});
process.stdin.on("end", () => process.exit(0));
process.stdout.on("error", () => process.exit(0));
