"""Export and Import."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

from memorywire_conformance.service import MAX_SEND_BYTES
from memorywire_conformance.service.client import RpcFailure, new_operation_id
from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario

MIB = 1024 * 1024


@scenario("Required.Service.Export.SequenceOrder", "operations.md#17.1", "grpc-binding.md#7.2",
          "operations.md#4.4")
def export_order(ctx: Ctx) -> None:
    """Export streams every record of the scope once, whole, in ascending
    sequence order across the stream, whatever was updated since; every
    message carries 1 to 1000 records."""
    ctx.put_ok(*[fact(f"f{i:02d}", f"fact {i}", scope={"session": "s-1"}) for i in range(12)])
    ctx.put_ok(*[message(f"m{i:02d}", f"message {i}", scope={"session": "s-1"})
                 for i in range(8)])
    ctx.put_ok(fact("elsewhere", "x", scope={"session": "s-2"}))
    ctx.call("Update", {"id": "f03", "patch": {"tags": ["updated"]}})
    ctx.put_ok(fact("f05", "fact 5, replaced", scope={"session": "s-1"}))
    messages = ctx.mw.export({"scope": {"session": "s-1"}})
    ctx.check(all(1 <= len(m.get("records", [])) <= 1000 for m in messages),
              "an Export message holds no record or more than 1000",
              got=[len(m.get("records", [])) for m in messages])
    records = [r for m in messages for r in m.get("records", [])]
    ctx.eq(ids_of(records), [f"f{i:02d}" for i in range(12)] + [f"m{i:02d}" for i in range(8)],
           "the ids of the Export")
    seqs = [r.get("sequence", 0) for r in records]
    ctx.check(all(a < b for a, b in zip(seqs, seqs[1:], strict=False)),
              "the sequences of the Export do not increase", got=seqs)
    by_id = {r.get("id"): r for r in records}
    ctx.eq(by_id["f03"], ctx.must_get("f03"), "the exported f03 against Get")
    ctx.eq(by_id["f05"].get("fact"), {"text": "fact 5, replaced"}, "the exported f05 payload")


@scenario("Required.Service.Export.Batches", "grpc-binding.md#7.2", "operations.md#17.1",
          "operations.md#18")
def export_batches(ctx: Ctx) -> None:
    """An Export of more records than fit one message sends several, each with
    at most 1000 records and at most max_batch_records, in sequence order."""
    batch = min(1000, int(ctx.caps.get("limits", {}).get("max_batch_records") or 1000))
    total = 1000 + 37
    written = 0
    while written < total:
        n = min(batch, total - written)
        ctx.put_ok(*[fact(f"f{written + i:04d}", "x") for i in range(n)])
        written += n
    messages = ctx.mw.export({})
    sizes = [len(m.get("records", [])) for m in messages]
    ctx.check(len(sizes) >= 2 and all(1 <= s <= batch for s in sizes),
              f"the Export messages do not hold 1 to {batch} records each", got=sizes)
    ctx.eq(ids_of(r for m in messages for r in m.get("records", [])),
           [f"f{i:04d}" for i in range(total)], "the ids of the Export")


@scenario("Required.Service.Export.Visibility", "operations.md#17.1", "operations.md#4.7.1")
def export_visibility(ctx: Ctx) -> None:
    """Export leaves out tombstones unless include_deleted, keeps archived
    records, applies its filter, and sends no message when nothing is
    selected."""
    ctx.put_ok(fact("a", "active"), fact("b", "archived"), fact("c", "deleted"),
               message("d", "message"))
    ctx.call("Update", {"id": "b", "patch": {"lifecycle": {"status": "archived"}}})
    ctx.call("Delete", {"ids": ["c"]})
    ctx.eq(ids_of(ctx.export()), ["a", "b", "d"], "the Export")
    ctx.eq(ids_of(ctx.export(include_deleted=True)), ["a", "b", "c", "d"],
           "the Export with include_deleted")
    ctx.eq(ids_of(ctx.export(filter={"compare": {"field": "/kind", "operator": "eq",
                                                 "value": "message"}})), ["d"],
           "the Export of messages")
    ctx.eq(ctx.mw.export({"scope": {"session": "empty"}}), [], "the Export of an empty scope")


@scenario("Required.Service.Import.Merge", "operations.md#17.2", "grpc-binding.md#7.3",
          "operations.md#4.1")
def import_merge(ctx: Ctx) -> None:
    """An Import in mode merge writes the records of every message in stream
    order (an empty message included): new records get increasing sequences
    and the request scope, a record with an existing id replaces it."""
    old = ctx.put_ok(fact("x", "old text", scope={"session": "s-imp"}))[0]
    scope = {"session": "s-imp"}
    got = ctx.mw.import_([
        {"scope": scope, "mode": "merge", "records": [fact("r1", "one"), fact("r2", "two")]},
        {"scope": scope, "mode": "merge", "records": []},
        {"scope": scope, "mode": "merge", "records": [fact("x", "new text"),
                                                      message("r3", "three")]},
    ])
    ctx.eq(got.get("imported"), 4, "imported")
    records = ctx.get(["r1", "r2", "r3", "x"])["records"]
    ctx.eq(ids_of(records), ["r1", "r2", "r3", "x"], "the imported records")
    seqs = [r.get("sequence", 0) for r in records[:3]]
    ctx.check(old.get("sequence", 0) < seqs[0] < seqs[1] < seqs[2],
              "the imported records' sequences do not follow stream order", got=seqs)
    ctx.eq([r.get("scope") for r in records[:3]],
           [{"tenant": ctx.tenant, "session": "s-imp"}] * 3, "the scopes of the imported records")
    x = records[3]
    ctx.eq((x.get("fact"), x.get("revision"), x.get("sequence")),
           ({"text": "new text"}, 2, old.get("sequence")),
           "the replaced record (payload, revision, sequence)")


@scenario("Required.Service.Import.Replace", "operations.md#17.2", "grpc-binding.md#7.3",
          needs=("import.replace",))
def import_replace(ctx: Ctx) -> None:
    """An Import in mode replace removes every record of the request scope
    (hard, tombstones included) and writes the new ones as one snapshot;
    records outside the scope stay."""
    a, b = {"session": "a"}, {"session": "b"}
    ctx.put_ok(fact("a1", "x", scope=a), fact("a2", "y", scope=a), fact("b1", "z", scope=b))
    ctx.call("Delete", {"ids": ["a2"]})
    got = ctx.mw.import_([{"scope": a, "mode": "replace",
                           "records": [fact("n1", "new 1"), fact("n2", "new 2")]}])
    ctx.eq(got.get("imported"), 2, "imported")
    ctx.eq(ctx.get(["a1", "a2"], include_deleted=True).get("missing_ids"), ["a1", "a2"],
           "Get of the replaced records")
    ctx.eq(ids_of(ctx.history(scope=a)), ["n1", "n2"], "the History of the replaced scope")
    ctx.eq(ids_of(ctx.history(scope=b)), ["b1"], "the History of the other scope")


@scenario("Required.Service.Import.Atomic", "operations.md#17.2", "grpc-binding.md#7.3",
          "operations.md#3.3")
def import_atomic(ctx: Ctx) -> None:
    """An Import whose later message changes the scope fails with
    INVALID_ARGUMENT IMMUTABLE_FIELD, and one whose later message holds an
    invalid record fails with that record's pointer in its message; nothing
    of either is written."""
    ctx.expect_error(lambda: ctx.mw.import_([
        {"scope": {"session": "a"}, "records": [fact("r1", "one")]},
        {"scope": {"session": "b"}, "records": [fact("r2", "two")]}]),
        "INVALID_ARGUMENT", "IMMUTABLE_FIELD", what="an Import whose scope changes")
    ctx.expect_error(lambda: ctx.mw.import_([
        {"records": [fact("r3", "three")]},
        {"records": [{"kind": "fact", "fact": {"text": "no id"}}]}]),
        "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/records/0/id",
        what="an Import whose second message holds a record without id")
    if ctx.has("import.replace"):
        ctx.expect_error(lambda: ctx.mw.import_([
            {"mode": "merge", "records": [fact("r4", "four")]},
            {"mode": "replace", "records": []}]),
            "INVALID_ARGUMENT", "IMMUTABLE_FIELD", "/mode", what="an Import whose mode changes")
    ctx.eq(ctx.get(["r1", "r2", "r3", "r4"], include_deleted=True).get("missing_ids"),
           ["r1", "r2", "r3", "r4"], "Get of the records of the failed Imports")


@scenario("Required.Service.Import.RoundTrip", "operations.md#17", "operations.md#4.4")
def round_trip(ctx: Ctx) -> None:
    """An Export imported into an empty tenant keeps the records, their
    content and their order."""
    ctx.put_ok(message("m1", "Plan the launch.", agent="Manager"),
               fact("f1", "The launch is in May.", tags=["launch"]),
               message("m2", "Here is the plan.", "assistant", agent="Manager"))
    ctx.call("Update", {"id": "m1", "patch": {"lifecycle": {"importance": 0.8}}})
    exported = ctx.export()
    portable = []
    for r in exported:
        scope = {k: v for k, v in r.get("scope", {}).items() if k != "tenant"}
        portable.append({**r, "scope": scope or None})
    b = ctx.other()
    got = b.import_([{"records": portable}])
    ctx.eq(got.get("imported"), 3, "imported")
    imported = ctx.export(client=b)
    ctx.eq(ids_of(imported), ["m1", "f1", "m2"], "the ids in the other tenant")
    for src, dst in zip(exported, imported, strict=True):
        for key in ("kind", "message", "fact", "routing", "tags", "lifecycle", "created_at"):
            ctx.eq(dst.get(key), src.get(key), f"the {key} of {src.get('id')} after the round "
                                               f"trip")
        ctx.eq(dst.get("scope", {}).get("tenant"), b.tenant, "the tenant of an imported record")


@scenario("Required.Service.Import.MessageLimits", "grpc-binding.md#7.3", "grpc-binding.md#2.3",
          "security.md#4")
def import_message_limits(ctx: Ctx) -> None:
    """An Import whose second message carries one record more than
    max_batch_records fails with RESOURCE_EXHAUSTED TOO_MANY_ITEMS at /records
    (beyond the cap of 1000 that the rules set, INVALID_ARGUMENT
    COUNT_OUT_OF_RANGE); one whose second message is larger than
    max_document_bytes fails with RESOURCE_EXHAUSTED, reason
    DOCUMENT_TOO_LARGE, or without an Error when the gRPC library refuses the
    message. Nothing of either is written."""
    limits = ctx.caps.get("limits") or {}
    batch = min(1000, int(limits.get("max_batch_records") or 1000))
    code, reason = (("RESOURCE_EXHAUSTED", "TOO_MANY_ITEMS") if batch < 1000 else
                    ("INVALID_ARGUMENT", "COUNT_OUT_OF_RANGE"))
    ctx.expect_error(lambda: ctx.mw.import_([
        {"records": [fact("first", "x")]},
        {"records": [fact(f"n{i:04d}", "x") for i in range(batch + 1)]}]),
        code, reason, "/records", what=f"an Import message of {batch + 1} records")
    written = ["first", "n0000"]
    document = int(limits.get("max_document_bytes") or 16 * MIB)
    size = min(int(limits.get("max_string_bytes") or MIB), MIB) - 1024
    count = document // size + 1
    # The message must fit what the runner sends, and be too large by its
    # bytes alone, not by its records.
    if size > 0 and document + 2 * size <= MAX_SEND_BYTES and count <= batch:
        big = [fact(f"big-{i:02d}", chr(ord("a") + i % 26) * size) for i in range(count)]
        try:
            ctx.mw.import_([{"records": [fact("second", "x")]}, {"records": big}])
        except RpcFailure as e:
            if e.error is not None or e.code_name != "RESOURCE_EXHAUSTED":
                ctx.check_error(e, "RESOURCE_EXHAUSTED", "DOCUMENT_TOO_LARGE",
                                what=f"an Import message of {count} records of {size} bytes")
        else:
            raise ctx.fail(f"an Import message larger than max_document_bytes ({document}) "
                           "succeeded", expected="RESOURCE_EXHAUSTED", got="OK")
        written += ["second", "big-00"]
    ctx.eq(ctx.get(written, include_deleted=True).get("missing_ids"), written,
           "Get of records of the failed Imports")


@scenario("Required.Service.Import.CancelledHasNoEffect", "grpc-binding.md#6.2",
          "grpc-binding.md#7.3", "operations.md#17.2")
def import_cancelled(ctx: Ctx) -> None:
    """An Import that the client cancels after sending its messages, before it
    half-closes the stream, takes no effect, then or later; sent again whole,
    with the same operation_id, it is performed."""
    op = new_operation_id()
    messages: list[dict[str, Any]] = [
        {"operation_id": op, "records": [fact("c1", "one"), fact("c2", "two")]},
        {"operation_id": op, "records": [message("c3", "three")]}]
    sent, release = threading.Event(), threading.Event()

    def stream() -> Iterator[dict[str, Any]]:
        yield from messages
        # Asked for a third message: the library has sent both. The stream
        # stays open, not half-closed, until the scenario cancels it.
        sent.set()
        release.wait(ctx.timeout)

    future = ctx.mw.import_future(stream())
    try:
        ctx.check(sent.wait(ctx.wait), f"the Import's messages were not sent within {ctx.wait:g} s")
        # The time for the messages to reach the service.
        time.sleep(0.3)
        if future.done():
            raise ctx.fail("the Import ended before the client half-closed its stream",
                           got=repr(future.exception() or future.result()))
        future.cancel()
    finally:
        release.set()
    ids = ["c1", "c2", "c3"]
    for _ in range(3):
        time.sleep(0.2)
        ctx.eq(ctx.get(ids, include_deleted=True).get("missing_ids"), ids,
               "Get of the records of the cancelled Import")
    got = ctx.mw.import_(messages)
    ctx.eq(got.get("imported"), 3, "imported, when the cancelled Import is sent again")
    ctx.eq(ids_of(ctx.get(ids).get("records", [])), ids, "Get of the imported records")
