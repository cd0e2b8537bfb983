"""Expire, Merge, Compact (operations.md sections 12 to 14), and staging for
approval with Review (sections 4.6 and 15)."""

from __future__ import annotations

from typing import Any

from service_helpers import embedding, fact, fails, message, send

from memorywire.client import Client

AS_OF = "2026-04-01T00:00:00Z"


def _aged(mw: Client) -> None:
    mw.put([
        fact("old", "a", created_at="2026-01-01T00:00:00Z"),
        fact("new", "b", created_at="2026-03-31T00:00:00Z"),
        fact("pinned", "c", created_at="2026-01-01T00:00:00Z", lifecycle={"pinned": True}),
        fact("read", "d", created_at="2026-01-01T00:00:00Z",
             lifecycle={"last_accessed_at": "2026-03-30T00:00:00Z", "importance": 0.8}),
        fact("low", "e", created_at="2026-03-31T00:00:00Z", lifecycle={"importance": 0.1}),
        fact("due", "f", created_at="2026-03-31T00:00:00Z",
             lifecycle={"expires_at": "2026-04-01T00:00:00Z"}),
        message("m", "user", "hi", created_at="2026-01-01T00:00:00Z"),
    ])


def test_expire_criteria(mw: Client) -> None:
    _aged(mw)

    def ids(policy: dict[str, Any], action: str = "archive") -> list[str]:
        return mw.expire(policy, action, as_of=AS_OF, dry_run=True).get("expired_ids", [])

    assert ids({"older_than_seconds": 30 * 86400}) == ["old", "read", "m"]
    assert ids({"older_than_seconds": 30 * 86400, "kinds": ["message"]}) == ["m"]
    assert ids({"not_accessed_seconds": 30 * 86400}) == ["old", "m"]
    # absent importance counts as 0.5
    assert ids({"importance_below": 0.5}) == ["low"]
    assert ids({"importance_below": 0.6}) == ["old", "new", "low", "due", "m"]
    # decayed since the last access (or creation): read is 0.8 * 0.5^(2 days / 1 day) = 0.2,
    # new and due 0.5 * 0.5^1 = 0.25, low 0.05
    assert ids({"importance_below": 0.21, "half_life_seconds": 86400}) == ["old", "read", "low", "m"]
    assert ids({"importance_below": 0.19, "half_life_seconds": 86400}) == ["old", "low", "m"]
    assert ids({"past_expiry": True}) == ["due"]
    assert ids({"older_than_seconds": 0, "importance_below": 0.5}) == ["low"]
    # a dry run changed nothing
    assert mw.get("old")["records"][0]["revision"] == 1


def test_expire_actions(mw: Client, raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    _aged(mw)
    assert mw.expire({"older_than_seconds": 30 * 86400}, "archive", as_of=AS_OF)["expired_ids"] == \
        ["old", "read", "m"]
    assert mw.get("old")["records"][0]["lifecycle"]["status"] == "archived"
    # archive does not select archived records; demote and delete do
    assert mw.expire({"older_than_seconds": 30 * 86400}, "archive", as_of=AS_OF)["expired_ids"] == []
    assert mw.expire({"older_than_seconds": 30 * 86400}, "demote", as_of=AS_OF)["expired_ids"] == \
        ["old", "read", "m"]
    assert mw.get("old")["records"][0]["lifecycle"]["importance"] == 0.25
    assert mw.get("read")["records"][0]["lifecycle"]["importance"] == 0.4
    assert mw.expire({"past_expiry": True}, "delete", as_of=AS_OF)["expired_ids"] == ["due"]
    assert mw.get("due")["missing_ids"] == ["due"]
    fails("REQUIRED_FIELD_MISSING", lambda: send(raw_channel, "Expire",
                                                 {"policy": {"kinds": ["fact"]}, "action": "archive"},
                                                 tenant), "/policy")


def test_merge(mw: Client) -> None:
    mw.put([
        fact("t", "The user is vegetarian.", tags=["food"], metadata={"a": 1},
             lifecycle={"importance": 0.3}, links=[{"type": "references", "target": "x"}]),
        fact("s1", "User is a vegetarian", tags=["food", "diet"], metadata={"a": 2, "b": 3},
             lifecycle={"importance": 0.8, "confidence": 0.6},
             links=[{"type": "references", "target": "x"}, {"type": "derived_from", "target": "t"}]),
        fact("s2", "Vegetarian user", embeddings=embedding([1.0, 0.0])),
        message("m", "user", "other kind"),
    ])
    fails("KIND_MISMATCH", lambda: mw.merge("t", ["s1", "m"]), "/source_ids/1")
    fails("RECORD_NOT_FOUND", lambda: mw.merge("t", ["nope"]), "/source_ids/0")
    fails("RECORD_NOT_FOUND", lambda: mw.merge("nope", ["s1"]), "/target_id")
    fails("REVISION_MISMATCH", lambda: mw.merge("t", ["s1"], expected_revision=3), "/expected_revision")
    out = mw.merge("t", ["s1", "t", "s1", "s2"], strategy="keep_highest", expected_revision=1)
    rec = out["record"]
    assert out["superseded_ids"] == ["s1", "s2"]
    assert rec["fact"]["text"] == "The user is vegetarian." and rec["revision"] == 2
    assert rec["tags"] == ["food", "diet"]
    assert rec["metadata"] == {"a": 1, "b": 3}
    assert rec["links"] == [{"type": "references", "target": "x"},
                            {"type": "supersedes", "target": "s1"},
                            {"type": "supersedes", "target": "s2"}]
    assert rec["lifecycle"] == {"importance": 0.8, "confidence": 0.6}
    for sid in ("s1", "s2"):
        assert mw.get(sid)["records"][0]["lifecycle"]["status"] == "archived"


def test_merge_keep_newest(mw: Client) -> None:
    mw.put([fact("t", "old text"), fact("s", "newer text", embeddings=embedding([0.0, 1.0]))])
    mw.update("t", {"tags": ["touched"]})  # the target changed last
    assert mw.merge("t", ["s"], strategy="keep_newest")["record"]["fact"]["text"] == "old text"
    mw.put([fact("t2", "old text"), fact("s2", "newer text", embeddings=embedding([0.0, 1.0]))])
    rec = mw.merge("t2", ["s2"], strategy="keep_newest")["record"]
    assert rec["fact"]["text"] == "newer text" and rec["embeddings"][0]["values"] == [0.0, 1.0]


def test_compact(mw: Client) -> None:
    mw.put([message(f"m{i}", "user", f"turn {i}", scope={"session": "chat-7"}) for i in range(1, 5)])
    mw.update("m2", {"lifecycle": {"pinned": True}})
    out = mw.compact(["m3", "m1", "m2", "m4", "m1"],
                     {"id": "sum-1", "kind": "summary", "summary": {"text": "The user took four turns."}},
                     scope={"session": "chat-7"})
    s = out["summary"]
    assert out["compacted_ids"] == ["m1", "m2", "m3", "m4"]
    assert s["summary"]["covers"] == ["m1", "m2", "m3", "m4"]
    assert (s["summary"]["first_sequence"], s["summary"]["last_sequence"]) == (1, 4)
    assert s["links"] == [{"type": "summarizes", "target": f"m{i}"} for i in range(1, 5)]
    assert s["sequence"] == 5 and s["revision"] == 1 and s["scope"]["session"] == "chat-7"
    statuses = [r.get("lifecycle", {}).get("status", "active")
                for r in mw.get(["m1", "m2", "m3", "m4"])["records"]]
    assert statuses == ["archived", "active", "archived", "archived"]  # pinned m2 kept
    summary = {"id": "sum-1", "kind": "summary", "summary": {"text": "again"}}
    fails("RECORD_EXISTS", lambda: mw.compact(["m2"], summary), "/summary/id")
    fails("RECORD_NOT_FOUND", lambda: mw.compact(["m2", "zz"], dict(summary, id="sum-2")), "/ids/1")
    out = mw.compact(["m2", "m3"], dict(summary, id="sum-3"), disposition="delete")
    assert mw.get("m3")["missing_ids"] == ["m3"] and mw.get("m2")["records"]


def test_compact_summary_rules(raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    fails("KIND_MISMATCH", lambda: send(raw_channel, "Compact", {
        "ids": ["a"], "summary": {"id": "s", "kind": "summary",
                                  "encrypted": {"algorithm": "A256GCM", "ciphertext": "AQID"}}}, tenant),
          "/summary/encrypted")
    fails("KIND_MISMATCH", lambda: send(raw_channel, "Compact", {
        "ids": ["a"], "summary": {"id": "s", "kind": "fact", "fact": {"text": "x"}}}, tenant),
          "/summary/kind")


def test_approval_flow(mw: Client) -> None:
    out = mw.put([fact("f1", "The user is vegan."), fact("f2", "The user likes jazz."),
                  fact("f3", "The user is 40.")], require_approval=True)
    assert [x["status"] for x in out["results"]] == ["staged"] * 3
    staged = {"compare": {"field": "/lifecycle/status", "operator": "eq", "value": "pending_approval"}}
    # staged records are stored, but not part of memory yet
    assert mw.get("f1")["records"][0]["lifecycle"]["status"] == "pending_approval"
    assert mw.history()["records"] == []
    assert mw.search("vegan")["hits"] == []
    assert [h["record"]["id"] for h in mw.search(filter=staged)["hits"]] == ["f1", "f2", "f3"]
    assert mw.expire({"older_than_seconds": 0}, "archive", dry_run=True)["expired_ids"] == []
    fails("RECORD_NOT_FOUND", lambda: mw.merge("f1", ["f2"]), "/target_id")

    rec = mw.review("f1", "amend", patch={"fact": {"text": "The user is vegetarian, not vegan."}},
                    reviewer="alice@example.com")["record"]
    assert rec["lifecycle"]["status"] == "active" and rec["revision"] == 2
    assert rec["fact"]["text"] == "The user is vegetarian, not vegan."
    rec = mw.review("f2", "approve")["record"]
    assert rec["lifecycle"]["status"] == "active"
    rec = mw.review("f3", "reject", reason="not durable")["record"]
    assert rec["lifecycle"] == {"status": "rejected", "reason": "not durable"}
    assert rec["fact"]["text"] == "The user is 40."  # the content is kept
    assert [x["id"] for x in mw.history()["records"]] == ["f1", "f2"]
    assert mw.get("f3")["missing_ids"] == ["f3"]
    assert mw.get("f3", include_deleted=True)["records"][0]["lifecycle"]["status"] == "rejected"
    e = fails("NOT_STAGED", lambda: mw.review("f2", "approve"), "/id")
    assert e.code == "FAILED_PRECONDITION"
    fails("RECORD_NOT_FOUND", lambda: mw.review("zz", "approve"), "/id")
    mw.put(fact("f4", "x"), require_approval=True)
    fails("IMMUTABLE_FIELD", lambda: mw.review("f4", "amend", patch={"lifecycle": {"status": "active"}}),
          "/patch/lifecycle/status")
    events = [e["type"] for e in mw.watch(from_start=True, max_events=7)]
    assert events == ["created", "created", "created", "updated", "updated", "updated", "created"]


def test_review_patch_rules(raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    fails("REQUIRED_FIELD_MISSING", lambda: send(raw_channel, "Review", {"id": "a", "decision": "amend"},
                                                 tenant), "/patch")
    fails("ONEOF_CONFLICT", lambda: send(raw_channel, "Review", {"id": "a", "decision": "approve",
                                                                 "patch": {"tags": ["x"]}}, tenant), "/patch")
