"""Staging for approval and Review."""

from __future__ import annotations

from functools import partial

from memorywire_conformance.service.framework import Ctx, fact, ids_of, scenario, status_of

STATUS = "/lifecycle/status"


def _stage(ctx: Ctx, *ids: str) -> None:
    response = ctx.put(*[fact(i, f"staged {i}") for i in ids], require_approval=True)
    ctx.eq([(r.get("id"), r.get("status")) for r in response.get("results", [])],
           [(i, "staged") for i in ids], "the results of the Put with require_approval")


@scenario("Required.Service.Approval.Staging", "operations.md#4.6", "operations.md#4.7.1",
          "operations.md#6", needs=("approval",))
def staging(ctx: Ctx) -> None:
    """A Put with require_approval stages its records: reported staged, stored
    with status pending_approval, returned by Get and Export, left out of
    History and of a Search that does not filter on the status."""
    ctx.put_ok(fact("active", "x"))
    _stage(ctx, "f-1")
    ctx.eq(status_of(ctx.must_get("f-1")), "pending_approval", "the status of the staged record")
    ctx.eq(ctx.must_get("f-1").get("revision"), 1, "the revision of the staged record")
    ctx.eq(ids_of(ctx.history()), ["active"], "the History")
    ctx.eq(ids_of(h.get("record", {}) for h in ctx.search()), ["active"], "a Search")
    pending = {"compare": {"field": STATUS, "operator": "eq", "value": "pending_approval"}}
    ctx.eq(ids_of(h.get("record", {}) for h in ctx.search(filter=pending)), ["f-1"],
           "a Search for status pending_approval")
    ctx.eq(ids_of(ctx.export()), ["active", "f-1"], "the Export")


@scenario("Required.Service.Approval.Approve", "operations.md#15", "operations.md#4.6",
          needs=("approval",))
def approve(ctx: Ctx) -> None:
    """Review approve makes a staged record active (revision plus one) and part
    of History."""
    _stage(ctx, "f-1")
    rec = ctx.call("Review", {"id": "f-1", "decision": "approve", "reviewer": "alice"}
                   ).get("record", {})
    ctx.eq((status_of(rec), rec.get("revision")), ("active", 2),
           "the record after approval (status, revision)")
    ctx.eq(rec.get("fact"), {"text": "staged f-1"}, "the approved payload")
    ctx.eq(ids_of(ctx.history()), ["f-1"], "the History after approval")


@scenario("Required.Service.Approval.Reject", "operations.md#15", "operations.md#4.7.1",
          needs=("approval",))
def reject(ctx: Ctx) -> None:
    """Review reject marks a staged record rejected with the reason and keeps
    its content; Get returns it only with include_deleted, History never."""
    _stage(ctx, "f-1")
    rec = ctx.call("Review", {"id": "f-1", "decision": "reject",
                              "reason": "not a durable preference"}).get("record", {})
    ctx.eq((status_of(rec), rec.get("lifecycle", {}).get("reason")),
           ("rejected", "not a durable preference"), "the record after rejection")
    ctx.eq(ctx.get(["f-1"]).get("missing_ids"), ["f-1"], "Get without include_deleted")
    kept = ctx.must_get("f-1", include_deleted=True)
    ctx.eq((status_of(kept), kept.get("fact")), ("rejected", {"text": "staged f-1"}),
           "the rejected record (status, payload)")
    ctx.eq(ids_of(ctx.history()), [], "the History after rejection")


@scenario("Required.Service.Approval.Amend", "operations.md#15", "operations.md#10",
          needs=("approval",))
def amend(ctx: Ctx) -> None:
    """Review amend applies the patch with the rules of Update, then makes the
    record active; a patch that changes the status is IMMUTABLE_FIELD."""
    _stage(ctx, "f-1")
    ctx.expect_error(lambda: ctx.call("Review", {"id": "f-1", "decision": "amend", "patch": {
        "lifecycle": {"status": "archived"}}}), "INVALID_ARGUMENT", "IMMUTABLE_FIELD",
        "/patch/lifecycle/status", what="an amend that changes the status")
    ctx.expect_error(lambda: ctx.call("Review", {"id": "f-1", "decision": "amend",
                                                 "patch": {"kind": "episode"}}),
                     "INVALID_ARGUMENT", "IMMUTABLE_FIELD", "/patch/kind",
                     what="an amend that changes the kind")
    rec = ctx.call("Review", {"id": "f-1", "decision": "amend", "patch": {
        "fact": {"text": "The user is vegetarian, not vegan."}}}).get("record", {})
    ctx.eq((status_of(rec), rec.get("fact", {}).get("text"), rec.get("revision")),
           ("active", "The user is vegetarian, not vegan.", 2),
           "the amended record (status, text, revision)")


@scenario("Required.Service.Approval.NotStaged", "operations.md#15", "operations.md#3.3",
          needs=("approval",))
def not_staged(ctx: Ctx) -> None:
    """Review of a record that is not pending_approval fails with
    FAILED_PRECONDITION NOT_STAGED at /id; of an absent record with
    RECORD_NOT_FOUND."""
    ctx.put_ok(fact("active", "x"))
    for decision in ("approve", "reject"):
        ctx.expect_error(partial(ctx.call, "Review", {"id": "active", "decision": decision}),
                         "FAILED_PRECONDITION", "NOT_STAGED", "/id",
                         what=f"a Review {decision} of an active record")
    _stage(ctx, "f-1")
    ctx.call("Review", {"id": "f-1", "decision": "approve"})
    ctx.expect_error(lambda: ctx.call("Review", {"id": "f-1", "decision": "reject"}),
                     "FAILED_PRECONDITION", "NOT_STAGED", "/id",
                     what="a second Review of an approved record")
    ctx.expect_error(lambda: ctx.call("Review", {"id": "nope", "decision": "approve"}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/id", what="a Review of an absent id")
    ctx.eq(ctx.must_get("active").get("revision"), 1, "the active record after the Reviews")


@scenario("Required.Service.Approval.PatchRules", "operations.md#15", needs=("approval",))
def patch_rules(ctx: Ctx) -> None:
    """A patch is required for amend (REQUIRED_FIELD_MISSING at /patch) and
    refused for approve and reject (ONEOF_CONFLICT at /patch); the record
    stays staged."""
    _stage(ctx, "f-1")
    ctx.expect_error(lambda: ctx.call("Review", {"id": "f-1", "decision": "amend"}),
                     "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/patch",
                     what="an amend without patch")
    ctx.expect_error(lambda: ctx.call("Review", {"id": "f-1", "decision": "approve",
                                                 "patch": {"tags": ["x"]}}),
                     "INVALID_ARGUMENT", "ONEOF_CONFLICT", "/patch",
                     what="an approve with a patch")
    ctx.eq(status_of(ctx.must_get("f-1")), "pending_approval", "the status after the refusals")


@scenario("Required.Service.Approval.StagedReplacement", "operations.md#6", "operations.md#4.6",
          needs=("approval",))
def staged_replacement(ctx: Ctx) -> None:
    """A staged Put of an existing record replaces it at once, reported
    staged, with status pending_approval: it is out of History until
    approved."""
    ctx.put_ok(fact("f-1", "v1"))
    response = ctx.put(fact("f-1", "v2"), require_approval=True)
    ctx.eq([(r.get("status"), r.get("revision")) for r in response.get("results", [])],
           [("staged", 2)], "the result of the staged replacement (status, revision)")
    rec = ctx.must_get("f-1")
    ctx.eq((status_of(rec), rec.get("fact")), ("pending_approval", {"text": "v2"}),
           "the staged record (status, payload)")
    ctx.eq(ids_of(ctx.history()), [], "the History while staged")
    ctx.call("Review", {"id": "f-1", "decision": "approve"})
    ctx.eq(ids_of(ctx.history()), ["f-1"], "the History after approval")
