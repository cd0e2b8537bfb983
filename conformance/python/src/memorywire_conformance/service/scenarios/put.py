"""Put, Get and idempotency."""

from __future__ import annotations

import base64
import hashlib
import json
import struct
from typing import Any

from memorywire_conformance.service.framework import Ctx, fact, ids_of, scenario


def content_hash(payload: dict[str, Any]) -> str:
    """The content hash of a payload of strings only (core.md section 9.2)."""
    canonical = json.dumps(payload, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@scenario("Required.Service.Put.CreateSetsStoreFields", "operations.md#6", "operations.md#4.3.1",
          "core.md#9.2")
def create_sets_store_fields(ctx: Ctx) -> None:
    """A created record gets revision 1 and a new sequence (the written values
    are ignored), the caller's tenant, created_at, updated_at and the content
    hash of its payload."""
    rec = fact("f-1", "The user is vegetarian.", sequence=987654, revision=77)
    result = ctx.put_ok(rec)[0]
    ctx.eq((result.get("id"), result.get("status"), result.get("revision")),
           ("f-1", "created", 1), "the Put result (id, status, revision)")
    ctx.check(result.get("sequence", 0) > 0, "the Put result has no sequence", got=result)
    stored = ctx.must_get("f-1")
    ctx.eq(stored.get("sequence"), result.get("sequence"), "the stored sequence")
    ctx.eq(stored.get("revision"), 1, "the stored revision")
    ctx.eq(stored.get("scope", {}).get("tenant"), ctx.tenant, "the stored scope.tenant")
    ctx.check(stored.get("created_at") and stored.get("updated_at"),
              "the stored record lacks created_at or updated_at", got=stored)
    ctx.eq(stored.get("provenance", {}).get("content_hash"),
           content_hash({"text": "The user is vegetarian."}), "provenance.content_hash")
    ctx.eq(stored.get("fact"), {"text": "The user is vegetarian."}, "the stored payload")


@scenario("Required.Service.Put.SequenceOrder", "operations.md#4.4", "operations.md#6")
def sequence_order(ctx: Ctx) -> None:
    """The items of one Put get increasing sequences in item order, later
    Puts greater ones, and a sequence is never reused after a hard
    deletion."""
    first = ctx.put_ok(fact("f-1", "a"), fact("f-2", "b"), fact("f-3", "c"))
    seqs = [r.get("sequence", 0) for r in first]
    ctx.check(seqs[0] < seqs[1] < seqs[2], "the sequences of one Put do not increase in item "
                                           "order", got=seqs)
    later = ctx.put_ok(fact("f-4", "d"))[0].get("sequence", 0)
    ctx.check(later > seqs[2], "a later Put got a smaller sequence", got=[*seqs, later])
    ctx.call("Delete", {"ids": ["f-4"], "mode": "hard"})
    again = ctx.put_ok(fact("f-4", "d"))[0]
    ctx.eq(again.get("status"), "created", "the Put after the hard deletion")
    ctx.check(again.get("sequence", 0) > later,
              "a record created after a hard deletion reuses an old sequence",
              got=[*seqs, later, again.get("sequence")])


@scenario("Required.Service.Put.Replace", "operations.md#6", "operations.md#4.3",
          "operations.md#4.3.1")
def replace(ctx: Ctx) -> None:
    """An upsert of a changed record replaces it: status updated, the same
    sequence, revision plus one, the new content and content hash."""
    created = ctx.put_ok(fact("f-1", "old text"))[0]
    updated = ctx.put_ok(fact("f-1", "new text"))[0]
    ctx.eq(updated.get("status"), "updated", "the status of the replacing Put")
    ctx.eq(updated.get("sequence"), created.get("sequence"), "the sequence after replacement")
    ctx.eq(updated.get("revision"), 2, "the revision after replacement")
    stored = ctx.must_get("f-1")
    ctx.eq(stored.get("fact"), {"text": "new text"}, "the stored payload")
    ctx.eq(stored.get("revision"), 2, "the stored revision")
    ctx.eq(stored.get("provenance", {}).get("content_hash"), content_hash({"text": "new text"}),
           "the content hash after replacement")


@scenario("Required.Service.Put.Unchanged", "operations.md#4.3.2", "operations.md#6")
def unchanged(ctx: Ctx) -> None:
    """Writing a record equal to the stored one is reported unchanged and
    changes nothing: same revision, same updated_at."""
    ctx.put_ok(fact("f-1", "same", tags=["a"]))
    before = ctx.must_get("f-1")
    result = ctx.put_ok(fact("f-1", "same", tags=["a"]))[0]
    ctx.eq((result.get("status"), result.get("revision")), ("unchanged", 1),
           "the result of the equal Put (status, revision)")
    after = ctx.must_get("f-1")
    ctx.eq(after, before, "the record after an unchanged write")


@scenario("Required.Service.Put.CreateModeOnExisting", "operations.md#6", "operations.md#3.3")
def create_mode_on_existing(ctx: Ctx) -> None:
    """A Put item of mode create whose record exists fails with
    ALREADY_EXISTS RECORD_EXISTS at its id (a failed result of a non-atomic
    Put), and the stored record is unchanged."""
    ctx.put_ok(fact("f-1", "original"))
    response = ctx.put(items=[{"record": fact("f-1", "intruder"), "mode": "create"}])
    ctx.check_item_error(response.get("results", [{}])[0], "ALREADY_EXISTS", "RECORD_EXISTS",
                         "/items/0/record/id")
    stored = ctx.must_get("f-1")
    ctx.eq((stored.get("fact"), stored.get("revision")), ({"text": "original"}, 1),
           "the stored record (payload, revision)")


@scenario("Required.Service.Put.ExpectedRevision", "operations.md#4.3", "operations.md#6")
def expected_revision(ctx: Ctx) -> None:
    """expected_revision makes a Put item conditional: a stale revision fails
    with ABORTED REVISION_MISMATCH at /items/0/expected_revision and changes
    nothing, the current revision writes, 0 writes only a new record."""
    ctx.put_ok(fact("f-1", "v1"))
    ctx.put_ok(fact("f-1", "v2"))
    stale = ctx.put(items=[{"record": fact("f-1", "v3"), "expected_revision": 1}])
    ctx.check_item_error(stale.get("results", [{}])[0], "ABORTED", "REVISION_MISMATCH",
                         "/items/0/expected_revision", what="the item with a stale revision")
    ctx.eq(ctx.must_get("f-1").get("fact"), {"text": "v2"}, "the payload after the stale write")
    zero = ctx.put(items=[{"record": fact("f-1", "v3"), "expected_revision": 0}])
    ctx.check_item_error(zero.get("results", [{}])[0], "ABORTED", "REVISION_MISMATCH",
                         "/items/0/expected_revision",
                         what="the item with expected_revision 0 for an existing record")
    good = ctx.put(items=[{"record": fact("f-1", "v3"), "expected_revision": 2}])
    ctx.eq([(r.get("status"), r.get("revision")) for r in good.get("results", [])],
           [("updated", 3)], "the result of the item with the current revision")
    new = ctx.put(items=[{"record": fact("f-2", "new"), "expected_revision": 0}])
    ctx.eq([r.get("status") for r in new.get("results", [])], ["created"],
           "the result of expected_revision 0 for a new record")


@scenario("Required.Service.Put.AtomicBatchWritesNothing", "operations.md#6",
          "operations.md#4.2.2", "grpc-binding.md#4")
def atomic_batch(ctx: Ctx) -> None:
    """An atomic Put with one failing item fails as a whole with ABORTED
    BATCH_FAILED, whose violations are the failed item's, and writes none of
    its items."""
    ctx.put_ok(fact("x", "existing"))
    ctx.expect_error(lambda: ctx.put(atomic=True, items=[
        {"record": fact("a", "new a")},
        {"record": fact("x", "replaced"), "mode": "create"},
        {"record": fact("b", "new b")}]),
        "ABORTED", "BATCH_FAILED", "/items/1/record/id", what="the atomic Put")
    ctx.expect_error(lambda: ctx.put(atomic=True, items=[
        {"record": fact("x", "replaced")},
        {"record": fact("c", "new c"), "expected_revision": 5}]),
        "ABORTED", "BATCH_FAILED", "/items/1/expected_revision", what="the atomic Put")
    got = ctx.get(["a", "b", "c", "x"], include_deleted=True)
    ctx.eq(got.get("missing_ids"), ["a", "b", "c"], "Get of the new records of the failed "
                                                    "batches")
    stored = ctx.must_get("x")
    ctx.eq((stored.get("fact"), stored.get("revision")), ({"text": "existing"}, 1),
           "the record an item of a failed batch would have replaced")


@scenario("Required.Service.Put.NonAtomicPerItemResults", "operations.md#6", "grpc-binding.md#4")
def non_atomic(ctx: Ctx) -> None:
    """A non-atomic Put with one failing item succeeds: one result per item in
    item order, the failed one with status failed and its Error, and the
    other items are written."""
    ctx.put_ok(fact("x", "existing"))
    response = ctx.put(items=[
        {"record": fact("a", "new a")},
        {"record": fact("x", "replaced"), "mode": "create"},
        {"record": fact("b", "new b")}])
    results = response.get("results", [])
    ctx.eq([(r.get("id"), r.get("status")) for r in results],
           [("a", "created"), ("x", "failed"), ("b", "created")], "the results (id, status)")
    ctx.check_item_error(results[1], "ALREADY_EXISTS", "RECORD_EXISTS", "/items/1/record/id",
                         what="item 1")
    ctx.eq(ids_of(ctx.get(["a", "b"]).get("records", [])), ["a", "b"],
           "Get of the items that succeeded")
    ctx.eq(ctx.must_get("x").get("fact"), {"text": "existing"}, "the record of the failed item")


@scenario("Required.Service.Put.ItemsSeeEarlierItems", "operations.md#6")
def items_see_earlier(ctx: Ctx) -> None:
    """The items of one Put are performed in order, each seeing the effects of
    the items before it: the same id twice is created, then updated."""
    results = ctx.put_ok(fact("f-1", "first"), fact("f-1", "second"))
    ctx.eq([(r.get("status"), r.get("revision")) for r in results],
           [("created", 1), ("updated", 2)], "the results (status, revision)")
    ctx.eq(ctx.must_get("f-1").get("fact"), {"text": "second"}, "the stored payload")


@scenario("Required.Service.Put.KeyUpsert", "operations.md#6", "core.md#4.1")
def key_upsert(ctx: Ctx) -> None:
    """A Put finds the stored record by its key within the same namespace when
    no record has its id: it replaces it under the stored id. A key held by
    another record fails with RECORD_EXISTS at the item's key."""
    ns = {"namespace": ["prefs"]}
    ctx.put_ok(fact("k-1", "aisle seat", key="seat", scope=ns))
    result = ctx.put_ok(fact("k-2", "window seat", key="seat", scope=ns))[0]
    ctx.eq((result.get("id"), result.get("status"), result.get("revision")),
           ("k-1", "updated", 2), "the result of the Put by key (id, status, revision)")
    ctx.eq(ctx.must_get("k-1").get("fact"), {"text": "window seat"}, "the record found by key")
    ctx.eq(ctx.get(["k-2"], include_deleted=True).get("missing_ids"), ["k-2"],
           "Get of the item's own id")
    other = ctx.put_ok(fact("k-3", "other ns", key="seat", scope={"namespace": ["other"]}))[0]
    ctx.eq(other.get("status"), "created", "a Put of the same key in another namespace")
    ctx.put_ok(fact("k-4", "unrelated", scope=ns))
    clash = ctx.put(items=[{"record": fact("k-4", "unrelated", key="seat", scope=ns)}])
    ctx.check_item_error(clash.get("results", [{}])[0], "ALREADY_EXISTS", "RECORD_EXISTS",
                         "/items/0/record/key", what="the item whose key another record holds")


@scenario("Required.Service.Put.ReplacesTombstone", "operations.md#6", "operations.md#4.7.1")
def replaces_tombstone(ctx: Ctx) -> None:
    """A Put finds a tombstone with its id and replaces it: status updated,
    the same sequence, the next revision, the record active again."""
    created = ctx.put_ok(fact("f-1", "v1"))[0]
    ctx.call("Delete", {"ids": ["f-1"]})
    result = ctx.put_ok(fact("f-1", "v2"))[0]
    ctx.eq((result.get("status"), result.get("sequence"), result.get("revision")),
           ("updated", created.get("sequence"), 3),
           "the result of the Put over a tombstone (status, sequence, revision)")
    stored = ctx.must_get("f-1")
    ctx.eq((stored.get("fact"), stored.get("lifecycle", {}).get("status", "active")),
           ({"text": "v2"}, "active"), "the record (payload, status)")


# Idempotency.


@scenario("Required.Service.Idempotency.ReplayReturnsRecordedResponse", "operations.md#4.2.1",
          "grpc-binding.md#6.2")
def replay(ctx: Ctx) -> None:
    """A Put sent again with the same operation_id returns the recorded
    response and has no second effect, even after the record changed."""
    request = {"operation_id": "op-replay-1", "items": [{"record": fact("f-1", "v1")}]}
    first = ctx.call("Put", request)
    ctx.put_ok(fact("f-1", "v2"))
    again = ctx.call("Put", request)
    ctx.eq(again, first, "the response of the replayed Put")
    stored = ctx.must_get("f-1")
    ctx.eq((stored.get("fact"), stored.get("revision")), ({"text": "v2"}, 2),
           "the record after the replay (payload, revision)")
    ctx.eq(stored.get("sequence"), first["results"][0].get("sequence"),
           "the sequence after the replay")


@scenario("Required.Service.Idempotency.ReplayEmitsNoEvent", "operations.md#4.2.1",
          "operations.md#16.1", needs=("watch",))
def replay_no_event(ctx: Ctx) -> None:
    """Replays of a Put emit no change event: a Watch shows one created event
    for the record."""
    request = {"operation_id": "op-replay-2", "items": [{"record": fact("f-1", "v1")}]}
    first = ctx.call("Put", request)
    for _ in range(2):
        ctx.eq(ctx.call("Put", request), first, "the response of the replayed Put")
    ctx.put_ok(fact("zz-sentinel", "end"))
    events = ctx.events_until(ctx.watch(from_start=True), "zz-sentinel")
    ctx.eq([(e.get("type"), e.get("record", {}).get("id")) for e in events],
           [("created", "f-1"), ("created", "zz-sentinel")], "the events (type, id)")


@scenario("Required.Service.Idempotency.ReplayUpdate", "operations.md#4.2.1", "operations.md#10")
def replay_update(ctx: Ctx) -> None:
    """An Update replayed after a later Update returns its recorded response
    and does not apply its patch again."""
    ctx.put_ok(fact("f-1", "x"))
    request = {"operation_id": "op-upd-1", "id": "f-1",
               "patch": {"lifecycle": {"importance": 0.9}}}
    first = ctx.call("Update", request)
    ctx.call("Update", {"id": "f-1", "patch": {"lifecycle": {"importance": 0.1}}})
    ctx.eq(ctx.call("Update", request), first, "the response of the replayed Update")
    stored = ctx.must_get("f-1")
    ctx.eq((stored.get("lifecycle", {}).get("importance"), stored.get("revision")), (0.1, 3),
           "the record after the replay (importance, revision)")


@scenario("Required.Service.Idempotency.ReplayDelete", "operations.md#4.2.1", "operations.md#11")
def replay_delete(ctx: Ctx) -> None:
    """A hard Delete replayed after the id was written again returns its
    recorded response and does not delete the new record."""
    ctx.put_ok(fact("f-1", "old"))
    request = {"operation_id": "op-del-1", "ids": ["f-1"], "mode": "hard"}
    first = ctx.call("Delete", request)
    ctx.eq(first.get("deleted_ids"), ["f-1"], "deleted_ids of the Delete")
    ctx.put_ok(fact("f-1", "new"))
    ctx.eq(ctx.call("Delete", request), first, "the response of the replayed Delete")
    ctx.eq(ctx.must_get("f-1").get("fact"), {"text": "new"}, "the record written after the "
                                                            "Delete")


@scenario("Required.Service.Idempotency.OperationIdReused", "operations.md#4.2.1",
          "grpc-binding.md#6.2", "operations.md#3.3")
def operation_id_reused(ctx: Ctx) -> None:
    """The operation_id of a completed request, sent with a different request
    (or another operation), fails with FAILED_PRECONDITION OPERATION_ID_REUSED
    at /operation_id and has no effect."""
    ctx.put(fact("f-1", "a"), operation_id="op-reuse-1")
    ctx.expect_error(lambda: ctx.put(fact("f-2", "b"), operation_id="op-reuse-1"),
                     "FAILED_PRECONDITION", "OPERATION_ID_REUSED", "/operation_id",
                     what="a different Put with the same operation_id")
    ctx.expect_error(lambda: ctx.call("Delete", {"operation_id": "op-reuse-1",
                                                 "ids": ["f-1"]}),
                     "FAILED_PRECONDITION", "OPERATION_ID_REUSED", "/operation_id",
                     what="a Delete with the operation_id of a Put")
    ctx.eq(ctx.get(["f-1", "f-2"]).get("missing_ids"), ["f-2"], "Get after the refused calls")


@scenario("Required.Service.Idempotency.FailedCallNotRecorded", "operations.md#4.2.2",
          "grpc-binding.md#6.3")
def failed_not_recorded(ctx: Ctx) -> None:
    """A call that failed with an Error is not recorded: once its cause is
    gone, the same request with the same operation_id is performed."""
    ctx.put_ok(fact("f-1", "v1"))
    request = {"operation_id": "op-retry-1", "id": "f-1", "expected_revision": 2,
               "patch": {"tags": ["retried"]}}
    ctx.expect_error(lambda: ctx.call("Update", request), "ABORTED", "REVISION_MISMATCH",
                     what="the Update with a revision not reached yet")
    ctx.put_ok(fact("f-1", "v2"))
    record = ctx.call("Update", request).get("record", {})
    ctx.eq((record.get("tags"), record.get("revision")), (["retried"], 3),
           "the retried Update (tags, revision)")


@scenario("Required.Service.Idempotency.ReadsNotRecorded", "operations.md#4.2.1")
def reads_not_recorded(ctx: Ctx) -> None:
    """Reads are not recorded: a Get and a History may reuse the operation_id
    of a Put, and the Put still replays its own response."""
    request = {"operation_id": "op-read-1", "items": [{"record": fact("f-1", "x")}]}
    first = ctx.call("Put", request)
    ctx.eq(ids_of(ctx.get(["f-1"], operation_id="op-read-1").get("records", [])), ["f-1"],
           "a Get with the Put's operation_id")
    ctx.call("History", {"operation_id": "op-read-1"})
    ctx.eq(ctx.call("Put", request), first, "the replayed Put")


@scenario("Required.Service.Idempotency.ImportReplay", "grpc-binding.md#7.3",
          "operations.md#4.2.1", "operations.md#17.2")
def import_replay(ctx: Ctx) -> None:
    """An Import repeated with the same operation_id and equal messages
    returns the recorded response and writes nothing again."""
    messages = [{"operation_id": "op-imp-1", "records": [fact("a", "A1")]},
                {"operation_id": "op-imp-1", "records": [fact("b", "B1")]}]
    first = ctx.mw.import_(messages)
    ctx.eq(first.get("imported"), 2, "imported")
    ctx.put_ok(fact("a", "A2"))
    ctx.eq(ctx.mw.import_(messages), first, "the response of the replayed Import")
    stored = ctx.must_get("a")
    ctx.eq((stored.get("fact"), stored.get("revision")), ({"text": "A2"}, 2),
           "the record after the replay (payload, revision)")


# Get.


@scenario("Required.Service.Get.OrderAndMissing", "operations.md#7")
def get_order(ctx: Ctx) -> None:
    """Get returns the records in the order asked, each once, and the ids not
    found in missing_ids."""
    ctx.put_ok(fact("a", "A"), fact("b", "B"))
    got = ctx.get(["b", "nope", "a", "b"])
    ctx.eq(ids_of(got.get("records", [])), ["b", "a"], "the ids of the records")
    ctx.eq(got.get("missing_ids"), ["nope"], "missing_ids")


@scenario("Required.Service.Get.Touch", "operations.md#7", "core.md#8.3", "operations.md#4.3")
def get_touch(ctx: Ctx) -> None:
    """A Get with touch counts an access (access_count, last_accessed_at) and
    returns the new values without changing revision or updated_at; a Get
    without touch changes nothing."""
    ctx.put_ok(fact("f-1", "x"))
    before = ctx.must_get("f-1")
    touched = ctx.must_get("f-1", touch=True)
    life = touched.get("lifecycle", {})
    ctx.eq(life.get("access_count"), 1, "access_count after one touch")
    ctx.check(life.get("last_accessed_at"), "last_accessed_at is not set by touch", got=life)
    ctx.eq((touched.get("revision"), touched.get("updated_at")),
           (before.get("revision"), before.get("updated_at")),
           "revision and updated_at after a touch")
    ctx.eq(ctx.must_get("f-1", touch=True).get("lifecycle", {}).get("access_count"), 2,
           "access_count after two touches")
    ctx.eq(ctx.must_get("f-1").get("lifecycle", {}).get("access_count"), 2,
           "access_count after a Get without touch")


@scenario("Required.Service.Put.TooManyItems", "operations.md#6", "security.md#4",
          "operations.md#18")
def too_many_items(ctx: Ctx) -> None:
    """A Put of more items than the service's max_batch_records fails with
    RESOURCE_EXHAUSTED TOO_MANY_ITEMS at /items; beyond the cap of 1000 that
    the rules set, with INVALID_ARGUMENT COUNT_OUT_OF_RANGE whatever the
    limits. Either writes nothing."""
    limit = min(1000, int(ctx.caps.get("limits", {}).get("max_batch_records") or 1000))
    records = [fact(f"f{i:04d}", "x") for i in range(limit + 1)]
    if limit < 1000:
        code, reason = "RESOURCE_EXHAUSTED", "TOO_MANY_ITEMS"
    else:
        code, reason = "INVALID_ARGUMENT", "COUNT_OUT_OF_RANGE"
    ctx.expect_error(lambda: ctx.put(*records), code, reason, "/items",
                     what=f"a Put of {limit + 1} items")
    ctx.eq(ctx.get(["f0000"], include_deleted=True).get("missing_ids"), ["f0000"],
           "Get of the first item")


@scenario("Required.Service.Put.WriteTombstone", "operations.md#4.3.1", "core.md#8.2",
          "operations.md#4.7.1")
def write_tombstone(ctx: Ctx) -> None:
    """A record written with status deleted and no payload is stored as a
    tombstone, with deleted_at set at the time of the write when absent."""
    ctx.put_ok({"id": "t-1", "kind": "fact", "lifecycle": {"status": "deleted"},
                "tags": ["gone"]})
    ctx.eq(ctx.get(["t-1"]).get("missing_ids"), ["t-1"], "Get without include_deleted")
    tomb = ctx.must_get("t-1", include_deleted=True)
    life = tomb.get("lifecycle", {})
    ctx.check(life.get("status") == "deleted" and life.get("deleted_at"),
              "the stored tombstone lacks status deleted or deleted_at", got=tomb)
    ctx.eq(tomb.get("tags"), ["gone"], "the tombstone's tags")


def _f32(values: list[float]) -> list[float]:
    return list(struct.unpack(f"<{len(values)}f", struct.pack(f"<{len(values)}f", *values)))


RICH: dict[str, Any] = {
    "id": "m-rich", "kind": "message", "key": "rich-key",
    "created_at": "2026-03-14T09:26:53.123456789Z",
    "updated_at": "2026-03-14T09:27:00Z",
    "message": {"role": "assistant", "name": "Concierge", "status": "completed", "content": [
        {"text": {"text": "Booked seat 12A \u2014 window, \u00fcber quiet \U0001f389"}},
        {"data": {"value": {"seat": "12A", "price": 12.5, "legs": [1, 2], "ok": True,
                            "none": None, "big": -9007199254740993}}},
        {"image": {"uri": "https://example.com/seat.png", "media_type": "image/png"}}]},
    "routing": {"agent": "Concierge", "caller_agent": "Manager", "recipients": ["Manager"],
                "cause": "book_seat", "trace_id": "trace_4bf92f3577b34da6"},
    "links": [{"type": "responds_to", "target": "m-0"}],
    "lifecycle": {"importance": 0.7, "confidence": 0.25, "pinned": True,
                  "expires_at": "2027-01-01T00:00:00.000000001Z"},
    "provenance": {"origin": "agent", "source": "crm-sync", "trust": "untrusted",
                   "actor": "alice"},
    "embeddings": [{"model": "text-embedding-3-small", "dimensions": 3,
                    "values": [0.1, -2.5, 3.0e-8], "field": "/message/content/0/text/text"}],
    "native": {"framework": "agency-swarm", "framework_version": "1.11.0",
               "format": "af-legacy", "record": {"role": "assistant", "callerAgent": None,
                                                 "timestamp": 1773480413589000}},
    "metadata": {"source_doc": "a.pdf", "page": 3, "nested": {"x": [1.5, "y"]}},
    "extensions": {"agency-swarm.message_origin": "tool"},
    "tags": ["travel", "seating"],
}


@scenario("Required.Service.Put.PreservesRecord", "operations.md#4.3.1", "core.md#13.7",
          "core.md#3.8", "core.md#11", "core.md#12")
def preserves_record(ctx: Ctx) -> None:
    """A stored record keeps every field written: content parts, Values,
    native record, metadata, extensions, bit-exact float32 embeddings and
    nanosecond timestamps."""
    ctx.put_ok(RICH, scope={"user": "u-42"})
    stored = ctx.must_get("m-rich")
    for key, value in RICH.items():
        if key == "embeddings":
            value = [{**e, "values": _f32(e["values"])} for e in value]
        got: Any = stored.get(key)
        if key == "provenance":
            got = {k: v for k, v in (got or {}).items() if k != "content_hash"}
        ctx.eq(got, value, f"the stored {key}")
    ctx.eq(stored.get("scope"), {"tenant": ctx.tenant, "user": "u-42"}, "the stored scope")


@scenario("Required.Service.Put.EncryptedPayload", "core.md#4.13", "core.md#9.2",
          "operations.md#9.1", needs=("encryption",))
def encrypted_payload(ctx: Ctx) -> None:
    """A record with an encrypted payload is stored as written, its content
    hash covers the encrypted object, and full-text search never finds it."""
    sealed = {"algorithm": "A256GCM", "key_id": "k1", "nonce": b"123456789012",
              "ciphertext": b"window seats"}
    ctx.put_ok({"id": "enc", "kind": "fact", "encrypted": sealed})
    stored = ctx.must_get("enc")
    ctx.eq(stored.get("encrypted"), sealed, "the stored encrypted payload")
    ctx.eq(stored.get("provenance", {}).get("content_hash"), content_hash(
        {k: base64.b64encode(v).decode() if isinstance(v, bytes) else v
         for k, v in sealed.items()}), "the content hash of the encrypted payload")
    if ctx.has("search.text"):
        ctx.eq(ctx.search(text="window seats"), [], "a full-text Search for the ciphertext")
