"""Update and Delete."""

from __future__ import annotations

from functools import partial

from memorywire_conformance.service.framework import Ctx, fact, ids_of, message, scenario
from memorywire_conformance.service.scenarios.put import content_hash
from memorywire_conformance.service.wire import NULL


@scenario("Required.Service.Update.MergePatch", "operations.md#10", "operations.md#4.3.1")
def merge_patch(ctx: Ctx) -> None:
    """Update applies a JSON Merge Patch to the record's JSON form: objects
    merge member by member, null removes a member, a list replaces the list;
    revision plus one, the same sequence, and the response is the stored
    record."""
    created = ctx.put_ok(fact("f-1", "x", tags=["a"],
                              lifecycle={"importance": 0.3, "confidence": 0.8},
                              metadata={"k1": "v1", "k2": "v2"}))[0]
    record = ctx.call("Update", {"id": "f-1", "patch": {
        "lifecycle": {"importance": 0.9}, "tags": ["b", "c"], "metadata": {"k1": None},
        "updated_at": "2001-01-01T00:00:00Z"}}).get("record", {})
    ctx.check(record.get("updated_at") not in (None, "2001-01-01T00:00:00Z"),
              "updated_at is not the time of the change", got=record.get("updated_at"))
    ctx.eq(record.get("lifecycle", {}).get("importance"), 0.9, "the patched importance")
    ctx.eq(record.get("lifecycle", {}).get("confidence"), 0.8, "the confidence left alone")
    ctx.eq(record.get("tags"), ["b", "c"], "the replaced tags")
    ctx.eq(record.get("metadata"), {"k2": "v2"}, "the metadata after removing k1")
    ctx.eq(record.get("fact"), {"text": "x"}, "the payload left alone")
    ctx.eq((record.get("revision"), record.get("sequence")), (2, created.get("sequence")),
           "revision and sequence after the Update")
    ctx.eq(ctx.must_get("f-1"), record, "the stored record against the Update response")


@scenario("Required.Service.Update.ContentHash", "operations.md#10", "operations.md#4.3.1",
          "core.md#9.2")
def update_content_hash(ctx: Ctx) -> None:
    """An Update of the payload recomputes provenance.content_hash; an
    Update that leaves the record equal changes nothing."""
    ctx.put_ok(fact("f-1", "before"))
    record = ctx.call("Update", {"id": "f-1", "patch": {"fact": {"text": "after"}}}
                      ).get("record", {})
    ctx.eq(record.get("provenance", {}).get("content_hash"), content_hash({"text": "after"}),
           "the content hash after the Update")
    same = ctx.call("Update", {"id": "f-1", "patch": {"fact": {"text": "after"}}}
                    ).get("record", {})
    ctx.eq(same.get("revision"), 2, "the revision after an Update that changes nothing")


@scenario("Required.Service.Update.ImmutableFields", "operations.md#10", "operations.md#3.3")
def immutable_fields(ctx: Ctx) -> None:
    """A patch that changes id, kind, key, sequence, revision or scope.tenant
    fails with INVALID_ARGUMENT IMMUTABLE_FIELD at the member in the patch; a
    patch that sets one to its stored value is accepted."""
    ctx.put_ok(fact("f-1", "x", key="k-1"))
    stored = ctx.must_get("f-1")
    for patch, pointer in (({"kind": "episode", "episode": {"text": "x"}, "fact": None},
                            "/patch/kind"),
                           ({"id": "f-2"}, "/patch/id"),
                           ({"key": "k-2"}, "/patch/key"),
                           ({"sequence": stored.get("sequence", 0) + 100}, "/patch/sequence"),
                           ({"revision": 9}, "/patch/revision"),
                           ({"scope": {"tenant": ctx.new_tenant()}}, "/patch/scope/tenant")):
        ctx.expect_error(partial(ctx.call, "Update", {"id": "f-1", "patch": patch}),
                         "INVALID_ARGUMENT", "IMMUTABLE_FIELD", pointer,
                         what=f"an Update with the patch {patch}")
    ctx.eq(ctx.must_get("f-1"), stored, "the record after the refused Updates")
    record = ctx.call("Update", {"id": "f-1", "patch": {"id": "f-1", "kind": "fact",
                                                        "key": "k-1"}}).get("record", {})
    ctx.eq(record.get("revision"), 1, "the revision after a patch of stored values")


@scenario("Required.Service.Update.StatusChanges", "operations.md#10", "core.md#8.1")
def status_changes(ctx: Ctx) -> None:
    """A patch may move lifecycle.status between active and archived only;
    any other status is IMMUTABLE_FIELD at /patch/lifecycle/status."""
    ctx.put_ok(fact("f-1", "x"))
    archived = ctx.call("Update", {"id": "f-1", "patch": {"lifecycle": {"status": "archived"}}})
    ctx.eq(archived.get("record", {}).get("lifecycle", {}).get("status"), "archived",
           "the status after archiving")
    active = ctx.call("Update", {"id": "f-1", "patch": {"lifecycle": {"status": "active"}}})
    ctx.eq(active.get("record", {}).get("lifecycle", {}).get("status", "active"), "active",
           "the status after reactivating")
    for status in ("deleted", "pending_approval", "rejected"):
        ctx.expect_error(partial(ctx.call, "Update", {
            "id": "f-1", "patch": {"lifecycle": {"status": status}}}),
            "INVALID_ARGUMENT", "IMMUTABLE_FIELD", "/patch/lifecycle/status",
            what=f"an Update to status {status}")


@scenario("Required.Service.Update.StaleRevision", "operations.md#10", "operations.md#4.3",
          "grpc-binding.md#4")
def update_stale(ctx: Ctx) -> None:
    """An Update whose expected_revision is not the record's fails with
    ABORTED REVISION_MISMATCH at /expected_revision and changes nothing."""
    ctx.put_ok(fact("f-1", "x"))
    ctx.call("Update", {"id": "f-1", "patch": {"tags": ["one"]}})
    ctx.expect_error(lambda: ctx.call("Update", {"id": "f-1", "expected_revision": 1,
                                                 "patch": {"tags": ["stale"]}}),
                     "ABORTED", "REVISION_MISMATCH", "/expected_revision",
                     what="an Update with a stale revision")
    stored = ctx.must_get("f-1")
    ctx.eq((stored.get("tags"), stored.get("revision")), (["one"], 2),
           "the record after the stale Update (tags, revision)")
    record = ctx.call("Update", {"id": "f-1", "expected_revision": 2,
                                 "patch": {"tags": ["two"]}}).get("record", {})
    ctx.eq(record.get("revision"), 3, "the revision after an Update with the current revision")


@scenario("Required.Service.Update.NotFound", "operations.md#10", "operations.md#4.7.1")
def update_not_found(ctx: Ctx) -> None:
    """An Update of an absent record, or of a tombstone, fails with NOT_FOUND
    RECORD_NOT_FOUND at /id."""
    ctx.expect_error(lambda: ctx.call("Update", {"id": "nope", "patch": {"tags": ["x"]}}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/id", what="an Update of an absent id")
    ctx.put_ok(fact("f-1", "x"))
    ctx.call("Delete", {"ids": ["f-1"]})
    ctx.expect_error(lambda: ctx.call("Update", {"id": "f-1", "patch": {"tags": ["x"]}}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/id", what="an Update of a tombstone")


@scenario("Required.Service.Update.InvalidPatch", "operations.md#10", "operations.md#3.3")
def invalid_patch(ctx: Ctx) -> None:
    """A patch that is not a map (a list, the null Value) is TYPE_MISMATCH at
    /patch; a patch whose result breaks a rule of the record fails with that
    rule's reason at /patch followed by the member."""
    ctx.put_ok(fact("f-1", "x"))
    for patch in ([1, 2], NULL, "text"):
        ctx.expect_error(partial(ctx.call, "Update", {"id": "f-1", "patch": patch}),
                         "INVALID_ARGUMENT", "TYPE_MISMATCH", "/patch",
                         what=f"an Update with the patch {patch!r}")
    ctx.expect_error(lambda: ctx.call("Update", {"id": "f-1",
                                                 "patch": {"lifecycle": {"importance": 2.5}}}),
                     "INVALID_ARGUMENT", "VALUE_OUT_OF_RANGE", "/patch/lifecycle/importance",
                     what="an Update to importance 2.5")
    ctx.expect_error(lambda: ctx.call("Update", {"id": "f-1", "patch": {"fact": {"text": 5}}}),
                     "INVALID_ARGUMENT", "TYPE_MISMATCH", "/patch/fact/text",
                     what="an Update of fact.text to a number")
    ctx.eq(ctx.must_get("f-1").get("revision"), 1, "the revision after the refused Updates")


# Delete.


@scenario("Required.Service.Delete.SoftTombstone", "operations.md#11", "operations.md#4.7",
          "core.md#8.2")
def soft_delete(ctx: Ctx) -> None:
    """A soft Delete leaves a tombstone: Get does not return it unless
    include_deleted, and then with status deleted, deleted_at, the reason,
    no payload, embeddings or metadata, the same sequence and content hash,
    tags and routing kept, revision plus one. Deleting it again changes
    nothing."""
    ctx.put_ok(message("m-1", "forget me", agent="Concierge", tags=["t"],
                       metadata={"source": "chat"},
                       embeddings=[{"model": "e", "dimensions": 2, "values": [1.0, 0.0]}]))
    before = ctx.must_get("m-1")
    ctx.eq(ctx.call("Delete", {"ids": ["m-1"], "reason": "user asked to forget"}
                    ).get("deleted_ids"), ["m-1"], "deleted_ids")
    ctx.eq(ctx.get(["m-1"]).get("missing_ids"), ["m-1"], "Get without include_deleted")
    tomb = ctx.must_get("m-1", include_deleted=True)
    life = tomb.get("lifecycle", {})
    ctx.eq(life.get("status"), "deleted", "the tombstone's status")
    ctx.check(life.get("deleted_at"), "the tombstone has no deleted_at", got=tomb)
    ctx.eq(life.get("reason"), "user asked to forget", "the tombstone's reason")
    leftovers = sorted({"message", "embeddings", "metadata", "extensions", "native"} & set(tomb))
    ctx.check(not leftovers, f"the tombstone still carries {leftovers}", got=tomb)
    for key in ("id", "kind", "sequence", "tags", "routing", "created_at"):
        ctx.eq(tomb.get(key), before.get(key), f"the tombstone's {key}")
    ctx.eq(tomb.get("revision"), 2, "the tombstone's revision")
    ctx.eq(tomb.get("provenance", {}).get("content_hash"),
           before.get("provenance", {}).get("content_hash"), "the tombstone's content hash")
    ctx.eq(ctx.call("Delete", {"ids": ["m-1"]}).get("deleted_ids"), ["m-1"],
           "deleted_ids of a second soft Delete")
    ctx.eq(ctx.must_get("m-1", include_deleted=True), tomb,
           "the tombstone after a second soft Delete")


@scenario("Required.Service.Delete.Hard", "operations.md#11", "operations.md#4.7",
          "operations.md#4.4")
def hard_delete(ctx: Ctx) -> None:
    """A hard Delete removes the record entirely (no Get, Search or Export
    returns it, include_deleted or not) and frees its id: a new record with
    it has revision 1 and a new sequence."""
    old = ctx.put_ok(fact("f-1", "x"))[0]
    ctx.eq(ctx.call("Delete", {"ids": ["f-1"], "mode": "hard"}).get("deleted_ids"), ["f-1"],
           "deleted_ids")
    ctx.eq(ctx.get(["f-1"], include_deleted=True).get("missing_ids"), ["f-1"],
           "Get with include_deleted after a hard Delete")
    ctx.eq(ctx.export(include_deleted=True), [], "Export with include_deleted")
    status = {"compare": {"field": "/lifecycle/status", "operator": "eq", "value": "deleted"}}
    ctx.eq(ctx.search(filter=status), [], "a Search for tombstones")
    new = ctx.put_ok(fact("f-1", "y"))[0]
    ctx.eq((new.get("status"), new.get("revision")), ("created", 1),
           "the Put of the freed id (status, revision)")
    ctx.check(new.get("sequence", 0) > old.get("sequence", 0),
              "the new record did not get a new sequence", got=[old, new])


@scenario("Required.Service.Delete.ByFilter", "operations.md#11", "operations.md#5")
def delete_by_filter(ctx: Ctx) -> None:
    """A Delete by filter deletes the records that satisfy it, tombstones
    only when the filter names the status, and lists them in ascending
    sequence order."""
    ctx.put_ok(fact("c", "1"), message("b", "2"), fact("a", "3"), fact("t", "4"))
    ctx.call("Delete", {"ids": ["t"]})
    got = ctx.call("Delete", {"filter": {"compare": {"field": "/kind", "operator": "eq",
                                                     "value": "fact"}}})
    ctx.eq(got.get("deleted_ids"), ["c", "a"], "deleted_ids")
    ctx.eq(ids_of(ctx.history()), ["b"], "the History after the Delete")
    hard = ctx.call("Delete", {"mode": "hard", "filter": {"compare": {
        "field": "/lifecycle/status", "operator": "eq", "value": "deleted"}}})
    ctx.eq(hard.get("deleted_ids"), ["c", "a", "t"], "deleted_ids of the hard Delete of "
                                                    "tombstones")
    ctx.eq(ctx.get(["c", "a", "t"], include_deleted=True).get("missing_ids"), ["c", "a", "t"],
           "Get of the hard-deleted tombstones")


@scenario("Required.Service.Delete.RequestRules", "operations.md#11", "operations.md#3.3")
def delete_rules(ctx: Ctx) -> None:
    """Exactly one of ids and filter (ONEOF_CONFLICT at /filter,
    REQUIRED_FIELD_MISSING at /ids), and expected_revision only with one id
    (COUNT_OUT_OF_RANGE at /ids)."""
    ctx.put_ok(fact("a", "x"), fact("b", "y"))
    flt = {"compare": {"field": "/kind", "operator": "eq", "value": "fact"}}
    ctx.expect_error(lambda: ctx.call("Delete", {"ids": ["a"], "filter": flt}),
                     "INVALID_ARGUMENT", "ONEOF_CONFLICT", "/filter",
                     what="a Delete with ids and filter")
    ctx.expect_error(lambda: ctx.call("Delete", {}), "INVALID_ARGUMENT",
                     "REQUIRED_FIELD_MISSING", "/ids", what="a Delete with neither")
    ctx.expect_error(lambda: ctx.call("Delete", {"ids": ["a", "b"], "expected_revision": 1}),
                     "INVALID_ARGUMENT", "COUNT_OUT_OF_RANGE", "/ids",
                     what="a Delete of two ids with expected_revision")
    ctx.eq(ids_of(ctx.get(["a", "b"]).get("records", [])), ["a", "b"],
           "the records after the refused Deletes")


@scenario("Required.Service.Delete.ExpectedRevision", "operations.md#11", "operations.md#4.3")
def delete_expected(ctx: Ctx) -> None:
    """A Delete with expected_revision fails with ABORTED REVISION_MISMATCH
    when the revision differs, NOT_FOUND RECORD_NOT_FOUND at /ids/0 when the
    record is absent, and deletes when it matches."""
    ctx.put_ok(fact("a", "x"))
    ctx.expect_error(lambda: ctx.call("Delete", {"ids": ["a"], "expected_revision": 2}),
                     "ABORTED", "REVISION_MISMATCH", "/expected_revision",
                     what="a Delete with a wrong revision")
    ctx.eq(ctx.must_get("a").get("revision"), 1, "the record after the refused Delete")
    ctx.expect_error(lambda: ctx.call("Delete", {"ids": ["nope"], "expected_revision": 1}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/ids/0",
                     what="a Delete of an absent id with expected_revision")
    ctx.eq(ctx.call("Delete", {"ids": ["a"], "expected_revision": 1}).get("deleted_ids"),
           ["a"], "deleted_ids with the current revision")


@scenario("Required.Service.Delete.ByIds", "operations.md#11")
def delete_by_ids(ctx: Ctx) -> None:
    """A Delete by ids skips ids it does not find (a repeated deletion is
    harmless) and lists the deleted ids in the order asked, each once."""
    ctx.put_ok(fact("a", "x"), fact("b", "y"))
    got = ctx.call("Delete", {"ids": ["nope", "b", "a", "b"], "mode": "hard"})
    ctx.eq(got.get("deleted_ids"), ["b", "a"], "deleted_ids")
    again = ctx.call("Delete", {"ids": ["b", "a"], "mode": "hard"})
    ctx.eq(again.get("deleted_ids", []), [], "deleted_ids of the repeated hard Delete")
