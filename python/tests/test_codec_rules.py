"""One test per rule of the wire format (decisions.md, spec/v1/*-format.md).

Every expected value here is computed independently of the codec: float
spellings by a formatter written from the rule, MessagePack timestamp
extensions and Protobuf records by hand from the encodings' definitions.
"""

from __future__ import annotations

import decimal
import json
import math
import struct
from datetime import datetime
from typing import Any

import msgpack
import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memorywire
from memorywire import json as mw_json
from memorywire import msgpack as mw_msgpack
from memorywire import protobuf as mw_protobuf
from memorywire import validation
from memorywire.errors import MemorywireError, UnrepresentableError

ENCODINGS = ("json", "msgpack", "protobuf")
MODULES = {"json": mw_json, "msgpack": mw_msgpack, "protobuf": mw_protobuf}
RECORD = "memorywire.v1.MemoryRecord"
PROPERTY = settings(max_examples=300, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


def fact(**members: Any) -> dict[str, Any]:
    """A valid record document of kind fact, with extra members."""
    doc: dict[str, Any] = {"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "x"}}
    doc.update(members)
    return doc


def encode_all(doc: dict[str, Any], type_name: str = RECORD) -> dict[str, bytes]:
    return {e: MODULES[e].encode(doc, type=type_name) for e in ENCODINGS}


def through_every_encoding(doc: dict[str, Any], type_name: str = RECORD) -> list[tuple[str, dict[str, Any]]]:
    """The document decoded from each encoding, and after every conversion."""
    out = []
    encoded = encode_all(doc, type_name)
    for a in ENCODINGS:
        out.append((a, MODULES[a].decode(encoded[a], type=type_name)))
        for b in ENCODINGS:
            converted = memorywire.convert(encoded[a], source=a, target=b, type=type_name)
            out.append((f"{a}->{b}", MODULES[b].decode(converted, type=type_name)))
    return out


def rejects(encoding: str, data: bytes, reason: str, pointer: str | None = None,
            type_name: str = RECORD) -> MemorywireError:
    with pytest.raises(MemorywireError) as info:
        MODULES[encoding].decode(data, type=type_name)
    error = info.value
    assert error.reason == reason, f"{encoding}: expected {reason}, got {error.reason}: {error}"
    if pointer is not None:
        assert error.pointer == pointer, f"{encoding}: expected pointer {pointer!r}, got {error.pointer!r}"
    return error


def rejects_doc(doc: Any, reason: str, pointer: str | None = None, type_name: str = RECORD) -> None:
    """The JSON form is rejected by validate() and by the JSON reader."""
    with pytest.raises(MemorywireError) as info:
        memorywire.validate(doc, type=type_name)
    assert info.value.reason == reason, str(info.value)
    if pointer is not None:
        assert info.value.pointer == pointer
    rejects("json", json.dumps(doc, ensure_ascii=False).encode(), reason, pointer, type_name)


def strict_equal(a: Any, b: Any) -> bool:
    """Equality that tells 1 from 1.0 from True and -0.0 from 0.0."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return bool(a == b)


def pairs(data: bytes) -> Any:
    """JSON with every object as its list of (name, value) pairs, in order."""
    return json.loads(data, object_pairs_hook=lambda p: p)


# -- the canonical float spelling, written from the rule --------------------------------


def canonical_float(x: float) -> str:
    """decisions.md / json-format.md §7.4, from the shortest round-trip digits."""
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    # repr() gives the shortest digits that round-trip (nearest when several).
    _, digit_tuple, exponent = decimal.Decimal(repr(abs(x))).as_tuple()
    digits = list(digit_tuple)
    assert isinstance(exponent, int)
    while len(digits) > 1 and digits[-1] == 0:
        digits.pop()
        exponent += 1
    while len(digits) > 1 and digits[0] == 0:
        digits.pop(0)
    n = len(digits)
    e = n + exponent - 1  # value = d1.d2..dn x 10^e
    ds = "".join(map(str, digits))
    if -5 <= e < 16:
        if e >= 0:
            padded = ds + "0" * max(0, e + 1 - n)
            return f"{sign}{padded[:e + 1]}.{padded[e + 1:] or '0'}"
        return f"{sign}0.{'0' * (-e - 1)}{ds}"
    mantissa = ds[0] + ("." + ds[1:] if n > 1 else "")
    return f"{sign}{mantissa}e{'+' if e > 0 else '-'}{abs(e)}"


SPEC_FLOATS = [
    (1.0, "1.0"), (100.0, "100.0"), (0.5, "0.5"), (123.456, "123.456"), (0.1, "0.1"),
    (struct.unpack("<f", struct.pack("<I", 0x3DCCCCCD))[0], "0.10000000149011612"),
    (-0.0, "-0.0"), (0.0, "0.0"), (-1.5, "-1.5"), (2.0**53, "9007199254740992.0"),
    (1e15, "1000000000000000.0"), (1e16, "1e+16"), (1.2345678901234568e20, "1.2345678901234568e+20"),
    (123456789012345680000.0, "1.2345678901234568e+20"), (1e21, "1e+21"), (1e-5, "0.00001"),
    (1.5000000000000002e-5, "0.000015000000000000002"), (1e-6, "1e-6"),
    (9.999999999999999e-6, "9.999999999999999e-6"), (1.5e-7, "1.5e-7"), (5e-324, "5e-324"),
    (1.7976931348623157e308, "1.7976931348623157e+308"),
]
MORE_FLOATS = [
    9999999999999998.0, 999999999999999.9, 0.00009999999999999999, 0.30000000000000004, 1 / 3, 2 / 3,
    -1e-5, -1e16, 1e22, 1e23, 2.2250738585072014e-308, 2.2250738585072009e-308, 4.9406564584124654e-324,
    1e300, 12345.678, 1234567890123456.8, 0.000123, -123.0, 7.0, 1e-4, 3.0e15, 6.02214076e23,
]


def float_in_json(value: float) -> str:
    """The spelling of a float Value in the codec's canonical JSON."""
    text = mw_json.encode(fact(metadata={"x": value})).decode()
    start = text.index('"metadata":{"x":') + len('"metadata":{"x":')
    return text[start:text.index("}", start)]


@pytest.mark.parametrize(("value", "expected"), SPEC_FLOATS, ids=[e for _, e in SPEC_FLOATS])
def test_independent_float_formatter_matches_the_spec_table(value: float, expected: str) -> None:
    assert canonical_float(value) == expected


@pytest.mark.parametrize("value", [v for v, _ in SPEC_FLOATS] + MORE_FLOATS, ids=repr)
def test_float_canonical_json_spelling(value: float) -> None:
    assert float_in_json(value) == canonical_float(value)


@PROPERTY
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_float_canonical_json_spelling_of_any_double(value: float) -> None:
    assert float_in_json(value) == canonical_float(value)


def test_double_field_written_as_float_even_when_integral() -> None:
    doc = fact(lifecycle={"importance": 1})
    assert b'"importance":1.0' in mw_json.encode(doc)
    assert mw_json.decode(mw_json.encode(doc))["lifecycle"]["importance"] == 1.0


# -- float32 vectors -------------------------------------------------------------------

F32_BITS = [
    0x00000001,  # least subnormal
    0x80000001,  # negative least subnormal
    0x007FFFFF,  # greatest subnormal
    0x00800000,  # least normal
    0x80000000,  # -0.0
    0x00000000,  # +0.0
    0x7F7FFFFF,  # FLT_MAX
    0xFF7FFFFF,  # -FLT_MAX
    0x3DCCCCCD,  # 0.1f
    0x3EAAAAAB,  # 1/3f
    0x3F800000,  # 1.0
    0xBF000000,  # -0.5
    0x4B7FFFFF,  # 16777215
    0x33800000,  # 2^-24
]


def f32(bits: int) -> float:
    return float(struct.unpack("<f", struct.pack("<I", bits))[0])


def bits_of(values: list[float]) -> list[int]:
    return [struct.unpack("<I", struct.pack("<f", v))[0] for v in values]


def embedding_doc(values: list[float]) -> dict[str, Any]:
    return fact(embeddings=[{"model": "m", "dimensions": len(values), "values": values}])


def test_float32_vector_bits_survive_every_encoding_and_conversion() -> None:
    values = [f32(b) for b in F32_BITS]
    for where, decoded in through_every_encoding(embedding_doc(values)):
        assert bits_of(decoded["embeddings"][0]["values"]) == F32_BITS, where


def test_float32_vector_bytes_in_msgpack_and_protobuf_are_little_endian_binary32() -> None:
    values = [f32(b) for b in F32_BITS]
    raw = struct.pack(f"<{len(F32_BITS)}I", *F32_BITS)
    encoded = encode_all(embedding_doc(values))
    unpacked = msgpack.unpackb(encoded["msgpack"], raw=False, timestamp=0)
    assert unpacked["embeddings"][0]["values"] == raw
    assert raw[:4] == b"\x01\x00\x00\x00"
    # packed repeated float: field 3 of Embedding, LEN, the same bytes
    assert S.pb_len(3, raw) in encoded["protobuf"]


def test_float32_vector_json_elements_are_the_widened_binary32_in_canonical_spelling() -> None:
    values = [f32(b) for b in F32_BITS]
    text = mw_json.encode(embedding_doc(values)).decode()
    start = text.index('"values":[') + len('"values":[')
    written = text[start:text.index("]", start)].split(",")
    assert written == [canonical_float(v) for v in values]


@pytest.mark.parametrize(("token", "bits"), [
    ("0.1", 0x3DCCCCCD),
    ("0.3333333333333333", 0x3EAAAAAB),
    ("1", 0x3F800000),
    ("1.0000000596046448", 0x3F800000),  # 1 + 2^-24: a tie, to even (1.0)
    ("1.0000001788139343", 0x3F800002),  # 1 + 3*2^-24: a tie, to even
    ("1.00000006", 0x3F800001),  # just above the tie
    ("3.4028235e38", 0x7F7FFFFF),  # above FLT_MAX in binary64, rounds to FLT_MAX
    ("-3.4028235e38", 0xFF7FFFFF),
    ("1e-46", 0x00000000),  # below half the least subnormal: +0.0
    ("-1e-46", 0x80000000),  # the sign of zero is kept
    ("1e-45", 0x00000001),
    ("-0", 0x80000000),
])
def test_float32_json_input_is_rounded_to_nearest_binary32(token: str, bits: int) -> None:
    data = (b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},'
            b'"embeddings":[{"model":"m","dimensions":1,"values":[' + token.encode() + b"]}]}")
    doc = mw_json.decode(data)
    assert bits_of(doc["embeddings"][0]["values"]) == [bits]
    assert S.pb_len(3, struct.pack("<I", bits)) in memorywire.convert(data, source="json", target="protobuf")
    assert struct.pack("<I", bits) in memorywire.convert(data, source="json", target="msgpack")


@pytest.mark.parametrize("token", ["3.4028235677973366e38", "-3.4028235677973366e38", "1e39"])
def test_float32_json_input_that_rounds_to_infinity_is_out_of_range(token: str) -> None:
    data = (b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},'
            b'"embeddings":[{"model":"m","dimensions":1,"values":[' + token.encode() + b"]}]}")
    rejects("json", data, "NUMBER_OUT_OF_RANGE", "/embeddings/0/values/0")


def test_embedding_dimensions_must_equal_the_number_of_values() -> None:
    rejects_doc(fact(embeddings=[{"model": "m", "dimensions": 2, "values": [1.0]}]),
                "DIMENSION_MISMATCH", "/embeddings/0/dimensions")


# -- timestamps --------------------------------------------------------------------------


def instant(text: str) -> tuple[int, int]:
    """(seconds, nanoseconds) since the epoch of a valid timestamp, via datetime."""
    head, _, fraction = text[:-1].partition(".")
    when = datetime.strptime(head, "%Y-%m-%dT%H:%M:%S")
    seconds = (when - datetime(1970, 1, 1)).days * 86400 + (when - datetime(1970, 1, 1)).seconds
    nanos = int((fraction + "000000000")[:9]) if fraction else 0
    return seconds, nanos


def mp_timestamp(seconds: int, nanos: int) -> bytes:
    """The canonical MessagePack timestamp extension, from the rule."""
    if nanos == 0 and 0 <= seconds < 2**32:
        return b"\xd6\xff" + struct.pack(">I", seconds)
    if 0 <= seconds < 2**34:
        return b"\xd7\xff" + struct.pack(">Q", nanos << 34 | seconds)
    return b"\xc7\x0c\xff" + struct.pack(">Iq", nanos, seconds)


def pb_timestamp(seconds: int, nanos: int) -> bytes:
    return ((S.pb_tag(1, 0) + S.pb_varint(seconds) if seconds else b"")
            + (S.pb_tag(2, 0) + S.pb_varint(nanos) if nanos else b""))


TIMESTAMPS = [
    "2024-05-01T12:30:00Z",
    "2024-05-01T12:30:00.500Z",
    "2024-05-01T12:30:00.123456789Z",
    "2024-05-01T12:30:00.000000001Z",
    "2024-05-01T12:30:00.000001Z",
    "2024-05-01T12:30:00.123456Z",
    "1970-01-01T00:00:00Z",
    "1970-01-01T00:00:00.000000001Z",
    "1969-12-31T23:59:59Z",
    "1969-12-31T23:59:59.500Z",
    "2106-02-07T06:28:15Z",  # 2^32 - 1 seconds: timestamp 32
    "2106-02-07T06:28:16Z",  # 2^32: timestamp 64
    "2514-05-30T01:53:03.999999999Z",  # 2^34 - 1 seconds: timestamp 64
    "2514-05-30T01:53:04Z",  # 2^34: timestamp 96
    "0001-01-01T00:00:00Z",
    "9999-12-31T23:59:59.999999999Z",
    "2024-02-29T23:59:59Z",
    "2000-02-29T00:00:00Z",
]


@pytest.mark.parametrize("text", TIMESTAMPS)
def test_timestamp_nanoseconds_survive_every_encoding(text: str) -> None:
    for where, decoded in through_every_encoding(fact(created_at=text)):
        assert decoded["created_at"] == text, where


@pytest.mark.parametrize("text", TIMESTAMPS)
def test_timestamp_msgpack_extension_form_follows_the_rule(text: str) -> None:
    encoded = mw_msgpack.encode(fact(created_at=text))
    key = msgpack.packb("created_at")
    start = encoded.index(key) + len(key)
    expected = mp_timestamp(*instant(text))
    assert encoded[start:start + len(expected)] == expected


def test_timestamp_msgpack_extension_bytes_of_the_spec_examples() -> None:
    assert mp_timestamp(*instant("2024-05-01T12:30:00Z")) == bytes.fromhex("d6ff663235c8")
    assert mp_timestamp(*instant("2024-05-01T12:30:00.500Z")) == bytes.fromhex("d7ff77359400663235c8")
    assert mp_timestamp(*instant("0001-01-01T00:00:00Z")) == bytes.fromhex("c70cff00000000fffffff1886e0900")
    for text in ("2024-05-01T12:30:00Z", "2024-05-01T12:30:00.500Z", "2024-05-01T12:30:00.123456789Z",
                 "1969-12-31T23:59:59Z", "0001-01-01T00:00:00Z"):
        assert mp_timestamp(*instant(text)) in mw_msgpack.encode(fact(created_at=text))


@pytest.mark.parametrize("layout", ["32", "64", "96"])
def test_timestamp_msgpack_reader_accepts_every_layout(layout: str) -> None:
    seconds, nanos = instant("2024-05-01T12:30:00Z")
    ext = {"32": b"\xd6\xff" + struct.pack(">I", seconds),
           "64": b"\xd7\xff" + struct.pack(">Q", seconds),
           "96": b"\xc7\x0c\xff" + struct.pack(">Iq", 0, seconds)}[layout]
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("created_at") + ext
    doc = mw_msgpack.decode(data)
    assert doc["created_at"] == "2024-05-01T12:30:00Z"
    assert mp_timestamp(seconds, nanos) in mw_msgpack.encode(doc)


@pytest.mark.parametrize("text", TIMESTAMPS)
def test_timestamp_protobuf_bytes(text: str) -> None:
    encoded = mw_protobuf.encode(fact(created_at=text))
    assert S.pb_len(8, pb_timestamp(*instant(text))) in encoded


@pytest.mark.parametrize(("given_text", "canonical"), [
    ("2024-05-01T12:30:00.0Z", "2024-05-01T12:30:00Z"),
    ("2024-05-01T12:30:00.000000000Z", "2024-05-01T12:30:00Z"),
    ("2024-05-01T12:30:00.5Z", "2024-05-01T12:30:00.500Z"),
    ("2024-05-01T12:30:00.50Z", "2024-05-01T12:30:00.500Z"),
    ("2024-05-01T12:30:00.12Z", "2024-05-01T12:30:00.120Z"),
    ("2024-05-01T12:30:00.1200Z", "2024-05-01T12:30:00.120Z"),
    ("2024-05-01T12:30:00.123456Z", "2024-05-01T12:30:00.123456Z"),
    ("2024-05-01T12:30:00.1234560Z", "2024-05-01T12:30:00.123456Z"),
    ("2024-05-01T12:30:00.12345Z", "2024-05-01T12:30:00.123450Z"),
    ("2024-05-01T12:30:00.1234567Z", "2024-05-01T12:30:00.123456700Z"),
    ("2024-05-01T12:30:00.123456789Z", "2024-05-01T12:30:00.123456789Z"),
    ("2024-05-01T12:30:00.000000001Z", "2024-05-01T12:30:00.000000001Z"),
    ("2024-05-01T12:30:00.000001Z", "2024-05-01T12:30:00.000001Z"),
    ("2024-05-01T12:30:00.000001000Z", "2024-05-01T12:30:00.000001Z"),
    ("2024-05-01T12:30:00.100000000Z", "2024-05-01T12:30:00.100Z"),
    ("2024-05-01T12:30:00.010Z", "2024-05-01T12:30:00.010Z"),
])
def test_timestamp_canonical_fraction_has_0_3_6_or_9_digits(given_text: str, canonical: str) -> None:
    data = json.dumps(fact(created_at=given_text)).encode()
    assert mw_json.decode(data)["created_at"] in (given_text, canonical)
    for target in ENCODINGS:
        back = memorywire.convert(memorywire.convert(data, source="json", target=target),
                                  source=target, target="json")
        assert json.loads(back)["created_at"] == canonical, target
    assert json.loads(mw_json.encode(mw_json.decode(data)))["created_at"] == canonical


@pytest.mark.parametrize("text", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
                                  "2024-02-29T00:00:00Z", "2000-02-29T12:00:00Z", "1600-02-29T00:00:00Z"])
def test_timestamp_valid_calendar_dates_accepted(text: str) -> None:
    memorywire.validate(fact(created_at=text))


@pytest.mark.parametrize("text", [
    "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2023-04-31T00:00:00Z",
    "0000-12-31T23:59:59Z", "2024-05-01T23:59:60Z", "2024-05-01T24:00:00Z", "2024-13-01T00:00:00Z",
    "2024-05-01t12:30:00Z", "2024-05-01T12:30:00z", "2024-05-01 12:30:00Z", "2024-05-01T12:30:00+00:00",
    "2024-05-01T12:30:00-00:00", "2024-05-01T12:30:00", "2024-05-01T12:30:00.1234567891Z",
    "2024-05-01T12:30:00.Z", "2024-5-01T12:30:00Z", "2024-05-01T12:30:00Z\n", "+2024-05-01T12:30:00Z",
])
def test_timestamp_invalid_spellings_and_dates_rejected(text: str) -> None:
    rejects_doc(fact(created_at=text), "INVALID_TIMESTAMP", "/created_at")


# -- integers ----------------------------------------------------------------------------

MAX_SAFE = 2**53 - 1


def test_uint64_field_accepts_two_to_the_53_minus_1_in_every_encoding() -> None:
    for where, decoded in through_every_encoding(fact(sequence=MAX_SAFE)):
        assert decoded["sequence"] == MAX_SAFE, where
    assert b'"sequence":9007199254740991' in mw_json.encode(fact(sequence=MAX_SAFE))


@pytest.mark.parametrize("value", [2**53, 2**53 + 1, 2**63, 2**64 - 1])
def test_uint64_field_above_two_to_the_53_minus_1_rejected(value: int) -> None:
    head = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"sequence":'
    rejects("json", head + str(value).encode() + b"}", "NUMBER_OUT_OF_RANGE", "/sequence")
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("sequence") + msgpack.packb(value)
    rejects("msgpack", data, "NUMBER_OUT_OF_RANGE", "/sequence")
    data = mw_protobuf.encode(fact()) + S.pb_tag(6, 0) + S.pb_varint(value)
    rejects("protobuf", data, "NUMBER_OUT_OF_RANGE", "/sequence")


INT64_VALUES = [0, 1, -1, 127, 128, -32, -33, 2**31, -(2**31) - 1, 2**53 - 1, 2**53, 2**53 + 1,
                -(2**53) - 1, 2**62 + 12345, 2**63 - 1, -(2**63), -(2**63) + 1, 9223372036854775806]


def test_value_integers_are_exact_over_the_int64_range_in_every_encoding() -> None:
    doc = fact(metadata={f"k{i}": v for i, v in enumerate(INT64_VALUES)})
    for where, decoded in through_every_encoding(doc):
        assert strict_equal(decoded["metadata"], doc["metadata"]), where
    text = mw_json.encode(doc).decode()
    for i, v in enumerate(INT64_VALUES):
        assert f'"k{i}":{v}' in text


@pytest.mark.parametrize("token", [b"9223372036854775807", b"-9223372036854775808", b"9007199254740993",
                                   b"-9007199254740993", b"1234567890123456789", b"-0"])
def test_json_integer_tokens_in_values_decode_exactly(token: bytes) -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"metadata":{"a":' + token + b"}}"
    value = mw_json.decode(data)["metadata"]["a"]
    assert type(value) is int and value == int(token)
    canonical = mw_json.encode(mw_json.decode(data))
    assert b'"a":' + str(int(token)).encode() + b"}" in canonical


@pytest.mark.parametrize("token", [b"9223372036854775808", b"-9223372036854775809", b"18446744073709551616",
                                   b"100000000000000000000000"])
def test_json_integer_token_beyond_int64_in_a_value_rejected(token: bytes) -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"metadata":{"a":' + token + b"}}"
    rejects("json", data, "NUMBER_OUT_OF_RANGE", "/metadata/a")


def test_msgpack_uint64_above_int64_in_a_value_rejected() -> None:
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("metadata") + b"\x81\xa1a" \
        + b"\xcf" + struct.pack(">Q", 2**63)
    rejects("msgpack", data, "NUMBER_OUT_OF_RANGE", "/metadata/a")


def test_integer_and_float_values_stay_apart_in_every_encoding() -> None:
    doc = fact(metadata={"i": 1, "f": 1.0, "z": 0, "zf": 0.0, "nz": -0.0, "big": 1e19, "t": True})
    for where, decoded in through_every_encoding(doc):
        assert strict_equal(decoded["metadata"], doc["metadata"]), where
    text = mw_json.encode(doc)
    assert b'"f":1.0' in text and b'"i":1,' in text and b'"big":1e+19' in text and b'"nz":-0.0' in text
    packed = mw_msgpack.encode(doc)
    assert b"\xa1i\x01" in packed and b"\xa1f\xcb\x3f\xf0" + bytes(6) in packed


@pytest.mark.parametrize("token", [b"1.0", b"1e3", b"10E0", b"1.5", b"-1"])
def test_integer_field_rejects_fraction_exponent_and_negative_tokens(token: bytes) -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"sequence":' + token + b"}"
    rejects("json", data, "NUMBER_OUT_OF_RANGE" if token == b"-1" else "TYPE_MISMATCH", "/sequence")


def test_integer_field_accepts_minus_zero_as_zero() -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"sequence":-0}'
    assert mw_json.encode(mw_json.decode(data)) == mw_json.encode(fact())


def test_msgpack_integer_field_rejects_float_formats() -> None:
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("sequence") + msgpack.packb(1.0)
    rejects("msgpack", data, "TYPE_MISMATCH", "/sequence")


def test_msgpack_integer_field_accepts_any_int_format() -> None:
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("sequence") + b"\xcf" + struct.pack(">Q", 5)
    assert mw_msgpack.decode(data)["sequence"] == 5


# -- bytes -------------------------------------------------------------------------------

BYTES_TABLE = [(b"\x00", "AA=="), (b"\x00\x01\x02\x03", "AAECAw=="), (b"\xfb\xff", "+/8="),
               (b"A", "QQ=="), (b"AB", "QUI="), (bytes(range(256)), None)]


@pytest.mark.parametrize(("raw", "text"), BYTES_TABLE, ids=[t or "all-bytes" for _, t in BYTES_TABLE])
def test_bytes_are_canonical_base64_in_json_and_raw_elsewhere(raw: bytes, text: str | None) -> None:
    import base64

    text = text or base64.b64encode(raw).decode()
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact",
           "encrypted": {"algorithm": "A256GCM", "ciphertext": text}}
    for where, decoded in through_every_encoding(doc):
        assert decoded["encrypted"]["ciphertext"] == text, where
    unpacked = msgpack.unpackb(mw_msgpack.encode(doc), raw=False)
    assert unpacked["encrypted"]["ciphertext"] == raw
    assert S.pb_len(4, raw) in mw_protobuf.encode(doc)
    bin_header = b"\xc4" + bytes([len(raw)]) if len(raw) < 256 else b"\xc5" + struct.pack(">H", len(raw))
    assert bin_header + raw in mw_msgpack.encode(doc)


@pytest.mark.parametrize("text", ["QR==", "QUJ=", "-_8=", "AAECAw", "AAEC Aw==", "AAECAw==\n", "AA==AA==",
                                  "A===", "====", "QQ=", "Q", "AAECAw= =", "+/8", "\u0100AAA"])
def test_bytes_non_canonical_base64_rejected(text: str) -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact",
           "encrypted": {"algorithm": "A256GCM", "ciphertext": "AAAA", "nonce": text}}
    rejects_doc(doc, "INVALID_BASE64", "/encrypted/nonce")


def test_bytes_msgpack_str_rejected() -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact", "encrypted": {"algorithm": "A", "ciphertext": "AA=="}}
    data = msgpack.packb(doc)  # ciphertext as str, not bin
    rejects("msgpack", data, "TYPE_MISMATCH", "/encrypted/ciphertext")


# -- enums -------------------------------------------------------------------------------


def test_enums_are_lowercase_names_without_prefix() -> None:
    doc = fact(kind="message", message={"role": "assistant", "content": [{"text": {"text": "hi"}}]},
               provenance={"origin": "tool", "trust": "verified"})
    del doc["fact"]
    unpacked = msgpack.unpackb(mw_msgpack.encode(doc), raw=False)
    assert unpacked["kind"] == "message" and unpacked["message"]["role"] == "assistant"
    from memorywire.v1 import record_pb2

    msg = record_pb2.MemoryRecord.FromString(mw_protobuf.encode(doc))
    assert msg.kind == record_pb2.RECORD_KIND_MESSAGE
    assert msg.message.role == record_pb2.ROLE_ASSISTANT
    for where, decoded in through_every_encoding(doc):
        assert decoded["message"]["role"] == "assistant", where


def test_every_enum_name_of_the_protos_round_trips() -> None:
    """Each value NAME_PREFIX_VALUE of each enum is "value" in JSON and its number in Protobuf."""
    from memorywire.v1 import record_pb2

    enum = record_pb2.DESCRIPTOR.enum_types_by_name["RecordKind"]
    for value in enum.values:
        if value.number == 0:
            continue
        name = value.name.removeprefix("RECORD_KIND_").lower()
        doc = {"specversion": "1.0", "id": "r1", "kind": name, "encrypted": {"algorithm": "A", "ciphertext": "AA=="}}
        msg = record_pb2.MemoryRecord.FromString(mw_protobuf.encode(doc))
        assert msg.kind == value.number
        assert mw_protobuf.decode(msg.SerializeToString())["kind"] == name


@pytest.mark.parametrize("name", ["User", "USER", "ROLE_USER", "unspecified", "narrator", " user"])
def test_enum_unknown_names_rejected(name: str) -> None:
    doc = fact(kind="message", message={"role": name, "content": [{"text": {"text": "hi"}}]})
    del doc["fact"]
    rejects_doc(doc, "UNKNOWN_ENUM_VALUE", "/message/role")
    rejects("msgpack", msgpack.packb(doc), "UNKNOWN_ENUM_VALUE", "/message/role")


def test_enum_as_number_rejected_in_json_and_msgpack() -> None:
    rejects_doc(fact(kind=4), "TYPE_MISMATCH", "/kind")
    rejects("msgpack", msgpack.packb(fact(kind=4)), "TYPE_MISMATCH", "/kind")


def test_enum_unknown_number_rejected_in_protobuf() -> None:
    data = mw_protobuf.encode(fact()) + S.pb_tag(3, 0) + S.pb_varint(99)
    rejects("protobuf", data, "UNKNOWN_ENUM_VALUE", "/kind")


def test_repeated_enum_packed_in_protobuf() -> None:
    doc = {"specversion": "1.0", "operation_id": "o", "kinds": ["message", "fact"]}
    encoded = mw_protobuf.encode(doc, type="memorywire.v1.HistoryRequest")
    assert encoded == S.pb_len(1, b"1.0") + S.pb_len(2, b"o") + bytes.fromhex("32020104")


# -- absent, default and null --------------------------------------------------------


def test_explicit_defaults_accepted_and_omitted_in_json() -> None:
    data = (b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x","subject":""},'
            b'"tags":[],"sequence":0,"key":"","metadata":{},"extensions":{},"links":[]}')
    assert mw_json.encode(mw_json.decode(data)) == mw_json.encode(fact())
    for target in ENCODINGS:
        assert memorywire.convert(data, source="json", target=target) == MODULES[target].encode(fact())


def test_explicit_defaults_accepted_and_omitted_in_msgpack() -> None:
    doc = fact(tags=[], sequence=0, key="", metadata={}, links=[])
    assert mw_msgpack.encode(mw_msgpack.decode(msgpack.packb(doc))) == mw_msgpack.encode(fact())


def test_explicit_defaults_accepted_and_omitted_in_protobuf() -> None:
    data = mw_protobuf.encode(fact()) + S.pb_tag(6, 0) + b"\x00" + S.pb_len(4, b"") + S.pb_tag(7, 0) + b"\x00"
    assert mw_protobuf.encode(mw_protobuf.decode(data)) == mw_protobuf.encode(fact())


def test_present_empty_message_is_kept() -> None:
    doc = fact(lifecycle={"pinned": False})
    encoded = encode_all(doc)
    assert b'"lifecycle":{}' in encoded["json"]
    assert msgpack.packb("lifecycle") + b"\x80" in encoded["msgpack"]
    assert bytes.fromhex("ba0100") in encoded["protobuf"]


@pytest.mark.parametrize(("member", "pointer"), [
    ('"key":null', "/key"), ('"tags":["a",null]', "/tags/1"), ('"lifecycle":null', "/lifecycle"),
    ('"scope":{"user":null}', "/scope/user"), ('"sequence":null', "/sequence"),
    ('"embeddings":[{"model":"m","dimensions":1,"values":[null]}]', "/embeddings/0/values/0"),
    ('"metadata":null', "/metadata"), ('"specversion":null', "/specversion"),
])
def test_null_rejected_outside_values(member: str, pointer: str) -> None:
    body = {"specversion": '"1.0"', "id": '"r1"', "kind": '"fact"', "fact": '{"text":"x"}'}
    name = member.split('"')[1]
    body[name] = member.split(":", 1)[1]
    data = ("{" + ",".join(f'"{k}":{v}' for k, v in body.items()) + "}").encode()
    rejects("json", data, "NULL_VALUE", pointer)
    if name != "embeddings":  # a MessagePack vector is a bin, where an array is a type mismatch
        rejects("msgpack", msgpack.packb(json.loads(data)), "NULL_VALUE", pointer)


@pytest.mark.parametrize(("doc", "where"), [
    ({"specversion": "1.0", "id": "r1", "kind": "custom", "custom": {"type": "t", "value": None}}, ("custom", "value")),
    ({"specversion": "1.0", "id": "r1", "kind": "tool_result",
      "tool_result": {"call_id": "c", "artifact": None}}, ("tool_result", "artifact")),
    (fact(native={"framework": "f", "record": None}), ("native", "record")),
    (fact(metadata={"a": None, "b": [None]}), ("metadata", "a")),
])
def test_null_is_the_value_null_inside_value_fields(doc: dict[str, Any], where: tuple[str, str]) -> None:
    for name, decoded in through_every_encoding(doc):
        assert where[1] in decoded[where[0]] and decoded[where[0]][where[1]] is None, name
    assert b'"' + where[1].encode() + b'":null' in mw_json.encode(doc)


@pytest.mark.parametrize(("doc", "member", "pb"), [
    (fact(lifecycle={"importance": 0.0}), b'"importance":0.0', bytes.fromhex("ba0109110000000000000000")),
    (fact(lifecycle={"confidence": -0.0}), b'"confidence":-0.0', None),
    (fact(kind="emotion", emotion={"sentiment": "neutral", "valence": 0.0}), b'"valence":0.0', None),
    (fact(kind="tool_result", tool_result={"call_id": "c", "output": ""}), b'"output":""', None),
    (fact(kind="tool_result", tool_result={"call_id": "c", "duration_micros": 0}), b'"duration_micros":0', None),
    (fact(kind="block", block={"label": "l", "limit": 0}), b'"limit":0', None),
])
def test_optional_fields_keep_an_explicit_zero(doc: dict[str, Any], member: bytes, pb: bytes | None) -> None:
    if doc["kind"] != "fact":
        del doc["fact"]
    assert member in mw_json.encode(doc)
    for where, decoded in through_every_encoding(doc):
        assert strict_equal(decoded, json.loads(mw_json.encode(doc))), where
    if pb is not None:
        assert pb in mw_protobuf.encode(doc)


def test_implicit_double_default_is_positive_zero_only() -> None:
    hit = {"record": {"id": "r1", "kind": "fact", "fact": {"text": "x"}}}
    plus = mw_json.encode(dict(hit, score=0.0), type="memorywire.v1.SearchHit")
    minus = mw_json.encode(dict(hit, score=-0.0), type="memorywire.v1.SearchHit")
    assert b"score" not in plus and b'"score":-0.0' in minus
    assert bytes.fromhex("110000000000000080") in mw_protobuf.encode(dict(hit, score=-0.0),
                                                                    type="memorywire.v1.SearchHit")
    assert b"\x11" + bytes(8) not in mw_protobuf.encode(dict(hit, score=0.0), type="memorywire.v1.SearchHit")
    minus_doc = dict(hit, score=-0.0)
    for where, decoded in through_every_encoding(minus_doc, "memorywire.v1.SearchHit"):
        assert strict_equal(decoded["score"], -0.0), where


def test_float_field_minus_zero_token_is_minus_zero() -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"lifecycle":{"importance":-0}}'
    assert b'"importance":-0.0' in mw_json.encode(mw_json.decode(data))


# -- extensions, metadata and native passthrough --------------------------------------

META = {"b": 1, "a": [1, 2.5, "x", None, True], "": {"z": {}, "y": []}, "é": -0.0, "A": "v", "a b": {"k": "v"}}
EXT = {"zeta.value": {"n": 2}, "acme.priority": 3, "io.opentelemetry.trace_id": "4bf9", "a-b.c_d": False}


def test_extensions_and_metadata_preserved_in_every_encoding() -> None:
    doc = fact(metadata=META, extensions=EXT)
    for where, decoded in through_every_encoding(doc):
        assert strict_equal(decoded["metadata"], META), where
        assert strict_equal(decoded["extensions"], EXT), where


def test_extensions_and_metadata_keys_sorted_in_every_encoding() -> None:
    doc = fact(metadata=META, extensions=EXT)
    encoded = encode_all(doc)
    as_pairs = dict(pairs(encoded["json"]))
    for field in ("metadata", "extensions"):
        keys = [k for k, _ in as_pairs[field]]
        assert keys == sorted(doc[field], key=lambda k: k.encode()), field
    unpacked = msgpack.unpackb(encoded["msgpack"], raw=False, object_pairs_hook=lambda p: p)
    top = dict(unpacked)
    for field in ("metadata", "extensions"):
        assert [k for k, _ in top[field]] == sorted(doc[field], key=lambda k: k.encode()), field
    from memorywire.v1 import record_pb2

    msg = record_pb2.MemoryRecord.FromString(encoded["protobuf"])
    assert [e.key for e in msg.metadata] == sorted(META, key=lambda k: k.encode())
    assert [e.key for e in msg.extensions] == sorted(EXT, key=lambda k: k.encode())


NATIVE = {
    "zzz": [3, 2, 1], "id": "msg_1", "content": [{"type": "output_text", "text": "hi", "annotations": []}],
    "big": 9223372036854775807, "neg": -9223372036854775808, "f": 1.0, "g": 0.1, "nz": -0.0,
    "t": True, "n": None, "nested": {"b": {"c": [{"d": [[], {}]}]}, "a": 1}, "😀": "emoji key",
    "\uffff": "bmp max", "\x00ctl": "nul key", "escapes": "\"\\/\b\f\n\r\t\u2028\u007f",
}


def test_native_passthrough_of_an_arbitrary_json_object_in_every_encoding() -> None:
    reordered = dict(reversed(list(NATIVE.items())))
    doc = fact(native={"framework": "openai-responses", "format": "responses", "record": reordered})
    for where, decoded in through_every_encoding(doc):
        assert strict_equal(decoded["native"]["record"], NATIVE), where
    # key order of the input is irrelevant to the canonical bytes
    doc2 = fact(native={"framework": "openai-responses", "format": "responses", "record": NATIVE})
    assert encode_all(doc) == encode_all(doc2)


# -- canonical JSON ---------------------------------------------------------------------


def test_canonical_json_member_order_is_by_code_point() -> None:
    keys = ["b", "a", "ab", "Z", "_", "\uffff", "\U0001f600", "\uff61", "é", "", "a\x00", "A"]
    doc = fact(metadata={k: i for i, k in enumerate(keys)})
    written = [k for k, _ in dict(pairs(mw_json.encode(doc)))["metadata"]]
    assert written == sorted(keys, key=lambda k: [ord(c) for c in k])
    assert written.index("\uffff") < written.index("\U0001f600")  # not UTF-16 order
    assert written.index("\uff61") < written.index("\U0001f600")


def test_canonical_json_top_level_and_nested_message_order() -> None:
    doc = fact(created_at="2024-05-01T12:30:00.5Z", lifecycle={"importance": 5e-1, "pinned": False}, tags=[])
    assert mw_json.encode(doc) == (
        b'{"created_at":"2024-05-01T12:30:00.500Z","fact":{"text":"x"},"id":"r1","kind":"fact",'
        b'"lifecycle":{"importance":0.5},"specversion":"1.0"}')


def test_canonical_json_spec_example_is_146_bytes() -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2024-05-01T12:30:00.5Z",
           "fact": {"text": "Prefers tea"}, "lifecycle": {"importance": 5e-1, "pinned": False}, "tags": []}
    expected = (b'{"created_at":"2024-05-01T12:30:00.500Z","fact":{"text":"Prefers tea"},"id":"r1",'
                b'"kind":"fact","lifecycle":{"importance":0.5},"specversion":"1.0"}')
    assert len(expected) == 146
    for encoding in ENCODINGS:
        data = MODULES[encoding].encode(doc)
        assert memorywire.convert(data, source=encoding, target="json") == expected


def test_canonical_json_string_escapes() -> None:
    text = "a/b\u00e9\u2028\u007f\u001f\t"
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"a\\/b\\u00E9\\u2028\\u007f\\u001F\\t"}}'
    assert mw_json.decode(data)["fact"]["text"] == text
    written = mw_json.encode(mw_json.decode(data))
    assert bytes.fromhex("2261 2f62 c3a9 e280a8 7f 5c7530303166 5c74 22".replace(" ", "")) in written


@pytest.mark.parametrize("code", range(0x20))
def test_canonical_json_control_character_escapes(code: int) -> None:
    short = {0x08: "\\b", 0x09: "\\t", 0x0A: "\\n", 0x0C: "\\f", 0x0D: "\\r"}
    expected = short.get(code, f"\\u{code:04x}")
    written = mw_json.encode(fact(metadata={"s": f"<{chr(code)}>"}))
    assert f'"s":"<{expected}>"'.encode() in written


def test_canonical_json_quote_backslash_and_literal_characters() -> None:
    written = mw_json.encode(fact(metadata={"s": '"\\/\u2029\U0001f600\u00ff'}))
    assert '"s":"\\"\\\\/\u2029\U0001f600\u00ff"'.encode() in written


def test_canonical_json_has_no_whitespace_and_no_trailing_newline() -> None:
    written = mw_json.encode(fact(metadata={"a": [1, {"b": 2}]}, tags=["x y"]))
    outside = json.dumps(json.loads(written), separators=(",", ":"), ensure_ascii=False, sort_keys=True)
    assert written.decode() == outside
    assert not written.endswith(b"\n")


# -- canonical MessagePack ----------------------------------------------------------------


def test_canonical_msgpack_embedding_spec_example() -> None:
    doc = {"dimensions": 3, "model": "m", "values": [1.0, -0.5, 0.10000000149011612]}
    assert mw_msgpack.encode(doc, type="memorywire.v1.Embedding") == bytes.fromhex(
        "83 aa 64696d656e73696f6e73 03 a5 6d6f64656c a1 6d a6 76616c756573 c40c 0000803f 000000bf cdcccc3d"
        .replace(" ", ""))


@pytest.mark.parametrize(("value", "packed"), [
    (0, "00"), (127, "7f"), (128, "cc80"), (255, "ccff"), (256, "cd0100"), (65535, "cdffff"),
    (65536, "ce00010000"), (2**32 - 1, "ceffffffff"), (2**32, "cf0000000100000000"),
    (2**63 - 1, "cf7fffffffffffffff"), (-1, "ff"), (-32, "e0"), (-33, "d0df"), (-128, "d080"),
    (-129, "d1ff7f"), (-32768, "d18000"), (-32769, "d2ffff7fff"), (-(2**31), "d280000000"),
    (-(2**31) - 1, "d3ffffffff7fffffff"), (-(2**63), "d38000000000000000"),
    (1.0, "cb3ff0000000000000"), (0.5, "cb3fe0000000000000"), (-0.0, "cb8000000000000000"),
    (None, "c0"), (False, "c2"), (True, "c3"), ("", "a0"), ("r1", "a27231"),
    ("x" * 31, "bf" + "78" * 31), ("x" * 32, "d920" + "78" * 32), ("x" * 255, "d9ff" + "78" * 255),
    ("x" * 256, "da0100" + "78" * 256), ([], "90"), ([0] * 15, "9f" + "00" * 15),
    ([0] * 16, "dc0010" + "00" * 16), ({}, "80"),
])
def test_canonical_msgpack_uses_the_smallest_formats(value: Any, packed: str) -> None:
    encoded = mw_msgpack.encode(fact(metadata={"v": value}))
    assert msgpack.packb("metadata") + b"\x81\xa1v" + bytes.fromhex(packed) in encoded


def test_canonical_msgpack_map_formats_and_key_order() -> None:
    fifteen = {f"k{i:02d}": i for i in range(15)}
    sixteen = {f"k{i:02d}": i for i in range(16)}
    e15 = mw_msgpack.encode(fact(metadata={"v": dict(reversed(list(fifteen.items())))}))
    e16 = mw_msgpack.encode(fact(metadata={"v": sixteen}))
    assert b"\xa1v\x8f" + b"".join(msgpack.packb(k) + msgpack.packb(v) for k, v in sorted(fifteen.items())) in e15
    assert b"\xa1v\xde\x00\x10" + b"".join(msgpack.packb(k) + msgpack.packb(v)
                                          for k, v in sorted(sixteen.items())) in e16


def test_canonical_msgpack_document_bytes() -> None:
    doc = fact(metadata={"x": 1.0, "n": 1})
    expected = (b"\x85" + msgpack.packb("fact") + b"\x81" + msgpack.packb("text") + msgpack.packb("x")
                + msgpack.packb("id") + msgpack.packb("r1") + msgpack.packb("kind") + msgpack.packb("fact")
                + msgpack.packb("metadata") + bytes.fromhex("82a16e01a178cb3ff0000000000000")
                + msgpack.packb("specversion") + msgpack.packb("1.0"))
    assert mw_msgpack.encode(doc) == expected


def test_canonical_msgpack_bin_formats() -> None:
    for n, header in ((1, b"\xc4\x01"), (255, b"\xc4\xff"), (256, b"\xc5\x01\x00"), (65536, b"\xc6\x00\x01\x00\x00")):
        import base64

        raw = bytes(n)
        doc = fact(kind="message", message={"role": "user", "content": [
            {"image": {"data": base64.b64encode(raw).decode(), "uri": "https://x.test/i.png"}}]})
        del doc["fact"]
        assert msgpack.packb("data") + header + raw in mw_msgpack.encode(doc), n


def test_canonical_msgpack_double_fields_are_float64() -> None:
    encoded = mw_msgpack.encode(fact(lifecycle={"importance": 0.5}))
    assert msgpack.packb("importance") + bytes.fromhex("cb3fe0000000000000") in encoded


def test_msgpack_reader_accepts_float32_and_int_for_double_fields() -> None:
    head = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("lifecycle") + b"\x81" + msgpack.packb("importance")
    assert mw_msgpack.decode(head + b"\xca\x3f\x00\x00\x00")["lifecycle"]["importance"] == 0.5
    doc = mw_msgpack.decode(head + b"\x01")
    assert doc["lifecycle"]["importance"] == 1.0 and type(doc["lifecycle"]["importance"]) is float


# -- canonical Protobuf -----------------------------------------------------------------


def test_canonical_protobuf_spec_example_is_52_bytes() -> None:
    doc = {"created_at": "2024-05-01T12:30:00.500Z", "fact": {"text": "Prefers tea"}, "id": "r1", "kind": "fact",
           "lifecycle": {"importance": 0.5}, "specversion": "1.0"}
    expected = bytes.fromhex(
        "0a03312e30 12027231 1804 420c08c8ebc8b106 1080cab5ee01 6a0d0a0b5072656665727320746561"
        " ba0109 11000000000000e03f".replace(" ", ""))
    assert len(expected) == 52
    for encoding in ENCODINGS:
        data = MODULES[encoding].encode(doc)
        assert memorywire.convert(data, source=encoding, target="protobuf") == expected, encoding


def test_canonical_protobuf_fields_in_ascending_number_order() -> None:
    doc = fact(tags=["t"], extensions={"acme.x": 1}, metadata={"m": 1}, native={"framework": "f", "record": 1},
               embeddings=[{"model": "m", "dimensions": 1, "values": [1.0]}], provenance={"source": "s"},
               lifecycle={"pinned": True}, links=[{"type": "references", "target": "r0"}], routing={"agent": "a"},
               created_at="2024-01-01T00:00:00Z", updated_at="2024-01-01T00:00:01Z", revision=2, sequence=3,
               scope={"user": "u"}, key="k")
    data = mw_protobuf.encode(doc)
    numbers = [number for number, _ in S.pb_top_fields(data)]
    assert numbers == sorted(numbers)
    assert len(set(n for n in numbers if n not in (27, 28, 29, 22, 25))) == len(
        [n for n in numbers if n not in (27, 28, 29, 22, 25)])


def test_canonical_protobuf_map_entries_sorted_with_empty_key_omitted() -> None:
    doc = fact(metadata={"x": 1.0, "n": 1, "e": "", "": None})
    expected = bytes.fromhex(
        "da0104120208 00 da01070a01651202 2a00 da01070a016e1202 1802 da010e0a0178120921000000000000f03f"
        .replace(" ", ""))
    assert mw_protobuf.encode(doc) == mw_protobuf.encode(fact()) + expected


def test_canonical_protobuf_value_kind_written_even_when_zero() -> None:
    doc = fact(metadata={"a": 0, "b": False, "c": "", "d": 0.0, "e": [], "f": {}})
    entries = [("a", "1800"), ("b", "1000"), ("c", "2a00"), ("d", "210000000000000000"), ("e", "3200"), ("f", "3a00")]
    expected = b"".join(S.pb_len(27, S.pb_len(1, k.encode()) + S.pb_len(2, bytes.fromhex(v))) for k, v in entries)
    assert mw_protobuf.encode(doc) == mw_protobuf.encode(fact()) + expected


def test_canonical_protobuf_sint64_zigzag_and_negative_seconds() -> None:
    doc = fact(metadata={"a": -1, "b": -(2**63), "c": 2**63 - 1}, created_at="1969-12-31T23:59:59Z")
    data = mw_protobuf.encode(doc)
    assert S.pb_len(2, bytes.fromhex("1801")) in data
    assert S.pb_len(2, b"\x18" + S.pb_varint(2**64 - 1)) in data
    assert S.pb_len(2, b"\x18" + S.pb_varint(2**64 - 2)) in data
    assert bytes.fromhex("420b08ffffffffffffffffff01") in data


def test_canonical_protobuf_packed_floats_spec_example() -> None:
    doc = {"dimensions": 3, "model": "m", "values": [1.0, -0.5, 0.10000000149011612]}
    assert mw_protobuf.encode(doc, type="memorywire.v1.Embedding") == bytes.fromhex(
        "0a016d 1003 1a0c0000803f000000bfcdcccc3d".replace(" ", ""))


def test_protobuf_reader_accepts_unpacked_floats() -> None:
    unpacked = (S.pb_len(1, b"m") + S.pb_tag(2, 0) + b"\x02"
                + S.pb_tag(3, 5) + struct.pack("<f", 1.0) + S.pb_tag(3, 5) + struct.pack("<f", -0.5))
    doc = mw_protobuf.decode(unpacked, type="memorywire.v1.Embedding")
    assert doc["values"] == [1.0, -0.5]
    assert mw_protobuf.encode(doc, type="memorywire.v1.Embedding") == bytes.fromhex("0a016d10021a080000803f000000bf")


def test_protobuf_last_scalar_wins_and_messages_merge() -> None:
    data = mw_protobuf.encode(fact()) + S.pb_len(2, b"r2") + S.pb_len(13, S.pb_len(2, b"subj"))
    doc = mw_protobuf.decode(data)
    assert doc["id"] == "r2" and doc["fact"] == {"text": "x", "subject": "subj"}


# -- unknown members and versions -----------------------------------------------------


def test_unknown_member_of_a_1_0_document_rejected_in_json_and_msgpack() -> None:
    doc = fact(zz_new=1)
    rejects("json", json.dumps(doc).encode(), "UNKNOWN_FIELD", "/zz_new")
    rejects("msgpack", msgpack.packb(doc), "UNKNOWN_FIELD", "/zz_new")
    nested = fact(scope={"user": "u", "zz_new": 1})
    rejects("json", json.dumps(nested).encode(), "UNKNOWN_FIELD", "/scope/zz_new")
    rejects("msgpack", msgpack.packb(nested), "UNKNOWN_FIELD", "/scope/zz_new")


def test_unknown_field_number_of_a_1_0_document_rejected_in_protobuf() -> None:
    rejects("protobuf", mw_protobuf.encode(fact()) + S.pb_tag(99, 0) + b"\x01", "UNKNOWN_FIELD", "/99")
    data = mw_protobuf.encode(fact()) + S.pb_len(5, S.pb_len(2, b"u") + S.pb_tag(99, 0) + b"\x01")
    rejects("protobuf", data, "UNKNOWN_FIELD", "/scope/99")


NEWER = b'{"specversion":"1.1","id":"r1","kind":"fact","fact":{"text":"x"},"zz_new":{"b":1,"a":[1.0,null]}}'


def test_newer_minor_unknown_member_decodes_and_is_kept_in_json() -> None:
    doc = mw_json.decode(NEWER)
    assert strict_equal(doc["zz_new"], {"b": 1, "a": [1.0, None]})
    assert mw_json.encode(doc) == (b'{"fact":{"text":"x"},"id":"r1","kind":"fact","specversion":"1.1",'
                                   b'"zz_new":{"a":[1.0,null],"b":1}}')
    assert memorywire.convert(NEWER, source="json", target="json") == mw_json.encode(doc)


@pytest.mark.parametrize("target", ["protobuf", "msgpack"])
def test_newer_minor_unknown_member_converted_to_another_encoding_is_unrepresentable(target: str) -> None:
    with pytest.raises(UnrepresentableError) as info:
        memorywire.convert(NEWER, source="json", target=target)
    assert info.value.reason == "UNREPRESENTABLE" and info.value.pointer == "/zz_new"


def test_newer_minor_unknown_member_encoded_as_protobuf_is_unrepresentable() -> None:
    with pytest.raises(UnrepresentableError) as info:
        mw_protobuf.encode(mw_json.decode(NEWER))
    assert info.value.reason == "UNREPRESENTABLE"


NEWER_ENUM = b'{"specversion":"1.1","id":"r1","kind":"fact","fact":{"text":"x","category":"opinion"}}'


def test_newer_minor_unknown_enum_name_kept_in_json_and_unrepresentable_elsewhere() -> None:
    assert mw_json.decode(NEWER_ENUM)["fact"]["category"] == "opinion"
    assert b'"category":"opinion"' in memorywire.convert(NEWER_ENUM, source="json", target="json")
    for target in ("protobuf", "msgpack"):
        with pytest.raises(UnrepresentableError) as info:
            memorywire.convert(NEWER_ENUM, source="json", target=target)
        assert info.value.pointer == "/fact/category", target


@pytest.mark.parametrize("name", ["unspecified", "Opinion", "new-value", "9x"])
def test_newer_minor_unknown_enum_name_must_still_be_a_name(name: str) -> None:
    rejects("json", NEWER_ENUM.replace(b"opinion", name.encode()), "UNKNOWN_ENUM_VALUE", "/fact/category")


def test_newer_minor_unknown_protobuf_field_kept_for_protobuf_and_unrepresentable_elsewhere() -> None:
    known = mw_protobuf.encode(fact(specversion="1.1"))
    unknown = S.pb_tag(99, 0) + b"\x05"
    data = unknown + known  # the unknown field first: canonical output puts it after the known ones
    doc = mw_protobuf.decode(data)
    assert doc == fact(specversion="1.1")
    assert memorywire.convert(data, source="protobuf", target="protobuf") == known + unknown
    for target in ("json", "msgpack"):
        with pytest.raises(UnrepresentableError) as info:
            memorywire.convert(data, source="protobuf", target=target)
        assert info.value.pointer == "/99", target


def test_newer_minor_unknown_msgpack_member_kept_in_msgpack() -> None:
    data = msgpack.packb(fact(specversion="1.1", zz_new={"b": 1, "a": 2}))
    out = memorywire.convert(data, source="msgpack", target="msgpack")
    assert msgpack.unpackb(out)["zz_new"] == {"a": 2, "b": 1}
    assert out.endswith(msgpack.packb("zz_new") + b"\x82\xa1a\x02\xa1b\x01")


@pytest.mark.parametrize("version", ["2.0", "2.3", "10.0"])
def test_major_version_other_than_1_is_unsupported(version: str) -> None:
    doc = fact(specversion=version)
    rejects("json", json.dumps(doc).encode(), "UNSUPPORTED_VERSION", "/specversion")
    rejects("msgpack", msgpack.packb(doc), "UNSUPPORTED_VERSION", "/specversion")
    data = S.pb_len(1, version.encode()) + mw_protobuf.encode(fact())[5:]
    rejects("protobuf", data, "UNSUPPORTED_VERSION", "/specversion")


def test_unsupported_version_wins_over_later_phases() -> None:
    doc = {"specversion": "2.0", "id": 5, "kind": "bogus", "zz": 1, "tags": "x"}
    rejects("json", json.dumps(doc).encode(), "UNSUPPORTED_VERSION", "/specversion")
    rejects("msgpack", msgpack.packb(doc), "UNSUPPORTED_VERSION", "/specversion")


@pytest.mark.parametrize("version", ["1", "1.0.0", "v1.0", "01.0", "1.00", "0.9", "1.0 ", "1.0\n"])
def test_specversion_pattern(version: str) -> None:
    rejects_doc(fact(specversion=version), "PATTERN_MISMATCH", "/specversion")


def test_specversion_required_at_top_level_and_forbidden_in_nested_records() -> None:
    doc = fact()
    del doc["specversion"]
    rejects_doc(doc, "REQUIRED_FIELD_MISSING", "/specversion")
    put = {"specversion": "1.0", "operation_id": "o", "items": [{"record": fact()}]}
    rejects_doc(put, "UNKNOWN_FIELD", "/items/0/record/specversion", "memorywire.v1.PutRequest")


def test_validators_agree_that_a_newer_minor_document_with_unknown_content_is_valid() -> None:
    doc = json.loads(NEWER)
    assert validation.check(doc)[0] == []
    assert validation.reference_errors(doc) == []


# -- other constraints of the rules -----------------------------------------------------


@pytest.mark.parametrize(("doc", "reason", "pointer"), [
    (fact(id="r1\n"), "PATTERN_MISMATCH", "/id"),
    (fact(id="a\x7f"), "PATTERN_MISMATCH", "/id"),
    (fact(extensions={"acme.x\n": 1}), "PATTERN_MISMATCH", "/extensions/acme.x\n"),
    (fact(extensions={"Acme.x": 1}), "PATTERN_MISMATCH", "/extensions/Acme.x"),
    (fact(extensions={"acme": 1}), "PATTERN_MISMATCH", "/extensions/acme"),
])
def test_patterns_are_ecma262_and_anchored(doc: dict[str, Any], reason: str, pointer: str) -> None:
    rejects_doc(doc, reason, pointer)


@pytest.mark.parametrize(("doc", "pointer"), [
    ({"specversion": "1.0", "id": "r1", "kind": "message",
      "message": {"role": "user", "content": [{"image": {"uri": "not a uri"}}]}}, "/message/content/0/image/uri"),
    ({"specversion": "1.0", "id": "r1", "kind": "message",
      "message": {"role": "user", "content": [{"image": {"uri": "https://x.test/a.png", "media_type": "png"}}]}},
     "/message/content/0/image/media_type"),
    (fact(embeddings=[{"model": "m", "dimensions": 1, "values": [1.0], "field": "text"}]), "/embeddings/0/field"),
    (fact(embeddings=[{"model": "m", "dimensions": 1, "values": [1.0], "field": "/a~2"}]), "/embeddings/0/field"),
])
def test_string_formats_checked(doc: dict[str, Any], pointer: str) -> None:
    rejects_doc(doc, "INVALID_FORMAT", pointer)


def test_payload_must_match_kind() -> None:
    rejects_doc(fact(kind="message"), "KIND_MISMATCH", "/fact")
    encrypted = {"specversion": "1.0", "id": "r1", "kind": "message",
                 "encrypted": {"algorithm": "A", "ciphertext": "AA=="}}
    memorywire.validate(encrypted)


def test_oneof_conflict_pointer_is_the_later_member_name() -> None:
    doc = fact(message={"role": "user", "content": [{"text": {"text": "x"}}]})
    rejects_doc(doc, "ONEOF_CONFLICT", "/message")
    # read in name order, so that "the later name" and "the second read" agree
    part = {"image": {"uri": "https://x.test/i"}, "text": {"text": "x"}}
    rejects_doc(part, "ONEOF_CONFLICT", "/text", "memorywire.v1.ContentPart")


def test_tool_result_output_and_output_parts_conflict() -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "tool_result",
           "tool_result": {"call_id": "c", "output": "", "output_parts": [{"text": {"text": "x"}}]}}
    rejects_doc(doc, "ONEOF_CONFLICT", "/tool_result/output_parts")


def test_media_part_needs_uri_data_or_file_id() -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "message",
           "message": {"role": "user", "content": [{"image": {"detail": "low", "file_id": ""}}]}}
    rejects_doc(doc, "REQUIRED_FIELD_MISSING", "/message/content/0/image")


def test_string_lengths_count_code_points() -> None:
    memorywire.validate(fact(id="\U0001f600" * 256))
    rejects_doc(fact(id="\U0001f600" * 257), "LENGTH_OUT_OF_RANGE", "/id")


# -- number tokens --------------------------------------------------------------------


@st.composite
def decimal_tokens(draw: Any) -> str:
    sign = draw(st.sampled_from(["", "-"]))
    whole = draw(st.sampled_from(["0", "1", "9"])) if draw(st.booleans()) else str(draw(st.integers(1, 10**25)))
    fraction = draw(st.text("0123456789", min_size=0, max_size=25))
    exponent = draw(st.none() | st.integers(-340, 320))
    token = sign + whole + ("." + fraction if fraction else "")
    if exponent is not None:
        token += draw(st.sampled_from(["e", "E"])) + draw(st.sampled_from(["", "+"])) * (exponent >= 0) \
            + str(exponent)
    elif not fraction:
        token += ".0"
    return token


@PROPERTY
@given(decimal_tokens())
def test_json_float_tokens_are_correctly_rounded(token: str) -> None:
    expected = float(token)  # correctly rounded, ties to even
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"metadata":{"a":' \
        + token.encode() + b"}}"
    if math.isinf(expected):
        with pytest.raises(MemorywireError) as info:
            mw_json.decode(data)
        assert info.value.reason == "NON_FINITE_NUMBER" and info.value.pointer == "/metadata/a"
        return
    value = mw_json.decode(data)["metadata"]["a"]
    assert type(value) is float and struct.pack("<d", value) == struct.pack("<d", expected)


@PROPERTY
@given(decimal_tokens())
def test_json_float32_tokens_round_in_two_steps(token: str) -> None:
    wide = float(token)
    data = (b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},'
            b'"embeddings":[{"model":"m","dimensions":1,"values":[' + token.encode() + b"]}]}")
    try:
        narrow = struct.pack("<f", wide) if not math.isinf(wide) else None
    except OverflowError:
        narrow = None
    if narrow is None:
        with pytest.raises(MemorywireError) as info:
            mw_json.decode(data)
        assert info.value.reason in ("NON_FINITE_NUMBER" if math.isinf(wide) else "NUMBER_OUT_OF_RANGE",)
        return
    doc = mw_json.decode(data)
    assert struct.pack("<f", doc["embeddings"][0]["values"][0]) == narrow


@pytest.mark.parametrize(("token", "canonical"), [
    (b"-0", b"0"), (b"-0.0", b"-0.0"), (b"1E2", b"100.0"), (b"1e+2", b"100.0"), (b"1.0e-2", b"0.01"),
    (b"100", b"100"), (b"1.5E3", b"1500.0"), (b"0e10", b"0.0"), (b"-0e5", b"-0.0"),
    (b"123456789012345678901234567890.0", b"1.2345678901234568e+29"),
])
def test_json_value_number_tokens_keep_integer_or_float_kind(token: bytes, canonical: bytes) -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"},"metadata":{"a":' + token + b"}}"
    assert b'"a":' + canonical + b"}" in mw_json.encode(mw_json.decode(data))


@pytest.mark.parametrize(("token", "value"), [
    (b"1", 1.0), (b"9007199254740993", 9007199254740992.0), (b"123456789012345678901234567890", 1.2345678901234568e29),
    (b"1.5E3", 1500.0), (b"-0", -0.0),
])
def test_json_double_field_accepts_any_number_token(token: bytes, value: float) -> None:
    data = b'{"record":{"id":"r1","kind":"fact","fact":{"text":"x"}},"score":' + token + b"}"
    doc = mw_json.decode(data, type="memorywire.v1.SearchHit")
    assert strict_equal(float(doc["score"]), value)  # the JSON form as parsed may keep an int
    assert f'"score":{canonical_float(value)}'.encode() in mw_json.encode(doc, type="memorywire.v1.SearchHit")


def test_json_member_names_are_matched_after_unescaping_and_case_sensitively() -> None:
    data = b'{"\\u0073pecversion":"1.0","id":"r1","kind":"fact","f\\u0061ct":{"text":"x"}}'
    assert mw_json.decode(data) == fact()
    rejects("json", b'{"Specversion":"1.0","specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"}}',
            "UNKNOWN_FIELD", "/Specversion")


def test_msgpack_float32_value_is_widened_and_written_as_float64() -> None:
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("metadata") + b"\x81\xa1a\xca" \
        + struct.pack(">f", 0.1)
    doc = mw_msgpack.decode(data)
    assert doc["metadata"]["a"] == f32(0x3DCCCCCD)
    assert b"\xa1a\xcb" + struct.pack(">d", f32(0x3DCCCCCD)) in mw_msgpack.encode(doc)
    assert b'"a":0.10000000149011612' in mw_json.encode(doc)


@pytest.mark.parametrize("ext", [b"\xc7\x04\xff", b"\xc7\x08\xff", b"\xc8\x00\x04\xff"])
def test_msgpack_timestamp_in_any_ext_format_of_length_4_8_or_12(ext: bytes) -> None:
    seconds = instant("2024-05-01T12:30:00Z")[0]
    n = ext[-2] if ext[0] != 0xC8 else 4
    payload = {4: struct.pack(">I", seconds), 8: struct.pack(">Q", seconds)}[n]
    data = b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("created_at") + ext + payload
    assert mw_msgpack.decode(data)["created_at"] == "2024-05-01T12:30:00Z"


def test_msgpack_reader_accepts_any_str_and_bin_format() -> None:
    data = b"\x85" + msgpack.packb(fact())[1:] + b"\xdb\x00\x00\x00\x03key" + b"\xda\x00\x01v"
    assert mw_msgpack.decode(data)["key"] == "v"
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact"}
    data = b"\x84" + msgpack.packb(doc)[1:] + msgpack.packb("encrypted") + b"\x82" + msgpack.packb("algorithm") \
        + msgpack.packb("A") + msgpack.packb("ciphertext") + b"\xc6\x00\x00\x00\x01\x00"
    assert mw_msgpack.decode(data)["encrypted"]["ciphertext"] == "AA=="


def test_protobuf_reader_accepts_unpacked_enums_and_writes_them_packed() -> None:
    data = S.pb_len(1, b"1.0") + S.pb_len(2, b"o") + S.pb_tag(6, 0) + b"\x01" + S.pb_tag(6, 0) + b"\x04"
    doc = mw_protobuf.decode(data, type="memorywire.v1.HistoryRequest")
    assert doc["kinds"] == ["message", "fact"]
    assert mw_protobuf.encode(doc, type="memorywire.v1.HistoryRequest").endswith(bytes.fromhex("32020104"))


def test_protobuf_uint32_varint_is_truncated_to_32_bits_and_bool_is_nonzero() -> None:
    data = S.pb_len(1, b"m") + S.pb_tag(2, 0) + S.pb_varint((1 << 32) | 1) + S.pb_len(3, struct.pack("<f", 1.0))
    assert mw_protobuf.decode(data, type="memorywire.v1.Embedding")["dimensions"] == 1
    pinned = mw_protobuf.encode(fact()) + S.pb_len(23, S.pb_tag(7, 0) + b"\x02")
    doc = mw_protobuf.decode(pinned)
    assert doc["lifecycle"]["pinned"] is True
    assert mw_protobuf.encode(doc).endswith(S.pb_len(23, S.pb_tag(7, 0) + b"\x01"))


def test_protobuf_last_oneof_member_on_the_wire_wins() -> None:
    message = S.pb_len(10, S.pb_tag(1, 0) + b"\x03" + S.pb_len(3, S.pb_len(2, S.pb_len(1, b"hi"))))
    fact_payload = S.pb_len(13, S.pb_len(1, b"x"))
    data = S.pb_len(1, b"1.0") + S.pb_len(2, b"r1") + S.pb_tag(3, 0) + b"\x01" + fact_payload + message
    doc = mw_protobuf.decode(data)
    assert "fact" not in doc and doc["message"]["role"] == "user"


def test_protobuf_tool_result_with_output_and_output_parts_conflicts() -> None:
    result = S.pb_len(1, b"c") + S.pb_len(3, b"") + S.pb_len(4, S.pb_len(2, S.pb_len(1, b"x")))
    data = S.pb_len(1, b"1.0") + S.pb_len(2, b"r1") + S.pb_tag(3, 0) + b"\x03" + S.pb_len(12, result)
    rejects("protobuf", data, "ONEOF_CONFLICT", "/tool_result/output_parts")


def test_newer_minor_first_unknown_member_is_named_in_input_order() -> None:
    """json-format.md §6: the first unknown member met by a depth-first
    traversal that visits members in the order of the input."""
    data = (b'{"specversion":"1.1","scope":{"user":"u","aa":{"b":1}},"id":"r1","kind":"fact",'
            b'"fact":{"text":"x"},"zz":1}')
    with pytest.raises(UnrepresentableError) as info:
        memorywire.convert(data, source="json", target="protobuf")
    assert info.value.pointer == "/scope/aa"
    data = (b'{"specversion":"1.1","zz":1,"id":"r1","kind":"fact","fact":{"text":"x"},'
            b'"scope":{"user":"u","aa":{"b":1}}}')
    with pytest.raises(UnrepresentableError) as info:
        memorywire.convert(data, source="json", target="protobuf")
    assert info.value.pointer == "/zz"


def test_newer_minor_unknown_protobuf_enum_number_is_kept_for_protobuf_only() -> None:
    data = mw_protobuf.encode(fact(specversion="1.1", fact={"text": "x", "category": "fact"}))
    data = data.replace(S.pb_tag(5, 0) + b"\x01", S.pb_tag(5, 0) + b"\x63")  # FactCategory 99
    assert S.pb_tag(5, 0) + b"\x63" in memorywire.convert(data, source="protobuf", target="protobuf")
    for target in ("json", "msgpack"):
        with pytest.raises(UnrepresentableError) as info:
            memorywire.convert(data, source="protobuf", target=target)
        assert info.value.pointer == "/fact/category", target


def test_an_error_document_is_read_as_of_a_newer_minor_version() -> None:
    data = b'{"code":"internal","message":"m","reason":"NEW_REASON","zz_detail":{"a":1},"violations":[{"reason":"X"}]}'
    doc = mw_json.decode(data, type="memorywire.v1.Error")
    assert doc["zz_detail"] == {"a": 1}
    assert mw_json.encode(doc, type="memorywire.v1.Error") == (
        b'{"code":"internal","message":"m","reason":"NEW_REASON","violations":[{"reason":"X"}],"zz_detail":{"a":1}}')
    with pytest.raises(UnrepresentableError) as info:
        memorywire.convert(data, source="json", target="protobuf", type="memorywire.v1.Error")
    assert info.value.pointer == "/zz_detail"
    assert validation.reference_errors(json.loads(data), "memorywire.v1.Error") == []
