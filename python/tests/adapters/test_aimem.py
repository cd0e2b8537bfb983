"""The AIMEM Bundle form: the conformance corpus of the draft's reference
implementation each way exactly, its invalid bundles refused where they
are wrong, and the record examples of memorywire as bundles with what they
cannot carry listed (spec/v1/adapters/aimem.md)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import DATA, assert_exact, assert_round_trip, assert_service_round_trip, load

from memorywire.adapters import FORMS, AdapterError
from memorywire.adapters._bridge import NO_TARGET_FIELD, SUBSTITUTED, jcs
from memorywire.adapters.aimem import PRODUCER, checksum, content_hash

ROOT = Path(__file__).resolve().parents[3]
BUNDLE = FORMS["aimem.bundle"]
CORPUS: list[dict[str, Any]] = load("aimem.bundle", "conformance_corpus.json")["items"]
INVALID = DATA / "aimem.bundle" / "invalid"


def _examples() -> list[dict[str, Any]]:
    found = [json.loads(p.read_text("utf-8")) for p in sorted((ROOT / "examples" / "v1" / "records").glob("*.json"))]
    return sorted(found, key=lambda r: r["sequence"])


def test_the_corpus_is_there() -> None:
    assert len(CORPUS) == 14 and len(list(INVALID.glob("*.json"))) == 14


@pytest.mark.parametrize("position", range(14))
def test_every_bundle_of_the_corpus_goes_to_records_and_back_exactly(position: int) -> None:
    bundle = CORPUS[position]
    assert checksum(bundle) == bundle["checksum"]  # RFC 8785 as the reference implementation computes it
    records = assert_round_trip(BUNDLE, [bundle])
    assert records[0]["custom"]["type"] == "aimem.envelope"
    assert [r["fact"]["text"] for r in records[1:]] == [c["content"] for c in bundle["chunks"]]


def test_the_corpus_through_the_reference_service(service: Callable[[], Any]) -> None:
    for bundle in CORPUS:
        if len(bundle["chunks"]) <= 20:
            assert_service_round_trip(service(), BUNDLE, [bundle])


def test_a_chunk_is_a_fact() -> None:
    bundle = next(b for b in CORPUS if any(c.get("embedding") for c in b["chunks"]))
    chunk = bundle["chunks"][0]
    record = BUNDLE.to_records([bundle])[1]
    assert record["id"] == chunk["id"] and record["created_at"] == chunk["created_at"]
    assert record["fact"] == {"text": chunk["content"], "category": "fact"}
    assert record["embeddings"] == [{"model": "conformance-fake-v1", "dimensions": 4, "field": "/fact/text",
                                     "values": [0.10000000149011612, 0.20000000298023224, -0.30000001192092896,
                                                0.4000000059604645]}]
    assert record["native"]["record"] == {"is_pinned": False, "tags": []}  # what memorywire cannot tell apart
    pinned = next(b for b in CORPUS if any(c.get("is_pinned") for c in b["chunks"]))
    assert BUNDLE.to_records([pinned])[1]["lifecycle"] == {"pinned": True}


EXPECTED = {
    "bad_chunk_urn.json": ("/0/chunks/0/id", "PATTERN_MISMATCH"),
    "bad_content_hash.json": ("/0/chunks/0/content_hash", "DATA_LOSS"),
    "bad_memory_type.json": ("/0/chunks/0/memory_type", "VALUE_OUT_OF_RANGE"),
    "bad_producer_uppercase.json": ("/0/producer", "PATTERN_MISMATCH"),
    "bad_scope.json": ("/0/scope", "VALUE_OUT_OF_RANGE"),
    "checksum_mismatch.json": ("/0/checksum", "DATA_LOSS"),
    "duplicate_chunk_id.json": ("/0/chunks/1/id", "RECORD_EXISTS"),
    "edge_target_unknown.json": ("/0/edges/0/target_id", "VALUE_OUT_OF_RANGE"),
    "edge_weight_too_high.json": ("/0/edges/0/weight", "VALUE_OUT_OF_RANGE"),
    "embedding_without_envelope.json": ("/0/chunks/0/embedding", "MISSING_MEMBER"),
    "missing_format.json": ("/0/format", "MISSING_MEMBER"),
    "since_missing.json": ("/0/since", "MISSING_MEMBER"),
    "wrong_format.json": ("/0/format", "VALUE_OUT_OF_RANGE"),
    "wrong_version.json": ("/0/version", "UNSUPPORTED_VERSION"),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_invalid_bundle_of_the_corpus_is_refused_where_it_is_wrong(name: str) -> None:
    bundle = json.loads((INVALID / name).read_text("utf-8"))
    with pytest.raises(AdapterError) as e:
        BUNDLE.to_records([bundle])
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == EXPECTED[name]


@pytest.mark.parametrize(("value", "text"), [
    # RFC 8785 §3.2.2.3 and Appendix B.
    (0.0, "0"), (-0.0, "0"), (1e21, "1e+21"), (1e-7, "1e-7"), (333333333.33333329, "333333333.3333333"),
    (4.5, "4.5"), (0.002, "0.002"), (1e+30, "1e+30"), (5e-324, "5e-324"), (-1.7976931348623157e+308,
                                                                            "-1.7976931348623157e+308"),
    (9007199254740992.0, "9007199254740992"), (295147905179352830000.0, "295147905179352830000"),
    (1.0, "1"), (100.0, "100"), (0.000001, "0.000001"), (123456789012345680000.0, "123456789012345680000"),
])
def test_jcs_writes_numbers_as_ecmascript_does(value: float, text: str) -> None:
    assert jcs(value) == text


def test_jcs_sorts_members_by_utf16_code_units() -> None:
    # RFC 8785 §3.2.3: U+1F600 (surrogates D83D DE00) sorts before U+FB33.
    assert jcs({"\ufb33": 1, "\U0001f600": 2, "a": [True, None, "\u000f\n\"é"]}) == \
        '{"a":[true,null,"\\u000f\\n\\"é"],"\U0001f600":2,"\ufb33":1}'


def test_the_examples_of_memorywire_as_bundles() -> None:
    records = _examples()
    bundles = BUNDLE.from_records(records)
    users = {r.get("scope", {}).get("user") for r in records}
    assert len(bundles) == len(users)  # one tenant per bundle
    for bundle in bundles:
        assert bundle["producer"] == PRODUCER and bundle["checksum"] == checksum(bundle)
        for chunk in bundle["chunks"]:
            assert chunk["content_hash"] == content_hash(chunk["content"]) and chunk["content"]
    # Every bundle is one this Consumer takes (the draft's Consumer rules).
    back = BUNDLE.to_records(json.loads(json.dumps(bundles)))
    by_id = {r["id"]: r for r in back}
    assert {r["id"] for r in records} <= set(by_id)
    fact = next(r for r in records if r["kind"] == "fact" and r.get("tags"))
    kept = by_id[fact["id"]]
    assert kept["fact"]["text"] == fact["fact"]["text"] and kept["tags"] == fact["tags"]
    assert kept["created_at"] == fact["created_at"] and kept["scope"]["user"] == fact["scope"]["user"]
    assert kept["embeddings"][0]["values"] == fact["embeddings"][0]["values"]


def _without(doc: Any, pointers: list[str]) -> Any:
    """``doc`` without the members at ``pointers``."""
    out = json.loads(json.dumps(doc))
    for pointer in sorted(pointers, key=len, reverse=True):
        *path, last = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
        node = out
        for token in path:
            node = node[token]
        node.pop(last, None)
    return out


def _like(doc: Any, shape: Any) -> Any:
    """The members of ``doc`` that ``shape`` has, at every depth: what the
    target adds is no loss."""
    if type(doc) is dict and type(shape) is dict:
        return {k: _like(v, shape[k]) for k, v in doc.items() if k in shape}
    return doc


def test_what_a_bundle_cannot_carry_is_listed_record_by_record() -> None:
    records = _examples()
    bundles, report = BUNDLE.from_records_reporting(records)
    assert bundles == BUNDLE.from_records(records) and report.form == "aimem.bundle"
    assert report.records == len(records)
    # A bundle has no extension point for another producer's records: every entry is lost.
    found = report.lost
    assert found == report.entries
    assert {x.id for x in found} == {r["id"] for r in records}
    assert all(records[x.record]["id"] == x.id for x in found)
    back = {r["id"]: r for r in BUNDLE.to_records(bundles)}
    for record in records:
        lost = [x.pointer for x in found if x.id == record["id"]]
        # What is not listed came back exactly; what is listed did not.
        assert_exact(_without(record, lost), _without(_like(back[record["id"]], record), lost))
        message = next((x for x in found if x.id == record["id"] and x.pointer == "/message"), None)
        if record["kind"] == "message":
            assert message is not None and message.reason == NO_TARGET_FIELD and message.change == "set"
    assert FORMS["omi.document"].from_records_reporting(records)[1].entries == []


def test_records_without_an_envelope_get_memorywire_chunk_ids_back() -> None:
    record = {"specversion": "1.0", "id": "mem:01 é/x", "kind": "fact", "created_at": "2026-03-01T10:00:00Z",
              "scope": {"user": "u 1"}, "fact": {"text": "Prefers tea.", "category": "preference"}}
    bundle, = BUNDLE.from_records([record])
    chunk = bundle["chunks"][0]
    assert chunk["id"] == "urn:aimem:memorywire:mem%3A01%20%C3%A9%2Fx" and chunk["memory_type"] == "preference"
    assert bundle["tenant_id"] == "urn:memorywire:user:u%201"
    back = BUNDLE.to_records([bundle])[1]
    assert back["id"] == record["id"] and back["scope"] == {"user": "u 1"} and back["fact"] == record["fact"]


def test_a_time_the_bundle_requires_is_reported_when_the_record_lacks_it() -> None:
    record = next(r for r in _examples() if "created_at" not in r)
    found = [x for x in BUNDLE.from_records_reporting([record])[1].entries if x.pointer == "/created_at"]
    assert [(x.change, x.kept, x.reason) for x in found] == [("absent", None, SUBSTITUTED)]


def test_the_command_line_writes_a_bundle_and_its_loss_report(tmp_path: Path) -> None:
    import io

    import memorywire.json
    from memorywire.cli import run

    records = [r for r in _examples() if r.get("scope", {}).get("user") == "u-4821"]
    stream = b"".join(memorywire.json.encode(r) + b"\n" for r in records)
    out, err = io.BytesIO(), io.StringIO()
    report = tmp_path / "lost.json"
    status = run(["adapt", "-", "--to-form", "aimem.bundle", "--loss-report", str(report)],
                 stdin=io.BytesIO(stream), stdout=out, stderr=err)
    assert status == 0, err.getvalue()
    bundle = json.loads(out.getvalue())
    assert bundle["checksum"] == checksum(bundle) and bundle["tenant_id"] == "urn:memorywire:user:u-4821"
    decoded = [memorywire.json.decode(line) for line in stream.splitlines()]
    assert json.loads(report.read_text("utf-8")) == BUNDLE.from_records_reporting(decoded)[1].to_json()
    path = tmp_path / "brain.aimem.json"
    path.write_bytes(out.getvalue())
    out = io.BytesIO()
    assert run(["adapt", "--from", "aimem.bundle", str(path)], stdin=io.BytesIO(), stdout=out, stderr=err) == 0
    back = [memorywire.json.decode(line) for line in out.getvalue().splitlines()]
    assert {r["id"] for r in records} <= {r["id"] for r in back}
