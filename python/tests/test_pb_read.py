"""The compiled Protobuf reader (memorywire._wire.compiled_reader) against
the path of upb and from_proto.

The reader only accepts what a writer of the messages writes in one way:
every document must decode to the same value, type for type and member for
member, or fail with the same error, with and without it; and it must
serve the documents the service and the codec decode most.
"""

from __future__ import annotations

import json
import struct
from typing import Any

import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_fast import BASE, RICH

import memorywire.protobuf as mp
from memorywire import _codec, _compiled
from memorywire.errors import MemorywireError

RECORD = "memorywire.v1.MemoryRecord"
PUT = "memorywire.v1.PutRequest"
SEARCH = "memorywire.v1.SearchRequest"

def _exact(tree: Any) -> Any:
    """The tree with the type of every node, members in order; floats by
    their bits (0.0 and -0.0 differ)."""
    t = type(tree)
    if t is dict:
        return ("dict", [(k, _exact(v)) for k, v in tree.items()])
    if t is list or t is _codec.Float32Values:
        return (t.__name__, [_exact(v) for v in tree], getattr(tree, "raw", None))
    if t is float:
        return ("float", struct.pack("<d", tree))
    if t is _codec.Float32Bytes:
        return ("Float32Bytes", bytes(tree))
    return (t.__name__, tree)


def _decoders(type_name: str) -> tuple[mp.Decoder, mp.Decoder]:
    """A decoder with the compiled reader and one without it."""
    assert _compiled.pb_read is not None, "the extension is built where the tests run"
    compiled, upb = mp.Decoder(type_name), mp.Decoder(type_name)
    upb._read = None
    assert compiled._read is not None
    return compiled, upb


def _outcome(decoder: mp.Decoder, data: bytes, binary: bool) -> Any:
    try:
        if binary:
            doc, walk = decoder.decode_walk_binary_vectors(data)
        else:
            doc, walk = decoder.decode_walk(data)
    except MemorywireError as e:
        return ("error", type(e).__name__, e.reason, [(v.pointer, v.reason) for v in e.violations])
    return ("ok", _exact(doc), list(walk.unknown), walk.parsed is None)


def _same(type_name: str, data: bytes) -> None:
    compiled, upb = _decoders(type_name)
    for binary in (False, True):
        assert _outcome(compiled, data, binary) == _outcome(upb, data, binary)


def _served(type_name: str, data: bytes) -> dict[str, Any]:
    """The compiled reader's document of data, which it must serve."""
    compiled, _upb = _decoders(type_name)
    assert compiled._read is not None
    doc = compiled._read(data, False, 32)
    assert doc is not None
    return doc


RECORD_DOC = {**json.loads(RICH), "provenance": {"origin": "user", "content_hash": "sha256:" + "0" * 64}}
PUT_DOC = {"specversion": "1.0", "operation_id": "op-1", "atomic": True, "items": [
    {"record": {k: v for k, v in RECORD_DOC.items() if k != "specversion"}, "expected_revision": 2},
    {"record": {"id": "f1", "kind": "fact", "fact": {"text": "A fact."}, "tags": ["a", "b"],
                "embeddings": [{"model": "m", "dimensions": 3, "values": [0.5, -0.0, 2.0**-140]}]}},
]}
SEARCH_DOC = {"specversion": "1.0", "operation_id": "op-2", "text": "seat", "limit": 5,
              "vector": {"model": "m", "values": [0.25, -1.5]},
              "filter": {"compare": {"field": "/metadata/a", "operator": "gt", "value": -3}}}


#: Values at the edges of their types, and fields of explicit presence at
#: their default, which the document keeps.
EDGES = [
    (RECORD, {**BASE, "lifecycle": {"importance": -0.0, "confidence": 0.0}, "sequence": 2**53 - 1}),
    (RECORD, {**BASE, "metadata": {"n": -(2**63), "p": 2**63 - 1, "z": -0.0, "e": "", "l": [], "m": {},
                                   "u": "\u00e9\U0001f600", "t": True, "f": False}}),
    (RECORD, {**BASE, "created_at": "0001-01-01T00:00:00Z", "updated_at": "9999-12-31T23:59:59.999999999Z"}),
    (RECORD, {**BASE, "message": {"role": "user", "content": [{"image": {"data": "AAEC"}}]}}),
    (PUT, {**PUT_DOC, "items": [{**PUT_DOC["items"][1], "expected_revision": 0}]}),
    (SEARCH, {**SEARCH_DOC, "min_score": 0.0, "fusion": {"rrf_k": 1, "text_weight": 0.0}}),
    (SEARCH, {**SEARCH_DOC, "min_score": -0.0}),
    ("memorywire.v1.SearchResponse", {"specversion": "1.0", "operation_id": "o", "hits": [
        {"record": {"id": "a", "kind": "fact", "fact": {"text": "t"}}, "score": -0.0},
        {"record": {"id": "b", "kind": "fact", "fact": {"text": "t"}}, "score": 0.5}]}),
]


def test_defaults_written_out_are_left_out() -> None:
    """Fields of implicit presence written at their default (false, +0.0)
    are left out, as upb leaves them; -0.0 is not a default."""
    put = {k: v for k, v in PUT_DOC.items() if k != "atomic"}
    data = mp.encode(put, type=PUT) + _field(5, 0, b"\x00") + _field(6, 0, b"\x00")
    assert _served(PUT, data) == put
    _same(PUT, data)
    hit = {"record": {"id": "a", "kind": "fact", "fact": {"text": "t"}}}
    response = mp.encode({"specversion": "1.0", "operation_id": "o", "hits": [hit]},
                         type="memorywire.v1.SearchResponse")
    number = mp.Decoder("memorywire.v1.SearchResponse")._info.fields["hits"].number
    encoded_hit = mp.encode(hit, type="memorywire.v1.SearchHit")
    for score, kept in ((0.0, False), (-0.0, True)):
        data = response.replace(_field(number, 2, encoded_hit),
                                _field(number, 2, encoded_hit + _field(2, 1, struct.pack("<d", score))))
        got = _served("memorywire.v1.SearchResponse", data)["hits"][0]
        assert ("score" in got) is kept
        _same("memorywire.v1.SearchResponse", data)


@pytest.mark.parametrize(("type_name", "doc"), [(RECORD, BASE), (RECORD, RECORD_DOC), (PUT, PUT_DOC),
                                                (SEARCH, SEARCH_DOC), *EDGES])
def test_the_reader_serves_what_writers_write(type_name: str, doc: dict[str, Any]) -> None:
    data = mp.encode(doc, type=type_name)
    assert _served(type_name, data) == mp.Decoder(type_name).decode(data) == doc
    _same(type_name, data)


def test_the_reader_keeps_types_and_defaults() -> None:
    data = mp.encode(PUT_DOC, type=PUT)
    got = _served(PUT, data)
    fact = got["items"][1]["record"]
    values = fact["embeddings"][0]["values"]
    assert type(values) is _codec.Float32Values and values.raw == struct.pack("<3f", 0.5, -0.0, 2.0**-140)
    assert fact["tags"] == ["a", "b"] and got["atomic"] is True
    assert type(got["items"][0]["expected_revision"]) is int
    compiled, _upb = _decoders(PUT)
    doc, _walk = compiled.decode_walk_binary_vectors(data)
    assert type(doc["items"][1]["record"]["embeddings"][0]["values"]) is _codec.Float32Bytes


def _field(number: int, wire: int, payload: bytes) -> bytes:
    tag = number << 3 | wire
    out = bytearray()
    for value in ((tag,) if wire != 2 else (tag, len(payload))):
        while value > 0x7F:
            out.append(value & 0x7F | 0x80)
            value >>= 7
        out.append(value)
    return bytes(out) + payload


def _with_metadata(*entries: tuple[bytes, bytes]) -> bytes:
    """A record whose metadata entries (key, Value bytes) are written as given."""
    head = mp.encode({"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}}, type=RECORD)
    number = mp.Decoder(RECORD)._info.fields["metadata"].number
    return head + b"".join(_field(number, 2, _field(1, 2, k) + _field(2, 2, v)) for k, v in entries)


#: Bytes that are Protobuf but not as a writer writes them, or not a
#: document at all: the reader leaves each to upb, which merges, reorders
#: or names the fault.
ODD = [
    mp.encode(BASE, type=RECORD) + _field(2, 2, b"r2"),  # merged: the id twice
    mp.encode(BASE, type=RECORD)[5:] + _field(1, 2, b"1.0"),  # the specversion last
    mp.encode(BASE, type=RECORD) + mp.encode(BASE, type=RECORD),  # merged: twice the whole
    mp.encode(BASE, type=RECORD) + _field(900, 0, b"\x01"),  # an unknown field
    mp.encode(BASE, type=RECORD) + _field(2, 0, b"\x01"),  # a string field as a varint
    mp.encode(BASE, type=RECORD)[:-1],
    _with_metadata((b"a", _field(4, 1, struct.pack("<d", 0.5)))),  # served
    _with_metadata((b"a", _field(4, 1, struct.pack("<d", float("inf"))))),
    _with_metadata((b"a", _field(6, 2, _field(1, 2, _field(4, 1, struct.pack("<d", float("nan"))))))),
    _with_metadata((b"a", _field(3, 0, b"\x01")), (b"a", _field(3, 0, b"\x02"))),  # a key twice
    _with_metadata((b"a", _field(7, 2, _field(1, 2, _field(1, 2, b"k") + _field(2, 2, _field(2, 0, b"\x01")))
                                  + _field(1, 2, _field(1, 2, b"k") + _field(2, 2, _field(2, 0, b"\x00")))))),
    _with_metadata((b"a", _field(1, 0, b"\x01"))),  # a NullValue other than NULL_VALUE
    _with_metadata((b"a", b"")),  # a Value of no kind
    _with_metadata((b"a", _field(2, 0, b"\x01") + _field(3, 0, b"\x02"))),  # two kinds: upb keeps the last
    # Two members of the payload oneof, in field-number order: upb keeps the last.
    mp.encode({"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}}, type=RECORD)
    + _field(14, 2, b""),
    mp.encode(BASE, type=RECORD) + b"\x80",
    _field(1, 2, b"1.1") + mp.encode(BASE, type=RECORD)[5:] + _field(900, 0, b"\x01"),  # a newer minor
    _field(1, 2, b"1.1") + mp.encode(BASE, type=RECORD)[5:],
    _field(1, 2, b"2.0") + mp.encode(BASE, type=RECORD)[5:],
    mp.encode({**BASE, "tags": ["x"]}, type=RECORD).replace(b"\x01x", b"\x01\xff"),  # not UTF-8
    mp.encode({**BASE, "metadata": {"a": "é"}}, type=RECORD).replace("é".encode(), b"\xed\xa0"),
]


@pytest.mark.parametrize("data", ODD, ids=range(len(ODD)))
def test_odd_bytes_decode_alike(data: bytes) -> None:
    _same(RECORD, data)


def _embedding_bytes(values: bytes, packed: bool = True, dimensions: int = 2) -> bytes:
    """A record with one embedding, its last field, whose values field is
    written as given (packed: as one field of these bytes)."""
    embedding = mp.Decoder("memorywire.v1.Embedding")._info.fields
    number = embedding["values"].number
    body = (_field(embedding["model"].number, 2, b"m") + _field(embedding["dimensions"].number, 0, bytes([dimensions]))
            + (_field(number, 2, values) if packed else values))
    head = mp.encode({"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "t"}}, type=RECORD)
    return head + _field(mp.Decoder(RECORD)._info.fields["embeddings"].number, 2, body)


@pytest.mark.parametrize("values", [
    struct.pack("<2f", 0.5, 1.0),
    b"",  # empty: upb leaves the field out
    struct.pack("<2f", 0.5, float("inf")),
    struct.pack("<2f", float("nan"), 1.0),
    b"\x00\x00\x80",  # not a multiple of 4
])
def test_vectors_decode_alike(values: bytes) -> None:
    _same(RECORD, _embedding_bytes(values))
    if values == struct.pack("<2f", 0.5, 1.0):
        assert _served(RECORD, _embedding_bytes(values))["embeddings"][0]["values"] == [0.5, 1.0]


def test_unpacked_and_split_vectors_decode_alike() -> None:
    unpacked = b"".join(_field(3, 5, struct.pack("<f", x)) for x in (0.5, 1.0))
    _same(RECORD, _embedding_bytes(unpacked, packed=False))
    split = _field(3, 2, struct.pack("<f", 0.5)) + _field(3, 2, struct.pack("<f", 1.0))
    _same(RECORD, _embedding_bytes(split, packed=False))


def _mutations(data: bytes, draw: Any) -> bytes:
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        if not out:
            break
        at = draw(st.integers(0, len(out) - 1))
        action = draw(st.sampled_from(["flip", "delete", "repeat", "insert", "cut"]))
        if action == "flip":
            out[at] ^= 1 << draw(st.integers(0, 7))
        elif action == "delete":
            del out[at:at + draw(st.integers(1, 8))]
        elif action == "repeat":
            out[at:at] = out[at:at + draw(st.integers(1, 12))]
        elif action == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=6))
        else:
            del out[at:]
    return bytes(out)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_mutated_documents_decode_alike(data: st.DataObject) -> None:
    type_name, doc = data.draw(st.sampled_from([(RECORD, BASE), (RECORD, RECORD_DOC), (PUT, PUT_DOC),
                                                (SEARCH, SEARCH_DOC)]))
    _same(type_name, _mutations(mp.encode(doc, type=type_name), data.draw))


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_generated_documents_decode_alike(data: st.DataObject) -> None:
    type_name = data.draw(st.sampled_from([RECORD, PUT, SEARCH]))
    doc = data.draw(S.documents(type_name))
    try:
        encoded = mp.encode(doc, type=type_name)
    except MemorywireError:
        return
    _same(type_name, encoded)
    assert _served(type_name, encoded) == mp.Decoder(type_name).decode(encoded)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.binary(max_size=200))
def test_random_bytes_decode_alike(data: bytes) -> None:
    _same(RECORD, data)
    _same(RECORD, mp.encode(BASE, type=RECORD) + data)


@pytest.mark.parametrize("levels", [3, 29, 31, 40, 200])
def test_nesting_beyond_the_limit_decodes_alike(levels: int) -> None:
    _same(RECORD, _deep_bytes(levels))


def _deep_bytes(levels: int) -> bytes:
    """A record whose metadata holds a list nested ``levels`` deep, written
    field by field (the encoder refuses what is too deep)."""
    value = _field(5, 2, b"leaf")  # string_value
    for _ in range(levels):
        value = _field(6, 2, _field(1, 2, value))  # list_value { values: value }
    entry = _field(1, 2, b"deep") + _field(2, 2, value)
    head = mp.encode({**BASE, "metadata": {}}, type=RECORD)
    number = mp.Decoder(RECORD)._info.fields["metadata"].number
    return head + _field(number, 2, entry)
