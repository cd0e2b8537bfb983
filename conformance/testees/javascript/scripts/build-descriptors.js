#!/usr/bin/env node
// Compiles the .proto files of memorywire v1 (proto/memorywire/v1 of the
// repository) into the FileDescriptorSet that the codec loads at runtime,
// descriptors.binpb (with imports, without source info). `make proto` at the
// repository root runs it with every other generator, and `make test` fails
// when its output is stale. Standalone: `npm run build:descriptors`
// [-- PROTO_DIR OUT]. It uses the buf of the repository root (npm install
// there), else `npx @bufbuild/buf`.
"use strict";
const { execFileSync } = require("node:child_process");
const path = require("node:path");
const fs = require("node:fs");

const here = path.resolve(__dirname, "..");
const repo = path.resolve(here, "../../..");
const protoDir = path.resolve(process.argv[2] || path.join(repo, "proto"));
const out = path.resolve(process.argv[3] || path.join(here, "descriptors.binpb"));
const args = ["build", protoDir, "--as-file-descriptor-set", "--exclude-source-info", "-o", out];
const rootBuf = path.join(repo, "node_modules/.bin/buf");
if (fs.existsSync(rootBuf)) execFileSync(rootBuf, args, { stdio: "inherit" });
else execFileSync("npx", ["--yes", "@bufbuild/buf@1.75.0", ...args], { stdio: "inherit" });
console.log("wrote " + path.relative(process.cwd(), out));
