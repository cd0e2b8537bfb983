"use strict";
// Compiles every schema of schemas/v1 with Ajv's default options (draft
// 2020-12, strict mode) and validates documents against them.
//
// Usage: node tools/ajv_check.js < cases.json
// stdin: [{"schema": "<file name>[#fragment]", "document": <JSON>} or {..., "text": "<JSON text>"}, ...]
// stdout: {"compiled": <count>, "warnings": [...], "verdicts": [{"valid": bool, "errors": [...]}]}
// Exit status 1 when a schema does not compile.
const fs = require("node:fs");
const path = require("node:path");
const Ajv2020 = require("ajv/dist/2020");

const DIR = path.resolve(__dirname, "..", "schemas", "v1");
const BASE = "https://memorywire.dev/schemas/v1/";

const warnings = [];
const logger = { log() {}, warn: (...a) => warnings.push(a.join(" ")), error: (...a) => warnings.push(a.join(" ")) };
// The stock options, but for the logger, so that strict-mode warnings are
// reported rather than printed.
const ajv = new Ajv2020({ logger });
const files = fs.readdirSync(DIR).filter((f) => f.endsWith(".schema.json")).sort();
for (const f of files) ajv.addSchema(JSON.parse(fs.readFileSync(path.join(DIR, f), "utf8")));
let compiled = 0;
for (const f of files) {
  try {
    ajv.getSchema(BASE + f);
    compiled += 1;
  } catch (e) {
    process.stdout.write(JSON.stringify({ compiled, failed: f, error: String(e.message) }) + "\n");
    process.exit(1);
  }
}
const cases = JSON.parse(fs.readFileSync(0, "utf8") || "[]");
const verdicts = cases.map(({ schema, document, text }) => {
  const validate = ajv.getSchema(BASE + schema);
  if (!validate) throw new Error(`no schema ${schema}`);
  // A text is parsed as a stock parser parses it (the last of repeated names wins).
  const valid = validate(text === undefined ? document : JSON.parse(text));
  return { valid, errors: valid ? [] : validate.errors.map((e) => `${e.instancePath} ${e.keyword}: ${e.message}`) };
});
process.stdout.write(JSON.stringify({ compiled, warnings, verdicts }) + "\n");
