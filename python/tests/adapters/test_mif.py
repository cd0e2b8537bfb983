"""The MIF form: the published examples of the MIF specification and the
record examples of memorywire each way exactly, and what memorywire writes
accepted by MIF's own validators (mif-tools) (spec/v1/adapters/mif.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mif
import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, load, through_encodings

from memorywire.adapters import FORMS, AdapterError
from memorywire.adapters.mif import VENDOR, mif_id

ROOT = Path(__file__).resolve().parents[3]
DOCUMENT = FORMS["mif.document"]
PUBLISHED: list[dict[str, Any]] = load("mif.document", "published_examples.json")["items"]


def _examples() -> list[dict[str, Any]]:
    found = [json.loads(p.read_text("utf-8")) for p in sorted((ROOT / "examples" / "v1" / "records").glob("*.json"))]
    return sorted(found, key=lambda r: r["sequence"])


@pytest.mark.parametrize("position", range(2))
def test_the_published_examples_go_to_records_and_back_exactly(position: int) -> None:
    doc = PUBLISHED[position]
    records = assert_round_trip(DOCUMENT, [doc])
    back, = DOCUMENT.from_records(records)
    # The members in the published order (vendor extensions are free-form).
    assert list(back) == list(doc)
    for got, want in zip(back["memories"], doc["memories"], strict=True):
        assert list(got) == list(want)
        for key, value in want.items():
            if type(value) is dict:
                assert list(got[key]) == list(value), key
    facts = [r for r in records if r["kind"] == "fact"]
    assert [r["id"] for r in facts] == [m["id"] for m in doc["memories"]]
    assert [r["fact"]["text"] for r in facts] == [m["content"] for m in doc["memories"]]


def test_a_memory_of_the_full_example() -> None:
    records = DOCUMENT.to_records([PUBLISHED[0]])
    first = records[1]
    assert first["scope"] == {"user": "developer-1", "session": "session-42"}
    assert first["tags"] == ["preferences", "ui"] and first["metadata"] == {"importance": 0.85, "access_count": 12}
    # 384 dimensions announced, 3 values given: the embedding stays as it is, in the residue.
    assert "embeddings" not in first and first["native"]["record"]["embeddings"]["dimensions"] == 384
    assert records[2]["scope"]["agent"] == "claude-code-prod"


def test_the_published_examples_through_the_reference_service(service: Callable[[], Any]) -> None:
    for doc in PUBLISHED:
        assert_service_round_trip(service(), DOCUMENT, [doc])


def test_the_examples_of_memorywire_go_to_mif_and_back_exactly() -> None:
    records = _examples()
    docs = DOCUMENT.from_records(records)
    back = DOCUMENT.to_records(json.loads(json.dumps(docs)))
    assert_exact(back, records)
    for name, decoded in through_encodings(back).items():
        assert_exact(DOCUMENT.to_records(json.loads(json.dumps(DOCUMENT.from_records(decoded)))), records), name
    assert DOCUMENT.from_records_reporting(records)[1].entries == []


def test_what_memorywire_writes_passes_the_validators_of_mif() -> None:
    records = _examples()
    doc, = DOCUMENT.from_records(records)
    text = json.dumps(doc, ensure_ascii=False)
    assert mif.validate(text) == (True, [])  # the mif-v2 JSON Schema, with jsonschema
    assert mif.validate_deep(text) == (True, [])  # UUIDs, uniqueness, references, times, dimensions
    assert len(mif.load(text).memories) == len(records)  # MIF's own reader
    ids = {m["id"] for m in doc["memories"]}
    assert set(doc["vendor_extensions"][VENDOR]["records"]) == ids
    for memory, record in zip(doc["memories"], records, strict=True):
        assert memory["id"] == mif_id(record["id"])
        assert memory.get("external_id", record["id"]) == record["id"]


def test_the_validators_of_mif_can_fail() -> None:
    doc, = DOCUMENT.from_records(_examples())
    broken = copy.deepcopy(doc)
    broken["memories"][1]["id"] = broken["memories"][0]["id"]
    assert mif.validate_deep(json.dumps(broken))[0] is False
    del broken["memories"][0]["created_at"]
    assert mif.validate(json.dumps(broken))[0] is False


def test_an_edited_memory_is_read_from_its_own_fields() -> None:
    records = _examples()
    doc, = DOCUMENT.from_records(records)
    edited = copy.deepcopy(doc)
    edited["memories"][0]["content"] = "Edited in another tool."
    back = DOCUMENT.to_records([edited])
    assert back[0]["kind"] == "custom"  # the envelope keeps the stale kept record
    fact = back[1]
    assert fact["kind"] == "fact" and fact["fact"] == {"text": "Edited in another tool."}
    assert_exact(back[2:], records[1:])
    assert_exact(DOCUMENT.from_records(back), [edited])


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    ([{"memories": []}], "/0/mif_version", "MISSING_MEMBER"),
    ([{"mif_version": "1.0", "memories": []}], "/0/mif_version", "UNSUPPORTED_VERSION"),
    ([{"mif_version": "2.0"}], "/0/memories", "MISSING_MEMBER"),
    ([{"mif_version": "2.0", "memories": [{"id": "a", "content": "x"}]}], "/0/memories/0/created_at",
     "MISSING_MEMBER"),
    ([{"mif_version": "2.0", "memories": [{"id": "a", "content": "x", "created_at": "soon"}]}],
     "/0/memories/0/created_at", "INVALID_TIMESTAMP"),
    (["x"], "/0", "TYPE_MISMATCH"),
])
def test_bad_documents_are_refused_at_their_member(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        DOCUMENT.to_records(items)
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == (pointer, reason)
