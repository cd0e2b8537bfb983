"""Import's conflict policies, content-hash deduplication and dry run
(operations.md section 17.2), on both stores."""

from __future__ import annotations

from typing import Any

from service_helpers import fact, fails

from memorywire.client import Client


def texts(mw: Client, ids: list[str]) -> dict[str, Any]:
    return {r["id"]: r["fact"]["text"] for r in mw.get(ids).get("records", [])}


def counts(response: dict[str, Any]) -> dict[str, int]:
    names = ("imported", "created", "replaced", "unchanged", "skipped", "duplicates", "renamed")
    return {name: response.get(name, 0) for name in names if response.get(name, 0)}


def test_overwrite_is_the_default(mw: Client) -> None:
    mw.put([fact("a", "old"), fact("b", "same")])
    got = mw.import_([fact("a", "new"), fact("b", "same"), fact("c", "fresh")])
    assert counts(got) == {"imported": 3, "created": 1, "replaced": 1, "unchanged": 1}
    assert texts(mw, ["a", "b", "c"]) == {"a": "new", "b": "same", "c": "fresh"}


def test_skip_keeps_the_stored_record(mw: Client) -> None:
    mw.put([fact("a", "old"), fact("k1", "keyed", key="pref")])
    got = mw.import_([fact("a", "new"), fact("other", "by key", key="pref"), fact("c", "fresh")],
                     conflict="skip")
    assert counts(got) == {"imported": 1, "created": 1, "skipped": 2}
    assert texts(mw, ["a", "k1", "other", "c"]) == {"a": "old", "k1": "keyed", "c": "fresh"}


def test_new_id_writes_beside(mw: Client) -> None:
    mw.put([fact("a", "old"), fact("a~1", "taken"), fact("k1", "keyed", key="pref")])
    got = mw.import_([fact("a", "new"), fact("other", "by key", key="pref")], conflict="new_id")
    assert counts(got) == {"imported": 2, "created": 2, "renamed": 2}
    assert texts(mw, ["a", "a~1", "a~2", "other~1"]) == {"a": "old", "a~1": "taken", "a~2": "new",
                                                         "other~1": "by key"}
    assert "key" not in mw.get("other~1")["records"][0]  # the key stays with k1


def test_merge_patches_the_stored_record(mw: Client) -> None:
    mw.put(fact("a", "old", tags=["x"], metadata={"k1": "v1"}))
    got = mw.import_([fact("a", "new", metadata={"k2": "v2"})], conflict="merge")
    assert counts(got) == {"imported": 1, "replaced": 1}
    record = mw.get("a")["records"][0]
    assert (record["fact"]["text"], record["tags"], record["metadata"], record["revision"]) == (
        "new", ["x"], {"k1": "v1", "k2": "v2"}, 2)
    fails("KIND_MISMATCH", lambda: mw.import_([{"id": "a", "kind": "episode", "episode": {"text": "e"}}],
                                              conflict="merge"), "/records/0/kind")


def test_deduplicate_by_content_hash(mw: Client) -> None:
    mw.put(fact("a", "the same words"))
    got = mw.import_([fact("b", "the same words"), fact("c", "other words"), fact("d", "other words"),
                      fact("a", "the same words")], deduplicate=True)
    # b repeats a's content, d repeats c's (earlier in the import); a is itself.
    assert counts(got) == {"imported": 2, "created": 1, "unchanged": 1, "duplicates": 2}
    assert sorted(texts(mw, ["a", "b", "c", "d"])) == ["a", "c"]


def test_dry_run_reports_and_writes_nothing(mw: Client) -> None:
    mw.put([fact("a", "old"), fact("b", "kept")])
    before = list(mw.export())
    records = [fact("a", "new"), fact("c", "fresh")]
    dry = mw.import_(records, mode="replace", dry_run=True, operation_id="op-dry")
    assert counts(dry) == {"imported": 2, "created": 2}  # replace: a is new after the deletion
    assert list(mw.export()) == before
    # Not recorded: the same operation id performs the import for real.
    real = mw.import_(records, mode="replace", operation_id="op-dry")
    assert counts(real) == counts(dry)
    assert texts(mw, ["a", "b", "c"]) == {"a": "new", "c": "fresh"}


def test_every_message_carries_the_same_policies(mw: Client) -> None:
    e = fails("IMMUTABLE_FIELD", lambda: _mixed(mw), "/conflict")
    assert "message 1" in e.message


def _mixed(mw: Client) -> Any:
    """An Import whose second message changes conflict."""
    import memorywire.protobuf
    from memorywire.client._shared import Upload
    from memorywire.service.registry import operation

    head = {"specversion": "1.0", "operation_id": "op-mixed"}
    request_type = operation("Import").request_type
    messages = (memorywire.protobuf.encode({**head, "conflict": "skip", "records": [fact("a", "1")]},
                                           type=request_type),
                memorywire.protobuf.encode({**head, "conflict": "merge", "records": [fact("b", "2")]},
                                           type=request_type))
    return mw._import(Upload("Import", messages, mw._deadline(None)))
