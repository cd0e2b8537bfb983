"""Enum values of a newer minor version in requests, over both bindings.

The reader leaves an enum value it does not know out of what the service
sees (versioning.md section 3.2); a service that went on would act as if the
field were absent or held another value, which R-VER-014 forbids. Every
operation's request is sent with each of its enum fields in turn set to a
value of a newer minor version (``specversion`` 1.99): an unknown name over
HTTP in JSON, an unknown number over gRPC in Protobuf. Each answer is a typed
error of the spec's registry, never INTERNAL or a 5xx, and a request field
(outside the records the request carries) fails with UNREPRESENTABLE at its
pointer. The enum fields are those of the field tables the protos give."""

from __future__ import annotations

import http.client
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import grpc
import pytest

import memorywire.protobuf
from memorywire import _model
from memorywire.client import ServiceError
from memorywire.client._shared import service_error
from memorywire.service import MemoryServer, Store
from memorywire.service.errors import REASON_CODES
from memorywire.service.registry import OPERATIONS, Streaming

NEWER = "1.99"
#: An enum name and an enum number that no enum of the protos defines.
UNKNOWN_NAME = "zz_newer_value"
UNKNOWN_NUMBER = 99
#: Messages whose enum values are record content, or that hold no enum field.
CONTENT = frozenset({"memorywire.v1.MemoryRecord", "memorywire.v1.Value", "memorywire.v1.ValueList",
                     "memorywire.v1.ValueMap"})

FILTER = {"compare": {"field": "/kind", "operator": "eq", "value": "fact"}}
FACT = {"id": "e1", "kind": "fact", "fact": {"text": "x"}}
#: A valid request of every operation that sets each enum field it can
#: reach, with a known value; test_every_enum_field_is_reached checks that
#: they reach every enum field of the field tables.
BASE: dict[str, dict[str, Any]] = {
    "Put": {"items": [{"record": FACT, "mode": "upsert"}]},
    "Get": {"ids": ["e1"]},
    "History": {"thread": "all", "kinds": ["fact"], "order": "ascending"},
    "Search": {"text": "x", "filter": FILTER, "fusion": {"method": "rrf"}},
    "Update": {"id": "e1", "patch": {"tags": ["t"]}},
    "Delete": {"filter": FILTER, "mode": "soft"},
    "Expire": {"policy": {"kinds": ["fact"], "older_than_seconds": 1}, "action": "archive", "dry_run": True},
    "Merge": {"target_id": "e1", "source_ids": ["e2"], "strategy": "keep_target"},
    "Compact": {"ids": ["e1"], "summary": {"id": "s1", "kind": "summary", "summary": {"text": "s"}},
                "disposition": "keep"},
    "Review": {"id": "e1", "decision": "approve"},
    "Watch": {"filter": FILTER, "max_events": 1},
    "CommitOffset": {"consumer": "c", "cursor": "x"},
    "Export": {"filter": FILTER},
    "Import": {"records": [FACT], "mode": "merge", "conflict": "skip"},
    "GetCapabilities": {},
    "Erase": {"filter": FILTER},
}


class Case(NamedTuple):
    operation: str
    #: The pointer of the enum value in the request.
    pointer: str
    #: Whether it lies in a record the request carries.
    in_record: bool


def enum_templates(info: _model.MessageInfo, path: str = "", seen: frozenset[str] = frozenset()) -> Iterator[str]:
    """The enum fields of a message, by the field tables: pointers with ``*``
    for an index or a key, each message once on a path, records excluded."""
    seen = seen | {info.full_name}
    for f in info.ordered:
        at = f"{path}/{f.name}" + ("/*" if f.repeated or f.is_map else "")
        if f.message is None:
            if f.enum is not None:
                yield at
        elif f.message.full_name not in CONTENT and f.message.full_name not in seen:
            yield from enum_templates(f.message, at, seen)


def enum_values(info: _model.MessageInfo, doc: Any, path: str = "",
                in_record: bool = False) -> Iterator[tuple[str, bool]]:
    """The pointers of the enum values a document holds, by the field tables."""
    for name, value in doc.items():
        f = info.fields[name]
        items = list(enumerate(value)) if f.repeated else [(None, value)]
        for i, item in items:
            at = f"{path}/{name}" + ("" if i is None else f"/{i}")
            if f.enum is not None:
                yield at, in_record
            elif f.message is not None and isinstance(item, dict) and f.message.full_name not in (
                    CONTENT - {"memorywire.v1.MemoryRecord"}):
                yield from enum_values(f.message, item, at,
                                       in_record or f.message.full_name == "memorywire.v1.MemoryRecord")


def request_type(operation: str) -> str:
    return next(op.request_type for op in OPERATIONS if op.name == operation)


def cases() -> list[Case]:
    out = []
    for op in OPERATIONS:
        for pointer, in_record in enum_values(_model.message(op.request_type), BASE[op.name]):
            out.append(Case(op.name, pointer, in_record))
    return out


def test_every_operation_and_enum_field_is_reached() -> None:
    """BASE has a request of every operation, and its requests reach every
    enum field of every request message outside records, and the kind of the
    records."""
    assert sorted(BASE) == sorted(op.name for op in OPERATIONS)
    for op in OPERATIONS:
        info = _model.message(op.request_type)
        declared = set(enum_templates(info))
        reached = {"/".join("*" if t.isdigit() else t for t in p.split("/"))
                   for p, in_record in enum_values(info, BASE[op.name]) if not in_record}
        assert declared == reached, (op.name, declared ^ reached)
    records = [c for c in cases() if c.in_record]
    assert {c.operation for c in records} == {"Put", "Compact", "Import"}, records
    assert any(c.pointer.endswith("/kind") for c in records)
    assert len(cases()) >= 20


def tokens(pointer: str) -> list[str]:
    return pointer.split("/")[1:]


def json_request(case: Case, operation_id: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(json.dumps(
        {"specversion": NEWER, "operation_id": operation_id, **BASE[case.operation]}))
    *parents, last = tokens(case.pointer)
    node: Any = doc
    for t in parents:
        node = node[int(t)] if isinstance(node, list) else node[t]
    node[int(last) if isinstance(node, list) else last] = UNKNOWN_NAME
    return doc


def proto_request(case: Case, operation_id: str) -> bytes:
    """The request in Protobuf with an enum number that the enum does not define."""
    type_name = request_type(case.operation)
    data = memorywire.protobuf.encode({"specversion": NEWER, "operation_id": operation_id,
                                       **BASE[case.operation]}, type=type_name)
    msg = _model.message(type_name).cls.FromString(data)
    *parents, last = tokens(case.pointer)
    node: Any = msg
    for t in parents:
        node = node[int(t)] if t.isdigit() else getattr(node, t)
    if last.isdigit():
        node[int(last)] = UNKNOWN_NUMBER
    else:
        setattr(node, last, UNKNOWN_NUMBER)
    out: bytes = msg.SerializeToString()
    return out


def check(case: Case, status: int | None, reason: str, pointer: str | None, message: str) -> None:
    assert reason in REASON_CODES and reason != "INTERNAL_ERROR", (case, reason, message)
    assert status is None or 400 <= status < 500, (case, status, reason, message)
    if not case.in_record:
        assert (reason, pointer) == ("UNREPRESENTABLE", case.pointer), (case, reason, pointer, message)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryServer]:
    store = Store(str(Path(tmp_path_factory.mktemp("enums")) / "store.sqlite3"))
    srv = MemoryServer(store, "127.0.0.1:0", strict=True, log=None, warm=False, http="127.0.0.1:0")
    srv.start()
    yield srv
    srv.stop(grace=1.0)
    store.close()


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c.operation}{c.pointer}")
def test_over_http(server: MemoryServer, case: Case) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    streaming = next(op.streaming for op in OPERATIONS if op.name == case.operation)
    headers = {"content-type": "application/json", "memorywire-tenant": tenant}
    if streaming is Streaming.SERVER:
        headers["accept"] = "text/event-stream"
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    try:
        c.request("POST", f"/memorywire.v1.MemoryService/{case.operation}",
                  json.dumps(json_request(case, "op-http")).encode(), headers)
        r = c.getresponse()
        body = r.read()
    finally:
        c.close()
    assert r.getheader("content-type", "").startswith("application/problem+json"), (case, r.status, body)
    problem = json.loads(body)
    violations = problem.get("violations") or [{}]
    check(case, r.status, problem["reason"], violations[0].get("pointer"), problem.get("detail", ""))


@pytest.mark.parametrize("case", cases(), ids=lambda c: f"{c.operation}{c.pointer}")
def test_over_grpc(server: MemoryServer, case: Case) -> None:
    tenant = f"t-{uuid.uuid4().hex[:12]}"
    data = proto_request(case, "op-grpc")
    streaming = next(op.streaming for op in OPERATIONS if op.name == case.operation)
    path = f"/memorywire.v1.MemoryService/{case.operation}"
    md = (("memorywire-tenant", tenant),)
    with grpc.insecure_channel(f"127.0.0.1:{server.port}") as channel:
        with pytest.raises(grpc.RpcError) as info:
            if streaming is Streaming.SERVER:
                list(channel.unary_stream(path)(data, metadata=md, timeout=30))
            elif streaming is Streaming.CLIENT:
                channel.stream_unary(path)(iter([data]), metadata=md, timeout=30)
            else:
                channel.unary_unary(path)(data, metadata=md, timeout=30)
    e: ServiceError = service_error(info.value)
    check(case, None, e.reason, e.pointer, e.message)
    assert info.value.code() != grpc.StatusCode.INTERNAL, (case, e.reason, e.message)
