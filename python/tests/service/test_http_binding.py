"""The HTTP binding (spec/v1/http-binding.md) against a real server on
loopback, with the standard library's http.client only: every operation,
errors as problem documents, tenants and tokens, content negotiation, Watch
over Server-Sent Events cut and resumed with Last-Event-ID, Export and
Import, the fair share across both bindings, and CORS."""

from __future__ import annotations

import http.client
import json
import socket
import ssl
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgpack
import pytest

import memorywire.json
import memorywire.msgpack
import memorywire.protobuf
from memorywire.client import Client
from memorywire.service import MemoryServer, Store
from memorywire.service.fairness import FairShare
from memorywire.service.registry import OPERATIONS

PREFIX = "/memorywire.v1.MemoryService/"
TOKENS = {"tok-acme": ["acme"], "tok-all": "*"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryServer]:
    store = Store(str(tmp_path_factory.mktemp("http") / "store.sqlite3"))
    srv = MemoryServer(store, "127.0.0.1:0", strict=True, log=None, warm=False, http="127.0.0.1:0",
                       cors_origins=["https://app.example"], heartbeat_seconds=0.5,
                       share=FairShare(max_workers=16, max_tenant_streams=2))
    srv.start()
    yield srv
    srv.stop(grace=1.0)
    store.close()


@pytest.fixture
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:12]}"


class Response:
    def __init__(self, r: http.client.HTTPResponse) -> None:
        self.status = r.status
        self.headers = {k.lower(): v for k, v in r.getheaders()}
        self.body = r.read()

    def json(self) -> Any:
        return json.loads(self.body)


def post(server: MemoryServer, method: str, body: Any, tenant: str | None, *,
         content_type: str = "application/json", **headers: str) -> Response:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    h = {"content-type": content_type, **{k.replace("_", "-"): v for k, v in headers.items()}}
    if tenant is not None:
        h["memorywire-tenant"] = tenant
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    try:
        c.request("POST", PREFIX + method, data, h)
        return Response(c.getresponse())
    finally:
        c.close()


def doc(op: str, **fields: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "operation_id": op, **fields}


def fact(id: str, text: str) -> dict[str, Any]:
    return {"id": id, "kind": "fact", "fact": {"text": text}}


def ok(r: Response) -> Any:
    assert r.status == 200, (r.status, r.body)
    return r.json()


# -- operations ------------------------------------------------------------------------------


def test_every_operation_once(server: MemoryServer, tenant: str) -> None:
    def call(method: str, **fields: Any) -> Any:
        r = post(server, method, doc(f"op-{method}", **fields), tenant)
        assert r.headers["content-type"] == "application/json"
        assert r.headers["memorywire-specversion"] == "1.0"
        assert r.headers["memorywire-operation-id"] == f"op-{method}"
        return ok(r)

    put = call("Put", items=[{"record": fact(f"f{i}", f"the user likes window seat {i}")} for i in range(4)]
               + [{"record": {"id": "p1", "kind": "fact", "fact": {"text": "staged"}}}])
    assert [x["status"] for x in put["results"]] == ["created"] * 5
    assert call("Get", ids=["f0"])["records"][0]["fact"]["text"] == "the user likes window seat 0"
    assert call("History")["operation_id"] == "op-History"
    assert call("Search", text="window seat")["hits"]
    assert call("Update", id="f0", patch={"tags": ["seat"]})["record"]["revision"] == 2
    assert call("Delete", ids=["f3"])
    assert call("Expire", policy={"kinds": ["fact"], "older_than_seconds": 86400 * 365}, action="archive",
                dry_run=True)
    assert call("Merge", target_id="f1", source_ids=["f2"])
    assert call("Compact", ids=["f0"], summary={"id": "s1", "kind": "summary",
                                                 "summary": {"text": "a summary"}})
    staged = ok(post(server, "Put", doc("op-stage", items=[{"record": fact("r1", "review me")}],
                                        require_approval=True), tenant))
    assert staged["results"][0]["status"] == "staged"
    assert call("Review", id="r1", decision="approve")
    assert call("GetCapabilities")["operations"]
    events = watch(server, tenant, doc("op-w", from_start=True, max_events=1))
    assert events[-1]["event"] == "end"
    assert call("CommitOffset", consumer="c1", cursor=events[0]["id"])
    exported = stream(server, "Export", doc("op-e"), tenant)
    assert exported[-1]["event"] == "end" and exported[0]["data"]["records"]
    r = post(server, "Import", doc("op-Import", records=[fact("i1", "imported")], mode="merge"), tenant)
    assert ok(r)["imported"] == 1
    assert call("Erase", filter={"compare": {"field": "/id", "operator": "eq", "value": "i1"}}
                )["receipt"]["records"] == 1
    assert ok(post(server, "Get", doc("op-g", ids=["i1"]), tenant))["missing_ids"] == ["i1"]
    done = {"Put", "Get", "History", "Search", "Update", "Delete", "Expire", "Merge", "Compact", "Review",
            "GetCapabilities", "Watch", "CommitOffset", "Export", "Import", "Erase"}
    assert done == {op.name for op in OPERATIONS}


def test_an_unknown_method_and_another_http_method(server: MemoryServer, tenant: str) -> None:
    r = post(server, "Forget", doc("op"), tenant)
    assert r.status == 404 and r.headers["content-type"] == "application/problem+json"
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    c.request("GET", PREFIX + "Get", headers={"memorywire-tenant": tenant})
    r2 = Response(c.getresponse())
    c.close()
    assert r2.status == 405 and r2.headers["allow"] == "POST, OPTIONS"


def test_a_replay_through_the_other_binding_gets_the_same_response(server: MemoryServer, tenant: str) -> None:
    request = doc("op-replay", items=[{"record": fact("x1", "once")}])
    first = ok(post(server, "Put", request, tenant))
    with Client(f"127.0.0.1:{server.port}", tenant=tenant, timeout=30) as mw:
        again = mw.put([fact("x1", "once")], operation_id="op-replay")
        assert again == first
        cursor = watch(server, tenant, doc("op-w", from_start=True, max_events=1))[0]["id"]
        assert [e["cursor"] for e in mw.watch(cursor=None, from_start=True, max_events=1)] == [cursor]


# -- errors ------------------------------------------------------------------------------------


def test_errors_are_problem_documents_with_the_status_of_their_code(server: MemoryServer, tenant: str) -> None:
    r = post(server, "Put", doc("op-bad", items=[{"record": {"kind": "fact", "fact": {"text": "x"}}}]), tenant)
    assert r.status == 400
    assert r.headers["content-type"] == "application/problem+json"
    assert r.headers["memorywire-operation-id"] == "op-bad"
    e = r.json()
    assert e["code"] == "invalid_argument" and e["reason"] == "REQUIRED_FIELD_MISSING"
    assert e["violations"][0]["pointer"] == "/items/0/record/id"
    assert e["operation_id"] == "op-bad"
    # The body is a valid Error and nothing else (a problem of type about:blank).
    assert memorywire.json.decode(r.body, type="memorywire.v1.Error") == e
    # Statuses of other codes.
    assert post(server, "Get", doc("op", ids=["missing"]), tenant).status == 200  # missing_ids
    r = post(server, "Update", doc("op", id="missing", patch={"tags": ["a"]}), tenant)
    assert (r.status, r.json()["reason"]) == (404, "RECORD_NOT_FOUND")
    ok(post(server, "Put", doc("op-e1", items=[{"record": fact("e1", "x")}]), tenant))
    r = post(server, "Put", doc("op-e2", items=[{"record": fact("e1", "x"), "mode": "create"}]), tenant)
    assert r.status in (200, 409)
    r = post(server, "Put", doc("op-e1", items=[{"record": fact("e1", "other")}]), tenant)
    assert (r.status, r.json()["reason"]) == (400, "OPERATION_ID_REUSED")
    r = post(server, "Put", doc("op-t", scope={"tenant": "someone-else"}, items=[{"record": fact("t", "x")}]),
             tenant)
    assert (r.status, r.json()["reason"], r.json()["violations"][0]["pointer"]) == (
        403, "TENANT_MISMATCH", "/scope/tenant")
    r = post(server, "Watch", doc("op", cursor="w1.not-a-cursor"), tenant)
    assert (r.status, r.json()["reason"]) == (400, "INVALID_CURSOR")
    r = post(server, "Put", b"{not json", tenant)
    assert (r.status, r.json()["reason"]) == (400, "SYNTAX_ERROR")
    # A Connect client gets the same body as application/json.
    r = post(server, "Put", b"{not json", tenant, connect_protocol_version="1")
    assert r.headers["content-type"] == "application/json" and r.json()["code"] == "invalid_argument"


def test_content_types_that_are_refused(server: MemoryServer, tenant: str) -> None:
    r = post(server, "Get", doc("op", ids=["a"]), tenant, content_type="text/plain")
    assert r.status == 415 and "application/json" in r.headers["accept-post"]
    assert r.json()["reason"] == "UNSUPPORTED_FEATURE"
    r = post(server, "Get", doc("op", ids=["a"]), tenant, accept="text/html")
    assert r.status == 406
    r = post(server, "Watch", doc("op"), tenant, accept="application/json")
    assert r.status == 406
    r = post(server, "Get", doc("op", ids=["a"]), tenant, content_type="application/json; charset=utf-8",
             accept="text/html;q=0.5, application/msgpack")
    assert r.status == 200 and r.headers["content-type"] == "application/msgpack"


def test_a_body_above_the_limit_is_refused(server: MemoryServer, tenant: str) -> None:
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    c.putrequest("POST", PREFIX + "Put")
    c.putheader("content-type", "application/json")
    c.putheader("memorywire-tenant", tenant)
    c.putheader("content-length", str(server.limits.max_document_bytes + 1))
    c.endheaders()  # no body is sent: the size alone refuses it
    r = Response(c.getresponse())
    c.close()
    assert (r.status, r.json()["reason"]) == (429, "DOCUMENT_TOO_LARGE")


# -- tenants, tokens, headers ---------------------------------------------------------------------


def test_tenant_header(server: MemoryServer, tenant: str) -> None:
    r = post(server, "Get", doc("op", ids=["a"]), None)
    assert r.status == 401 and r.json()["reason"] == "TENANT_REQUIRED" and "violations" not in r.json()
    assert r.headers["www-authenticate"] == "Bearer"
    assert post(server, "Get", doc("op", ids=["a"]), "bad%zz").json()["reason"] == "TENANT_REQUIRED"
    assert ok(post(server, "GetCapabilities", doc("op"), None))["operations"]
    # A tenant outside ASCII, as the gRPC metadata writes it, is the same tenant over gRPC.
    name = f"Bücher {tenant}"
    encoded = "".join(chr(b) if 0x21 <= b <= 0x7E and b != 0x25 else f"%{b:02X}" for b in name.encode())
    ok(post(server, "Put", doc("op-u", items=[{"record": fact("u1", "umlaut")}]), encoded))
    with Client(f"127.0.0.1:{server.port}", tenant=name, timeout=30) as mw:
        assert mw.get(["u1"])["records"][0]["scope"]["tenant"] == name


def test_bearer_tokens(tmp_path: Path) -> None:
    with MemoryServer(str(tmp_path / "s.sqlite3"), "127.0.0.1:0", log=None, warm=False, http="127.0.0.1:0",
                      tokens=TOKENS) as srv:
        get = doc("op", ids=["a"])
        assert post(srv, "Get", get, "acme").json()["reason"] == "CREDENTIALS_INVALID"
        assert post(srv, "Get", get, "acme", authorization="Bearer nope").status == 401
        assert ok(post(srv, "Get", get, "acme", authorization="bearer tok-acme"))
        r = post(srv, "Get", get, "globex", authorization="Bearer tok-acme")
        assert (r.status, r.json()["reason"]) == (403, "TENANT_MISMATCH")
        unknown = post(srv, "Get", get, "no-such-tenant", authorization="Bearer tok-acme")
        assert unknown.json()["message"] == r.json()["message"]  # nothing says whether it exists
        assert ok(post(srv, "Get", get, "globex", authorization="Bearer tok-all"))
        assert post(srv, "GetCapabilities", doc("op"), None).status == 401


def test_tls_and_mutual_tls(tmp_path: Path) -> None:
    from tls_helpers import make_pki

    from memorywire.service.server import Tls

    pki = make_pki(tmp_path / "pki")
    get = json.dumps(doc("op", ids=["a"])).encode()
    headers = {"content-type": "application/json", "memorywire-tenant": "acme"}

    def https(port: int, context: ssl.SSLContext) -> int:
        c = http.client.HTTPSConnection("localhost", port, timeout=10, context=context)
        try:
            c.request("POST", PREFIX + "Get", get, headers)
            return c.getresponse().status
        finally:
            c.close()

    client = ssl.create_default_context(cafile=str(pki.ca))
    with MemoryServer(":memory:", "127.0.0.1:0", log=None, warm=False, http="127.0.0.1:0",
                      tls=Tls.from_files(pki.server_cert, pki.server_key)) as srv:
        assert https(srv.http_port, client) == 200
        with pytest.raises(ssl.SSLError):
            https(srv.http_port, ssl.create_default_context(cafile=str(pki.stranger_ca)))
    with MemoryServer(":memory:", "127.0.0.1:0", log=None, warm=False, http="127.0.0.1:0",
                      tls=Tls.from_files(pki.server_cert, pki.server_key, pki.client_ca)) as srv:
        with pytest.raises((ssl.SSLError, ConnectionError)):
            https(srv.http_port, client)
        client.load_cert_chain(str(pki.client_cert), str(pki.client_key))
        assert https(srv.http_port, client) == 200


def test_operation_id_header(server: MemoryServer, tenant: str) -> None:
    r = post(server, "Get", doc("op-h", ids=["a"]), tenant, memorywire_operation_id="op-other")
    assert (r.status, r.json()["reason"], r.json()["violations"][0]["pointer"]) == (
        400, "IMMUTABLE_FIELD", "/operation_id")
    assert ok(post(server, "Get", doc("op-h", ids=["a"]), tenant, memorywire_operation_id="op-h",
                   memorywire_future_header="ignored"))
    # A timeout that has passed, and malformed ones, which are ignored.
    r = post(server, "Get", doc("op", ids=["a"]), tenant, connect_timeout_ms="1")
    assert r.status in (200, 504)
    for value in ("0", "-5", "soon", "12345678901"):
        assert ok(post(server, "Get", doc("op", ids=["a"]), tenant, connect_timeout_ms=value))
    r = post(server, "Get", doc("op", ids=["a"]), tenant, memorywire_specversion="2.0")
    assert r.json()["reason"] == "UNSUPPORTED_VERSION"


# -- content negotiation ------------------------------------------------------------------------


def test_msgpack_and_protobuf_bodies_give_the_json_result(server: MemoryServer, tenant: str) -> None:
    ok(post(server, "Put", doc("op-p", items=[{"record": fact("m1", "a memory in three encodings")}]), tenant))
    search = doc("op-s", text="memory encodings")
    as_json = ok(post(server, "Search", search, tenant))
    body = memorywire.msgpack.encode(search, type="memorywire.v1.SearchRequest")
    r = post(server, "Search", body, tenant, content_type="application/msgpack")
    assert r.headers["content-type"] == "application/msgpack"
    assert msgpack.unpackb(r.body, timestamp=0) is not None
    assert memorywire.msgpack.decode(r.body, type="memorywire.v1.SearchResponse") == as_json
    body = memorywire.protobuf.encode(search, type="memorywire.v1.SearchRequest")
    r = post(server, "Search", body, tenant, content_type="application/proto")
    assert r.headers["content-type"] == "application/proto"
    assert memorywire.protobuf.decode(r.body, type="memorywire.v1.SearchResponse") == as_json
    r = post(server, "Search", body, tenant, content_type="application/x-protobuf", accept="application/json")
    assert r.headers["content-type"] == "application/json" and r.json() == as_json
    # An error is JSON whatever the encoding of the request.
    bad = memorywire.msgpack.encode(doc("op-x", text="x", limit=0), type="memorywire.v1.SearchRequest")
    r = post(server, "Search", bad + b"\xc1", tenant, content_type="application/msgpack")
    assert r.status == 400 and r.headers["content-type"] == "application/problem+json"


# -- streams ------------------------------------------------------------------------------------


def read_events(r: http.client.HTTPResponse, until: int | None = None) -> list[dict[str, Any]]:
    """The events of an event stream (comments as {"comment": ...}), up to
    ``until`` data events or the end of the stream."""
    events: list[dict[str, Any]] = []
    fields: dict[str, Any] = {}
    data_events = 0
    while True:
        line = r.fp.readline() if until is not None else r.readline()
        if not line:
            break
        text = line.decode().rstrip("\r\n")
        if text == "":
            if fields:
                if "data" in fields:
                    fields["data"] = json.loads(fields["data"])
                    fields.setdefault("event", "message")
                    if fields["event"] == "message":
                        data_events += 1
                events.append(fields)
                fields = {}
                if until is not None and data_events >= until:
                    break
            continue
        if text.startswith(":"):
            events.append({"comment": text[1:].strip()})
            continue
        name, _, value = text.partition(":")
        fields[name] = value[1:] if value.startswith(" ") else value
    return events


def open_stream(server: MemoryServer, method: str, body: dict[str, Any], tenant: str,
                **headers: str) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    h = {"content-type": "application/json", "memorywire-tenant": tenant, "accept": "text/event-stream",
         **{k.replace("_", "-"): v for k, v in headers.items()}}
    c.request("POST", PREFIX + method, json.dumps(body), h)
    r = c.getresponse()
    assert r.status == 200, r.read()
    assert r.getheader("content-type") == "text/event-stream"
    return c, r


def stream(server: MemoryServer, method: str, body: dict[str, Any], tenant: str, **headers: str) -> list[Any]:
    c, r = open_stream(server, method, body, tenant, **headers)
    try:
        return [e for e in read_events(r) if "comment" not in e and "retry" not in e]
    finally:
        c.close()


def watch(server: MemoryServer, tenant: str, body: dict[str, Any], **headers: str) -> list[Any]:
    return stream(server, "Watch", body, tenant, **headers)


def put_facts(server: MemoryServer, tenant: str, ids: list[str]) -> None:
    ok(post(server, "Put", doc(f"op-{uuid.uuid4().hex}", items=[{"record": fact(i, i)} for i in ids]), tenant))


def test_watch_cut_and_resumed_with_last_event_id(server: MemoryServer, tenant: str) -> None:
    put_facts(server, tenant, ["a1", "a2", "a3"])
    c, r = open_stream(server, "Watch", doc("op-w", from_start=True), tenant)
    first = [e for e in read_events(r, until=2) if "data" in e]
    c.close()  # the connection drops after two events
    wait_released(server, tenant)
    assert [e["data"]["event"]["record"]["id"] for e in first] == ["a1", "a2"]
    for e in first:
        assert e["id"] == e["data"]["event"]["cursor"]
        assert not any(ch in e["id"] for ch in "\r\n\0")
    put_facts(server, tenant, ["a4"])
    # Resumed with Last-Event-ID, which takes the place of the body's start.
    events = watch(server, tenant, doc("op-w", from_start=True, max_events=2), last_event_id=first[-1]["id"])
    assert [e["data"]["event"]["record"]["id"] for e in events if e["event"] == "message"] == ["a3", "a4"]
    assert events[-1] == {"event": "end", "data": {}}
    # The same position by the body's cursor.
    again = watch(server, tenant, doc("op-w", cursor=first[-1]["id"], max_events=2))
    assert [e["id"] for e in again[:-1]] == [e["id"] for e in events[:-1]]
    r2 = post(server, "Watch", doc("op-w"), tenant, last_event_id="w1.bogus")
    assert (r2.status, r2.json()["reason"], r2.json()["violations"][0]["pointer"]) == (
        400, "INVALID_CURSOR", "/cursor")


def test_heartbeats_and_a_client_that_goes_away(server: MemoryServer, tenant: str) -> None:
    c, r = open_stream(server, "Watch", doc("op-hb"), tenant)
    assert server.admission.in_progress(tenant) == 1
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + 10
    while not any(e.get("comment") == "heartbeat" for e in got) and time.monotonic() < deadline:
        line = r.fp.readline().decode().rstrip("\r\n")
        if line.startswith(":"):
            got.append({"comment": line[1:].strip()})
    assert {"comment": "heartbeat"} in got
    # The client goes away: the server ends the stream and gives its place back.
    sock = c.sock
    assert sock is not None
    sock.shutdown(socket.SHUT_RDWR)
    c.close()
    wait_released(server, tenant)


def wait_released(server: MemoryServer, tenant: str) -> None:
    """Wait until the server has noticed that the tenant's streams are gone."""
    deadline = time.monotonic() + 10
    while server.admission.in_progress(tenant) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.admission.in_progress(tenant) == 0


def test_streams_of_both_bindings_share_one_bound(tmp_path: Path, tenant: str) -> None:
    # One Watch stream per tenant: a Watch over gRPC holds it, so one over HTTP waits.
    with MemoryServer(str(tmp_path / "s.sqlite3"), "127.0.0.1:0", log=None, warm=False, http="127.0.0.1:0",
                      share=FairShare(max_workers=8, max_tenant_streams=1)) as srv, \
            Client(f"127.0.0.1:{srv.port}", tenant=tenant, timeout=30) as mw:
        # The call returns once the service has fixed the start of the stream.
        with mw.watch(from_start=True):
            assert srv.admission.in_progress(tenant) == 1
            r = post(srv, "Watch", doc("op-w2"), tenant)
            assert (r.status, r.json()["reason"]) == (429, "RATE_LIMITED")
            assert int(r.headers["retry-after"]) >= 1 and r.json()["retry_after_millis"] > 0


def test_export_and_import(server: MemoryServer, tenant: str) -> None:
    # Import as JSON Lines of two documents, then as MessagePack.
    lines = b"".join(json.dumps(doc("op-imp", mode="merge", records=[fact(f"j{i}", f"line {i}")])).encode() + b"\n"
                     for i in range(2))
    assert ok(post(server, "Import", lines, tenant, content_type="application/jsonl"))["imported"] == 2
    again = post(server, "Import", lines, tenant, content_type="application/x-ndjson")
    assert ok(again)["imported"] == 2  # the recorded response
    r = post(server, "Import", lines + json.dumps(doc("op-other")).encode() + b"\n", tenant,
             content_type="application/jsonl")
    assert (r.status, r.json()["reason"]) == (400, "IMMUTABLE_FIELD") and "message 2" in r.json()["message"]
    packed = memorywire.msgpack.encode(doc("op-mp", mode="merge", records=[fact("k1", "packed")]),
                                       type="memorywire.v1.ImportRequest")
    r = post(server, "Import", packed, tenant, content_type="application/msgpack")
    assert memorywire.msgpack.decode(r.body, type="memorywire.v1.ImportResponse")["imported"] == 1
    # A chunked body, its documents split across chunks.
    chunked = b"".join(json.dumps(doc("op-ch", mode="merge", records=[fact(f"c{i}", f"chunk {i}")])).encode()
                       + b"\n" for i in range(3))
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    c.request("POST", PREFIX + "Import", (chunked[i:i + 7] for i in range(0, len(chunked), 7)),
              {"content-type": "application/jsonl", "memorywire-tenant": tenant}, encode_chunked=True)
    assert ok(Response(c.getresponse()))["imported"] == 3
    c.request("POST", PREFIX + "Get", json.dumps(doc("op-g", ids=["c2"])),  # the connection serves on
              {"content-type": "application/json", "memorywire-tenant": tenant})
    assert ok(Response(c.getresponse()))["records"][0]["id"] == "c2"
    # And in MessagePack, one document split across chunks.
    packed = memorywire.msgpack.encode(doc("op-mc", mode="merge", records=[fact("c3", "chunk 3")]),
                                       type="memorywire.v1.ImportRequest")
    c.request("POST", PREFIX + "Import", (packed[i:i + 5] for i in range(0, len(packed), 5)),
              {"content-type": "application/msgpack", "accept": "application/json", "memorywire-tenant": tenant},
              encode_chunked=True)
    assert ok(Response(c.getresponse()))["imported"] == 1
    c.close()
    # A body cut short takes no effect.
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
    body = json.dumps(doc("op-cut", mode="merge", records=[fact("cut1", "never")])).encode() + b"\n"
    c.putrequest("POST", PREFIX + "Import")
    for k, v in (("content-type", "application/jsonl"), ("memorywire-tenant", tenant),
                 ("content-length", str(len(body) * 2))):
        c.putheader(k, v)
    c.endheaders()
    c.send(body)
    assert c.sock is not None
    c.sock.shutdown(socket.SHUT_WR)
    try:
        c.getresponse().read()
    except (http.client.HTTPException, OSError):
        pass
    c.close()
    exported = stream(server, "Export", doc("op-ex"), tenant)
    assert exported[-1] == {"event": "end", "data": {}}
    ids = [x["id"] for e in exported[:-1] for x in e["data"]["records"]]
    assert sorted(ids) == ["c0", "c1", "c2", "c3", "j0", "j1", "k1"]
    seqs = [x["sequence"] for e in exported[:-1] for x in e["data"]["records"]]
    assert seqs == sorted(seqs)
    assert stream(server, "Export", doc("op-ex"), f"{tenant}-empty") == [{"event": "end", "data": {}}]


# -- CORS ---------------------------------------------------------------------------------------------


def test_cors(server: MemoryServer, tenant: str) -> None:
    def preflight(origin: str) -> Response:
        c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=10)
        c.request("OPTIONS", PREFIX + "Put", headers={
            "origin": origin, "access-control-request-method": "POST",
            "access-control-request-headers": "content-type, memorywire-tenant, authorization"})
        r = Response(c.getresponse())
        c.close()
        return r

    r = preflight("https://app.example")
    assert r.status == 204
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    assert r.headers["access-control-allow-methods"] == "POST"
    allowed = {h.strip() for h in r.headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "memorywire-tenant", "authorization", "last-event-id"} <= allowed
    assert "access-control-allow-credentials" not in r.headers
    r = preflight("https://evil.example")
    assert r.status == 204 and "access-control-allow-origin" not in r.headers
    # The request itself: readable headers for the allowed origin only.
    r = post(server, "Get", doc("op-c", ids=["a"]), tenant, origin="https://app.example")
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    assert "memorywire-operation-id" in r.headers["access-control-expose-headers"]
    assert r.headers["vary"] == "Origin"
    r = post(server, "Get", doc("op-c", ids=["a"]), tenant, origin="https://evil.example")
    assert "access-control-allow-origin" not in r.headers


# -- the JavaScript example ------------------------------------------------------------------------


EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "http" / "watch.mjs"


def test_the_javascript_example(server: MemoryServer, tenant: str) -> None:
    done = subprocess.run(["node", str(EXAMPLE), f"http://127.0.0.1:{server.http_port}", tenant],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    steps = [json.loads(line) for line in done.stdout.splitlines()]
    assert steps == [
        {"step": "put", "statuses": ["created", "created"]},
        {"step": "search", "ids": ["seat"]},
        {"step": "watched", "id": "seat", "type": "created"},
        {"step": "resumed", "id": "meal", "type": "created"},
        {"step": "resumed", "id": "lang", "type": "created"},
        {"step": "done"},
    ]


def test_requests_of_a_newer_minor_version(server: MemoryServer, tenant: str) -> None:
    """Unknown members of a newer minor version stay out of what the service
    sees, as the unknown fields of a Protobuf request do (found by
    schemathesis: they reached the service and failed it with INTERNAL)."""
    put_facts(server, tenant, ["n1"])
    r = post(server, "Delete", {"specversion": "1.99", "operation_id": "op-n", "ids": ["n1"], "later": 1}, tenant)
    assert ok(r)["operation_id"] == "op-n"
    r = post(server, "Export", {"specversion": "1.99", "operation_id": "op-n2", "filter": {"not": {"later": {}}}},
             tenant)
    assert (r.status, r.json()["reason"], r.json()["violations"][0]["pointer"]) == (
        501, "UNSUPPORTED_FEATURE", "/filter/not")
    r = post(server, "Put", {"specversion": "1.99", "operation_id": "op-n3",
                             "items": [{"record": {**fact("n2", "x"), "later": True}}]}, tenant)
    assert (r.status, r.json()["reason"]) == (400, "UNREPRESENTABLE")


def test_names_and_numbers_of_non_ascii_digits(server: MemoryServer, tenant: str) -> None:
    """Digits outside ASCII ("4¹" and "²" pass ``str.isdigit`` but not
    ``int``) are names, not positions or numbers: an unknown member so named
    is set aside like any other, and such a Content-Length or timeout header
    is no number (found by schemathesis: both failed with INTERNAL)."""
    vector = {"model": "m", "values": [1.0, 0.5], "4¹": {}, "²": 1}
    r = post(server, "Search", {"specversion": "1.99", "operation_id": "op-sup", "vector": vector,
                                "exact": True}, tenant)
    assert ok(r)["operation_id"] == "op-sup"
    r = post(server, "Get", doc("op-sup-2", ids=["x"]), tenant, connect_timeout_ms="³")
    assert ok(r)["operation_id"] == "op-sup-2"
    c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
    try:
        c.putrequest("POST", PREFIX + "Get")
        c.putheader("content-type", "application/json")
        c.putheader("memorywire-tenant", tenant)
        c.putheader("content-length", "²".encode("latin-1"))
        c.endheaders()
        r = Response(c.getresponse())
    finally:
        c.close()
    assert r.status < 500, r.body


def test_responses_are_sent_without_waiting_for_acknowledgements(server: MemoryServer, tenant: str) -> None:
    """A response is written as its headers, then its body: the server's
    sockets disable Nagle's algorithm (TCP_NODELAY), else the body of each
    response on a kept-alive connection waits for the client's delayed
    acknowledgement. Checked on the server's side of a live connection."""
    from memorywire.service import http as binding

    seen: list[int] = []
    original = binding._Handler.setup

    def setup(handler: Any) -> None:
        original(handler)
        seen.append(handler.connection.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))

    binding._Handler.setup = setup  # type: ignore[method-assign]
    try:
        c = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=30)
        try:
            for i in range(2):  # two requests on one kept-alive connection
                c.request("POST", PREFIX + "Get", json.dumps(doc(f"op-nodelay-{i}", ids=["x"])).encode(),
                          {"content-type": "application/json", "memorywire-tenant": tenant})
                r = c.getresponse()
                r.read()
                assert r.status == 200
        finally:
            c.close()
    finally:
        binding._Handler.setup = original  # type: ignore[method-assign]
    assert len(seen) == 1 and seen[0] != 0, seen


def test_the_specversion_header_of_the_openapi_document_is_what_the_service_accepts(
        server: MemoryServer, tenant: str) -> None:
    """schemas/v1/openapi.json lets a client send memorywire-specversion only
    as the service takes it: a 1.x version passes, another major version is
    refused with UNSUPPORTED_VERSION, and the document's pattern says so."""
    import re

    document = json.loads((Path(__file__).resolve().parents[3] / "schemas" / "v1" / "openapi.json")
                          .read_text("utf-8"))
    pattern = re.compile(document["components"]["parameters"]["SpecVersion"]["schema"]["pattern"])
    for i, version in enumerate(("1.0", "1.99", "2.0", "10.1")):
        r = post(server, "Get", doc(f"op-sv-{i}", ids=["x"]), tenant, memorywire_specversion=version)
        accepted = r.status == 200
        if not accepted:
            assert (r.status, r.json()["reason"]) == (400, "UNSUPPORTED_VERSION"), r.body
        assert bool(pattern.search(version)) == accepted, (version, r.status)


def test_an_expire_action_of_a_newer_minor_version_is_refused(server: MemoryServer, tenant: str) -> None:
    """An Expire of a newer minor version whose action this service does not
    know is refused with UNREPRESENTABLE at /action, in JSON (a name) as in
    Protobuf (a number), and nothing expires: the service never acts on an
    unknown value as if it were another (versioning.md section 3.4), and
    never answers it with an internal error."""
    put = post(server, "Put", doc("op-ea-put", items=[{"record": fact("f-ea", "x")}]), tenant)
    assert put.status == 200, put.body
    request = doc("op-ea-1", action="shred", policy={"not_accessed_seconds": 0})
    request["specversion"] = "1.1"
    r = post(server, "Expire", request, tenant)
    assert r.status == 400, r.body
    assert (r.json()["reason"], r.json()["violations"][0]["pointer"]) == ("UNREPRESENTABLE", "/action")
    known = memorywire.protobuf.encode(
        {**doc("op-ea-2", policy={"not_accessed_seconds": 0}, action="archive"), "specversion": "1.1"},
        type="memorywire.v1.ExpireRequest")
    body = known + bytes([0x28, 9])  # field 5, action: 9, a value this version does not define
    r = post(server, "Expire", body, tenant, content_type="application/proto")
    assert r.status == 400, r.body
    assert r.json()["reason"] == "UNREPRESENTABLE", r.body
    got = post(server, "Get", doc("op-ea-get", ids=["f-ea"]), tenant).json()
    assert got["records"][0].get("lifecycle", {}).get("status", "active") == "active", got
