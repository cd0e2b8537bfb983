"use strict";
// Round-trips example records through all three encodings and checks a few
// byte-exact examples of the specification.
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const mw = require("../src/index.js");

const REPO = path.resolve(__dirname, "../../../..");
const RECORDS = path.join(REPO, "examples/v1/records");
const R = "memorywire.v1.MemoryRecord";
const hex = (b) => Buffer.from(b).toString("hex");

test("an example record round-trips canonically through JSON, MessagePack and Protobuf", () => {
  const input = fs.readFileSync(path.join(RECORDS, "fact-preference-embeddings.json"));
  const doc = mw.decode(R, "json", input);
  const canonical = {};
  for (const enc of mw.ENCODINGS) canonical[enc] = mw.encode(doc, enc);
  // The canonical JSON has the same abstract value as the input.
  assert.deepEqual(JSON.parse(Buffer.from(canonical.json).toString()), JSON.parse(input.toString()));
  // Every encoding reads back and converts to the same canonical bytes.
  for (const from of mw.ENCODINGS) {
    const again = mw.decode(R, from, canonical[from]);
    for (const to of mw.ENCODINGS) assert.equal(hex(mw.encode(again, to)), hex(canonical[to]), `${from} -> ${to}`);
  }
});

test("every example record and operation document is accepted and round-trips", () => {
  const dirs = [[RECORDS, () => R], [path.join(REPO, "examples/v1/operations"), (f) => {
    const base = f.replace(/\.json$/, "");
    if (base.startsWith("error-")) return "memorywire.v1.Error";
    return "memorywire.v1." + base.split("-").map((s) => s[0].toUpperCase() + s.slice(1)).join("");
  }]];
  for (const [dir, typeOf] of dirs) {
    if (!fs.existsSync(dir)) continue;
    for (const f of fs.readdirSync(dir).filter((x) => x.endsWith(".json"))) {
      const type = typeOf(f);
      const doc = mw.decode(type, "json", fs.readFileSync(path.join(dir, f)));
      const out = {};
      for (const enc of mw.ENCODINGS) out[enc] = hex(mw.encode(doc, enc));
      for (const from of mw.ENCODINGS) {
        const d2 = mw.decode(type, from, Buffer.from(out[from], "hex"));
        for (const to of mw.ENCODINGS) assert.equal(hex(mw.encode(d2, to)), out[to], `${f}: ${from} -> ${to}`);
      }
    }
  }
});

test("the canonical example of json-format.md §7.6 in all three encodings", () => {
  const input = '{"specversion":"1.0","id":"r1","kind":"fact","created_at":"2024-05-01T12:30:00.5Z","fact":{"text":"Prefers tea"},"lifecycle":{"importance":5e-1,"pinned":false},"tags":[]}';
  const doc = mw.decode(R, "json", Buffer.from(input));
  assert.equal(Buffer.from(mw.encode(doc, "json")).toString(),
    '{"created_at":"2024-05-01T12:30:00.500Z","fact":{"text":"Prefers tea"},"id":"r1","kind":"fact","lifecycle":{"importance":0.5},"specversion":"1.0"}');
  assert.equal(hex(mw.encode(doc, "msgpack")),
    "86aa637265617465645f6174d7ff77359400663235c8a46661637481a474657874ab5072656665727320746561a26964a27231a46b696e64a466616374a96c6966656379636c6581aa696d706f7274616e6365cb3fe0000000000000ab7370656376657273696f6ea3312e30");
  assert.equal(hex(mw.encode(doc, "protobuf")),
    "0a03312e30120272311804420c08c8ebc8b1061080cab5ee016a0d0a0b5072656665727320746561ba010911000000000000e03f");
});

test("a rejected document reports reason and pointer", () => {
  const bad = '{"specversion":"1.0","id":"r1","kind":"fact","message":{"role":"user"}}';
  assert.throws(() => mw.decode(R, "json", Buffer.from(bad)), (e) => e.reason === "KIND_MISMATCH" && e.pointer === "/message");
  const dup = '{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"a"},"scope":{"user":"a","user":"b"}}';
  assert.throws(() => mw.decode(R, "json", Buffer.from(dup)), (e) => e.reason === "DUPLICATE_KEY" && e.pointer === "/scope/user");
});
