"""Export and Import (operations.md section 17, grpc-binding.md sections 7.2 and 7.3)."""

from __future__ import annotations

from typing import Any

import grpc
from service_helpers import fact, fails, message

import memorywire.protobuf
from memorywire.client import Client, service_error


def test_export_in_insertion_order_and_batches(mw: Client, raw_channel: grpc.Channel, tenant: str) -> None:
    mw.put([fact(f"f{i:04d}", f"fact {i}", scope={"agent": "agent-0"}) for i in range(1000)])
    mw.put([fact(f"g{i:04d}", f"fact {i}", scope={"agent": "agent-0"}) for i in range(500)])
    mw.put(fact("other", "x", scope={"agent": "agent-1"}))
    mw.delete("f0001")
    records = list(mw.export(scope={"agent": "agent-0"}))
    assert len(records) == 1499 and records[0]["id"] == "f0000" and records[1]["id"] == "f0002"
    seqs = [r["sequence"] for r in records]
    assert seqs == sorted(seqs)
    assert len(list(mw.export(scope={"agent": "agent-0"}, include_deleted=True))) == 1500
    # each message holds at most 1000 records and carries the envelope
    req = memorywire.protobuf.encode({"specversion": "1.0", "operation_id": "op-exp",
                                      "scope": {"agent": "agent-0"}}, type="memorywire.v1.ExportRequest")
    stream = raw_channel.unary_stream("/memorywire.v1.MemoryService/Export")(
        req, metadata=(("memorywire-tenant", tenant),), timeout=30)
    batches = [memorywire.protobuf.decode(m, type="memorywire.v1.ExportResponse") for m in stream]
    assert [len(b["records"]) for b in batches] == [1000, 499]
    assert all(b["operation_id"] == "op-exp" and b["specversion"] == "1.0" for b in batches)
    # an export of nothing is a stream of no messages
    assert list(mw.export(scope={"agent": "nobody"})) == []
    flt = {"compare": {"field": "/sequence", "operator": "gt", "value": records[-2]["sequence"]}}
    assert [r["id"] for r in mw.export(filter=flt)] == [records[-1]["id"], "other"]


def test_import_merge_then_replace(mw: Client) -> None:
    mw.put([message("m0", "user", "old", scope={"session": "chat-7"}),
            message("x", "user", "elsewhere", scope={"session": "chat-8"})])
    recs = [message(f"m{i}", "user" if i % 2 else "assistant", f"turn {i}") for i in range(1, 2500)]
    out = mw.import_(recs, scope={"session": "chat-7"}, batch_size=1000)
    assert out["imported"] == 2499
    assert len(list(mw.export(scope={"session": "chat-7"}))) == 2500
    # replace: a snapshot of the scope
    snapshot = [message("a", "user", "Plan the launch."), message("b", "assistant", "Here is the plan.")]
    assert mw.import_(snapshot, scope={"session": "chat-7"}, mode="replace")["imported"] == 2
    exported = list(mw.export(scope={"session": "chat-7"}))
    assert [r["id"] for r in exported] == ["a", "b"]
    assert exported[0]["sequence"] < exported[1]["sequence"]
    assert exported[0]["scope"]["session"] == "chat-7"
    assert mw.get(["m0", "x"])["missing_ids"] == ["m0"]  # the other scope is untouched


def test_export_import_round_trip(mw: Client, connect: Any, tenant: str) -> None:
    mw.put([fact("f1", "one", tags=["a"]), message("m1", "user", "hi"), fact("f2", "two")])
    mw.delete("f2")
    records = list(mw.export(include_deleted=True))
    assert all(r["scope"]["tenant"] == tenant for r in records)
    target = connect(tenant + "-copy")
    # a record names its tenant: into another tenant it goes without it
    fails("TENANT_MISMATCH", lambda: target.import_(records), "/records/0/scope/tenant")
    for r in records:
        del r["scope"]
    assert target.import_(records)["imported"] == 3
    copied = list(target.export(include_deleted=True))
    assert [r["id"] for r in copied] == ["f1", "m1", "f2"]
    assert copied[2]["lifecycle"]["status"] == "deleted"
    assert copied[0]["fact"] == records[0]["fact"] and copied[0]["tags"] == ["a"]
    # importing it again changes nothing
    assert target.import_(records)["imported"] == 3
    assert [r["revision"] for r in target.export(include_deleted=True)] == [1, 1, 1]


def test_import_is_one_atomic_idempotent_operation(mw: Client) -> None:
    mw.put([fact("held", "x", key="k"), fact("i2", "exists")])
    bad = [fact("i1", "new"), fact("i2", "clash", key="k")]
    e = fails("RECORD_EXISTS", lambda: mw.import_(bad, batch_size=1), "/records/0/key")
    assert "message 1" in e.message
    assert mw.get("i1")["missing_ids"] == ["i1"]  # nothing of it took effect
    recs = [fact("i1", "new"), fact("i3", "three")]
    first = mw.import_(recs, operation_id="imp-1", batch_size=1)
    mw.delete("i1", mode="hard")
    assert mw.import_(recs, operation_id="imp-1", batch_size=1) == first
    assert mw.get("i1")["missing_ids"] == ["i1"]  # replayed, not performed again
    fails("OPERATION_ID_REUSED", lambda: mw.import_(recs[:1], operation_id="imp-1"))


def test_import_messages_must_agree(target: str, tenant: str) -> None:
    def msg(**fields: Any) -> bytes:
        doc = {"specversion": "1.0", "operation_id": "imp", **fields}
        return memorywire.protobuf.encode(doc, type="memorywire.v1.ImportRequest")

    channel = grpc.insecure_channel(target)
    call = channel.stream_unary("/memorywire.v1.MemoryService/Import")
    md = (("memorywire-tenant", tenant),)
    try:
        for second, pointer in [(msg(mode="replace"), "/mode"), (msg(scope={"user": "u"}), "/scope"),
                                (memorywire.protobuf.encode({"specversion": "1.0", "operation_id": "x"},
                                                            type="memorywire.v1.ImportRequest"),
                                 "/operation_id")]:
            try:
                call(iter([msg(records=[fact("a", "x")]), second]), metadata=md, timeout=30)
                raise AssertionError("the import should fail")
            except grpc.RpcError as rpc:
                e = service_error(rpc)
                assert (e.reason, e.pointer) == ("IMMUTABLE_FIELD", pointer)
                assert "message 1" in e.message
        # a malformed message names its index too
        try:
            call(iter([msg(), b"\xff\xff\xff"]), metadata=md, timeout=30)
            raise AssertionError("the import should fail")
        except grpc.RpcError as rpc:
            e = service_error(rpc)
            assert e.code == "INVALID_ARGUMENT" and "message 1" in e.message
    finally:
        channel.close()
