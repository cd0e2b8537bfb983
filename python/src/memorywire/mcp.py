"""``memorywire mcp``: memory tools for a model, over the Model Context Protocol.

An MCP server (the official ``mcp`` SDK, its low-level ``Server``) whose
tools let a model remember, recall, read a thread's history, update and
forget records, against a memorywire service (``--service HOST:PORT``,
through :class:`memorywire.client.Client`) or an embedded SQLite store
(``--store FILE``, the reference :class:`~memorywire.service.operations.Service`
in this process). It speaks MCP over standard input and output
(``--transport stdio``, the default) or streamable HTTP (``--transport http``).

Every call acts for the tenant given at start, and within the scope of the
user and agent given at start: the tools take no tenant and no scope, each
request carries the fixed scope, and a request scope narrows what an
operation reads and changes (spec/v1/operations.md, section 4.1), so a record
of another tenant, user or agent is as absent to the model as one that does
not exist. A patch that touches the scope of a record is refused.

The input schema of each tool is made of the properties of the memorywire
JSON Schemas (schemas/v1, their strict form for version 1.0) that the tool
takes, with every schema they refer to bundled under ``$defs``; so is its
output schema, of the response members it answers with. A tool answers
with them as structured content, and a short text; a failure is a tool error (``isError``) whose structured content is
the memorywire error: code, reason, message and the JSON Pointer of the
offending argument.
"""

from __future__ import annotations

import argparse
import functools
import inspect
import json
import logging
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

import memorywire._extras

try:
    import mcp  # noqa: F401 - first, so that the missing SDK is the module named
except ImportError as _missing:
    raise ImportError(memorywire._extras.install_hint("memorywire.mcp", "mcp"), name=_missing.name) from _missing

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server import Server, ServerRequestContext
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

import memorywire.protobuf
from memorywire._version import __version__
from memorywire.client._shared import Doc, Operations, Streamed, Unary, Upload
from memorywire.errors import MemorywireError, Violation
from memorywire.service.errors import error, from_error_document

__all__ = ["TOOLS", "InProcess", "Memory", "main", "server", "tool_schema"]

PROG = "memorywire mcp"
DEFAULT_HTTP_LISTEN = "127.0.0.1:8000"
#: The path of the streamable HTTP endpoint.
HTTP_PATH = "/mcp"


# -- tool schemas, from the memorywire JSON Schemas -------------------------------------------


def _schema_document(name: str) -> dict[str, Any]:
    text = resources.files("memorywire").joinpath("schemas", "v1", f"{name}.schema.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


def _strict(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The form of a schema for a document of version 1.0: ``$defs/strict`` of a
    document type (a request), else the schema itself."""
    defs = doc.get("$defs", {})
    if "strict" in defs:
        return dict(defs["strict"])
    return {k: v for k, v in doc.items() if k not in ("$schema", "$id", "$defs", "title")}


@dataclass
class _Bundle:
    """The schemas a tool schema refers to, gathered under its ``$defs``: a
    reference to another file (``fact.schema.json``) becomes ``#/$defs/fact``."""

    defs: dict[str, Any] = field(default_factory=dict)

    def ref(self, name: str, fragment: str) -> str:
        key = name if fragment in ("", "/") else f"{name}.{fragment.rsplit('/', 1)[-1]}"
        if key not in self.defs:
            self.defs[key] = {}  # a schema that refers to itself (Filter, Value) ends here
            doc = _schema_document(name)
            if fragment in ("", "/"):
                target = _strict(doc)
            else:
                target = doc
                for part in fragment.strip("/").split("/"):
                    target = target[part.replace("~1", "/").replace("~0", "~")]
            self.defs[key] = self.rewrite(target, name)
        return f"#/$defs/{key}"

    def rewrite(self, node: Any, name: str) -> Any:
        """``node`` of the schema file ``name``, its references made local."""
        if isinstance(node, list):
            return [self.rewrite(x, name) for x in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str):
                target, _, fragment = value.partition("#")
                out[key] = self.ref(target.removesuffix(".schema.json") if target else name, fragment)
            elif key == "$comment":
                continue
            else:
                out[key] = self.rewrite(value, name)
        return out


def tool_schema(fields: Mapping[str, tuple[str, str]], required: Sequence[str] = (),
                notes: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The input schema of a tool whose argument ``name`` is the property
    ``prop`` of the schema ``schema`` (``fields[name] == (schema, prop)``, a
    file of schemas/v1 without ``.schema.json``), in its strict form.
    ``notes`` are added to the descriptions of some arguments."""
    bundle = _Bundle()
    properties: dict[str, Any] = {}
    for name, (schema, prop) in fields.items():
        node = bundle.rewrite(_strict(_schema_document(schema))["properties"][prop], schema)
        if notes and name in notes:
            node["description"] = f"{node.get('description', '')} {notes[name]}".strip()
        properties[name] = node
    out: dict[str, Any] = {"type": "object", "properties": properties, "additionalProperties": False}
    if required:
        out["required"] = list(required)
    if bundle.defs:
        out["$defs"] = bundle.defs
    return out


# -- the embedded store -----------------------------------------------------------------------


class InProcess(Operations[Doc, NoReturn, NoReturn]):
    """The operations of the client, performed by a ``Service`` on a store in
    this process for ``tenant``. Each request is checked and encoded as the
    client sends it, then decoded as the gRPC server reads it, so that the
    service sees what it would see over the wire. The unary operations only."""

    def __init__(self, store: Any, tenant: str, *, service: Any = None) -> None:
        from memorywire.service.operations import Service

        self.store = store
        self.service = service if service is not None else Service(store)
        self.tenant = tenant
        self.timeout: float | None = None

    def close(self) -> None:
        self.store.close()

    def _unary(self, call: Unary) -> Doc:
        from memorywire.service.context import Call
        from memorywire.service.registry import operation

        op = operation(call.method)
        data = call.encode()
        request, walk = memorywire.protobuf.Decoder(op.request_type).decode_walk(data)
        perform: Callable[..., bytes] = getattr(self.service, op.handler)
        context = Call(self.tenant)
        try:
            if "unknown" in inspect.signature(perform).parameters:
                out = perform(context, request, list(walk.unknown))
            else:
                out = perform(context, request)
        except MemorywireError:
            raise
        except Exception as e:  # noqa: BLE001 - as the server answers a fault, told to the operator alone
            logging.getLogger(__name__).exception("%s failed", call.method)
            raise error("INTERNAL_ERROR", f"the service failed: {type(e).__name__}") from e
        return call.decode(out)

    def _watch(self, call: Streamed) -> NoReturn:
        raise error("UNSUPPORTED_FEATURE", "Watch is not served by the in-process store of memorywire mcp; "
                    "no tool streams")

    def _export(self, call: Streamed) -> NoReturn:
        raise error("UNSUPPORTED_FEATURE", "Export is not served by the in-process store of memorywire mcp; "
                    "no tool streams")

    def _import(self, call: Upload) -> NoReturn:
        raise error("UNSUPPORTED_FEATURE", "Import is not served by the in-process store of memorywire mcp; "
                    "no tool streams")


# -- the tools --------------------------------------------------------------------------------


class ToolError(Exception):
    """A failed tool call: the memorywire error, its pointers made pointers
    into the tool's arguments."""

    def __init__(self, error: MemorywireError, violations: list[Violation]) -> None:
        super().__init__(error.message)
        self.error = error
        self.violations = violations

    @property
    def pointer(self) -> str:
        return self.violations[0].pointer if self.violations else ""

    def document(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"code": self.error.code.lower(), "reason": self.error.reason,
                               "message": self.error.message, "pointer": self.pointer}
        if self.violations:
            doc["violations"] = [{"pointer": v.pointer, "reason": v.reason, "message": v.message}
                                 for v in self.violations]
        return doc

    def text(self) -> str:
        where = f"argument {self.pointer}" if self.pointer else "the call"
        return f"{where}: {self.error.message} [{self.error.reason}, {self.error.code.lower()}]"


def _invalid(reason: str, message: str, pointer: str) -> ToolError:
    """A tool error for an argument: ``pointer`` points into the arguments."""
    violations = [Violation(pointer, reason, message)]
    return ToolError(MemorywireError(reason, message, violations), violations)


@dataclass(frozen=True)
class Tool:
    """A tool: its name, what it tells the model, its input schema, whether
    it only reads, and where the request puts its arguments (a pointer
    prefix of the request, and the argument it comes from)."""

    name: str
    title: str
    description: str
    fields: Mapping[str, tuple[str, str]]
    required: tuple[str, ...] = ()
    notes: Mapping[str, str] = field(default_factory=dict)
    #: The members of the structured result, as ``fields``, and those always present.
    output: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    output_required: tuple[str, ...] = ()
    read_only: bool = False
    destructive: bool = False
    #: Request pointer prefixes and the argument pointers they stand for, longest first.
    places: tuple[tuple[str, str], ...] = (("/scope/session", "/session"), ("/scope", ""))

    @functools.cached_property
    def input_schema(self) -> dict[str, Any]:
        return tool_schema(self.fields, self.required, self.notes)

    @functools.cached_property
    def output_schema(self) -> dict[str, Any]:
        return tool_schema(self.output, self.output_required)

    def check_types(self, arguments: Mapping[str, Any]) -> None:
        """Refuse an argument that is not a list or an object where its schema
        says so, which the client would take apart or copy (a string for a
        list of ids) before the codec sees it."""
        properties = self.input_schema["properties"]
        for key, value in arguments.items():
            expected = properties[key].get("type")
            if (expected == "array" and not isinstance(value, list)) or \
                    (expected == "object" and not isinstance(value, dict)):
                raise _invalid("TYPE_MISMATCH", f"expected {'a list' if expected == 'array' else 'an object'}, "
                               f"got {type(value).__name__}", f"/{key}")

    def argument_pointer(self, pointer: str) -> str:
        """The pointer into the arguments of a pointer into the request."""
        for prefix, argument in self.places:
            if pointer == prefix or pointer.startswith(prefix + "/"):
                return argument + pointer[len(prefix):]
        return pointer


_SCOPED = ("Every call acts for the tenant{user} fixed when this server started; the tool takes no "
           "tenant, user or agent, and a record outside that scope is treated as absent.")
_SESSION = {"session": "Narrows the call to one session (conversation) within the fixed scope."}

TOOLS: tuple[Tool, ...] = (
    Tool("remember", "Remember",
         "Store a memory: a fact (fact.text, such as \"The user prefers window seats\") or a message "
         "of the conversation (message.role and message.content, a list of parts such as "
         "{\"text\": {\"text\": \"...\"}}). Give exactly one of fact and message. With embeddings, "
         "recall can find it by vector too. A memory is always new: to change one, use update.",
         {"fact": ("memory-record", "fact"), "message": ("memory-record", "message"),
          "id": ("memory-record", "id"),
          "session": ("scope", "session"), "tags": ("memory-record", "tags"),
          "embeddings": ("memory-record", "embeddings"), "metadata": ("memory-record", "metadata")},
         notes={"id": "A fresh one is chosen when absent; an id in use is refused (RECORD_EXISTS).", **_SESSION},
         output={"id": ("put-result", "id"), "kind": ("memory-record", "kind"), "status": ("put-result", "status"),
                 "revision": ("put-result", "revision"), "sequence": ("put-result", "sequence")},
         output_required=("id", "kind", "status"),
         places=(("/items/0/record/scope/session", "/session"), ("/items/0/record", ""),
                 ("/items/0", ""), ("/scope/session", "/session"), ("/scope", ""))),
    Tool("recall", "Recall",
         "Find memories by text (full-text search), by vector (the query embedding's model and values), "
         "or both (hybrid, scores fused), best first, within an optional filter on the fields of "
         "the memory, named by JSON Pointer ({\"compare\": {\"field\": \"/tags\", \"operator\": \"contains\", "
         "\"value\": \"travel\"}}; all, any and not combine filters). "
         "Give text, vector or both. next_cursor, given back as cursor, reads the next page.",
         {"text": ("search-request", "text"), "vector": ("search-request", "vector"),
          "filter": ("search-request", "filter"), "limit": ("search-request", "limit"),
          "min_score": ("search-request", "min_score"), "cursor": ("search-request", "cursor"),
          "include_archived": ("search-request", "include_archived"), "session": ("scope", "session")},
         notes=_SESSION, read_only=True,
         output={"hits": ("search-response", "hits"), "next_cursor": ("search-response", "next_cursor")},
         output_required=("hits",)),
    Tool("history", "Read history",
         "Read a thread in insertion order, one page at a time: every record (thread \"all\", the "
         "default), the user thread (\"user\"), or the exchange between two agents (\"between\", with "
         "agents). next_cursor, given back as cursor, reads the next page.",
         {"thread": ("history-request", "thread"), "agents": ("history-request", "agents"),
          "kinds": ("history-request", "kinds"), "order": ("history-request", "order"),
          "limit": ("history-request", "limit"), "cursor": ("history-request", "cursor"),
          "session": ("scope", "session")},
         notes=_SESSION, read_only=True,
         output={"records": ("history-response", "records"), "next_cursor": ("history-response", "next_cursor")},
         output_required=("records",)),
    Tool("update", "Update a memory",
         "Change part of a memory with a JSON Merge Patch (RFC 7396) of its JSON form: "
         "{\"fact\": {\"text\": \"...\"}}, {\"tags\": [\"travel\"]}, {\"lifecycle\": {\"importance\": 0.9}}; "
         "null removes a member. The scope of a memory cannot be patched. With expected_revision, "
         "only if the memory still has that revision.",
         {"id": ("update-request", "id"), "patch": ("update-request", "patch"),
          "expected_revision": ("update-request", "expected_revision")},
         required=("id", "patch"), output={"record": ("update-response", "record")}, output_required=("record",)),
    Tool("forget", "Forget",
         "Delete memories by id, or those that match a filter: softly by default (tombstones that "
         "history and watchers still see), or for good with mode \"hard\".",
         {"ids": ("delete-request", "ids"), "filter": ("delete-request", "filter"),
          "mode": ("delete-request", "mode"), "reason": ("delete-request", "reason"),
          "expected_revision": ("delete-request", "expected_revision")},
         destructive=True, output={"deleted_ids": ("delete-response", "deleted_ids")},
         output_required=("deleted_ids",)),
)

_BY_NAME = {t.name: t for t in TOOLS}


def _text_of(record: Mapping[str, Any]) -> str:
    """A line of text for a record: its fact, its message's text, its summary..."""
    if "message" in record:
        message = record["message"]
        parts = [p["text"]["text"] for p in message.get("content", ()) if "text" in p]
        return f"{message.get('role', '')}: {' '.join(parts)}".strip()
    for kind in ("fact", "episode", "summary", "emotion"):
        if kind in record:
            return str(record[kind].get("text", ""))
    if "block" in record:
        return str(record["block"].get("value", ""))
    return ""


def _line(record: Mapping[str, Any], score: float | None = None) -> str:
    text = _text_of(record)
    if len(text) > 200:
        text = text[:199] + "…"
    tail = f" (score {score:.3f})" if score is not None else ""
    deleted = " [deleted]" if record.get("lifecycle", {}).get("status") == "deleted" else ""
    return f"- {record['id']} [{record['kind']}]{deleted}: {text}{tail}"


class Memory:
    """The tools on one backend (a ``Client``, or :class:`InProcess`), for the
    fixed scope ``scope`` (user and agent, or neither)."""

    def __init__(self, backend: Operations[Doc, Any, Any], tenant: str, scope: Mapping[str, str]) -> None:
        self.backend = backend
        self.tenant = tenant
        self.scope = dict(scope)

    def describe(self, tool: Tool) -> str:
        who = "".join(f", {k} {v!r}" for k, v in self.scope.items())
        return f"{tool.description} {_SCOPED.format(user=f' {self.tenant!r}{who}')}"

    def tools(self) -> list[types.Tool]:
        return [types.Tool(name=t.name, title=t.title, description=self.describe(t),
                           input_schema=t.input_schema, output_schema=t.output_schema,
                           annotations=types.ToolAnnotations(title=t.title, read_only_hint=t.read_only,
                                                             destructive_hint=t.destructive,
                                                             idempotent_hint=t.read_only,
                                                             open_world_hint=False))
                for t in TOOLS]

    def call(self, name: str, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        """Perform a tool: its structured result and a short text. ToolError
        when it fails; KeyError for a tool that does not exist."""
        tool = _BY_NAME[name]
        try:
            for key in arguments:
                if key not in tool.fields:
                    raise _invalid("UNKNOWN_FIELD", f"{name} takes no argument {key!r}; it takes "
                                   f"{', '.join(tool.fields)}", "/" + key.replace("~", "~0").replace("/", "~1"))
            tool.check_types(arguments)
            perform: Callable[[Mapping[str, Any]], tuple[dict[str, Any], str]] = getattr(self, "_" + name)
            return perform(arguments)
        except MemorywireError as e:
            violations = [Violation(tool.argument_pointer(v.pointer), v.reason, v.message) for v in e.violations]
            raise ToolError(e, violations) from None

    def _scope(self, args: Mapping[str, Any]) -> dict[str, Any]:
        scope: dict[str, Any] = dict(self.scope)
        if args.get("session") is not None:
            scope["session"] = args["session"]
        return scope

    def _remember(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        kinds = [k for k in ("fact", "message") if args.get(k) is not None]
        if len(kinds) != 1:
            raise _invalid("REQUIRED_FIELD_MISSING" if not kinds else "ONEOF_CONFLICT",
                           "give exactly one of fact and message", "/fact" if not kinds else "/message")
        record: Doc = {"id": args.get("id") or f"mem-{uuid.uuid4()}", "kind": kinds[0]}
        for key in ("fact", "message", "tags", "embeddings", "metadata"):
            if args.get(key) is not None:
                record[key] = args[key]
        # Always a new record: a put that names a record of the tenant outside
        # the fixed scope would replace it and move it into the scope.
        response = self.backend.put(record, scope=self._scope(args), mode="create")
        result = response["results"][0]
        if result.get("status") == "failed":
            raise from_error_document(result["error"])
        text = f"Remembered {record['kind']} {result['id']} ({result['status']}, revision {result.get('revision')})."
        return {"id": result["id"], "kind": record["kind"], "status": result["status"],
                "revision": result.get("revision"), "sequence": result.get("sequence")}, text

    def _recall(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        if args.get("text") is None and args.get("vector") is None:
            raise _invalid("REQUIRED_FIELD_MISSING", "give text, vector or both", "/text")
        response = self.backend.search(args.get("text"), vector=args.get("vector"), filter=args.get("filter"),
                                       limit=args.get("limit"), min_score=args.get("min_score"),
                                       cursor=args.get("cursor"), include_archived=args.get("include_archived"),
                                       scope=self._scope(args))
        hits = response.get("hits", [])
        out: dict[str, Any] = {"hits": hits}
        if response.get("next_cursor"):
            out["next_cursor"] = response["next_cursor"]
        lines = [f"{len(hits)} memor{'y' if len(hits) == 1 else 'ies'} found."]
        lines += [_line(h["record"], h.get("score")) for h in hits]
        if "next_cursor" in out:
            lines.append(f"More: cursor {out['next_cursor']}")
        return out, "\n".join(lines)

    def _history(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        response = self.backend.history(scope=self._scope(args), thread=args.get("thread"),
                                        agents=args.get("agents"), kinds=args.get("kinds"),
                                        cursor=args.get("cursor"), limit=args.get("limit"),
                                        order=args.get("order"))
        records = response.get("records", [])
        out: dict[str, Any] = {"records": records}
        if response.get("next_cursor"):
            out["next_cursor"] = response["next_cursor"]
        lines = [f"{len(records)} record{'' if len(records) == 1 else 's'} in order."]
        lines += [_line(r) for r in records]
        if "next_cursor" in out:
            lines.append(f"More: cursor {out['next_cursor']}")
        return out, "\n".join(lines)

    def _update(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        patch = args.get("patch")
        if not isinstance(patch, Mapping):
            raise _invalid("REQUIRED_FIELD_MISSING" if patch is None else "TYPE_MISMATCH",
                           "a patch is a JSON object", "/patch")
        if "scope" in patch:
            raise _invalid("IMMUTABLE_FIELD", "the scope of a memory is fixed by the server; a patch cannot "
                           "change it", "/patch/scope")
        response = self.backend.update(args.get("id", ""), patch,
                                       expected_revision=args.get("expected_revision"), scope=dict(self.scope))
        record = response["record"]
        return {"record": record}, f"Updated {record['id']} to revision {record.get('revision')}."

    def _forget(self, args: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
        if args.get("ids") is None and args.get("filter") is None:
            raise _invalid("REQUIRED_FIELD_MISSING", "give ids, a filter or both", "/ids")
        response = self.backend.delete(args.get("ids"), filter=args.get("filter"), mode=args.get("mode"),
                                       reason=args.get("reason"), expected_revision=args.get("expected_revision"),
                                       scope=dict(self.scope))
        deleted = response.get("deleted_ids", [])
        how = "for good" if args.get("mode") == "hard" else "softly"
        text = f"Forgot {len(deleted)} {how}: {', '.join(deleted)}." if deleted else "Nothing to forget."
        return {"deleted_ids": deleted}, text


def _error_result(e: ToolError) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(text=e.text())],
                                structured_content={"error": e.document()}, is_error=True)


def server(memory: Memory, *, name: str = "memorywire") -> Server[Any]:
    """The MCP server of the tools of ``memory``."""

    async def list_tools(ctx: ServerRequestContext[Any, Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any, Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        if params.name not in _BY_NAME:
            raise MCPError(code=types.INVALID_PARAMS,
                           message=f"no tool {params.name!r}; the tools are {', '.join(_BY_NAME)}")
        arguments = dict(params.arguments or {})
        try:
            structured, text = await anyio.to_thread.run_sync(memory.call, params.name, arguments)
        except ToolError as e:
            return _error_result(e)
        return types.CallToolResult(content=[types.TextContent(text=text)], structured_content=structured)

    tools = memory.tools()
    who = "".join(f", {k} {v!r}" for k, v in memory.scope.items())
    instructions = (f"Long-term memory for tenant {memory.tenant!r}{who}: remember facts and messages, recall "
                    "them by text or vector, read a thread's history, update and forget them.")
    return Server(name, version=__version__, instructions=instructions, on_list_tools=list_tools,
                  on_call_tool=call_tool)


# -- the command ------------------------------------------------------------------------------


def _address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not host:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    return host.strip("[]"), int(port)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Serve memory tools (remember, recall, history, update, forget) to a model over the "
                    "Model Context Protocol, against a memorywire service or an embedded store, for one "
                    "tenant and, optionally, one user and agent.",
        epilog="example, in an MCP client's configuration:\n"
               '  {"command": "memorywire", "args": ["mcp", "--store", "memory.sqlite3", "--tenant", "me"]}',
        formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--service", metavar="HOST:PORT", help="a memorywire service (memorywire serve) to use")
    where.add_argument("--store", metavar="FILE",
                       help="an embedded store: the SQLite file (made when absent), served by this process")
    parser.add_argument("--tenant", required=True, metavar="T", help="the tenant every call acts for")
    parser.add_argument("--user", metavar="U", help="the user every call is scoped to")
    parser.add_argument("--agent", metavar="A", help="the agent every call is scoped to")
    parser.add_argument("--token-file", metavar="F",
                        help="a file holding the bearer token of the service (--service only)")
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                        help="standard input and output (the default), or streamable HTTP")
    parser.add_argument("--listen", type=_address, metavar="HOST:PORT",
                        help=f"with --transport http, the address to listen on (default {DEFAULT_HTTP_LISTEN}); "
                             f"the endpoint is {HTTP_PATH}")
    return parser


def _backend(args: argparse.Namespace) -> Operations[Doc, Any, Any]:
    if args.store is not None:
        from memorywire.service.store import Store

        return InProcess(Store(args.store), args.tenant)
    from memorywire.client import Client

    token = None
    if args.token_file is not None:
        token = Path(args.token_file).read_text("utf-8").strip()
    return Client(args.service, tenant=args.tenant, token=token)


def main(argv: Sequence[str] | None = None) -> int:
    """``memorywire mcp``: serve until the client closes standard input
    (stdio), or until SIGINT or SIGTERM (HTTP, which ends its sessions first).
    Exit status 0 at the end of the input, 1 when the store or the service
    cannot be opened, 2 on a usage error."""
    parser = _parser()
    args = parser.parse_args(list(argv) if argv is not None else None)
    if args.token_file is not None and args.service is None:
        parser.error("--token-file goes with --service")
    if args.listen is not None and args.transport != "http":
        parser.error("--listen goes with --transport http")
    scope = {k: v for k, v in (("user", args.user), ("agent", args.agent)) if v is not None}
    try:
        backend = _backend(args)
    except (OSError, ValueError) as e:
        print(f"{PROG}: cannot open the {'store' if args.store else 'service'}: {e}", file=sys.stderr)
        return 1
    app = server(Memory(backend, args.tenant, scope))
    try:
        if args.transport == "stdio":
            anyio.run(_stdio, app)
        else:
            anyio.run(_http, app, args.listen or _address(DEFAULT_HTTP_LISTEN))
    except KeyboardInterrupt:
        pass
    finally:
        close = getattr(backend, "close", None)
        if close is not None:
            close()
    return 0


async def _stdio(app: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await app.run(read, write, app.create_initialization_options())


async def _http(app: Server[Any], listen: tuple[str, int]) -> None:
    import uvicorn

    host, port = listen
    starlette = app.streamable_http_app(streamable_http_path=HTTP_PATH, host=host)
    await uvicorn.Server(uvicorn.Config(starlette, host=host, port=port, log_level="warning")).serve()
