"""The typed fast path (memorywire._fast) against the walkers alone.

The fast path only accepts: every document must decode to the same value,
or fail with the same error, with and without it. The walkers' path is also
what runs with MEMORYWIRE_PURE=1 in the environment; test_conformance_suite.py
runs the whole suite on it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import msgpack
import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_binary_vectors import values_of

import memorywire.json as mj
import memorywire.msgpack as mm
from memorywire import _fast, _speedups
from memorywire.errors import MemorywireError

RECORD = "memorywire.v1.MemoryRecord"
BASE: dict[str, Any] = {
    "specversion": "1.0", "id": "r1", "kind": "message", "created_at": "2026-05-09T10:00:00.123Z",
    "message": {"role": "user", "content": [{"text": {"text": "hello"}}]},
    "metadata": {"a": [1, 2.5, None, {"b": "c"}]}, "tags": ["x"],
}


def _decoders(module: Any, type_name: str) -> tuple[Any, Any]:
    """A decoder with the fast path and one without it."""
    fast = module.Decoder(type_name)
    saved = _fast.ENABLED
    _fast.ENABLED = False
    try:
        _fast._decoders.clear()
        pure = module.Decoder(type_name)
    finally:
        _fast.ENABLED = saved
        _fast._decoders.clear()
    assert pure._fast is None
    return fast, pure


def _outcome(decoder: Any, data: bytes, *, binary_vectors: bool = False) -> Any:
    try:
        if binary_vectors:
            doc, walk = decoder.decode_walk_binary_vectors(data)
            doc = values_of(doc)
        else:
            doc, walk = decoder.decode_walk(data)
    except MemorywireError as e:
        return ("error", type(e).__name__, e.reason, [(v.pointer, v.reason) for v in e.violations])
    # Members in order: both paths give them in the order of the bytes.
    return ("ok", json.dumps(doc, default=repr), list(walk.unknown))


def _same(module: Any, type_name: str, data: bytes) -> None:
    fast, pure = _decoders(module, type_name)
    expected = _outcome(pure, data)
    assert _outcome(fast, data) == expected
    if module is mm:
        # Vectors left as their bytes (what convert between binary encodings reads) hold
        # the same values, and every other outcome is the same.
        assert _outcome(fast, data, binary_vectors=True) == expected


def test_the_fast_path_serves_records() -> None:
    fast, pure = _decoders(mj, RECORD)
    assert fast._fast is not None
    assert fast._fast(json.dumps(BASE, separators=(",", ":")).encode()) == BASE
    fast, pure = _decoders(mm, RECORD)
    assert fast._fast is not None
    assert fast._fast(mm.encode(BASE)) == BASE


def _text(doc: Any) -> bytes:
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


#: A record of more than 15 members, with timestamps of whole milliseconds
#: and microseconds and a float32 vector.
RICH = _text({**BASE, "updated_at": "0001-01-01T00:00:00.100Z", "key": "k", "scope": {"tenant": "t"},
              "sequence": 3, "revision": 2, "routing": {"agent": "a"},
              "links": [{"type": "references", "target": "r0"}],
              "lifecycle": {"importance": 0.5, "last_accessed_at": "2026-05-09T10:00:00.999999Z"},
              "provenance": {"origin": "user"},
              "embeddings": [{"values": [0.5, -0.25], "dimensions": 2, "model": "m"}],
              "extensions": {"com.example.x": {"y": [1, "z"]}}})
VECTOR = _text({**BASE, "embeddings": [{"values": [0.5, 1], "dimensions": 2, "model": "m"}]})
INTEGER_IN_FLOAT = _text({**BASE, "lifecycle": {"importance": 1, "confidence": 0.5}})

CASES = [
    _text(BASE),
    json.dumps(BASE, indent=2).encode(),
    _text(BASE)[:-1] + b',"id":"r2"}',  # a repeated member
    _text(BASE).replace(b'"id":"r1"', b'"id" : "r1","id":"r2"'),  # spaced, then repeated
    _text(BASE).replace(b'"a":[', b'"a":[-0,'),
    _text({**BASE, "specversion": "1.1", "novel": 1}),
    _text({**BASE, "specversion": "2.0"}),
    _text({**BASE, "created_at": "2024-02-29T00:00:00Z"}),
    _text({**BASE, "created_at": "2023-02-29T00:00:00Z"}),
    _text({**BASE, "created_at": "2023-04-31T00:00:00Z"}),
    _text({**BASE, "created_at": "0000-01-01T00:00:00Z"}),
    _text({**BASE, "novel": 1}),
    _text({**BASE, "key": None}),
    _text({**BASE, "sequence": 1.0}),
    _text({**BASE, "sequence": True}),
    _text({**BASE, "sequence": 2**53}),
    _text({**BASE, "metadata": {"big": 2**63}}),
    _text({**BASE, "metadata": {"big": 1e19}}),
    _text({**BASE, "metadata": {"deep": json.loads("[" * 40 + "]" * 40)}}),
    _text({**BASE, "fact": {"text": "two payloads"}}),
    _text({**BASE, "kind": "fact"}),
    _text({**BASE, "lifecycle": {"status": "deleted"}}),
    _text({**BASE, "message": {"role": "user", "content": [{}]}}),
    _text({**BASE, "message": {"role": "user", "content": [{"image": {"mime_type": "image/png"}}]}}),
    _text({**BASE, "message": {"role": "user", "name": "x" * 257}}),
    _text({**BASE, "embeddings": [{"values": [0.5, 1], "dimensions": 3}]}),
    _text({**BASE, "embeddings": [{"values": [0.5, 1e39]}]}),
    _text({**BASE, "tags": ["x@"]}).replace(b"x@", b"x\\ud800"),
    _text({**BASE, "tags": ['a\\']}),
    # Control characters in an identifier, escaped, raw (DEL) or beside a
    # string that may hold them.
    _text({**BASE, "id": "r\x01"}),
    _text({**BASE, "id": "r\x7f"}),
    _text({**BASE, "id": "r\n"}),
    _text({**BASE, "id": "r\x7f", "tags": ["x\n"]}),
    _text({**BASE, "id": "r\u2028", "tags": ["x\x7f"]}),
    _text({**BASE, "tags": ['a":b']}),
    # Integers, -0.0 and the token -0 in float fields: the walkers keep an
    # integer token as it is, and read -0 there as -0.0.
    INTEGER_IN_FLOAT,
    _text({**BASE, "lifecycle": {"importance": -0.0, "confidence": 0}}),
    _text({**BASE, "lifecycle": {"importance": 0}}).replace(b'"importance":0', b'"importance":-0'),
    _text({**BASE, "embeddings": [{"values": [0.5, 1, -0.0, 7], "dimensions": 4}]}),
    _text({**BASE, "embeddings": [{"values": [0.5, 12345678901234567890123]}]}),
    _text({**BASE, "embeddings": [{"values": [0.5, 9223372036854775807]}]}),
    # Vectors, which the fast path does not write back: integers, -0.0, 0 and the
    # token -0, whitespace, a repeated member beside one, a vector that is
    # not a list of numbers, counts at and beyond the limit.
    _text({**BASE, "embeddings": [{"values": [0, -0.0, 1, -1, 0.0, -0.5e-3, 1E2], "dimensions": 7}]}),
    VECTOR.replace(b"[0.5,1]", b"[-0,-0.0]"),
    VECTOR.replace(b"[0.5,1]", b"[ -0.5 ,\n1 ]"),
    VECTOR.replace(b'"values"', b'"dimensions":2,"values"'),
    VECTOR.replace(b'"values":[0.5,1]', b'"values":[0.5],"values":[1,2]'),
    _text({**BASE, "embeddings": [{"values": {"a:b": 1}}]}),
    _text({**BASE, "embeddings": [{"values": [[0.5], 1]}]}),
    _text({**BASE, "embeddings": [{"values": ["0.5", 1]}]}),
    _text({**BASE, "embeddings": [{"values": 0.5}]}),
    _text({**BASE, "embeddings": [{"values": None}]}),
    _text({**BASE, "embeddings": [{"values": []}]}),
    _text({**BASE, "embeddings": [{"values": [True, 1]}]}),
    _text({**BASE, "embeddings": [{"values": [0.5, 3.5e38]}]}),
    _text({**BASE, "embeddings": [{"values": [0.25] * 65536, "dimensions": 65536}]}),
    _text({**BASE, "embeddings": [{"values": [0.25] * 65537}]}),
    _text({**BASE, "embeddings": [{"values": [0.5, -1], "dimensions": 2}, {"values": [1], "dimensions": 2}]}),
    # Colons in strings, a repeated member, and a colon written as an escape.
    _text({**BASE, "tags": ["a:b", "c:d"], "key": "x:y"})[:-1] + b',"key":"z"}',
    _text({**BASE, "tags": ["a:b"]}).replace(b'"a:b"', b'"a\\u003ab"'),
    _text({**BASE, "tags": ["a:b"]}).replace(b'"a:b"', b'"a\\u003Ab\\u003a"')[:-1] + b',"key":"z","key":"y"}',
    _text({**BASE, "metadata": {"a": 1, "b": {"c": 2}}}).replace(b'"c":2', b'"c":2,"c":3'),
    # A key ending in an escaped backslash, which a count of member
    # separators cannot tell from an escaped quote, and an escaped quote
    # before a spaced colon, each beside a repeated member; an unknown member
    # in a nested object.
    _text({**BASE, "metadata": {"k\\": 1, "x": 1}}).replace(b'"x":1', b'"x":1,"x":2'),
    _text({**BASE, "metadata": {"k\\": 1, "x": 1}}),
    _text({**BASE, "tags": ['a" :b']})[:-1] + b',"key":"z","key":"y"}',
    json.dumps({**BASE, "tags": ['a" :b']}, indent=2).encode()[:-1] + b',"key" :\n "z","key"\t: "y"}',
    _text({**BASE, "scope": {"tenant": "t", "novel": {"x": 1}}}),
    # Timestamps of every precision; a record of more than 15 members.
    _text({**BASE, "updated_at": "2026-05-09T10:00:00.120Z", "lifecycle": {
        "last_accessed_at": "2026-05-09T10:00:00Z", "expires_at": "2026-05-09T10:00:00.000001Z",
        "deleted_at": "2026-05-09T10:00:00.123456789Z"}}),
    RICH,
    b'{"a":' * 2000 + b"1" + b"}" * 2000,
    b"[]",
    _text(BASE) + b"x",
]


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_json_cases_decode_alike(data: bytes) -> None:
    _same(mj, RECORD, data)


@pytest.mark.parametrize("data", CASES, ids=range(len(CASES)))
def test_msgpack_cases_decode_alike(data: bytes) -> None:
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        return
    try:
        packed = msgpack.packb(doc, use_bin_type=True)
    except (ValueError, OverflowError):  # a lone surrogate, an integer beyond 64 bits
        return
    _same(mm, RECORD, packed)
    if type(doc) is dict and "created_at" in doc:
        try:
            canonical = mm.encode(doc)
        except MemorywireError:
            return
        _same(mm, RECORD, canonical)
        _same(mm, RECORD, canonical[:1] + canonical[1:] + b"\xc0")
        # A repeated key: the header counts one entry more.
        _same(mm, RECORD, bytes([canonical[0] + 1]) + canonical[1:] + b"\xa2id\xa2r9")


def test_a_timestamp_string_in_messagepack_takes_the_walkers() -> None:
    doc = {**BASE, "created_at": "2026-05-09T10:00:00Z"}
    _same(mm, RECORD, msgpack.packb(doc, use_bin_type=True))
    packed = mm.encode(BASE)
    at = packed.index(b"\xaacreated_at") + 11
    # The timestamp extension (fixext 8 or ext 8 of 12 bytes) replaced by a string.
    end = at + (10 if packed[at] == 0xD7 else 15 if packed[at] == 0xC7 else 6)
    _same(mm, RECORD, packed[:at] + b"\xb42026-05-09T10:00:00Z" + packed[end:])


def test_records_in_a_request_decode_alike() -> None:
    """A record nested in a request: its MessagePack header is a map 16."""
    put = "memorywire.v1.PutRequest"
    request = {"specversion": "1.0", "operation_id": "op1",
               "items": [{"record": {k: v for k, v in BASE.items() if k != "specversion"}}]}
    _same(mm, put, mm.encode(request, type=put))
    _same(mj, put, _text(request))


def test_the_fast_path_serves_what_it_can_vouch_for() -> None:
    """Whitespace between tokens and escaped quotes and backslashes: the
    fast path reads them as the walkers do; a repeated or unknown member it
    leaves to the walkers."""
    spaced = json.dumps({**BASE, "tags": ['a" :b', "c\\"]}, indent=2).encode()
    fast, pure = _decoders(mj, RECORD)
    got = fast._fast(spaced)
    assert got is not None and got == pure.decode(spaced)
    fast, _pure = _decoders(mj, RECORD)
    for data in (spaced[:-1] + b',"id" : "r2"}', _text({**BASE, "scope": {"tenant": "t", "x": 1}})):
        assert fast._fast(data) is None
    fast, _pure = _decoders(mm, RECORD)
    raw = msgpack.unpackb(mm.encode(BASE), timestamp=0)
    for extra, served in (({}, True), ({"novel": 1}, False)):
        # The canonical bytes, and the same with an unknown key in its place.
        data = msgpack.packb(dict(sorted({**raw, **extra}.items())), use_bin_type=True)
        assert (fast._fast(data) is not None) is served


def test_the_fast_path_serves_rich_records() -> None:
    """Timestamps of whole milliseconds and microseconds, float32 vectors,
    integers in float fields, more than 15 members: the fast path reads
    them as the walkers do."""
    doc = json.loads(RICH)
    assert len(doc) > 15
    for module, data in ((mj, RICH), (mm, mm.encode(doc))):
        fast, pure = _decoders(module, RECORD)
        got = fast._fast(data)
        assert got is not None and got == doc
        assert _outcome(fast, data) == _outcome(pure, data)
    fast, _pure = _decoders(mj, RECORD)
    got = fast._fast(INTEGER_IN_FLOAT)
    assert got is not None and type(got["lifecycle"]["importance"]) is int


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_documents_decode_alike(data: st.DataObject) -> None:
    type_name = data.draw(st.sampled_from([RECORD, "memorywire.v1.PutRequest", "memorywire.v1.SearchRequest"]))
    doc = data.draw(S.documents(type_name))
    _same(mj, type_name, _text(doc))
    try:
        packed = mm.encode(doc, type=type_name)
    except MemorywireError:
        return
    _same(mm, type_name, packed)


def test_vectors_in_requests_decode_alike() -> None:
    """Vectors nested in requests: records in a PutRequest, the vector of a
    SearchRequest (a rule that spans the fields of a VectorQuery sends it to
    the walkers today); integers stay as they are."""
    put, search = "memorywire.v1.PutRequest", "memorywire.v1.SearchRequest"
    record = {k: v for k, v in json.loads(RICH).items() if k != "specversion"}
    record["embeddings"] = [{"values": [0.5, 1, -0.0, 0], "dimensions": 4, "model": "m"}]
    request = {"specversion": "1.0", "operation_id": "op1", "items": [{"record": record}, {"record": record}]}
    query = {"specversion": "1.0", "operation_id": "op1", "vector": {"model": "m", "values": [0.5, -2, 0, -0.0]}}
    for type_name, doc in ((put, request), (search, query)):
        fast, _pure = _decoders(mj, type_name)
        assert fast.decode(_text(doc)) == doc
        _same(mj, type_name, _text(doc))
        _same(mj, type_name, json.dumps(doc, indent=1).encode())
    fast, _pure = _decoders(mj, search)
    got = fast.decode(_text(query))
    assert [type(x) for x in got["vector"]["values"]] == [float, int, int, float]
    assert math.copysign(1, got["vector"]["values"][3]) == -1
    for bad in ({"model": "m", "values": "0.5"}, {"model": "m", "values": []}, {"model": "m", "values": [1e39]},
                {"model": "m", "values": [0.5], "novel": [1]}):
        _same(mj, search, _text({**query, "vector": bad}))
    repeated = _text(query).replace(b'"vector":{', b'"vector":{"values":[1],')
    _same(mj, search, repeated)


@pytest.mark.parametrize("module", [mj, mm])
@pytest.mark.parametrize(("type_name", "member"), [("memorywire.v1.PutRequest", "items"),
                                                   ("memorywire.v1.ImportRequest", "records")])
def test_batches_take_the_fast_path_within_their_limit(module: Any, type_name: str, member: str) -> None:
    """The types bound a batch by the limit on its records: a batch within
    it is the fast path's, one beyond it the walkers' (whose error names it),
    under the default limit and under a lower one."""
    from memorywire.limits import Limits

    record = {"id": "r1", "kind": "fact", "fact": {"text": "f"}}
    item: Any = {"record": record} if member == "items" else record
    low = Limits(max_batch_records=2)
    for limits, within in ((None, 1000), (low, 2)):
        fast = module.Decoder(type_name, limits=limits)
        assert fast._fast is not None
        for count in (within, within + 1):
            doc = {"specversion": "1.0", "operation_id": "op1", member: [item] * count}
            data = _text(doc) if module is mj else msgpack.packb(doc)
            assert (fast._fast(data) is not None) == (count == within)
            if count == within:
                assert fast.decode(data) == doc
            else:
                with pytest.raises(MemorywireError) as e:
                    fast.decode(data)
                # Beyond the cap of the field, its count; within it, the limit.
                reason = "COUNT_OUT_OF_RANGE" if count > 1000 else "TOO_MANY_ITEMS"
                assert (e.value.violations[0].pointer, e.value.reason) == (f"/{member}", reason)
        if limits is None:
            _same(module, type_name, data)


def _valid_documents() -> list[tuple[str, dict[str, Any]]]:
    """The valid documents of the conformance vectors given as JSON: (type, document)."""
    from pathlib import Path

    out = []
    for path in sorted((Path(__file__).resolve().parents[2] / "conformance" / "vectors" / "v1").glob("[A-Z]*.json")):
        for case in json.loads(path.read_text())["cases"]:
            text = case.get("inputs", {}).get("json", {}).get("text")
            if case.get("expected", {}).get("valid") and text is not None:
                out.append((case["type"], json.loads(text)))
    return out


@pytest.mark.parametrize("module", [mj, mm])
def test_a_document_without_its_version_takes_the_walkers(module: Any) -> None:
    """The valid documents of the conformance vectors, of every type the
    fast path serves that requires a specversion, each without it: the fast
    path leaves it to the walkers, which fail it at /specversion."""
    from memorywire import _model as m

    served = set()
    for type_name, doc in _valid_documents():
        field = m.message(type_name).fields.get("specversion")
        if field is None or not field.required or "specversion" not in doc:
            continue
        fast, pure = _decoders(module, type_name)
        if fast._fast is None:
            continue
        served.add(type_name)
        bare = {k: v for k, v in doc.items() if k != "specversion"}
        data = _text(bare) if module is mj else msgpack.packb(bare)
        assert fast._fast(data) is None, type_name
        assert _outcome(fast, data) == _outcome(pure, data)
    assert len(served) > 10


def test_the_fast_path_serves_vectors() -> None:
    """A record's vectors: integers stay integers, -0.0 keeps its sign,
    whitespace inside is read; a repeated member beside a vector, or a
    vector of another shape, goes to the walkers."""
    fast, pure = _decoders(mj, RECORD)
    values = [0.5, 1, -0.0, 0, -3, 2.5e-7]
    doc = {**BASE, "kind": "fact", "fact": {"text": "f"}, "message": None,
           "embeddings": [{"values": values, "dimensions": 6, "model": "m"},
                          {"values": [1.0], "dimensions": 1, "model": "n"}]}
    del doc["message"]
    for data in (_text(doc), json.dumps(doc, indent=3).encode()):
        got = fast._fast(data)
        assert got == doc and got == pure.decode(data)
        assert got is not None
        got_values = got["embeddings"][0]["values"]
        assert [type(x) for x in got_values] == [type(x) for x in values]
        assert math.copysign(1, got_values[2]) == -1 and math.copysign(1, got_values[3]) == 1
        assert type(got["embeddings"][1]["values"][0]) is float
    # The bytes and the decoded document hold as many members; a repeated
    # member leaves the document one short.
    text = _text(doc)
    assert _speedups.json_scan(text) == (_speedups.tree_counts(fast._fast.decode(text))[0], True) == (17, True)
    repeated = text.replace(b'"dimensions":6', b'"dimensions":6,"dimensions":6')
    assert _speedups.json_scan(repeated) == (_speedups.tree_counts(fast._fast.decode(repeated))[0] + 1, True)
    for data in (text.replace(b'"dimensions":6', b'"dimensions":6,"dimensions":6'),
                 text.replace(b'"values":[1.0],"dimensions":1', b'"values":[1.0],"values":[1.0],"dimensions":1'),
                 text.replace(b'"values":[1.0],"dimensions":1', b'"values":{"a:b":1},"dimensions":1'),
                 text.replace(b'"values":[1.0],"dimensions":1', b'"values":[[1.0]],"dimensions":1'),
                 text.replace(b'"dimensions":6', b'"dimensions":5')):
        assert data != text
        assert fast._fast(data) is None
        _same(mj, RECORD, data)


def _mutations(data: bytes, draw: Any) -> bytes:
    """The bytes with a few of them replaced, removed or repeated: in JSON
    mostly letters, digits and members, so that many stay documents."""
    out = bytearray(data)
    text = data[:1] == b"{"
    for _ in range(draw(st.integers(1, 3))):
        if not out:
            break
        at = draw(st.integers(0, len(out) - 1))
        action = draw(st.sampled_from(["set", "delete", "repeat"] + ["word", "word", "member"] * text))
        if action == "set":
            out[at] = draw(st.integers(0, 255))
        elif action == "delete":
            del out[at:at + draw(st.integers(1, 8))]
        elif action == "repeat":
            out[at:at] = out[at:at + draw(st.integers(1, 12))]
        elif action == "word" and chr(out[at]).isalnum():
            out[at] = draw(st.sampled_from(b"aekmxz0159-.E:\\"))
        elif action == "member" and b"," in out[at:]:
            # From a comma to the next: a member or an item, repeated.
            start = out.index(b",", at)
            end = out.find(b",", start + 1)
            if end > 0:
                out[start:start] = out[start:end]
    return bytes(out)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_documents_decode_alike(data: st.DataObject) -> None:
    """Bytes near valid documents (a byte changed, a run of bytes removed
    or repeated: a member repeated, a number or a quote cut): the fast path
    accepts only what the walkers accept, as they read it."""
    doc = data.draw(st.sampled_from([BASE, json.loads(RICH), json.loads(VECTOR)]))
    _same(mj, RECORD, _mutations(_text(doc), data.draw))
    _same(mm, RECORD, _mutations(mm.encode(doc), data.draw))


def test_the_identifier_pattern_comes_from_the_field_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The clean types leave out the pattern of identifiers: it is the one
    the tables give, and any other pattern than "no control
    character" is refused at import rather than left out."""
    import re

    from memorywire import _model as m

    f = m.message(RECORD).fields["id"]
    assert f.pattern is not None and _fast._no_control() == f.pattern.pattern == _fast._NO_CONTROL
    for stricter in (r"^[^\u0000-\u001f\u007f:]+\Z", r"^[^\u0000-\u001f]+\Z", r"^[a-z]+\Z"):
        monkeypatch.setattr(f, "pattern", re.compile(stricter))
        with pytest.raises(AssertionError, match="is not just"):
            _fast._no_control()


def test_every_prefix_decodes_alike() -> None:
    """Each prefix of a rich record, in both encodings, and the JSON text
    as str: the fast path accepts only what the walkers accept."""
    doc = json.loads(RICH)
    for module, data in ((mj, RICH), (mm, mm.encode(doc))):
        fast, pure = _decoders(module, RECORD)
        for end in range(len(data) + 1):
            assert _outcome(fast, data[:end]) == _outcome(pure, data[:end])
    fast, pure = _decoders(mj, RECORD)
    text = RICH.decode()
    for data in (text, text.replace('"k"', '"k\ud800"'), text.replace('"r1"', '"r1\\u0001"'), text[:-1]):
        assert _outcome(fast, data) == _outcome(pure, data)  # type: ignore[arg-type]
    assert fast._fast(text) == doc


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=300))
def test_random_bytes_decode_alike(data: bytes) -> None:
    _same(mj, RECORD, data)
    _same(mm, RECORD, data)
    _same(mj, RECORD, b'{"specversion":"1.0",' + data)
    _same(mm, RECORD, b"\x85\xabspecversion\xa31.0" + data)


def _payload(kind: str, payload: dict[str, Any]) -> bytes:
    doc = {k: v for k, v in BASE.items() if k != "message"}
    return _text({**doc, "kind": kind, kind: payload})


#: The tests of rules that span fields, met and not.
SPANNING = [
    _payload("tool_result", {"call_id": "c", "output": "o"}),
    _payload("tool_result", {"call_id": "c", "output_parts": [{"text": {"text": "t"}}]}),
    _payload("tool_result", {"call_id": "c", "output": "o", "output_parts": [{"text": {"text": "t"}}]}),
    _payload("tool_result", {"call_id": "c", "output": "", "output_parts": []}),
    _payload("procedure", {"name": "p", "states": ["a", "b"], "initial_state": "a", "current_state": "b"}),
    _payload("procedure", {"name": "p", "states": ["a", "b"], "initial_state": "c"}),
    _payload("procedure", {"name": "p", "states": ["a"], "current_state": "c"}),
    _payload("procedure", {"name": "p", "initial_state": "c"}),
    _payload("procedure", {"name": "p", "states": ["a"], "initial_state": ""}),
    _text({**BASE, "message": {"role": "user", "content": [{"image": {"uri": "https://x.example/a.png"}}]}}),
    _text({**BASE, "message": {"role": "user", "content": [{"image": {"file_id": "f"}}]}}),
    _text({**BASE, "message": {"role": "user", "content": [{"image": {"data": "AAEC"}}]}}),
    _text({**BASE, "message": {"role": "user", "content": [{"image": {"uri": ""}}]}}),
    _text({**BASE, "message": {"role": "user", "content": [{"text": {"text": "a"}, "image": {"file_id": "f"}}]}}),
    _text({**BASE, "embeddings": [{"values": [0.5, 1], "dimensions": 2, "model": "m"}]}),
    _text({**BASE, "embeddings": [{"values": [0.5, 1], "dimensions": 1, "model": "m"}]}),
    _text({**BASE, "embeddings": [{"dimensions": 70000, "model": "m"}]}),
    _text({**BASE, "lifecycle": {"status": "active"}}),
]


@pytest.mark.parametrize("data", SPANNING, ids=range(len(SPANNING)))
def test_rules_that_span_fields_decode_alike(data: bytes) -> None:
    _same(mj, RECORD, data)
    doc = json.loads(data)
    _same(mm, RECORD, msgpack.packb(doc, use_bin_type=True))
    try:
        packed = mm.encode(doc)
    except MemorywireError:
        return
    _same(mm, RECORD, packed)


def test_the_tests_of_rules_that_span_fields_read_known_members(monkeypatch: pytest.MonkeyPatch) -> None:
    _fast._check_special_tests()
    for name, test in (("MediaPart", ("media", ("uri", "data", "file"))),
                       ("MemoryRecord", ("record", ("lifecycle", "status", "removed", "kind")))):
        monkeypatch.setitem(_fast._SPECIAL_TESTS, name, test)
        with pytest.raises(AssertionError, match="not all of which"):
            _fast._check_special_tests()
        monkeypatch.undo()
