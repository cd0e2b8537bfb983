"use strict";
// Decodes Protobuf messages with protobufjs and its default settings
// (recursion limit 100), from the .proto files of proto/.
//
// Usage: node tools/protobufjs_check.js < cases.json
// stdin: [{"type": "memorywire.v1.<Message>", "hex": "<bytes>"}, ...]
// stdout: [{"ok": bool, "error": "<message>"}, ...]
const fs = require("node:fs");
const path = require("node:path");
const protobuf = require("protobufjs");

const PROTO = path.resolve(__dirname, "..", "proto");
const root = new protobuf.Root();
// google/protobuf imports are protobufjs's own copies; the rest is proto/.
root.resolvePath = (origin, target) =>
  target.startsWith("google/protobuf/") ? path.join(path.dirname(require.resolve("protobufjs/package.json")), target)
    : path.join(PROTO, target);
const files = fs.readdirSync(path.join(PROTO, "memorywire", "v1")).filter((f) => f.endsWith(".proto")).sort();
root.loadSync(files.map((f) => `memorywire/v1/${f}`), { keepCase: true });
root.resolveAll();

const cases = JSON.parse(fs.readFileSync(0, "utf8") || "[]");
const results = cases.map(({ type, hex }) => {
  try {
    root.lookupType(type).decode(Buffer.from(hex, "hex"));
    return { ok: true };
  } catch (e) {
    return { ok: false, error: String(e.message) };
  }
});
process.stdout.write(JSON.stringify(results) + "\n");
