"""Update and Delete (operations.md sections 4.7, 10, 11)."""

from __future__ import annotations

from service_helpers import embedding, fact, fails, send

from memorywire.client import Client


def test_update_applies_a_merge_patch(mw: Client) -> None:
    mw.put(fact("f1", "window seats", tags=["a"], lifecycle={"importance": 0.5, "expires_at":
                                                              "2027-01-01T00:00:00Z"}))
    before = mw.get("f1")["records"][0]
    rec = mw.update("f1", {"lifecycle": {"importance": 0.9, "expires_at": None},
                           "tags": ["travel", "seating"]}, expected_revision=1)["record"]
    assert rec["lifecycle"] == {"importance": 0.9}
    assert rec["tags"] == ["travel", "seating"] and rec["revision"] == 2
    assert rec["updated_at"] >= before["updated_at"] and rec["created_at"] == before["created_at"]
    assert rec["provenance"] == before["provenance"]  # the payload did not change
    rec = mw.update("f1", {"fact": {"text": "aisle seats"}})["record"]
    assert rec["provenance"]["content_hash"] != before["provenance"]["content_hash"]
    # a patch that changes nothing is not a change
    same = mw.update("f1", {"tags": ["travel", "seating"]})["record"]
    assert same["revision"] == 3 and same["updated_at"] == rec["updated_at"]


def test_update_conditions(mw: Client) -> None:
    mw.put(fact("f1", "x"))
    fails("REVISION_MISMATCH", lambda: mw.update("f1", {"tags": ["a"]}, expected_revision=4),
          "/expected_revision")
    fails("RECORD_NOT_FOUND", lambda: mw.update("nope", {"tags": ["a"]}), "/id")
    fails("RECORD_NOT_FOUND", lambda: mw.update("f1", {"tags": ["a"]}, scope={"user": "other"}), "/id")
    mw.delete("f1")
    fails("RECORD_NOT_FOUND", lambda: mw.update("f1", {"tags": ["a"]}), "/id")


def test_update_immutable_fields(mw: Client) -> None:
    mw.put(fact("f1", "x", key="k1"))
    for patch, pointer in [({"id": "f2"}, "/patch/id"), ({"kind": "episode"}, "/patch/kind"),
                           ({"key": "k2"}, "/patch/key"), ({"key": None}, "/patch/key"),
                           ({"sequence": 9}, "/patch/sequence"), ({"revision": 9}, "/patch/revision"),
                           ({"scope": {"tenant": "x"}}, "/patch/scope/tenant"),
                           ({"scope": None}, "/patch/scope"),
                           ({"specversion": "1.0"}, "/patch/specversion"),
                           ({"lifecycle": {"status": "deleted"}}, "/patch/lifecycle/status"),
                           ({"lifecycle": {"status": "pending_approval"}}, "/patch/lifecycle/status")]:
        e = fails("IMMUTABLE_FIELD", lambda p=patch: mw.update("f1", p), pointer)
        assert e.code == "INVALID_ARGUMENT"
    # setting an immutable field to its stored value is accepted
    assert mw.update("f1", {"id": "f1", "kind": "fact", "sequence": 1, "tags": ["t"]})["record"][
        "revision"] == 2
    # archiving and back
    assert mw.update("f1", {"lifecycle": {"status": "archived"}})["record"]["lifecycle"]["status"] == \
        "archived"
    assert mw.update("f1", {"lifecycle": {"status": "active"}})["record"]["lifecycle"]["status"] == \
        "active"


def test_update_validates_the_result(mw: Client, raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    mw.put(fact("f1", "x"))
    fails("REQUIRED_FIELD_MISSING", lambda: mw.update("f1", {"fact": {"text": None}}), "/patch/fact/text")
    fails("ONEOF_CONFLICT", lambda: mw.update("f1", {"episode": {"text": "y"}}))
    fails("KIND_MISMATCH", lambda: mw.update("f1", {"fact": None, "episode": {"text": "y"}}),
          "/patch/episode")
    fails("TYPE_MISMATCH", lambda: mw.update("f1", {"lifecycle": {"access_count": 1.0}}),
          "/patch/lifecycle/access_count")
    fails("VALUE_OUT_OF_RANGE", lambda: mw.update("f1", {"lifecycle": {"importance": 2}}),
          "/patch/lifecycle/importance")
    fails("UNKNOWN_FIELD", lambda: mw.update("f1", {"colour": "red"}), "/patch/colour")
    fails("TYPE_MISMATCH", lambda: send(raw_channel, "Update", {"id": "f1", "patch": [1]}, tenant),
          "/patch")
    assert mw.get("f1")["records"][0]["revision"] == 1


def test_soft_delete_keeps_a_tombstone(mw: Client) -> None:
    mw.put(fact("f1", "secret", tags=["t"], metadata={"a": 1}, embeddings=embedding([1.0, 0.0]),
                routing={"agent": "A"}, key="k"))
    before = mw.get("f1")["records"][0]
    assert mw.delete("f1", reason="user asked to forget")["deleted_ids"] == ["f1"]
    tomb = mw.get("f1", include_deleted=True)["records"][0]
    assert tomb["lifecycle"]["status"] == "deleted" and tomb["lifecycle"]["reason"] == "user asked to forget"
    assert "deleted_at" in tomb["lifecycle"]
    for gone in ("fact", "metadata", "embeddings"):
        assert gone not in tomb
    assert tomb["tags"] == ["t"] and tomb["routing"] == {"agent": "A"} and tomb["key"] == "k"
    assert tomb["revision"] == 2 and tomb["sequence"] == before["sequence"]
    assert tomb["provenance"]["content_hash"] == before["provenance"]["content_hash"]
    assert mw.search("secret")["hits"] == []
    assert mw.search(vector={"model": "demo", "values": [1.0, 0.0]})["hits"] == []
    # deleting again is harmless and changes nothing
    assert mw.delete("f1")["deleted_ids"] == ["f1"]
    assert mw.get("f1", include_deleted=True)["records"][0]["revision"] == 2
    assert mw.delete("nope")["deleted_ids"] == []


def test_hard_delete_frees_the_identifier(mw: Client) -> None:
    mw.put(fact("f1", "secret", key="k"))
    assert mw.delete("f1", mode="hard")["deleted_ids"] == ["f1"]
    assert mw.get("f1", include_deleted=True)["missing_ids"] == ["f1"]
    out = mw.put(fact("f1", "again", key="k"))["results"][0]
    assert out["status"] == "created" and out["revision"] == 1 and out["sequence"] == 2
    events = list(mw.watch(from_start=True, max_events=3))
    assert [e["type"] for e in events] == ["created", "deleted", "created"]
    tomb = events[1]["record"]
    assert set(tomb) == {"id", "kind", "scope", "sequence", "revision", "lifecycle"}
    assert tomb["revision"] == 2 and tomb["lifecycle"]["status"] == "deleted"
    # the content of the deleted record is gone from the change log too
    assert "fact" not in events[0]["record"]
    assert events[2]["record"]["fact"]["text"] == "again"


def test_delete_by_filter_and_conditions(mw: Client, raw_channel, tenant: str) -> None:  # type: ignore[no-untyped-def]
    mw.put([fact(f"f{i}", "x", scope={"session": "s1" if i < 3 else "s2"}) for i in range(5)])
    out = mw.delete(filter={"compare": {"field": "/scope/session", "operator": "eq", "value": "s1"}})
    assert out["deleted_ids"] == ["f0", "f1", "f2"]
    # tombstones are selected only by a filter on status, e.g. for a hard deletion
    status = {"compare": {"field": "/lifecycle/status", "operator": "eq", "value": "deleted"}}
    assert mw.delete(filter={"compare": {"field": "/kind", "operator": "eq", "value": "fact"}},
                     scope={"session": "s1"})["deleted_ids"] == []
    assert mw.delete(filter=status, mode="hard")["deleted_ids"] == ["f0", "f1", "f2"]
    fails("REVISION_MISMATCH", lambda: mw.delete("f3", expected_revision=2), "/expected_revision")
    fails("RECORD_NOT_FOUND", lambda: mw.delete("f0", expected_revision=1), "/ids/0")
    assert mw.delete("f3", expected_revision=1)["deleted_ids"] == ["f3"]
    fails("ONEOF_CONFLICT", lambda: send(raw_channel, "Delete", {"ids": ["a"], "filter": status}, tenant),
          "/filter")
    fails("REQUIRED_FIELD_MISSING", lambda: send(raw_channel, "Delete", {}, tenant), "/ids")
    fails("COUNT_OUT_OF_RANGE", lambda: send(raw_channel, "Delete", {"ids": ["a", "b"],
                                                                      "expected_revision": 1}, tenant),
          "/ids")


def test_update_keeps_keys_unique(mw: Client) -> None:
    mw.put([fact("a", "x", key="k", scope={"namespace": ["one"]}),
            fact("b", "y", key="k", scope={"namespace": ["two"]})])
    e = fails("RECORD_EXISTS", lambda: mw.update("b", {"scope": {"namespace": ["one"]}}),
              "/patch/scope/namespace")
    assert e.code == "ALREADY_EXISTS"
    assert mw.update("b", {"scope": {"namespace": ["three"]}})["record"]["scope"]["namespace"] == ["three"]
