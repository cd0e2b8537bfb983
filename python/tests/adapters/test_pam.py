"""pam.memory_store: PAM 1.0 exports to memorywire and back exactly, and any
records to PAM documents (spec/v1/adapters/pam.md). The checks by PAM's own
SDK and `pam` command are test_pam_package.py (frameworks/)."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from harness import DATA, assert_exact, assert_round_trip, assert_service_round_trip, exact, load, through_encodings

import memorywire.json
from memorywire.adapters import FORMS, AdapterError
from memorywire.adapters import pam as pam_module
from memorywire.adapters._bridge import NO_TARGET_FIELD, SUBSTITUTED, LossReport
from memorywire.cli import run

PAM = FORMS["pam.memory_store"]
ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = DATA / "published" / "portable-ai-memory"
EXAMPLES = sorted((ROOT / "examples" / "v1" / "records").glob("*.json"))


def published() -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = load("pam.memory_store", "published_examples.json")["items"]
    return docs


def example_records() -> list[dict[str, Any]]:
    return [memorywire.json.decode(p.read_bytes()) for p in EXAMPLES]


def _canonical(records: list[dict[str, Any]]) -> list[bytes]:
    return sorted(memorywire.json.encode(r) for r in records)


def _at(doc: Any, pointer: str) -> Any:
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def test_the_published_examples_come_back_exactly_in_member_order() -> None:
    docs = published()
    assert [d["schema"] for d in docs] == [pam_module.STORE, pam_module.CONVERSATION, pam_module.EMBEDDINGS]
    assert_round_trip(PAM, docs, ordered=True)
    assert_round_trip(PAM, docs, ordered=True, user="u-1", session="s-1")


def test_two_exports_brought_into_one_store_keep_apart() -> None:
    """Headers are named by their owner and conversation, not by their
    place: a second owner's export, whose store and conversation come at the
    same places, takes none of the first one's identifiers."""
    first = published()
    second = copy.deepcopy(first)
    second[0]["owner"]["id"] = "someone-else"
    second[0].pop("export_id", None)  # an export's own id names its header
    second[1]["id"] = "another-conversation"
    for doc in second[0].get("conversations_index", []):
        doc["id"] = "another-conversation"
    ids = [{r["id"] for r in PAM.to_records(docs) if r["kind"] == "custom"} for docs in (first, second)]
    assert len(ids[0]) == len(ids[1]) >= 2
    assert not ids[0] & ids[1]
    assert ids[0] == {r["id"] for r in PAM.to_records(published()) if r["kind"] == "custom"}  # stable


def test_the_published_examples_through_the_service(service: Any) -> None:
    assert_service_round_trip(service(), PAM, published(), ordered=True)


def test_the_neutral_fields_of_the_published_examples() -> None:
    records = PAM.to_records(published())
    by_id = {r["id"]: r for r in records}
    header = records[0]
    assert header["kind"] == "custom" and header["custom"]["type"] == "pam.memory_store"
    assert header["id"] == "e47ac10b-58cc-4372-a567-0e02b2c3d479"  # the export_id
    mem = by_id["mem-001-identity"]
    assert mem["kind"] == "fact" and mem["fact"]["text"].startswith("User is fluent in multiple languages")
    assert mem["extensions"] == {"pam.type": "identity"}
    assert mem["created_at"] == "2024-06-01T10:00:00Z" and mem["updated_at"] == "2026-02-15T20:00:00Z"
    assert mem["tags"] == ["identity", "language", "technical"]
    assert mem["metadata"] == {"domain": "personal", "language": "en"}
    assert mem["scope"] == {"user": "550e8400-e29b-41d4-a716-446655440000"}
    # The embedding of embeddings.json, as the record's vector (binary32).
    assert mem["embeddings"][0]["model"] == "example-model-8d" and mem["embeddings"][0]["dimensions"] == 8
    # A relation is a link of its source memory.
    assert by_id["mem-002-skill"]["links"] == [{"type": "references", "target": "mem-005-environment"}]
    messages = [r for r in records if r["kind"] == "message"]
    assert [m["message"]["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["links"] == [{"type": "responds_to", "target": messages[0]["id"]}]
    assert all(m["scope"] == {"user": "550e8400-e29b-41d4-a716-446655440000", "session": "conv-001"}
               for m in messages)


def test_content_hash_and_integrity_are_pams_own() -> None:
    store = published()[0]
    for mem in store["memories"]:
        assert pam_module.content_hash(mem["content"]) == mem["content_hash"]
    assert pam_module.content_hash("  Hello\t\tWORLD ") == pam_module.content_hash("hello world")
    # The examples' declared checksum is not the one of their memories
    # (PAM's own validator says so too): it is kept as it is.
    assert pam_module.integrity_checksum(store["memories"]) != store["integrity"]["checksum"]
    assert PAM.from_records(PAM.to_records([store]))[0]["integrity"] == store["integrity"]


def test_an_edited_record_gets_a_new_content_hash_and_checksum() -> None:
    store = copy.deepcopy(published()[0])
    store["integrity"]["checksum"] = pam_module.integrity_checksum(store["memories"])
    records = PAM.to_records([store])
    records[1]["fact"]["text"] = "User speaks Portuguese."
    back = PAM.from_records(records)[0]
    assert back["memories"][0]["content"] == "User speaks Portuguese."
    assert back["memories"][0]["content_hash"] == pam_module.content_hash("User speaks Portuguese.")
    assert back["integrity"]["checksum"] == pam_module.integrity_checksum(back["memories"])
    assert back["integrity"]["checksum"] != store["integrity"]["checksum"]


@pytest.mark.parametrize(("value", "text"), [
    (1.0, "1"), (-0.0, "0"), (0.5, "0.5"), (1e21, "1e+21"), (1e-7, "1e-7"), (123456789012.5, "123456789012.5"),
    (0.000001, "0.000001"), (2**53, "9007199254740992"), (5e-324, "5e-324"), (1.7976931348623157e308,
                                                                              "1.7976931348623157e+308")])
def test_jcs_numbers_are_ecmascripts(value: float, text: str) -> None:
    assert pam_module.jcs(value) == text


def test_jcs_sorts_by_utf16_and_escapes_only_what_it_must() -> None:
    assert pam_module.jcs({"\U0001f600": 1, "\uffff": 2, "a": [True, None, "é\n\u001f"]}) == \
        '{"a":[true,null,"é\\n\\u001f"],"\U0001f600":1,"\uffff":2}'


def test_memorywire_examples_to_pam_and_back() -> None:
    records = example_records()
    assert len(records) == len(EXAMPLES) >= 15
    docs, report = PAM.from_records_reporting(records)
    assert [d["schema"] for d in docs] == [pam_module.STORE, pam_module.CONVERSATION, pam_module.CONVERSATION]
    memories = docs[0]["memories"]
    assert len(memories) + sum(len(d["messages"]) for d in docs[1:]) == len(records)
    assert docs[0]["integrity"] == {"canonicalization": "RFC8785",
                                    "checksum": pam_module.integrity_checksum(memories),
                                    "total_memories": len(memories)}
    # Back to records: the same records (ordered by their sequence).
    assert _canonical(PAM.to_records(docs)) == _canonical(records)
    # And through every encoding, the same documents.
    back = PAM.to_records(docs)
    for name, decoded in through_encodings(back).items():
        found = exact(PAM.from_records(decoded), docs, ordered=True)
        assert found is None, f"{name}: {found}"


def test_the_loss_report_names_every_member_and_where_it_is_kept() -> None:
    records = example_records()
    docs, report = PAM.from_records_reporting(records)
    assert isinstance(report, LossReport) and report.records == len(records)
    assert report.entries and not report.lost
    by_id = {r["id"]: r for r in records}
    listed = sorted(records, key=lambda r: r["sequence"]) \
        if all(type(r.get("sequence")) is int for r in records) else records
    ordered = PAM.from_records(records)
    assert ordered == docs
    for entry in report.entries:
        kept = _at(docs, entry.kept)
        assert isinstance(kept, dict) and set(kept) <= {"$set", "$patch", "$absent"}
        record = by_id[entry.id]
        if entry.change == "set":
            _at(record, entry.pointer)  # the member is the record's
        assert entry.reason == (NO_TARGET_FIELD if entry.change == "set" else SUBSTITUTED)
        assert listed[entry.record]["id"] == entry.id  # the index counts the records as written
    # One member: the summary's covers, kept in the memory's metadata.
    summary = next(e for e in report.entries if e.pointer == "/summary/covers")
    assert summary.kept.endswith("/metadata/memorywire")
    assert report.to_json()["entries"][0] == report.entries[0].to_json()
    assert set(report.to_json()) == {"form", "records", "entries"}


def test_records_without_scope_or_time_make_valid_documents() -> None:
    records = [{"specversion": "1.0", "id": "f1", "kind": "fact",
                "fact": {"text": "Likes tea", "category": "preference", "subject": "user"}, "tags": ["Drinks"]},
               {"specversion": "1.0", "id": "m1", "kind": "message",
                "message": {"role": "developer", "content": [{"text": {"text": "Be brief."}}]}}]
    docs, report = PAM.from_records_reporting(records)
    mem = docs[0]["memories"][0]
    assert mem["type"] == "preference" and mem["content"] == "Likes tea" and mem["tags"] == []
    assert mem["temporal"] == {"created_at": pam_module.NO_TIME}
    assert docs[0]["owner"] == {"id": pam_module.ANONYMOUS}
    assert docs[1]["id"] == "default" and docs[1]["messages"][0]["role"] == "system"
    pointers = {(e.id, e.pointer, e.change) for e in report.entries}
    assert {("f1", "/fact/subject", "set"), ("f1", "/tags", "set"), ("f1", "/created_at", "absent"),
            ("m1", "/message/role", "set"), ("m1", "/scope", "absent")} <= pointers
    assert PAM.to_records(docs) == records


def test_bundle_files_and_the_command_line(tmp_path: Path) -> None:
    bundle = tmp_path / "bundle"
    (bundle / "conversations").mkdir(parents=True)
    docs = published()
    (bundle / "memory-store.json").write_text(json.dumps(docs[0]), "utf-8")
    (bundle / "conversations" / "conv-001.json").write_text(json.dumps(docs[1]), "utf-8")
    (bundle / "embeddings.json").write_text(json.dumps(docs[2]), "utf-8")
    assert pam_module.read_bundle(bundle) == docs
    out, err = io.BytesIO(), io.StringIO()
    assert run(["adapt", "--from", "pam.memory_store", str(bundle), "-o", str(tmp_path / "r.jsonl")],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    back = tmp_path / "back"
    loss = tmp_path / "loss.json"
    assert run(["adapt", str(tmp_path / "r.jsonl"), "--to-form", "pam.memory_store", "-o", f"{back}/",
                "--loss-report", str(loss)], stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    for name in ("memory-store.json", "conversations/conv-001.json", "embeddings.json"):
        assert_exact(json.loads((back / name).read_text("utf-8")), json.loads((bundle / name).read_text("utf-8")),
                     ordered=True)
    assert json.loads(loss.read_text("utf-8")) == {"form": "pam.memory_store", "records": 10, "entries": []}


def test_the_loss_report_on_the_command_line(tmp_path: Path) -> None:
    stream = tmp_path / "examples.jsonl"
    stream.write_bytes(b"".join(memorywire.json.encode(r) + b"\n" for r in example_records()))
    out, err = io.BytesIO(), io.StringIO()
    loss = tmp_path / "loss.json"
    assert run(["adapt", str(stream), "--to-form", "pam.memory_store", "--loss-report", str(loss)],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    docs = json.loads(out.getvalue())
    assert docs == PAM.from_records(example_records())
    assert json.loads(loss.read_text("utf-8")) == PAM.from_records_reporting(example_records())[1].to_json()
    # Every form writes one: a framework form's is what does not come back when read again.
    lc = FORMS["langchain.messages_to_dict"]
    messages = [r for r in example_records() if r["kind"] == "message"]
    stream.write_bytes(b"".join(memorywire.json.encode(r) + b"\n" for r in messages))
    out = io.BytesIO()
    assert run(["adapt", str(stream), "--to-form", lc.name, "--loss-report", str(loss)],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    report = lc.from_records_reporting(messages)[1]
    assert json.loads(loss.read_text("utf-8")) == report.to_json() and report.lost == report.entries
    status = run(["adapt", "--from", lc.name, str(stream), "--loss-report", str(loss)],
                 stdin=io.BytesIO(), stdout=out, stderr=err)
    assert status == 2 and "--loss-report goes with --to-form" in err.getvalue()


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    ([[]], "/0", "TYPE_MISMATCH"),
    ([{"schema": "portable-ai-memory-x"}], "/0/schema", "UNSUPPORTED_ITEM"),
    ([{"schema": "portable-ai-memory", "memories": {}}], "/0/memories", "MISSING_MEMBER"),
    ([{"schema": "portable-ai-memory", "memories": [1]}], "/0/memories/0", "TYPE_MISMATCH"),
    ([{"schema": "portable-ai-memory-conversation", "messages": ["x"]}], "/0/messages/0", "TYPE_MISMATCH"),
    ([{"schema": "portable-ai-memory-embeddings"}], "/0/embeddings", "MISSING_MEMBER"),
])
def test_errors_point_into_the_items(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        PAM.to_records(items)
    assert e.value.violations[0].pointer == pointer and e.value.violations[0].reason == reason


def test_bundle_file_names_stay_inside_the_bundle() -> None:
    store = {"schema": pam_module.STORE, "conversations_index": [
        {"id": "c", "storage": {"type": "file", "ref": "../../etc/passwd.json"}}], "memories": []}
    conv = {"schema": pam_module.CONVERSATION, "id": "c", "messages": []}
    with pytest.raises(AdapterError) as e:
        pam_module.bundle_files([store, conv])
    assert e.value.violations[0].pointer == "/1" and e.value.reason == "NOT_REPRESENTABLE"


def test_the_comparison_can_fail() -> None:
    docs = published()
    records = PAM.to_records(docs)
    records[1]["native"]["record"]["$set"]["summary"] = "changed"
    assert exact(PAM.from_records(records), docs) is not None


def test_a_missing_bundle_is_a_usage_error(tmp_path: Path) -> None:
    out, err = io.BytesIO(), io.StringIO()
    missing = tmp_path / "no-bundle"
    assert run(["adapt", "--from", "pam.memory_store", str(missing), "-o", str(tmp_path / "r.jsonl")],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 2
    assert f"cannot read {missing}" in err.getvalue() and not (tmp_path / "r.jsonl").exists()
