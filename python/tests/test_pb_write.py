"""The Protobuf writer in C (memorywire._speedups.pb_write) against the writers
in Python.

It must write, byte for byte, what the walker pb_M of memorywire._compiled
and the upb writer of memorywire._encode write, for every document it
serves, and decline (None) every document it cannot serve, so that the
writers in Python write it: on the conformance vectors as each decoder
gives them back, on generated documents of every document type (and as the
JSON, MessagePack and Protobuf decoders give them back: base64 of bins,
timestamps, float32 vectors that keep their bytes), and on random trees.
"""

from __future__ import annotations

import gc
import struct
import sys
from typing import Any

import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_encode import DOCUMENTS, RECORD

import memorywire.json as mj
import memorywire.msgpack as mm
import memorywire.protobuf as mp
from memorywire import _codec, _compiled, _encode, _speedups, validation
from memorywire import _model as m
from memorywire.errors import MemorywireError

INFOS = m.reachable_infos()


def native(doc: Any, type_name: str) -> bytes | None:
    return _speedups.pb_write(_encode._NATIVE_INDEX[m.message(type_name).full_name], doc)


def agrees(doc: Any, type_name: str) -> bool:
    """Whether the writer in C served the document, with the bytes of the
    walker and of the upb writer; it fails where it wrote other bytes."""
    out = native(doc, type_name)
    if out is None:
        return False
    assert out == _compiled.function("pb", type_name)(doc)
    assert out == _encode.upb_writer(type_name)(doc)
    return True


def test_every_message_type_has_a_table() -> None:
    assert len(_encode._NATIVE_INDEX) == len(INFOS)
    for info in INFOS:
        kinds = [entry[2] for entry in _encode.native_tables(INFOS)[_encode._NATIVE_INDEX[info.full_name]]]
        assert len(kinds) == len(info.ordered)
        # The tables of v1 hold no field the writer in C leaves to Python.
        assert "unsupported" not in kinds, info.name


@pytest.mark.parametrize(("name", "type_name", "doc"), DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_the_writer_serves_every_vector(name: str, type_name: str, doc: Any) -> None:
    assert agrees(doc, type_name)


def test_the_vectors_hold_float32_vectors_read_from_protobuf() -> None:
    vectors = [doc for name, _, doc in DOCUMENTS if name.endswith("/protobuf")
               and any(type(e.get("values")) is _codec.Float32Values for e in doc.get("embeddings", []))]
    assert vectors and all(agrees(doc, RECORD) for doc in vectors)


GENERATED = settings(max_examples=12, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large])


@pytest.mark.parametrize("type_name", S.document_types(), ids=lambda t: t.rsplit(".", 1)[1])
def test_the_writer_agrees_on_generated_documents(type_name: str) -> None:
    counts = {"served": 0}

    @GENERATED
    @given(doc=S.documents(type_name))
    def agree(doc: dict[str, Any]) -> None:
        if validation.check(doc, type_name)[0]:
            return
        counts["served"] += agrees(doc, type_name)
        for module in (mj, mm, mp):
            back = module.decode(module.encode(doc, type=type_name), type=type_name)
            counts["served"] += agrees(back, type_name)

    agree()
    assert counts["served"] >= 4, counts


def test_every_reachable_message_type_is_written_by_a_document_type() -> None:
    """The generated documents of the document types reach every message type."""
    reached = {m.message(t).full_name for t in S.document_types()}
    todo = list(reached)
    while todo:
        for f in m.message(todo.pop()).ordered:
            if f.message is not None and f.message.full_name not in reached:
                reached.add(f.message.full_name)
                todo.append(f.message.full_name)
    assert reached == {info.full_name for info in INFOS}


def test_float32_vectors_round_as_struct_packs_them() -> None:
    largest = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
    values = [0.0, -0.0, 1, -3, 0.1, 1e-45, 1e-46, -1e-40, largest, -largest,
              3.4028235677973362e38, 2.0**-149, 0.3333333333333333, 16777217, 1.0000000596046448, 2**70]
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"},
           "created_at": "2026-01-01T00:00:00Z", "embeddings": [{"model": "m", "values": values}]}
    assert agrees(doc, RECORD)
    # Beyond the largest binary32, struct refuses the value: so does the writer.
    for bad in (3.5e38, -3.5e38, 2**200, True, "1", None):
        assert native({**doc, "embeddings": [{"model": "m", "values": [1.0, bad]}]}, RECORD) is None
    vector = _codec.Float32Values([1.5])
    vector.raw = b"\x00\x00\xc0\x3f"
    assert agrees({**doc, "embeddings": [{"model": "m", "values": vector}]}, RECORD)
    # A vector held as its bytes alone is written as they are; empty, not at all.
    for raw in (struct.pack("<3f", 1.5, -0.0, 2.0**-149), b""):
        held = {**doc, "embeddings": [{"model": "m", "values": _codec.Float32Bytes(raw)}]}
        assert agrees(held, RECORD)
        assert native(held, RECORD) == native({**doc, "embeddings": [
            {"model": "m", "values": list(struct.unpack(f"<{len(raw) // 4}f", raw))}]}, RECORD)


@pytest.mark.parametrize("stamp", [
    "0000-01-01T00:00:00Z", "0000-03-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z",
    "1970-01-01T00:00:00Z", "1970-01-01T00:00:00.1Z", "2024-02-29T12:00:00.123456789Z",
    "9999-12-31T23:59:59.999999999Z", "2026-02-30T00:00:00Z"])
def test_timestamps_are_read_as_the_walkers_read_them(stamp: str) -> None:
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}, "created_at": stamp,
           "lifecycle": {"importance": 0.5, "expires_at": stamp}}
    assert native(doc, RECORD) == _compiled.function("pb", RECORD)(doc)


@pytest.mark.parametrize("stamp", [
    "2026-01-01T00:00:00", "2026-01-01 00:00:00Z", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00.1234567890Z",
    "2026-13-01T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:00:00+00:00", "２026-01-01T00:00:00Z", ""])
def test_timestamps_of_other_spellings_are_declined(stamp: str) -> None:
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}, "created_at": stamp}
    assert native(doc, RECORD) is None


def test_base64_other_than_padded_standard_is_declined() -> None:
    type_name = "memorywire.v1.EncryptedPayload"
    assert m.message(type_name).fields["nonce"].kind == m.BYTES
    for text in ("AAA", "AA=A", "A===", "AA-_", "AA A", "AAAA\n", "=AAA", "AAé=", "AA=="[:3] + "\x00"):
        assert native({"nonce": text}, type_name) is None, text
    for text in ("", "AA==", "AAA=", "AAAA", "/+/+", "AB==", "AAB=", "QUJDRA=="):
        assert native({"nonce": text}, type_name) == _compiled.function("pb", type_name)({"nonce": text}), text


@pytest.mark.parametrize("score", [0.0, -0.0, 0, 1, 2**60, 1.5, -2.5e-308, 5e-324])
def test_doubles_without_presence_drop_only_positive_zero(score: Any) -> None:
    assert agrees({"id": "r", "score": score}, "memorywire.v1.SearchHit")
    out = native({"id": "r", "score": score}, "memorywire.v1.SearchHit")
    assert (b"\x11" in out) is (score != 0 or str(score) == "-0.0")


def test_a_lone_surrogate_is_declined_and_named_as_before() -> None:
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t\ud800"},
           "created_at": "2026-01-01T00:00:00Z"}
    assert native(doc, RECORD) is None
    with pytest.raises(MemorywireError) as e:
        mp.Encoder(RECORD).encode_valid(doc)
    assert e.value.reason == "INVALID_UNICODE"
    assert native({**doc, "metadata": {"k\udfff": 1}, "fact": {"text": "t"}}, RECORD) is None


# -- random input ------------------------------------------------------------

_scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.floats() | st.text(max_size=6)
            | st.sampled_from(["", "AA==", "2026-01-01T00:00:00Z", "fact", "\ud800", "1970-01-01T00:00:00.5Z"])
            | st.binary(max_size=8))
_trees = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(st.text(max_size=4) | st.integers(0, 3), inner, max_size=4),
                      max_leaves=20)


@st.composite
def _messages(draw: Any, info: m.MessageInfo, depth: int = 0) -> dict[Any, Any]:
    """Dicts whose members are mostly fields of the type, with values of any
    type; nested messages of the type's own fields now and then."""
    out: dict[Any, Any] = {}
    for f in draw(st.lists(st.sampled_from(info.ordered), max_size=6)):
        if f.message is not None and depth < 3 and draw(st.booleans()):
            value: Any = draw(_messages(f.message, depth + 1))
            if f.repeated:
                value = [value]
        else:
            value = draw(_trees)
        out[f.name] = value
    if draw(st.integers(0, 9)) == 0:
        out[draw(st.text(max_size=3) | st.integers(0, 3))] = draw(_trees)
    return out


@pytest.mark.parametrize("info", INFOS, ids=lambda i: i.name)
def test_random_trees_are_written_as_the_walker_writes_them_or_declined(info: m.MessageInfo) -> None:
    walk = _compiled.function("pb", info.full_name)

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(doc=_messages(info))
    def check(doc: dict[Any, Any]) -> None:
        out = native(doc, info.full_name)
        if out is not None:
            assert out == walk(doc)

    check()


def test_anything_but_a_dict_is_declined() -> None:
    for doc in (None, [], "x", 1, _codec.PartialDocument({"id": "r"})):
        assert native(doc, RECORD) is None
    with pytest.raises(IndexError):
        _speedups.pb_write(len(INFOS), {})
    with pytest.raises(TypeError):
        _speedups.pb_write(0)  # type: ignore[call-arg]


@pytest.mark.parametrize("extra", [0, 1, 70])
def test_members_are_written_in_field_number_order_whatever_their_order(extra: int) -> None:
    """Members in any order, with members the type does not know: few of
    them are put in order, many (beyond 32) are written field by field."""
    docs = [doc for _, type_name, doc in DOCUMENTS if type_name == RECORD][:30]
    for doc in docs:
        unknown = {f"x-{i}": i for i in range(extra)}
        for shuffled in ({**unknown, **dict(reversed(doc.items()))}, {**doc, **unknown}):
            assert native(shuffled, RECORD) == _compiled.function("pb", RECORD)(doc)
            bad = {**shuffled, "id": 1}
            assert native(bad, RECORD) is None


def test_deep_nesting_is_left_to_the_writers_in_python() -> None:
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"},
           "created_at": "2026-01-01T00:00:00Z"}
    for depth, served in ((40, True), (150, False)):
        value: Any = 1
        for i in range(depth):
            value = [value] if i % 2 else {"k": value}
        deep = {**doc, "metadata": {"v": value}}
        out = native(deep, RECORD)
        assert (out is not None) is served
        assert _encode.protobuf_writer(RECORD)(deep) == _compiled.function("pb", RECORD)(deep)
        if served:
            assert out == _compiled.function("pb", RECORD)(deep)


def test_member_names_other_than_strs_are_declined() -> None:
    """A member name whose __eq__ runs Python code could change the
    document during the write: any name but a str is declined first."""

    class Name:
        armed = False

        def __init__(self, doc: dict[Any, Any]) -> None:
            self.doc = doc

        def __hash__(self) -> int:
            return hash("kind")

        def __eq__(self, other: object) -> bool:
            if Name.armed:
                self.doc.clear()
            return False

    class Text(str):
        pass

    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"},
           "created_at": "2026-01-01T00:00:00Z"}
    for make in (lambda d: Name(d), lambda d: Text("x"), lambda d: 1, lambda d: b"kind"):
        for at in ((), ("fact",)):
            bad = {**doc, "fact": dict(doc["fact"])}
            target = bad["fact"] if at else bad
            target[make(target)] = "v"
            Name.armed = True
            assert native(bad, RECORD) is None
            Name.armed = False
            assert len(target) > 1
    assert native({**doc, "metadata": {1: "v"}}, RECORD) is None
    assert native({**doc, "metadata": {Text("k"): "v"}}, RECORD) is None


def test_bad_tables_are_refused_and_leave_the_tables_in_use() -> None:
    doc = next(doc for _, type_name, doc in DOCUMENTS if type_name == RECORD)
    before = native(doc, RECORD)
    good = _encode.native_tables(INFOS)
    for tables in ([("x",)], [(("name", b"\x0a", "nonsense", 0, -1, None),)],
                   [(("name", b"\x0a", "message", 0, len(good), None),)],
                   [(("name", b"", "string", 0, -1, None),)], [(("name", b"\x0a", "enum", 0, -1, None),)],
                   [*good[:-1], ((1, b"\x0a", "string", 0, -1, None),)]):
        with pytest.raises((TypeError, ValueError)):
            _speedups.pb_tables(tables, _codec.Float32Values, _codec.Float32Bytes)
        assert native(doc, RECORD) == before
    for types in ((None, _codec.Float32Bytes), (_codec.Float32Values, None), (_codec.Float32Values, list),
                  (_codec.Float32Values,)):
        with pytest.raises(TypeError):
            _speedups.pb_tables(good, *types)  # type: ignore[arg-type]
        assert native(doc, RECORD) == before
    # Set again, the same tables write the same bytes.
    _speedups.pb_tables(good, _codec.Float32Values, _codec.Float32Bytes)
    assert native(doc, RECORD) == before


def _objects(tree: Any) -> list[Any]:
    out = [tree]
    if type(tree) is dict:
        for k, v in tree.items():
            out += [k, *_objects(v)]
    elif isinstance(tree, list):
        for v in tree:
            out += _objects(v)
    return out


def test_no_reference_is_kept_or_lost() -> None:
    """The reference counts of every object of a document, served or declined
    at any depth, are those before the writes, and no memory stays behind."""
    docs = [doc for _, type_name, doc in DOCUMENTS if type_name == RECORD][:40]
    declined = []
    for doc in docs[:10]:
        bad = dict(doc)
        bad["metadata"] = {"a": 1, "b": [1, {"c": 2**64}]}  # beyond int64: declined deep inside
        declined.append(bad)
    vector = _codec.Float32Values([1.5, 2.5])
    vector.raw = struct.pack("<2f", 1.5, 2.5)
    docs.append({**docs[0], "embeddings": [{"model": "m", "values": vector}]})
    docs.append({**docs[0], "embeddings": [{"model": "m", "values": _codec.Float32Bytes(vector.raw)}]})
    every = docs + declined

    def write_all(times: int) -> None:
        for _ in range(times):
            for doc in every:
                native(doc, RECORD)

    # Not None, booleans and small integers, whose counts move with any code
    # that runs; interned strings (names such as "values", which the whole
    # interpreter shares) may move by less than a leak of one reference a
    # write would (200), as other threads of the process hold them too; and
    # no collection of the garbage of other tests, which shares strings.
    objects = [o for o in _objects(every)
               if not (o is None or type(o) is bool or (type(o) is int and -5 <= o <= 256))]
    shared = [type(o) is str and sys.intern(o) is o for o in objects]
    rounds = 200
    gc.collect()
    gc.disable()
    try:
        counts = [sys.getrefcount(o) for o in objects]
        write_all(3)
        blocks = sys.getallocatedblocks()
        write_all(rounds)
        # A block kept a write would be rounds * len(every) of them; other
        # threads allocate a few.
        assert sys.getallocatedblocks() - blocks < 1000
        after = [sys.getrefcount(o) for o in objects]
        assert [(repr(o)[:40], a, b) for o, a, b, is_shared in zip(objects, counts, after, shared, strict=True)
                if (abs(b - a) >= rounds if is_shared else a != b)] == []
    finally:
        gc.enable()
    assert all(native(doc, RECORD) is None for doc in declined)
    assert all(native(doc, RECORD) is not None for doc in docs)
