"use strict";
// Cross-check: the canonical JSON of every example record validates against
// the JSON Schema of the specification (schemas/v1, draft 2020-12).
const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const Ajv2020 = require("ajv/dist/2020");
const addFormats = require("ajv-formats");
const mw = require("../src/index.js");
const { isMediaType } = require("../src/formats.js");

const REPO = path.resolve(__dirname, "../../../..");
const SCHEMAS = path.join(REPO, "schemas/v1");

test("canonical JSON of the example records is valid against record-document.schema.json", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("media-type", isMediaType);
  for (const f of fs.readdirSync(SCHEMAS).filter((n) => n.endsWith(".json"))) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(SCHEMAS, f))));
  const validateRecord = ajv.getSchema("https://memorywire.dev/schemas/v1/record-document.schema.json");
  const dir = path.join(REPO, "examples/v1/records");
  for (const f of fs.readdirSync(dir)) {
    const doc = mw.decode("memorywire.v1.MemoryRecord", "json", fs.readFileSync(path.join(dir, f)));
    const json = JSON.parse(Buffer.from(mw.encode(doc, "json")).toString());
    assert.ok(validateRecord(json), `${f}: ${JSON.stringify(validateRecord.errors)}`);
  }
});
