"""Float32 vectors kept as their binary32 bytes (``memorywire.Float32Bytes``).

Every decoder gives them so with ``vectors="bytes"``; the MessagePack and
Protobuf decoders can also leave each vector they read as the bytes it came
in, for readers that take those bytes as they are (a conversion to Protobuf,
the service's writes). Such a document must be the document decode_walk
gives, with each vector's values in its bytes, and fail where decode_walk
fails, with the same error; the validator must judge such a vector by its
values; every writer must write it as it writes the values.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

import msgpack
import pytest
import strategies as S
from hypothesis import HealthCheck, example, given, settings

import memorywire.json as mj
import memorywire.msgpack as mm
import memorywire.protobuf as mp
from memorywire import _codec, validation
from memorywire import _model as m
from memorywire.convert import FORMATS, convert, module
from memorywire.errors import MemorywireError

RECORD = "memorywire.v1.MemoryRecord"
PUT = "memorywire.v1.PutRequest"
LARGEST = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
VALUES = [0.5, -0.0, 0.0, 1e-45, LARGEST, -LARGEST, -2.5, 2.0**-126]


def record(values: Any, dims: int | None = None) -> dict[str, Any]:
    embedding = {"model": "m", "dimensions": len(VALUES) if dims is None else dims, "values": values}
    return {"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "t"},
            "created_at": "2026-05-09T10:00:00Z",
            "embeddings": [embedding, {"model": "n", "dimensions": 1, "values": [1.0]}]}


IMPORT = "memorywire.v1.ImportRequest"
SEARCH = "memorywire.v1.SearchRequest"
#: A document of each type that holds vectors, besides the generated ones.
HOLDING = {
    RECORD: record(VALUES),
    PUT: {"specversion": "1.0", "operation_id": "o",
          "items": [{"record": {k: v for k, v in record(VALUES).items() if k != "specversion"}}]},
    IMPORT: {"specversion": "1.0", "operation_id": "o",
             "records": [{k: v for k, v in record(VALUES).items() if k != "specversion"}]},
    SEARCH: {"specversion": "1.0", "operation_id": "o", "vector": {"model": "m", "values": VALUES}},
}


def values_of(tree: Any) -> Any:
    """The tree with each vector held as bytes given as its values."""
    if type(tree) is _codec.Float32Bytes:
        return list(struct.unpack(f"<{len(tree) // 4}f", tree))
    if type(tree) is dict:
        return {k: values_of(v) for k, v in tree.items()}
    if type(tree) is list:
        return [values_of(v) for v in tree]
    return tree


def vectors(tree: Any) -> list[Any]:
    """Every embedding's values in the tree."""
    if type(tree) is dict:
        found = [tree["values"]] if "values" in tree and "model" in tree else []
        return found + [x for v in tree.values() for x in vectors(v)]
    if type(tree) is list:
        return [x for v in tree for x in vectors(v)]
    return []


def outcome(decode: Any, data: bytes) -> Any:
    try:
        doc, walk = decode(data)
    except MemorywireError as e:
        return ("error", type(e).__name__, e.reason, [(v.pointer, v.reason) for v in e.violations])
    # json.dumps tells 1 from 1.0, and the sign of a zero.
    return ("ok", json.dumps(values_of(doc)), list(walk.unknown))


def same(module: Any, type_name: str, data: bytes) -> None:
    dec = module.Decoder(type_name)
    assert outcome(dec.decode_walk_binary_vectors, data) == outcome(dec.decode_walk, data)
    as_bytes(module, type_name, data)


def as_bytes(module: Any, type_name: str, data: bytes) -> None:
    """The decoder asked for vectors as bytes gives the document it gives
    otherwise, each vector a Float32Bytes, or fails with the same error."""
    asked = module.Decoder(type_name, vectors="bytes")
    assert outcome(asked.decode_walk, data) == outcome(module.Decoder(type_name).decode_walk, data)
    try:
        doc = asked.decode(data)
    except MemorywireError:
        return
    assert all(type(v) is _codec.Float32Bytes for v in vectors(doc))


@pytest.mark.parametrize("module", [mm, mp], ids=["msgpack", "protobuf"])
def test_a_vector_stays_its_bytes(module: Any) -> None:
    data = module.encode(record(VALUES))
    doc, _ = module.Decoder(RECORD).decode_walk_binary_vectors(data)
    first = doc["embeddings"][0]["values"]
    assert type(first) is _codec.Float32Bytes and first == struct.pack(f"<{len(VALUES)}f", *VALUES)
    assert math.copysign(1, struct.unpack("<f", first[4:8])[0]) == -1
    same(module, RECORD, data)


@pytest.mark.parametrize("module", [mm, mp], ids=["msgpack", "protobuf"])
@pytest.mark.parametrize("bad", [
    struct.pack("<2f", 1.0, math.nan), struct.pack("<2f", math.inf, 1.0), struct.pack("<f", -math.inf),
    b"\x00\x00\x80", b"",
], ids=["nan", "infinity", "negative-infinity", "three-bytes", "empty"])
def test_a_bad_vector_fails_as_it_does_with_values(module: Any, bad: bytes) -> None:
    good = module.encode(record([0.0], 1))
    if module is mm:
        data = good.replace(b"\xc4\x04\x00\x00\x00\x00", b"\xc4" + bytes([len(bad)]) + bad)
    else:
        # The packed field of the first embedding: tag 3, length 4, one 0.0.
        data = good.replace(b"\x1a\x04\x00\x00\x00\x00", b"\x1a" + bytes([len(bad)]) + bad)
    assert data != good
    same(module, RECORD, data)
    with pytest.raises(MemorywireError):
        module.Decoder(RECORD).decode_walk_binary_vectors(data)


@pytest.mark.parametrize("at", [0, 3, 4, 17, 31, 36])
@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_long_vector_with_a_value_not_finite_fails_wherever_it_is(at: int, bad: float) -> None:
    """A value not finite anywhere in a long MessagePack vector (37 values:
    whole blocks of a vectorized check and a remainder) is found."""
    values = [0.25 * i for i in range(37)]
    good = mm.encode(record(values, 37))
    raw = struct.pack("<37f", *values)
    data = good.replace(raw, raw[:4 * at] + struct.pack("<f", bad) + raw[4 * at + 4:])
    assert data != good
    same(mm, RECORD, data)
    for vectors in ("bytes", "floats"):
        with pytest.raises(MemorywireError):
            mm.decode(data, vectors=vectors)


@pytest.mark.parametrize("module", [mm, mp], ids=["msgpack", "protobuf"])
@pytest.mark.parametrize("dims", [len(VALUES), len(VALUES) * 4, len(VALUES) - 1])
def test_dimensions_are_counted_in_values_not_bytes(module: Any, dims: int) -> None:
    good = module.encode(record(VALUES))
    # Written by a plain writer of the wire format: memorywire's refuse a mismatch.
    if module is mm:
        doc = msgpack.unpackb(good)
        doc["embeddings"][0]["dimensions"] = dims
        data = msgpack.packb(doc)
    else:
        msg = m.message(RECORD).cls.FromString(good)
        msg.embeddings[0].dimensions = dims
        data = msg.SerializeToString()
    same(module, RECORD, data)
    if dims != len(VALUES):
        with pytest.raises(MemorywireError) as failed:
            module.Decoder(RECORD).decode_walk_binary_vectors(data)
        assert failed.value.reason == "DIMENSION_MISMATCH"


BINARY = settings(max_examples=25, deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                         HealthCheck.data_too_large])


@pytest.mark.parametrize("type_name", [RECORD, PUT, IMPORT], ids=lambda t: t.rsplit(".", 1)[1])
def test_generated_documents_decode_alike(type_name: str) -> None:
    held = {"msgpack": 0, "protobuf": 0}

    @BINARY
    @given(doc=S.documents(type_name))
    @example(doc=HOLDING[type_name])
    def alike(doc: dict[str, Any]) -> None:
        if validation.check(doc, type_name)[0]:
            return
        for codec in (mm, mp):
            data = codec.encode(doc, type=type_name)
            same(codec, type_name, data)
            back, _ = codec.Decoder(type_name).decode_walk_binary_vectors(data)
            held[codec.__name__.rsplit(".", 1)[1]] += sum(type(v) is _codec.Float32Bytes for v in vectors(back))
            # Every writer writes a vector held as bytes as it writes its values.
            for writer in (mj, mm, mp):
                assert writer.encode(back, type=type_name) == writer.encode(doc, type=type_name)

    alike()
    # The documents held vectors, and each decoder kept some as bytes (the
    # MessagePack one where its fast path serves the type).
    assert held["protobuf"] > 0, held
    assert held["msgpack"] > 0 or mm.Decoder(type_name)._fast is None, held


def test_the_validator_counts_a_vector_of_bytes_in_values() -> None:
    held = _codec.Float32Bytes(struct.pack("<3f", 1.0, 2.0, 3.0))
    assert validation.check(record(held, 3), RECORD)[0] == []
    mismatch = validation.check(record(held, 12), RECORD)[0]
    assert [(v.pointer, v.reason) for v in mismatch] == [("/embeddings/0/dimensions", "DIMENSION_MISMATCH")]
    assert mj.encode(record(held, 3)) == mj.encode(record([1.0, 2.0, 3.0], 3))


def test_a_vector_of_bytes_is_not_iterated_as_bytes() -> None:
    held = _codec.Float32Bytes(struct.pack("<2f", 1.0, 2.0))
    with pytest.raises(TypeError):
        list(held)
    assert bytes(held) == struct.pack("<2f", 1.0, 2.0)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("type_name", [RECORD, PUT, SEARCH], ids=lambda t: t.rsplit(".", 1)[1])
def test_every_decoder_gives_vectors_as_bytes_when_asked(fmt: str, type_name: str) -> None:
    codec = module(fmt)

    def alike(doc: dict[str, Any]) -> int:
        data = codec.encode(doc, type=type_name)
        as_bytes(codec, type_name, data)
        back = codec.decode(data, type=type_name, vectors="bytes")
        assert json.dumps(values_of(back)) == json.dumps(values_of(codec.decode(data, type=type_name)))
        assert codec.encode(back, type=type_name) == data
        return len(held_as_bytes(back))

    @BINARY
    @given(doc=S.documents(type_name))
    def generated(doc: dict[str, Any]) -> None:
        if not validation.check(doc, type_name)[0]:
            alike(doc)

    generated()
    assert alike(HOLDING[type_name]) == (2 if type_name != SEARCH else 1)


def held_as_bytes(tree: Any) -> list[Any]:
    """Every Float32Bytes in the tree."""
    if type(tree) is _codec.Float32Bytes:
        return [tree]
    if type(tree) is dict:
        tree = list(tree.values())
    if type(tree) is list:
        return [x for v in tree for x in held_as_bytes(v)]
    return []


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_vector_form_is_floats_or_bytes(fmt: str) -> None:
    codec = module(fmt)
    data = codec.encode(record(VALUES))
    first = codec.decode(data, vectors="bytes")["embeddings"][0]["values"]
    packed = struct.pack(f"<{len(VALUES)}f", *VALUES)
    assert first == packed and first.values() == list(struct.unpack(f"<{len(VALUES)}f", packed))
    with pytest.raises(ValueError, match="floats, bytes"):
        codec.decode(data, vectors="list")
    with pytest.raises(ValueError, match="floats, bytes"):
        codec.Decoder(RECORD, vectors="numpy")


@pytest.mark.parametrize("source", [mm, mp], ids=["msgpack", "protobuf"])
@pytest.mark.parametrize("target", [mm, mp], ids=["msgpack", "protobuf"])
def test_conversion_between_binary_formats_writes_the_bytes_of_the_values(source: Any, target: Any) -> None:
    data = source.encode(record(VALUES))
    name = source.__name__.rsplit(".", 1)[1], target.__name__.rsplit(".", 1)[1]
    assert convert(data, source=name[0], target=name[1]) == target.encode(source.decode(data))
