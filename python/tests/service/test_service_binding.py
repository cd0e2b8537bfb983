"""The gRPC binding: metadata, status mapping and error details, health and
reflection (grpc-binding.md sections 3, 4, 5 and 8)."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc
from service_helpers import fact, fails, send

import memorywire.protobuf
from memorywire.client import Client
from memorywire.service import MemoryServer
from memorywire.service.errors import decode_status
from memorywire.service.server import encode_tenant, parse_tenant
from memorywire.v1 import memory_service_pb2, record_pb2

GET = {"ids": ["x"]}


@pytest.mark.parametrize("metadata", [
    (),
    (("memorywire-tenant", ""),),
    (("memorywire-tenant", "a"), ("memorywire-tenant", "b")),
    (("memorywire-tenant", "bad%2"),),
    (("memorywire-tenant", "bad%zz"),),
    (("memorywire-tenant", "%FF%FE"),),
    (("memorywire-tenant", "x" * 257),),
])
def test_tenant_required(raw_channel: grpc.Channel, metadata: Any) -> None:
    e = fails("TENANT_REQUIRED", lambda: send(raw_channel, "Get", GET, metadata=metadata))
    assert e.code == "UNAUTHENTICATED" and e.pointer == "" and not e.violations


def test_tenant_encoding(connect: Any, raw_channel: grpc.Channel) -> None:
    assert encode_tenant("Bücher AG") == "B%C3%BCcher%20AG"
    assert parse_tenant(["B%c3%bccher%20AG"]) == "Bücher AG"
    mw: Client = connect("Bücher AG")
    mw.put(fact("f1", "x"))
    out = memorywire.protobuf.decode(send(raw_channel, "Get", {"ids": ["f1"]}, "B%c3%bccher%20AG"),
                                     type="memorywire.v1.GetResponse")
    assert out["records"][0]["scope"]["tenant"] == "Bücher AG"


def test_capabilities_need_no_tenant(connect: Any) -> None:
    caps = connect(None).capabilities()
    assert caps == {**connect("anyone").capabilities(), "operation_id": caps["operation_id"]}
    assert caps["implementation"] == "memorywire-reference" and caps["specversions"] == ["1.0"]
    assert set(caps["operations"]) >= {"Put", "Get", "History", "Search", "Update", "Delete", "Export",
                                       "Import", "GetCapabilities", "Watch", "CommitOffset", "Review"}
    assert "search.hybrid" in caps["features"] and "watch.offsets" in caps["features"]
    assert caps["limits"]["max_document_bytes"] == 16 * 1024 * 1024
    assert caps["limits"]["max_batch_records"] == 1000


def _rpc_error(call: Any) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as info:
        call()
    return info.value


def test_error_details_carry_reason_and_pointer(raw_channel: grpc.Channel, tenant: str) -> None:
    req = memory_service_pb2.PutRequest(specversion="1.0", operation_id="op-5b1e2c4a")
    item = req.items.add()
    item.record.id = "m1"
    item.record.kind = record_pb2.RECORD_KIND_FACT
    item.record.message.role = record_pb2.ROLE_USER
    stub = raw_channel.unary_unary("/memorywire.v1.MemoryService/Put")
    e = _rpc_error(lambda: stub(req.SerializeToString(), metadata=(("memorywire-tenant", tenant),),
                                timeout=10))
    assert e.code() == grpc.StatusCode.INVALID_ARGUMENT
    trailer = dict(e.trailing_metadata())["grpc-status-details-bin"]
    code, message, details = decode_status(trailer)
    assert code == 3 and message == e.details()
    assert [t for t, _ in details] == ["type.googleapis.com/memorywire.v1.Error"]
    err = memorywire.protobuf.decode(details[0][1], type="memorywire.v1.Error")
    assert err["code"] == "invalid_argument" and err["reason"] == "KIND_MISMATCH"
    assert err["violations"][0]["pointer"] == "/items/0/record/message"
    assert err["operation_id"] == "op-5b1e2c4a" and err["message"] == message
    # the same bytes the service would write: canonical
    assert memorywire.protobuf.encode(err, type="memorywire.v1.Error") == details[0][1]


@pytest.mark.parametrize(("data", "reason"), [
    (b"\xff\xff\xff", "TRUNCATED"),
    (b"\x0a\x031.0\x12\x02op\x22\x02\x0a", "TRUNCATED"),
    (b"", "REQUIRED_FIELD_MISSING"),
    (memory_service_pb2.GetRequest(specversion="2.0", operation_id="o", ids=["a"]).SerializeToString(),
     "UNSUPPORTED_VERSION"),
    (memory_service_pb2.GetRequest(specversion="1.0", operation_id="o", ids=["a"]).SerializeToString()
     + b"\xf8\x07\x01", "UNKNOWN_FIELD"),
])
def test_malformed_requests(raw_channel: grpc.Channel, tenant: str, data: bytes, reason: str) -> None:
    e = fails(reason, lambda: send(raw_channel, "Get", data, tenant))
    assert e.code == "INVALID_ARGUMENT"


def test_every_reason_has_its_code(raw_channel: grpc.Channel, tenant: str, mw: Client) -> None:
    stub = raw_channel.unary_unary("/memorywire.v1.MemoryService/Update")
    req = memorywire.protobuf.encode({"specversion": "1.0", "operation_id": "o", "id": "nope",
                                      "patch": {"tags": ["a"]}}, type="memorywire.v1.UpdateRequest")
    e = _rpc_error(lambda: stub(req, metadata=(("memorywire-tenant", tenant),), timeout=10))
    assert e.code() == grpc.StatusCode.NOT_FOUND
    mw.put(fact("f", "x"))
    e2 = fails("REVISION_MISMATCH", lambda: mw.update("f", {"tags": ["a"]}, expected_revision=9))
    assert e2.code == "ABORTED"


def test_specversion_metadata(raw_channel: grpc.Channel, tenant: str) -> None:
    stub = raw_channel.unary_unary("/memorywire.v1.MemoryService/Get")
    req = memorywire.protobuf.encode({"specversion": "1.0", "operation_id": "o", "ids": ["a"]},
                                     type="memorywire.v1.GetRequest")
    _, call = stub.with_call(req, metadata=(("memorywire-tenant", tenant),), timeout=10)
    assert ("memorywire-specversion", "1.0") in tuple(call.initial_metadata())
    fails("UNSUPPORTED_VERSION", lambda: send(raw_channel, "Get", req, tenant,
                                              metadata=(("memorywire-specversion", "2.0"),)))
    # a newer minor version is read by the rules of versioning.md section 3
    newer = memory_service_pb2.GetRequest(specversion="1.4", operation_id="o", ids=["a"])
    out = memorywire.protobuf.decode(send(raw_channel, "Get", newer.SerializeToString() + b"\xf8\x07\x01",
                                          tenant), type="memorywire.v1.GetResponse")
    assert out["specversion"] == "1.0" and out["missing_ids"] == ["a"]


def test_health_and_reflection(raw_channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(raw_channel)
    for name in ("", "memorywire.v1.MemoryService"):
        assert health.Check(health_pb2.HealthCheckRequest(service=name), timeout=10).status == \
            health_pb2.HealthCheckResponse.SERVING
    stub = reflection_pb2_grpc.ServerReflectionStub(raw_channel)
    requests = [reflection_pb2.ServerReflectionRequest(list_services=""),
                reflection_pb2.ServerReflectionRequest(
                    file_containing_symbol="memorywire.v1.MemoryService")]
    responses = list(stub.ServerReflectionInfo(iter(requests), timeout=10))
    services = {s.name for s in responses[0].list_services_response.service}
    assert "memorywire.v1.MemoryService" in services and "grpc.health.v1.Health" in services
    files = responses[1].file_descriptor_response.file_descriptor_proto
    assert files  # the descriptors of memorywire/v1 with their (rules)
    # the same service under grpc.reflection.v1
    v1 = raw_channel.stream_stream(
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString)
    out = list(v1(iter(requests[:1]), timeout=10))
    assert {s.name for s in out[0].list_services_response.service} == services


def test_credentials() -> None:
    server = MemoryServer(":memory:", "127.0.0.1:0", tokens={"t-all": None, "t-acme": ["acme"]}, log=None)
    port = server.start()
    target = f"127.0.0.1:{port}"
    try:
        with Client(target, tenant="acme") as anonymous:
            e = fails("CREDENTIALS_INVALID", lambda: anonymous.get("x"))
            assert e.code == "UNAUTHENTICATED"
            fails("CREDENTIALS_INVALID", lambda: anonymous.capabilities())
        with Client(target, tenant="acme", token="wrong") as wrong:
            fails("CREDENTIALS_INVALID", lambda: wrong.get("x"))
        with Client(target, tenant="other", token="t-acme") as narrow:
            e = fails("TENANT_MISMATCH", lambda: narrow.get("x"))
            assert e.code == "PERMISSION_DENIED" and e.pointer == ""
            assert narrow.capabilities()["implementation"] == "memorywire-reference"
        with Client(target, tenant="acme", token="t-acme") as ok:
            assert ok.get("x")["missing_ids"] == ["x"]
        with Client(target, tenant="other", token="t-all") as ok:
            assert ok.get("x")["missing_ids"] == ["x"]
    finally:
        server.stop(grace=0.5)
