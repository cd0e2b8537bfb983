"""Put and Get (operations.md sections 4.2, 4.3, 6, 7)."""

from __future__ import annotations

import hashlib

import orjson
import pytest
from service_helpers import embedding, fact, fails, message

import memorywire.json
from memorywire.client import Client


def test_put_creates_with_store_maintained_fields(mw: Client, tenant: str) -> None:
    out = mw.put([fact("f1", "The user prefers window seats."),
                  message("m1", "user", "Hi")], scope={"user": "u-42"})
    assert [(x["id"], x["status"], x["sequence"], x["revision"]) for x in out["results"]] == [
        ("f1", "created", 1, 1), ("m1", "created", 2, 1)]
    rec = mw.get("f1")["records"][0]
    assert rec["scope"] == {"tenant": tenant, "user": "u-42"}
    assert rec["sequence"] == 1 and rec["revision"] == 1
    assert rec["created_at"] == rec["updated_at"]
    canonical = orjson.dumps({"text": "The user prefers window seats."}, option=orjson.OPT_SORT_KEYS)
    assert rec["provenance"]["content_hash"] == "sha256:" + hashlib.sha256(canonical).hexdigest()


def test_written_sequence_and_revision_are_ignored(mw: Client) -> None:
    out = mw.put(fact("f1", "x", sequence=99, revision=7, created_at="2020-01-02T03:04:05Z"))
    assert out["results"][0]["sequence"] == 1 and out["results"][0]["revision"] == 1
    rec = mw.get("f1")["records"][0]
    assert rec["created_at"] == "2020-01-02T03:04:05Z"


def test_upsert_replaces_unchanged_keeps(mw: Client) -> None:
    mw.put(fact("f1", "one"))
    first = mw.get("f1")["records"][0]
    same = mw.put(fact("f1", "one"))["results"][0]
    assert same == {"id": "f1", "status": "unchanged", "sequence": 1, "revision": 1}
    changed = mw.put(fact("f1", "two"))["results"][0]
    assert changed["status"] == "updated" and changed["revision"] == 2 and changed["sequence"] == 1
    rec = mw.get("f1")["records"][0]
    assert rec["fact"]["text"] == "two"
    assert rec["created_at"] == first["created_at"]
    assert rec["provenance"]["content_hash"] != first["provenance"]["content_hash"]


def test_create_mode_and_expected_revision(mw: Client) -> None:
    mw.put(fact("f1", "one"))
    r = mw.put(fact("f1", "two"), mode="create")["results"][0]
    assert r["status"] == "failed" and r["error"]["reason"] == "RECORD_EXISTS"
    assert r["error"]["code"] == "already_exists"
    assert r["error"]["violations"][0]["pointer"] == "/items/0/record/id"
    # a stale revision is rejected, the current one accepted
    mw.put(fact("f1", "two"), expected_revision=1)
    stale = mw.put(fact("f1", "three"), expected_revision=1)["results"][0]
    assert stale["status"] == "failed"
    assert stale["error"]["reason"] == "REVISION_MISMATCH"
    assert stale["error"]["violations"][0]["pointer"] == "/items/0/expected_revision"
    assert mw.get("f1")["records"][0]["fact"]["text"] == "two"
    # 0: must not exist
    assert mw.put(fact("f2", "new"), expected_revision=0)["results"][0]["status"] == "created"
    assert mw.put(fact("f2", "new!"), expected_revision=0)["results"][0]["error"]["reason"] == \
        "REVISION_MISMATCH"


def test_key_finds_the_stored_record(mw: Client) -> None:
    mw.put(fact("f1", "pizza", key="favorite-food", scope={"namespace": ["u", "1"]}))
    out = mw.put(fact("other-id", "sushi", key="favorite-food", scope={"namespace": ["u", "1"]}))
    assert out["results"][0]["id"] == "f1" and out["results"][0]["status"] == "updated"
    assert mw.get("other-id")["missing_ids"] == ["other-id"]
    # the same key in another namespace is another record
    assert mw.put(fact("f2", "tea", key="favorite-food", scope={"namespace": ["u", "2"]}))[
        "results"][0]["status"] == "created"
    # a record found by id whose new key is held by another record
    r = mw.put(fact("f2", "tea", key="favorite-food", scope={"namespace": ["u", "1"]}))["results"][0]
    assert r["error"]["reason"] == "RECORD_EXISTS"
    assert r["error"]["violations"][0]["pointer"] == "/items/0/record/key"


def test_atomic_batch_fails_as_a_whole(mw: Client) -> None:
    mw.put(fact("f1", "one"))
    e = fails("BATCH_FAILED", lambda: mw.put(
        [fact("f2", "two"), {"record": fact("f1", "x"), "expected_revision": 5}], atomic=True))
    assert e.code == "ABORTED"
    assert [(v.pointer, v.reason) for v in e.violations] == [("/items/1/expected_revision",
                                                              "REVISION_MISMATCH")]
    assert mw.get("f2")["missing_ids"] == ["f2"]
    # non-atomic: the good item is written, the failed one reported
    out = mw.put([fact("f2", "two"), {"record": fact("f1", "x"), "expected_revision": 5}])
    assert [x["status"] for x in out["results"]] == ["created", "failed"]


def test_items_see_earlier_items(mw: Client) -> None:
    out = mw.put([fact("f1", "a"), fact("f1", "b"), fact("f1", "b")])
    assert [(x["status"], x["revision"]) for x in out["results"]] == [
        ("created", 1), ("updated", 2), ("unchanged", 2)]


def test_get_order_missing_and_duplicates(mw: Client) -> None:
    mw.put([fact("a", "1"), fact("b", "2")])
    out = mw.get(["b", "zz", "a", "b"])
    assert [x["id"] for x in out["records"]] == ["b", "a"]
    assert out["missing_ids"] == ["zz"]


def test_get_scope_and_deleted(mw: Client) -> None:
    mw.put([fact("a", "1", scope={"user": "u1"}), fact("b", "2", scope={"user": "u2"})])
    assert mw.get(["a", "b"], scope={"user": "u1"})["missing_ids"] == ["b"]
    mw.delete("a")
    assert mw.get("a")["missing_ids"] == ["a"]
    tomb = mw.get("a", include_deleted=True)["records"][0]
    assert tomb["lifecycle"]["status"] == "deleted" and "fact" not in tomb


def test_touch_counts_access_without_a_change(mw: Client) -> None:
    mw.put(fact("a", "1"))
    rec = mw.get("a", touch=True)["records"][0]
    assert rec["lifecycle"]["access_count"] == 1 and "last_accessed_at" in rec["lifecycle"]
    rec = mw.get("a", touch=True)["records"][0]
    assert rec["lifecycle"]["access_count"] == 2 and rec["revision"] == 1
    assert mw.get("a")["records"][0]["lifecycle"]["access_count"] == 2


def test_idempotent_replay(mw: Client) -> None:
    first = mw.put(fact("f1", "one"), operation_id="op-1")
    mw.put(fact("f1", "two"))  # the store changes meanwhile
    again = mw.put(fact("f1", "one"), operation_id="op-1")
    assert again == first  # the recorded response, byte for byte
    rec = mw.get("f1")["records"][0]
    assert rec["fact"]["text"] == "two" and rec["revision"] == 2  # no second effect
    events = list(mw.watch(from_start=True, max_events=2))
    assert [e["type"] for e in events] == ["created", "updated"]
    e = fails("OPERATION_ID_REUSED", lambda: mw.put(fact("f1", "three"), operation_id="op-1"),
              "/operation_id")
    assert e.code == "FAILED_PRECONDITION"
    # the same identifier for another operation is reused too
    fails("OPERATION_ID_REUSED", lambda: mw.delete("f1", operation_id="op-1"))
    # an operation that failed is not recorded: it can be retried
    fails("RECORD_NOT_FOUND", lambda: mw.update("nope", {"tags": ["x"]}, operation_id="op-2"))
    mw.put(fact("nope", "now it exists"))
    assert mw.update("nope", {"tags": ["x"]}, operation_id="op-2")["record"]["tags"] == ["x"]


def test_operation_ids_belong_to_a_tenant(mw: Client, connect, tenant: str) -> None:  # type: ignore[no-untyped-def]
    other = connect(tenant + "-other")
    mw.put(fact("f1", "mine"), operation_id="shared")
    out = other.put(fact("g1", "theirs"), operation_id="shared")
    assert out["results"][0]["id"] == "g1"


def test_encrypted_records_are_stored(mw: Client) -> None:
    rec = {"id": "e1", "kind": "fact",
           "encrypted": {"algorithm": "A256GCM", "nonce": "AAAAAAAAAAAAAAAA", "ciphertext": "AQID"}}
    mw.put(rec)
    got = mw.get("e1")["records"][0]
    assert got["encrypted"]["ciphertext"] == "AQID"
    assert mw.search("AQID")["hits"] == []


def test_vectors_are_bit_exact(mw: Client) -> None:
    values = [0.1, -0.0, 1e-45, 3.4028234663852886e38]
    mw.put(fact("v", "x", embeddings=embedding(values)))
    got = mw.get("v")["records"][0]["embeddings"][0]["values"]
    import struct

    assert struct.pack("<4f", *got) == struct.pack("<4f", *values)
    assert str(got[1]) == "-0.0"


def test_client_docstring_example(target: str, tenant: str, capsys) -> None:  # type: ignore[no-untyped-def]
    import memorywire.client

    doc = memorywire.client.__doc__ or ""
    example = doc.split("Example::", 1)[1].split("\n\nOver TLS", 1)[0]
    code = "\n".join(line[4:] for line in example.splitlines())
    code = code.replace('"127.0.0.1:50051"', repr(target)).replace('tenant="acme"', f"tenant={tenant!r}")
    namespace: dict[str, object] = {}
    exec(compile(code, "memorywire.client example", "exec"), namespace)  # noqa: S102
    assert [h["record"]["id"] for h in namespace["by_text"]] == ["f1"]  # type: ignore[index]
    assert [h["record"]["id"] for h in namespace["by_vector"]] == ["f2"]  # type: ignore[index]
    assert capsys.readouterr().out == "created f2\n"


def test_put_of_a_tombstone(mw: Client) -> None:
    tomb = {"id": "t1", "kind": "fact", "lifecycle": {"status": "deleted"}, "tags": ["gone"]}
    assert mw.put(tomb)["results"][0]["status"] == "created"
    rec = mw.get("t1", include_deleted=True)["records"][0]
    assert rec["lifecycle"]["status"] == "deleted" and "deleted_at" in rec["lifecycle"]
    assert "fact" not in rec and rec["tags"] == ["gone"]
    # replacing the tombstone with a live record brings it back
    out = mw.put(fact("t1", "back"))["results"][0]
    assert out["status"] == "updated" and out["revision"] == 2
    assert mw.get("t1")["records"][0]["fact"]["text"] == "back"


def test_reads_of_a_tenant_that_never_wrote(mw: Client) -> None:
    assert mw.get("x", touch=True)["missing_ids"] == ["x"]
    assert mw.history()["records"] == []
    assert mw.search("anything")["hits"] == []
    assert list(mw.export()) == []


def test_put_takes_record_documents_as_decoded(mw: Client) -> None:
    # A record read from a file carries its specversion; the request carries it instead.
    doc = memorywire.json.decode(memorywire.json.encode(fact("doc-1", "read from a file", specversion="1.0")))
    assert doc["specversion"] == "1.0"
    assert mw.put([doc])["results"][0]["status"] == "created"
    with pytest.raises(memorywire.MemorywireError) as info:  # refused before it is sent
        mw.put([dict(doc, id="doc-2", specversion="2.0")])
    assert info.value.pointer == "/items/0/record/specversion"


def test_import_takes_record_documents_as_decoded(mw: Client) -> None:
    docs = [memorywire.json.decode(memorywire.json.encode(fact(f"doc-{i}", "read from a file",
                                                              specversion="1.0"))) for i in range(3)]
    assert mw.import_(docs)["imported"] == 3
    assert [r["id"] for r in mw.get(["doc-0", "doc-1", "doc-2"])["records"]] == ["doc-0", "doc-1", "doc-2"]
    with pytest.raises(memorywire.MemorywireError) as info:  # refused before it is sent
        mw.import_([dict(docs[0], id="doc-9", specversion="2.0")])
    assert info.value.pointer == "/records/0/specversion"


def test_nul_and_backslashes_in_keys_scopes_and_routing_are_kept_exactly(mw: Client) -> None:
    # PostgreSQL's text holds no NUL: the store must still keep and find them.
    odd = ["a\x00", "a\\0", "a\\", "a\\\\x00", "\x00\\"]
    for i, s in enumerate(odd):
        mw.put(fact(f"k{i}", f"text {i}", key=s, scope={"user": s, "namespace": [s, "n"]},
                    routing={"agent": s}))
    for i, s in enumerate(odd):
        got = mw.get(f"k{i}")["records"][0]
        assert (got["key"], got["scope"]["user"], got["routing"]["agent"]) == (s, s, s)
        found = mw.search(f"text {i}", scope={"user": s, "namespace": [s]})["hits"]
        assert [h["record"]["id"] for h in found] == [f"k{i}"]
        again = mw.put(fact("other", "x", key=s, scope={"user": s, "namespace": [s, "n"]}))
        assert again["results"][0] == {"id": f"k{i}", "status": "updated", "sequence": i + 1, "revision": 2}


def test_one_batch_that_writes_a_record_twice_sees_its_own_writes(mw: Client) -> None:
    mw.put(fact("old", "before", key="k0"))
    out = mw.put([fact("d", "one"), fact("d", "two"), fact("e", "x", key="k1"), fact("f", "y", key="k1"),
                  fact("old", "after", key="k0"), fact("d", "two")])
    assert [(x["id"], x["status"], x["revision"]) for x in out["results"]] == [
        ("d", "created", 1), ("d", "updated", 2), ("e", "created", 1), ("e", "updated", 2),
        ("old", "updated", 2), ("d", "unchanged", 2)]
    got = {x["id"]: x for x in mw.get(["d", "e", "old"])["records"]}
    assert got["d"]["fact"]["text"] == "two" and got["e"]["fact"]["text"] == "y"
    assert [x["id"] for x in mw.history()["records"]] == ["old", "d", "e"]
