"use strict";
// The testee protocol: length-prefixed JSON frames over stdin/stdout.
const test = require("node:test");
const assert = require("node:assert/strict");
const { spawn } = require("node:child_process");
const path = require("node:path");

function frame(obj) {
  const body = Buffer.from(JSON.stringify(obj));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length);
  return Buffer.concat([head, body]);
}

test("handshake, codec requests and shutdown", async () => {
  const child = spawn(process.execPath, [path.join(__dirname, "..", "testee.js")], { stdio: ["pipe", "pipe", "inherit"] });
  let buf = Buffer.alloc(0);
  const responses = [];
  child.stdout.on("data", (c) => {
    buf = Buffer.concat([buf, c]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readUInt32LE(0)) {
      const n = buf.readUInt32LE(0);
      responses.push(JSON.parse(buf.subarray(4, 4 + n).toString()));
      buf = buf.subarray(4 + n);
    }
  });
  const doc = Buffer.from('{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"Prefers tea"}}').toString("base64");
  child.stdin.write(frame({ type: "handshake", protocol: 1, suite: "test" }));
  child.stdin.write(frame({ type: "codec", id: "a", message_type: "memorywire.v1.MemoryRecord", input: { encoding: "json", data: doc }, output: "protobuf", canonical: true }));
  child.stdin.write(frame({ type: "codec", id: "b", message_type: "memorywire.v1.MemoryRecord", input: { encoding: "json", data: Buffer.from("{").toString("base64") }, output: null, canonical: true }));
  child.stdin.write(frame({ type: "codec", id: "c", message_type: "memorywire.v1.Nope", input: { encoding: "json", data: doc }, output: null, canonical: true }));
  child.stdin.write(frame({ type: "shutdown" }));
  const code = await new Promise((resolve) => child.on("exit", resolve));
  assert.equal(code, 0);
  assert.equal(responses.length, 4);
  assert.equal(responses[0].type, "handshake");
  assert.deepEqual(responses[0].encodings, ["json", "msgpack", "protobuf"]);
  assert.equal(responses[1].type, "payload");
  assert.equal(Buffer.from(responses[1].data, "base64").toString("hex"), "0a03312e30120272311804" + "6a0d0a0b5072656665727320746561");
  assert.deepEqual(responses[2], { type: "invalid", stage: "parse", reason: "TRUNCATED", pointer: "", message: responses[2].message });
  assert.equal(responses[3].type, "unsupported");
});
