// A stock JavaScript gRPC client fed ProtoJSON: @grpc/grpc-js for the call,
// @bufbuild/protobuf for the ProtoJSON of the messages, both driven by a
// descriptor set of the shipped proto/ folder and nothing of memorywire.
//
//   node protojson_client.mjs SET.binpb HOST:PORT METHOD TENANT < requests
//
// The requests are ProtoJSON documents, one per line (an Import sends them
// all on one stream). Each response is printed as ProtoJSON on a line of its
// own; a failed call prints {"error": <the memorywire.v1.Error of its
// google.rpc.Status details, as ProtoJSON>} and exits with status 3.

import { readFileSync } from "node:fs";
import * as grpc from "@grpc/grpc-js";
import { createFileRegistry, fromBinary, fromJsonString, toBinary, toJson } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const [setPath, target, method, tenant] = process.argv.slice(2);
const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(setPath)));
const service = registry.getService("memorywire.v1.MemoryService");
const rpc = service.methods.find((m) => m.name === method);
const status = registry.getMessage("google.rpc.Status");
const errorType = registry.getMessage("memorywire.v1.Error");

// JSON.stringify writes -0 as 0; this writer keeps the sign that the
// ProtoJSON value of protobuf-es holds.
function write(value) {
  if (typeof value === "number") return Object.is(value, -0) ? "-0" : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(write).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${write(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const requests = readFileSync(0, "utf8").split("\n").filter((line) => line.trim())
  .map((line) => toBinary(rpc.input, fromJsonString(rpc.input, line, { registry })));
const client = new grpc.Client(target, grpc.credentials.createInsecure());
const metadata = new grpc.Metadata();
metadata.set("memorywire-tenant", tenant);
const path = `/${service.typeName}/${method}`;
const raw = (bytes) => Buffer.from(bytes);
const options = { deadline: Date.now() + 60_000 };

function respond(bytes) {
  process.stdout.write(write(toJson(rpc.output, fromBinary(rpc.output, bytes), { registry })) + "\n");
}

function fail(err) {
  const [details] = err.metadata?.get("grpc-status-details-bin") ?? [];
  if (!details) {
    process.stderr.write(`${err.code}: ${err.details}\n`);
    process.exit(4);
  }
  const any = fromBinary(status, details).details.find(
    (d) => d.typeUrl === "type.googleapis.com/memorywire.v1.Error");
  const error = toJson(errorType, fromBinary(errorType, any.value), { registry });
  process.stdout.write(write({ error }) + "\n");
  process.exit(3);
}

function done() {
  client.close();
}

if (rpc.methodKind === "server_streaming") {
  const call = client.makeServerStreamRequest(path, raw, raw, requests[0], metadata, options);
  call.on("data", respond);
  call.on("error", fail);
  call.on("end", done);
} else if (rpc.methodKind === "client_streaming") {
  const call = client.makeClientStreamRequest(path, raw, raw, metadata, options, (err, bytes) => {
    if (err) fail(err);
    respond(bytes);
    done();
  });
  for (const r of requests) call.write(r);
  call.end();
} else {
  client.makeUnaryRequest(path, raw, raw, requests[0], metadata, options, (err, bytes) => {
    if (err) fail(err);
    respond(bytes);
    done();
  });
}
