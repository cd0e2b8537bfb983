"""Expire, Merge and Compact."""

from __future__ import annotations

from typing import Any

from memorywire_conformance.service.framework import (
    Ctx,
    fact,
    ids_of,
    message,
    scenario,
    status_of,
)

AS_OF = "2026-06-01T00:00:00Z"
DAY = 86400


def expire(ctx: Ctx, policy: dict[str, Any], action: str, **request: Any) -> list[str]:
    got = ctx.call("Expire", {"policy": policy, "action": action, "as_of": AS_OF, **request})
    return list(got.get("expired_ids", []))


@scenario("Required.Service.Expire.OlderThan", "operations.md#12", "operations.md#4.7.1",
          needs=("Expire",))
def older_than(ctx: Ctx) -> None:
    """Expire by age archives the active records created more than
    older_than_seconds before as_of, and lists them in sequence order."""
    ctx.put_ok(fact("new", "recent", created_at="2026-05-30T00:00:00Z"),
               fact("old-2", "old", created_at="2021-01-01T00:00:00Z"),
               fact("old-1", "older", created_at="2020-01-01T00:00:00Z"),
               message("old-msg", "old message", created_at="2020-01-01T00:00:00Z"))
    ids = expire(ctx, {"older_than_seconds": 30 * DAY, "kinds": ["fact"]}, "archive")
    ctx.eq(ids, ["old-2", "old-1"], "expired_ids")
    ctx.eq([status_of(r) for r in ctx.get(["new", "old-2", "old-1", "old-msg"])["records"]],
           ["active", "archived", "archived", "active"], "the statuses after Expire")
    ctx.eq(ids_of(ctx.history()), ["new", "old-msg"], "the History after Expire")
    again = expire(ctx, {"older_than_seconds": 30 * DAY, "kinds": ["fact"]}, "archive")
    ctx.eq(again, [], "expired_ids of archiving again (archived records are not selected)")
    deleted = expire(ctx, {"older_than_seconds": 30 * DAY, "kinds": ["fact"]}, "delete")
    ctx.eq(deleted, ["old-2", "old-1"], "expired_ids of deleting (archived records are "
                                        "selected)")


@scenario("Required.Service.Expire.NotAccessed", "operations.md#12", "core.md#8.3",
          needs=("Expire",))
def not_accessed(ctx: Ctx) -> None:
    """Expire by lack of access selects records whose last access (or
    creation, when never accessed) lies more than not_accessed_seconds
    before as_of; delete leaves tombstones."""
    ctx.put_ok(
        fact("stale", "x", created_at="2026-01-01T00:00:00Z",
             lifecycle={"last_accessed_at": "2026-01-02T00:00:00Z", "access_count": 3}),
        fact("fresh", "y", created_at="2026-01-01T00:00:00Z",
             lifecycle={"last_accessed_at": "2026-05-30T00:00:00Z", "access_count": 1}),
        fact("never-old", "z", created_at="2026-02-01T00:00:00Z"),
        fact("never-new", "w", created_at="2026-05-31T00:00:00Z"),
    )
    ids = expire(ctx, {"not_accessed_seconds": 7 * DAY}, "delete")
    ctx.eq(ids, ["stale", "never-old"], "expired_ids")
    got = ctx.get(["stale", "fresh", "never-old", "never-new"], include_deleted=True)
    ctx.eq([status_of(r) for r in got["records"]], ["deleted", "active", "deleted", "active"],
           "the statuses after Expire delete")


@scenario("Required.Service.Expire.ImportanceAndPinned", "operations.md#12", "core.md#8.4",
          needs=("Expire",))
def importance_below(ctx: Ctx) -> None:
    """Expire by importance counts an absent importance as 0.5, never selects
    a pinned record, and demote halves the importance."""
    ctx.put_ok(fact("low", "a", lifecycle={"importance": 0.1}),
               fact("high", "b", lifecycle={"importance": 0.9}),
               fact("unset", "c"),
               fact("pinned", "d", lifecycle={"importance": 0.0, "pinned": True}))
    ids = expire(ctx, {"importance_below": 0.6}, "demote")
    ctx.eq(ids, ["low", "unset"], "expired_ids")
    got = ctx.get(["low", "high", "unset", "pinned"])["records"]
    ctx.eq([r.get("lifecycle", {}).get("importance") for r in got], [0.05, 0.9, 0.25, 0.0],
           "the importances after demote")


@scenario("Required.Service.Expire.DecayedImportance", "operations.md#12", "core.md#8.3",
          needs=("Expire", "expire.decay"))
def decayed(ctx: Ctx) -> None:
    """With half_life_seconds, importance decays by half per half-life since
    the last access (or creation): importance x 0.5 ^ (d / h) is compared
    with importance_below at as_of."""
    week = 7 * DAY
    ctx.put_ok(
        # 0.8 accessed two weeks before as_of: 0.2 < 0.3.
        fact("d1", "a", created_at="2026-01-01T00:00:00Z",
             lifecycle={"importance": 0.8, "last_accessed_at": "2026-05-18T00:00:00Z"}),
        # 0.8 accessed one day before: about 0.72.
        fact("d2", "b", created_at="2026-01-01T00:00:00Z",
             lifecycle={"importance": 0.8, "last_accessed_at": "2026-05-31T00:00:00Z"}),
        # 0.9 never accessed, created three weeks before: 0.1125.
        fact("d3", "c", created_at="2026-05-11T00:00:00Z", lifecycle={"importance": 0.9}),
        # 0.25 accessed one week before: 0.125, but pinned.
        fact("d4", "d", created_at="2026-01-01T00:00:00Z",
             lifecycle={"importance": 0.25, "last_accessed_at": "2026-05-25T00:00:00Z",
                        "pinned": True}),
    )
    ids = expire(ctx, {"importance_below": 0.3, "half_life_seconds": week}, "archive")
    ctx.eq(ids, ["d1", "d3"], "expired_ids")


@scenario("Required.Service.Expire.DryRun", "operations.md#12", needs=("Expire",))
def dry_run(ctx: Ctx) -> None:
    """A dry run reports the records the policy selects, the same as the real
    run does, and changes nothing."""
    ctx.put_ok(fact("old", "x", created_at="2020-01-01T00:00:00Z"),
               fact("new", "y", created_at="2026-05-31T12:00:00Z"))
    before = ctx.get(["old", "new"])["records"]
    ids = expire(ctx, {"older_than_seconds": DAY}, "delete", dry_run=True)
    ctx.eq(ids, ["old"], "expired_ids of the dry run")
    ctx.eq(ctx.get(["old", "new"])["records"], before, "the records after the dry run")
    ctx.eq(expire(ctx, {"older_than_seconds": DAY}, "delete"), ["old"],
           "expired_ids of the real run")
    ctx.eq(ctx.get(["old"]).get("missing_ids"), ["old"], "Get of the expired record")


@scenario("Required.Service.Expire.CriterionRequired", "operations.md#12", needs=("Expire",))
def criterion_required(ctx: Ctx) -> None:
    """A policy without a criterion (kinds alone is none) fails with
    INVALID_ARGUMENT REQUIRED_FIELD_MISSING at /policy."""
    ctx.expect_error(lambda: ctx.call("Expire", {"policy": {"kinds": ["fact"]},
                                                 "action": "archive"}),
                     "INVALID_ARGUMENT", "REQUIRED_FIELD_MISSING", "/policy")


# Merge.


@scenario("Required.Service.Merge.KeepTarget", "operations.md#13", needs=("Merge",))
def merge_keep_target(ctx: Ctx) -> None:
    """Merge keeps the target's content, adds the sources' tags, links and
    metadata it lacks and a supersedes link to each source, and archives the
    sources."""
    ctx.put_ok(fact("t", "The user is vegetarian.", tags=["diet"], metadata={"a": 1},
                    links=[{"type": "references", "target": "doc-1"}]),
               fact("s1", "User is veggie.", tags=["food", "diet"], metadata={"a": 2, "b": 3},
                    links=[{"type": "references", "target": "doc-2"},
                           {"type": "references", "target": "t"}]),
               fact("s2", "Vegetarian user.", tags=["prefs"]))
    got = ctx.call("Merge", {"target_id": "t", "source_ids": ["s1", "s2", "t", "s1"]})
    ctx.eq(got.get("superseded_ids"), ["s1", "s2"], "superseded_ids")
    rec = got.get("record", {})
    ctx.eq(rec.get("id"), "t", "the id of the merged record")
    ctx.eq(rec.get("fact"), {"text": "The user is vegetarian."}, "the merged payload")
    ctx.eq(rec.get("tags"), ["diet", "food", "prefs"], "the merged tags")
    ctx.eq(rec.get("metadata"), {"a": 1, "b": 3}, "the merged metadata")
    ctx.eq([(ln.get("type"), ln.get("target")) for ln in rec.get("links", [])],
           [("references", "doc-1"), ("references", "doc-2"), ("supersedes", "s1"),
            ("supersedes", "s2")], "the merged links")
    ctx.eq(rec.get("revision"), 2, "the revision of the merged record")
    ctx.eq(ctx.must_get("t"), rec, "the stored target against the Merge response")
    ctx.eq([status_of(r) for r in ctx.get(["t", "s1", "s2"])["records"]],
           ["active", "archived", "archived"], "the statuses after Merge")


@scenario("Required.Service.Merge.KeepHighest", "operations.md#13", needs=("Merge",))
def merge_keep_highest(ctx: Ctx) -> None:
    """keep_highest keeps the target's content and takes the greatest
    importance and confidence among the records."""
    ctx.put_ok(fact("t", "target", lifecycle={"importance": 0.2}),
               fact("s1", "one", lifecycle={"importance": 0.7, "confidence": 0.4}),
               fact("s2", "two", lifecycle={"importance": 0.5, "confidence": 0.9}))
    rec = ctx.call("Merge", {"target_id": "t", "source_ids": ["s1", "s2"],
                             "strategy": "keep_highest"}).get("record", {})
    life = rec.get("lifecycle", {})
    ctx.eq((life.get("importance"), life.get("confidence")), (0.7, 0.9),
           "importance and confidence after keep_highest")
    ctx.eq(rec.get("fact"), {"text": "target"}, "the payload after keep_highest")


@scenario("Required.Service.Merge.Errors", "operations.md#13", "operations.md#3.3",
          needs=("Merge",))
def merge_errors(ctx: Ctx) -> None:
    """Merge fails with KIND_MISMATCH at the source of another kind,
    RECORD_NOT_FOUND at an absent source, REVISION_MISMATCH for a stale target
    revision, and changes nothing."""
    ctx.put_ok(fact("t", "x"), fact("s1", "y"), message("m", "z"))
    ctx.expect_error(lambda: ctx.call("Merge", {"target_id": "t", "source_ids": ["s1", "m"]}),
                     "INVALID_ARGUMENT", "KIND_MISMATCH", "/source_ids/1",
                     what="a Merge of a message into a fact")
    ctx.expect_error(lambda: ctx.call("Merge", {"target_id": "t",
                                                "source_ids": ["s1", "nope"]}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/source_ids/1",
                     what="a Merge of an absent source")
    ctx.expect_error(lambda: ctx.call("Merge", {"target_id": "nope", "source_ids": ["s1"]}),
                     "NOT_FOUND", "RECORD_NOT_FOUND", "/target_id",
                     what="a Merge into an absent target")
    ctx.expect_error(lambda: ctx.call("Merge", {"target_id": "t", "source_ids": ["s1"],
                                                "expected_revision": 4}),
                     "ABORTED", "REVISION_MISMATCH", "/expected_revision",
                     what="a Merge with a stale revision")
    got = ctx.get(["t", "s1", "m"])["records"]
    ctx.eq([(r.get("revision"), status_of(r)) for r in got],
           [(1, "active")] * 3, "the records after the refused Merges (revision, status)")


# Compact.


@scenario("Required.Service.Compact.Summary", "operations.md#14", "core.md#8.4",
          needs=("Compact",))
def compact(ctx: Ctx) -> None:
    """Compact stores a summary that covers the compacted ids in sequence
    order, with first and last sequence and a summarizes link to each, as a
    new record; it archives the compacted records except pinned ones."""
    results = ctx.put_ok(message("m1", "Plan the launch."),
                         message("m2", "Here is the plan.", "assistant"),
                         message("m3", "Keep this one.", lifecycle={"pinned": True}),
                         message("m4", "Thanks."))
    seqs = [r.get("sequence", 0) for r in results]
    got = ctx.call("Compact", {"ids": ["m4", "m2", "m1", "m3", "m2"], "summary": {
        "id": "sum-1", "kind": "summary",
        "summary": {"text": "The launch was planned.", "covers": ["bogus"]}}})
    ctx.eq(got.get("compacted_ids"), ["m1", "m2", "m3", "m4"], "compacted_ids")
    summary = got.get("summary", {})
    payload = summary.get("summary", {})
    ctx.eq(payload.get("covers"), ["m1", "m2", "m3", "m4"], "summary.covers")
    ctx.eq((payload.get("first_sequence"), payload.get("last_sequence")), (seqs[0], seqs[3]),
           "summary.first_sequence and last_sequence")
    ctx.eq(payload.get("text"), "The launch was planned.", "summary.text")
    ctx.eq([(ln.get("type"), ln.get("target")) for ln in summary.get("links", [])],
           [("summarizes", f"m{i}") for i in range(1, 5)], "the summary's links")
    ctx.eq(summary.get("revision"), 1, "the summary's revision")
    ctx.check(summary.get("sequence", 0) > seqs[3], "the summary has no new sequence",
              got=summary)
    ctx.eq(summary.get("scope", {}).get("tenant"), ctx.tenant, "the summary's tenant")
    ctx.eq(ctx.must_get("sum-1"), summary, "the stored summary against the response")
    ctx.eq([status_of(r) for r in ctx.get(["m1", "m2", "m3", "m4"])["records"]],
           ["archived", "archived", "active", "archived"], "the statuses after Compact")
    ctx.eq(ids_of(ctx.history()), ["m3", "sum-1"], "the History after Compact")


@scenario("Required.Service.Compact.DeleteDisposition", "operations.md#14", needs=("Compact",))
def compact_delete(ctx: Ctx) -> None:
    """Compact with disposition delete leaves tombstones of the compacted
    records; keep leaves them as they are."""
    ctx.put_ok(message("m1", "a"), message("m2", "b"), message("m3", "c"))
    ctx.call("Compact", {"ids": ["m1", "m2"], "disposition": "delete", "summary": {
        "id": "sum-1", "kind": "summary", "summary": {"text": "a and b"}}})
    ctx.call("Compact", {"ids": ["m3"], "disposition": "keep", "summary": {
        "id": "sum-2", "kind": "summary", "summary": {"text": "c"}}})
    got = ctx.get(["m1", "m2", "m3"], include_deleted=True)["records"]
    ctx.eq([status_of(r) for r in got], ["deleted", "deleted", "active"],
           "the statuses after Compact")
    ctx.eq(ids_of(ctx.history()), ["m3", "sum-1", "sum-2"], "the History after Compact")


@scenario("Required.Service.Compact.Errors", "operations.md#14", "operations.md#3.3",
          needs=("Compact",))
def compact_errors(ctx: Ctx) -> None:
    """Compact fails with ALREADY_EXISTS RECORD_EXISTS at /summary/id when the
    summary's id exists, NOT_FOUND RECORD_NOT_FOUND at /ids/i for an absent
    record, KIND_MISMATCH at /summary/kind for a summary of another kind, and
    changes nothing."""
    ctx.put_ok(message("m1", "a"), message("m2", "b"), fact("taken", "c"))
    summary = {"id": "taken", "kind": "summary", "summary": {"text": "s"}}
    ctx.expect_error(lambda: ctx.call("Compact", {"ids": ["m1", "m2"], "summary": summary}),
                     "ALREADY_EXISTS", "RECORD_EXISTS", "/summary/id",
                     what="a Compact whose summary id exists")
    ctx.expect_error(lambda: ctx.call("Compact", {"ids": ["m1", "nope"], "summary": {
        **summary, "id": "sum-1"}}), "NOT_FOUND", "RECORD_NOT_FOUND", "/ids/1",
        what="a Compact of an absent record")
    ctx.expect_error(lambda: ctx.call("Compact", {"ids": ["m1"], "summary": fact("sum-2", "s")}),
                     "INVALID_ARGUMENT", "KIND_MISMATCH", "/summary/kind",
                     what="a Compact whose summary is a fact")
    if ctx.has("approval"):
        ctx.put(message("p", "staged"), require_approval=True)
        ctx.expect_error(lambda: ctx.call("Compact", {"ids": ["m1", "p"], "summary": {
            **summary, "id": "sum-3"}}), "NOT_FOUND", "RECORD_NOT_FOUND", "/ids/1",
            what="a Compact of a staged record")
    ctx.eq([(status_of(r), r.get("revision")) for r in ctx.get(["m1", "m2"])["records"]],
           [("active", 1), ("active", 1)], "the records after the refused Compacts")
    ctx.eq(ctx.get(["sum-1", "sum-2", "sum-3"], include_deleted=True).get("missing_ids"),
           ["sum-1", "sum-2", "sum-3"], "Get of the summaries of the refused Compacts")


@scenario("Required.Service.Merge.KeepNewest", "operations.md#13", needs=("Merge",))
def merge_keep_newest(ctx: Ctx) -> None:
    """keep_newest takes the content of the record whose latest change the
    service applied last, by change order, never by timestamps."""
    ctx.put_ok(fact("t", "target"), fact("s1", "first source"),
               fact("s2", "second source", updated_at="2099-01-01T00:00:00Z"))
    ctx.call("Update", {"id": "s1", "patch": {"tags": ["touched"]}})
    rec = ctx.call("Merge", {"target_id": "t", "source_ids": ["s2", "s1"],
                             "strategy": "keep_newest"}).get("record", {})
    ctx.eq((rec.get("id"), rec.get("fact")), ("t", {"text": "first source"}),
           "the merged record (id, payload)")
    ctx.eq(rec.get("tags"), ["touched"], "the merged tags")


@scenario("Required.Service.Expire.PastExpiry", "operations.md#12", "core.md#8.4",
          needs=("Expire",))
def past_expiry(ctx: Ctx) -> None:
    """past_expiry selects the records whose expires_at is not later than
    as_of; a store does not hide them before."""
    ctx.put_ok(fact("gone", "x", lifecycle={"expires_at": "2026-05-01T00:00:00Z"}),
               fact("edge", "y", lifecycle={"expires_at": AS_OF}),
               fact("later", "z", lifecycle={"expires_at": "2026-06-01T00:00:00.000000001Z"}),
               fact("never", "w"))
    ctx.eq(ids_of(ctx.get(["gone", "edge"])["records"]), ["gone", "edge"],
           "Get of records past their expiry, before Expire")
    ctx.eq(expire(ctx, {"past_expiry": True}, "archive"), ["gone", "edge"], "expired_ids")
