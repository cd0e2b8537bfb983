"""Generate schemas/v1/openapi.json: the OpenAPI 3.1 document of the HTTP
binding (spec/v1/http-binding.md).

The operations are those of the registry (memorywire.service.registry),
built from the service of the .proto files, each with the comment of its
rpc; the request and response bodies are the JSON Schemas of schemas/v1,
referred to by their file names, so that the document and the schemas are
read together; the headers, the errors and the event streams are those of
the binding. tools/regen.py writes it with the other generated files, and
``make lint`` fails when it is stale.

Usage: python tools/gen_openapi.py [--proto-root DIR]   (prints the document)
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import protoset
from memorywire._version import SPECVERSION
from memorywire.service import registry
from memorywire.service.http import (
    CONNECT_HEADER,
    MEDIA_TYPES,
    OPERATION_ID_HEADER,
    SPECVERSION_HEADER,
    TENANT_HEADER,
    TIMEOUT_HEADER,
)
from memorywire.service.registry import Operation, Streaming

NAME = "openapi.json"
#: The statuses of failures (http-binding.md section 4), each an Error.
FAILURES = {
    "400": "invalid_argument, failed_precondition or out_of_range",
    "401": "unauthenticated: TENANT_REQUIRED or CREDENTIALS_INVALID",
    "403": "permission_denied: TENANT_MISMATCH",
    "404": "not_found: RECORD_NOT_FOUND",
    "406": "the Accept header names no type the service writes",
    "409": "already_exists or aborted",
    "415": "the Content-Type is not one the service reads",
    "429": "resource_exhausted: a limit, or RATE_LIMITED with Retry-After",
    "499": "cancelled",
    "500": "internal, unknown or data_loss",
    "501": "unimplemented: UNSUPPORTED_FEATURE",
    "503": "unavailable",
    "504": "deadline_exceeded",
}


def _schema(type_name: str) -> dict[str, Any]:
    return {"$ref": protoset.kebab(type_name.rsplit(".", 1)[-1]) + ".schema.json"}


def _comments(proto_root: pathlib.Path) -> tuple[dict[str, str], Any]:
    """The comment of each rpc, and the service descriptor, of the .proto files."""
    fds = protoset.compile_set(proto_root)
    pool = descriptor_pool.DescriptorPool()
    ours = {f.name for f in fds.file}
    added: set[str] = set()

    def add_library_file(name: str) -> None:
        # The files the protos import from the protobuf library (descriptor.proto).
        if name in added or name in ours:
            return
        found = descriptor_pool.Default().FindFileByName(name)
        for dep in found.dependencies:
            add_library_file(dep.name)
        proto = descriptor_pb2.FileDescriptorProto()
        found.CopyToProto(proto)
        pool.Add(proto)
        added.add(name)

    for f in fds.file:
        for dep in f.dependency:
            add_library_file(dep)
    for f in _in_order(fds.file):
        pool.Add(f)
    comments: dict[str, str] = {}
    for f in fds.file:
        for si, service in enumerate(f.service):
            by_path = {tuple(loc.path): " ".join(loc.leading_comments.split())
                       for loc in f.source_code_info.location if loc.leading_comments}
            for mi, method in enumerate(service.method):
                comments[method.name] = by_path.get((6, si, 2, mi), "")
    return comments, pool.FindServiceByName(registry.SERVICE)


def _in_order(files: Any) -> list[Any]:
    """The files of a set, each after the files it imports."""
    by_name = {f.name: f for f in files}
    out: list[Any] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen or name not in by_name:
            return
        seen.add(name)
        for dep in by_name[name].dependency:
            visit(dep)
        out.append(by_name[name])

    for name in by_name:
        visit(name)
    return out


def _bodies(type_name: str, stream: bool) -> dict[str, Any]:
    """The content of a request or response body, in every encoding."""
    doc = _schema(type_name)
    out: dict[str, Any] = {"application/json": {"schema": doc}}
    if stream:
        out["application/jsonl"] = {"schema": {"type": "string", "description": (
            f"JSON Lines: one {type_name} per line (json-format.md section 8).")}}
    out["application/msgpack"] = {"schema": doc}
    out["application/proto"] = {"schema": {"type": "string", "contentMediaType": "application/proto",
                                           "description": (
                                               f"Length-delimited {type_name} messages" if stream
                                               else f"The {type_name} message")
                                           + " in the Protobuf format."}}
    return out


def _event(op: Operation) -> dict[str, Any]:
    """One event of the stream of ``op`` (http-binding.md section 7.1), as
    the fields of the event-stream format: a response (type message), an
    error, or the end."""
    data = {"type": "string", "contentMediaType": "application/json"}
    fields: dict[str, Any] = {"retry": {"type": "integer", "minimum": 0}}
    if op.name == "Watch":
        fields["id"] = {"type": "string", "description": "The cursor of the event's ChangeEvent."}
    return {"type": "object", "oneOf": [
        {"properties": {"event": {"const": "message"}, **fields,
                        "data": {**data, "contentSchema": _schema(op.response_type)}}},
        {"required": ["event"], "properties": {"event": {"const": "error"}, "retry": fields["retry"],
                                               "data": {**data, "contentSchema": {"$ref": "error.schema.json"}}}},
        {"required": ["event"], "properties": {"event": {"const": "end"}, "retry": fields["retry"],
                                               "data": {"const": "{}"}}},
    ]}


def _operation(op: Operation, comment: str) -> dict[str, Any]:
    params: list[dict[str, Any]] = [
        {"$ref": "#/components/parameters/" + ("TenantOptional" if op.name == "GetCapabilities" else "Tenant")},
        {"$ref": "#/components/parameters/OperationId"},
        {"$ref": "#/components/parameters/SpecVersion"},
        {"$ref": "#/components/parameters/Timeout"},
    ]
    if op.streaming is Streaming.SERVER and op.name == "Watch":
        params.append({"$ref": "#/components/parameters/LastEventId"})
    if op.streaming is Streaming.SERVER:
        ok: dict[str, Any] = {
            "description": (f"An event stream (http-binding.md section 7.1): one event per {op.response_type}, "
                            "its data the document in canonical JSON"
                            + (", its id the cursor of its ChangeEvent" if op.name == "Watch" else "")
                            + "; then an end event, or an error event whose data is an Error."),
            "content": {"text/event-stream": {"schema": _event(op)}}}
    else:
        ok = {"description": f"The {op.response_type}.", "headers": {
            SPECVERSION_HEADER: {"$ref": "#/components/headers/SpecVersion"},
            OPERATION_ID_HEADER: {"$ref": "#/components/headers/OperationId"}},
            "content": {k: v for k, v in _bodies(op.response_type, False).items()}}
    responses: dict[str, Any] = {"200": ok}
    for status in FAILURES:
        responses[status] = {"$ref": f"#/components/responses/Error{status}"}
    kind = {"unary": "", "server": " It streams its responses.", "client": " Its body is a stream of requests."}
    out: dict[str, Any] = {
        "operationId": op.name,
        "summary": comment.split(". ")[0].rstrip(".") if comment else op.name,
        "description": (comment + (" " if comment else "") + ("Mutating: idempotent under its operation_id."
                                                              if op.mutating else "A read.")
                        + kind[op.streaming.value]),
        "tags": ["MemoryService"],
        "parameters": params,
        "requestBody": {"required": True, "content": _bodies(op.request_type, op.streaming is Streaming.CLIENT)},
        "responses": responses,
    }
    return out


def _components() -> dict[str, Any]:
    error = {"schema": {"$ref": "error.schema.json"}}
    responses = {f"Error{status}": {
        "description": f"{why}. The Error document (http-binding.md section 5), an RFC 9457 problem.",
        "headers": {"Retry-After": {"description": "Seconds to wait, when the Error has retry_after_millis.",
                                    "schema": {"type": "integer", "minimum": 0}}},
        "content": {"application/problem+json": error, "application/json": error}}
        for status, why in FAILURES.items()}
    return {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                       "description": "Bearer tokens, when the service requires them "
                                                      "(http-binding.md section 3.2)."}},
        "parameters": {
            "Tenant": {"name": TENANT_HEADER, "in": "header", "required": True,
                       "description": "The caller's tenant, its UTF-8 bytes with those outside 0x21-0x7E and "
                                      "% written as %XX (http-binding.md section 3.1).",
                       "schema": {"type": "string", "minLength": 1}},
            "TenantOptional": {"name": TENANT_HEADER, "in": "header", "required": False,
                               "description": "Ignored: GetCapabilities acts for no tenant.",
                               "schema": {"type": "string"}},
            "OperationId": {"name": OPERATION_ID_HEADER, "in": "header", "required": False,
                            "description": "The operation_id of the body, for proxies and logs; a different "
                                           "value fails with IMMUTABLE_FIELD.",
                            "schema": {"type": "string", "minLength": 1, "maxLength": 768}},
            "SpecVersion": {"name": SPECVERSION_HEADER, "in": "header", "required": False,
                            "description": "The MAJOR.MINOR version the client speaks, 1.x: a service "
                                           "may refuse another major version with UNSUPPORTED_VERSION "
                                           "(http-binding.md section 3.4).",
                            "schema": {"type": "string", "pattern": "^1\\.(0|[1-9][0-9]*)$"}},
            "Timeout": {"name": TIMEOUT_HEADER, "in": "header", "required": False,
                        "description": "The milliseconds the client waits for the response (Connect).",
                        "schema": {"type": "string", "pattern": "^[1-9][0-9]{0,9}$"}},
            "LastEventId": {"name": "last-event-id", "in": "header", "required": False,
                            "description": "The id of the last event received: the stream resumes after "
                                           "that cursor, in place of the body's cursor.",
                            "schema": {"type": "string", "maxLength": 1024}},
        },
        "headers": {
            "SpecVersion": {"description": "The version in which the service answers.",
                            "schema": {"type": "string"}},
            "OperationId": {"description": "The operation_id of the request, written as the tenant header is.",
                            "schema": {"type": "string"}},
        },
        "responses": responses,
    }


def generate(proto_root: pathlib.Path = protoset.PROTO_ROOT) -> dict[str, str]:
    """The document, by file name."""
    comments, service = _comments(proto_root)
    ops = registry.build(service, registry.TABLE)
    doc: dict[str, Any] = {
        "openapi": "3.1.0",
        "jsonSchemaDialect": "https://json-schema.org/draft/2020-12/schema",
        "info": {
            "title": "memorywire MemoryService, HTTP binding",
            "version": SPECVERSION,
            "description": ("The memorywire operations over HTTP (spec/v1/http-binding.md): one POST per "
                            "operation, as the Connect protocol maps unary calls, with bodies in JSON, "
                            "MessagePack or Protobuf. The schemas are the JSON Schemas beside this file. "
                            f"Also accepted as request types: {', '.join(sorted(MEDIA_TYPES))}. A client "
                            f"that sends {CONNECT_HEADER} gets its errors as application/json."),
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "servers": [{"url": "http://127.0.0.1:8080", "description": "memorywire serve --http 127.0.0.1:8080"}],
        "security": [{}, {"bearer": []}],
        "tags": [{"name": "MemoryService", "description": "memorywire.v1.MemoryService"}],
        "paths": {op.path: {"post": _operation(op, comments.get(op.name, ""))} for op in ops},
        "components": _components(),
    }
    return {NAME: json.dumps(doc, indent=2, ensure_ascii=False) + "\n"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--proto-root", type=pathlib.Path, default=protoset.PROTO_ROOT)
    args = parser.parse_args(argv)
    sys.stdout.write(generate(args.proto_root.resolve())[NAME])
    return 0


if __name__ == "__main__":
    sys.exit(main())
