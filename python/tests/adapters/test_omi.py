"""The OMI-AI forms: the published example and the examples of memorywire,
each way exactly, and what the OMI-AI schemas require of the documents
memorywire writes (spec/v1/adapters/omi.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, load, through_encodings

from memorywire import _timestamp
from memorywire.adapters import FORMS, AdapterError
from memorywire.adapters.omi import EXT, FORMAT

ROOT = Path(__file__).resolve().parents[3]
DOCUMENT = FORMS["omi.document"]
LINES = FORMS["omi.jsonl"]


def _examples() -> list[dict[str, Any]]:
    """The record examples of memorywire, in their order of sequence."""
    found = [json.loads(p.read_text("utf-8")) for p in sorted((ROOT / "examples" / "v1" / "records").glob("*.json"))]
    assert len(found) >= 15
    return sorted(found, key=lambda r: r["sequence"])


def _published(form: str) -> list[Any]:
    items: list[Any] = load(form, "published_example.json")["items"]
    return items


def test_the_published_example_goes_to_records_and_back_exactly() -> None:
    doc = _published("omi.document")
    records = assert_round_trip(DOCUMENT, doc, ordered=True)
    fact = records[1]
    assert fact["id"] == "01JZ0WFR4K2Q6N7S8T9V0ABCDF" and fact["kind"] == "fact"
    assert fact["fact"] == {"text": "Freddy prefers direct critical pushback."}
    assert fact["created_at"] == "2026-05-01T09:02:11Z"
    assert fact["lifecycle"] == {"confidence": 0.96} and fact["tags"] == ["communication", "preference"]
    assert fact["scope"] == {"user": "user-123"}  # the envelope's subject
    assert records[0]["custom"]["type"] == "omi.envelope"


def test_the_published_example_as_lines_goes_to_records_and_back_exactly() -> None:
    assert_round_trip(LINES, _published("omi.jsonl"), ordered=True)


@pytest.mark.parametrize("form", [DOCUMENT, LINES], ids=lambda f: f.name)
def test_the_examples_of_memorywire_go_to_omi_and_back_exactly(form: Any) -> None:
    records = _examples()
    items = form.from_records(records)
    text = json.dumps(items, ensure_ascii=False)  # what a file holds
    back = form.to_records(json.loads(text))
    assert_exact(back, records)
    for name, decoded in through_encodings(back).items():
        assert_exact(form.to_records(json.loads(json.dumps(form.from_records(decoded)))), records), name
    assert form.from_records_reporting(records)[1].entries == []


def _check_floor(doc: dict[str, Any], lines: bool = False) -> None:
    """What the OMI-AI 0.1 schemas page states of L0 and L1 (the schemas
    themselves could not be had here): the envelope's format, version and
    memories; each memory's id, content and created (L0); its type and an
    effective subject (L1); ids unique in a file; RFC 3339 times."""
    assert doc["format"] == FORMAT and type(doc["version"]) is str
    assert lines or type(doc["memories"]) is list
    ids = [m["id"] for m in doc.get("memories", [])]
    assert len(ids) == len(set(ids))
    for m in doc.get("memories", []):
        assert type(m["id"]) is str and m["id"]
        assert type(m["content"]) is str and m["content"].strip()
        _timestamp.parse(m["created"])
        assert type(m["type"]) is str and m["type"] in ("semantic", "episodic", "procedural")
        assert "subject" in doc or type(m.get("subject", {}).get("id")) is str, m["id"]
        assert type(m["ext"]) is dict and EXT in m["ext"]


def test_what_memorywire_writes_meets_the_floor_and_l1() -> None:
    records = [r for r in _examples() if r.get("scope", {}).get("user")]
    assert len(records) >= 10
    doc, = DOCUMENT.from_records(records)
    _check_floor(doc)
    header, *memories = LINES.from_records(records)
    _check_floor({**header, "memories": memories}, lines=True)
    assert header["serialization"] == "jsonl" and doc["serialization"] == "json"


def test_a_record_without_a_user_has_no_subject_and_meets_l0() -> None:
    records = [r for r in _examples() if not r.get("scope", {}).get("user")]
    assert records, "an example without a user"
    doc, = DOCUMENT.from_records(records)
    for m in doc["memories"]:
        assert "subject" not in m and m["id"] and m["content"] and m["created"]


def test_a_record_without_a_time_keeps_its_absence() -> None:
    record = next(r for r in _examples() if "created_at" not in r)
    doc, = DOCUMENT.from_records([record])
    memory = doc["memories"][0]
    assert memory["created"] == record.get("updated_at", "1970-01-01T00:00:00Z")
    assert "created_at" not in memory["ext"][EXT]["record"]
    assert_exact(DOCUMENT.to_records([doc]), [record])


def test_an_edited_memory_is_read_from_its_floor() -> None:
    records = _examples()
    doc, = DOCUMENT.from_records(records)
    edited = copy.deepcopy(doc)
    edited["memories"][0]["content"] = "Edited in another tool."
    back = DOCUMENT.to_records([edited])
    assert back[0]["kind"] == "fact" and back[0]["fact"] == {"text": "Edited in another tool."}
    assert back[0]["id"] == records[0]["id"]
    assert_exact(back[1:], records[1:])
    assert_exact(DOCUMENT.from_records(back), [edited], ordered=True)


def test_several_documents_and_empty_ones_keep_their_boundaries() -> None:
    doc = _published("omi.document")[0]
    empty = {"format": FORMAT, "version": "0.1", "serialization": "json", "memories": []}
    items = [empty, doc, dict(doc, generator="other/2")]
    records = assert_round_trip(DOCUMENT, [dict(d, memories=[dict(m, id=f"{m['id']}-{i}") for m in d["memories"]])
                                           for i, d in enumerate(items)])
    assert sum(r["kind"] == "custom" for r in records) == 3
    assert DOCUMENT.to_records([]) == [] and DOCUMENT.from_records([]) == []
    assert_round_trip(LINES, [{"format": FORMAT, "version": "0.1", "serialization": "jsonl"}])


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    ([{"version": "0.1", "memories": []}], "/0/format", "MISSING_MEMBER"),
    ([{"format": "omr", "version": "0.1", "memories": []}], "/0/format", "VALUE_OUT_OF_RANGE"),
    ([{"format": FORMAT, "version": 0.1, "memories": []}], "/0/version", "TYPE_MISMATCH"),
    ([{"format": FORMAT, "version": "0.1"}], "/0/memories", "MISSING_MEMBER"),
    ([{"format": FORMAT, "version": "0.1", "memories": [{"id": "a", "content": "x"}]}],
     "/0/memories/0/created", "MISSING_MEMBER"),
    ([{"format": FORMAT, "version": "0.1", "memories": [{"id": "a", "content": 3, "created": "2026-01-01"}]}],
     "/0/memories/0/content", "TYPE_MISMATCH"),
    ([{"format": FORMAT, "version": "0.1", "memories": [{"id": "a", "content": "x", "created": "yesterday"}]}],
     "/0/memories/0/created", "INVALID_TIMESTAMP"),
    ([{"format": FORMAT, "version": "0.1", "memories": ["x"]}], "/0/memories/0", "TYPE_MISMATCH"),
])
def test_bad_documents_are_refused_at_their_member(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        DOCUMENT.to_records(items)
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == (pointer, reason)


def test_lines_begin_with_a_header() -> None:
    memory = _published("omi.document")[0]["memories"][0]
    with pytest.raises(AdapterError) as e:
        LINES.to_records([memory])
    assert e.value.violations[0].pointer == "/0/format"
    with pytest.raises(AdapterError) as e:
        LINES.to_records([_published("omi.document")[0]])
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == ("/0/memories", "UNSUPPORTED_ITEM")


def test_through_the_reference_service(service: Callable[[], Any]) -> None:
    assert_service_round_trip(service(), DOCUMENT, _published("omi.document"), ordered=True)
    assert_service_round_trip(service(), LINES, _published("omi.jsonl"), ordered=True)


def _cli(*argv: str, stdin: bytes = b"") -> tuple[int, bytes, str]:
    import io

    from memorywire.cli import run

    out, err = io.BytesIO(), io.StringIO()
    status = run(list(argv), stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_the_command_line_reads_and_writes_omi_files_as_they_are(tmp_path: Path) -> None:
    import memorywire.json

    records = _examples()
    stream = b"".join(memorywire.json.encode(r) + b"\n" for r in records)
    status, doc, err = _cli("adapt", "-", "--to-form", "omi.document", stdin=stream)
    assert status == 0, err
    assert json.loads(doc)["format"] == FORMAT  # the document itself, not a list of one
    status, lines, err = _cli("adapt", "-", "--to-form", "omi.jsonl", stdin=stream)
    assert status == 0, err
    assert [json.loads(line) for line in lines.splitlines()] == LINES.from_records(records)
    for form, text in (("omi.document", doc), ("omi.jsonl", lines + b"\n\n")):
        path = tmp_path / "in"
        path.write_bytes(text)
        status, out, err = _cli("adapt", "--from", form, str(path))
        assert status == 0, err
        assert_exact([memorywire.json.decode(line) for line in out.splitlines()], records)
    status, out, err = _cli("adapt", "--from", "omi.jsonl", "-", stdin=b'{"format": "x"}\n{')
    assert status == 1 and "line 2 is not JSON" in err and out == b""
