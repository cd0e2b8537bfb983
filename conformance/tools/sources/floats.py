"""Floats: binary64 fields and float Values."""

import struct
from typing import Any

from _common import fact, with_
from vectorkit import MF32, MRaw, canonical_protobuf, f64, invalid, ld, mp_pack, mp_tree, valid

AREA = "Floats"
DESCRIPTION = (
    "Float fields and float Values: the canonical JSON spelling of binary64 values (shortest round-trip "
    "digits, plain notation for 1e-5 <= |x| < 1e16, exponent notation otherwise, always with . or e), "
    "negative zero, correct rounding of long tokens, float 32 and int input in MessagePack, and NaN and "
    "infinities rejected in every encoding."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
SPELL = ["json-format.md#7.4", "core.md#3.5", "msgpack-format.md#3.3", "protobuf-format.md#3.3"]


def jbase(extra: str) -> str:
    return ('{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"The user prefers window seats."},'
            + extra + "}")


def mbase(**extra: Any) -> bytes:
    return mp_pack(mp_tree(with_(BASE, **extra), R))


def pbase(raw: bytes) -> bytes:
    return canonical_protobuf(BASE, R) + raw


# (case name, value, canonical spelling) from the table of json-format.md section 7.4
SPELLINGS = [
    ("One", 1.0, "1.0"),
    ("Hundred", 100.0, "100.0"),
    ("Half", 0.5, "0.5"),
    ("ThreeDecimals", 123.456, "123.456"),
    ("PointOne", 0.1, "0.1"),
    ("NegativeZero", -0.0, "-0.0"),
    ("NegativeOneAndHalf", -1.5, "-1.5"),
    ("TwoToThe53", 9007199254740992.0, "9007199254740992.0"),
    ("TenToThe15", 1e15, "1000000000000000.0"),
    ("TenToThe16", 1e16, "1e+16"),
    ("LargeWithDigits", 1.2345678901234568e20, "1.2345678901234568e+20"),
    ("TenToThe21", 1e21, "1e+21"),
    ("TenToTheMinus5", 1e-5, "0.00001"),
    ("SmallPlainWithDigits", 1.5000000000000002e-5, "0.000015000000000000002"),
    ("TenToTheMinus6", 1e-6, "1e-6"),
    ("JustBelowTenToTheMinus5", 9.999999999999999e-6, "9.999999999999999e-6"),
    ("OnePointFiveEMinus7", 1.5e-7, "1.5e-7"),
    ("LeastSubnormal", 5e-324, "5e-324"),
    ("GreatestFinite", 1.7976931348623157e308, "1.7976931348623157e+308"),
    ("NegativeExponentForm", -2.5e-10, "-2.5e-10"),
    ("JustBelowTenToThe16", 9999999999999998.0, "9999999999999998.0"),
]

CASES = []
for name, value, text in SPELLINGS:
    assert struct.pack("<d", value) == struct.pack("<d", float(text))
    CASES.append(valid(
        f"Spelling{name}",
        f"The float Value {text} keeps its bits in every encoding and is written {text} in canonical JSON.",
        SPELL + ["json-format.md#3.8"], with_(BASE, metadata={"x": value})))

CASES += [
    valid("FloatFieldSpellings",
          "Float fields: importance 0.1 and confidence 1.0 are written 0.1 and 1.0; the Float fields of an "
          "emotion use the same spelling.",
          ["json-format.md#7.4", "core.md#3.5", "core.md#8"],
          with_(BASE, lifecycle={"importance": 0.1, "confidence": 1.0})),
    valid("ExponentInputForms",
          "A reader accepts every number token for a Float: 5e-1, 1E0 and 0.1e1 are 0.5, 1.0 and 1.0.",
          ["json-format.md#3.3"],
          with_(BASE, lifecycle={"importance": 0.5, "confidence": 1.0}, metadata={"x": 1.0}),
          json=jbase('"lifecycle":{"importance":5e-1,"confidence":1E0},"metadata":{"x":0.1e1}'),
          msgpack=None, protobuf=None),
    valid("IntegerTokenForFloatField",
          "An integer token in a Float field is read as a float: importance 1 is 1.0.",
          ["core.md#3.5", "json-format.md#3.3"], with_(BASE, lifecycle={"importance": 1.0}),
          json=jbase('"lifecycle":{"importance":1}'), msgpack=None, protobuf=None),
    valid("NegativeZeroTokensInFloatField",
          "In a Float field -0, -0.0 and -0e5 are all -0.0, which is kept and written -0.0.",
          ["json-format.md#3.3", "core.md#3.5"],
          with_(BASE, lifecycle={"importance": -0.0, "confidence": -0.0}),
          json=jbase('"lifecycle":{"importance":-0,"confidence":-0e5}'), msgpack=None, protobuf=None),
    valid("LongTokenRoundsCorrectly",
          "A long token is rounded correctly to the nearest binary64: "
          "0.1000000000000000055511151231257827 is 0.1.",
          ["json-format.md#3.3"], with_(BASE, metadata={"x": 0.1}),
          json=jbase('"metadata":{"x":0.1000000000000000055511151231257827}'), msgpack=None, protobuf=None),
    valid("HalfwayRoundsToEven",
          "9007199254740993.0 lies halfway between two binary64 values and rounds to the even one, "
          "9007199254740992.0.",
          ["json-format.md#3.3"], with_(BASE, metadata={"x": 9007199254740992.0}),
          json=jbase('"metadata":{"x":9007199254740993.0}'), msgpack=None, protobuf=None),
    valid("UnderflowKeepsSign",
          "A token too small for binary64 rounds to zero of its sign: 1e-400 is 0.0, -1e-400 is -0.0.",
          ["json-format.md#3.3"], with_(BASE, metadata={"p": 0.0, "n": -0.0}),
          json=jbase('"metadata":{"p":1e-400,"n":-1e-400}'), msgpack=None, protobuf=None),
    valid("HugeExponentOfZero",
          "0e999999999 is 0.0; a reader converts long exponents without overflow.",
          ["json-format.md#3.3"], with_(BASE, metadata={"x": 0.0}),
          json=jbase('"metadata":{"x":0e999999999}'), msgpack=None, protobuf=None, level="recommended"),
    valid("MsgpackFloat32ForFloat",
          "A MessagePack float 32 in a Float field and in a Value is widened exactly to binary64 and written "
          "as float 64.",
          ["msgpack-format.md#3.3", "msgpack-format.md#3.8"],
          with_(BASE, lifecycle={"importance": 0.25}, metadata={"x": 0.10000000149011612}),
          msgpack=mbase(lifecycle={"importance": MF32(0.25)}, metadata={"x": MF32(0.1)}),
          json=None, protobuf=None),
    valid("MsgpackIntForFloat",
          "A MessagePack int in a Float field is read as the nearest binary64: importance 1 is 1.0.",
          ["msgpack-format.md#3.3"], with_(BASE, lifecycle={"importance": 1.0}),
          msgpack=mbase(lifecycle={"importance": 1}), json=None, protobuf=None),
    valid("ImplicitDoubleNegativeZero",
          "SearchHit.score has implicit presence: +0.0 is its default and is not written, but -0.0 is a value "
          "and is written in every encoding.",
          ["protobuf-format.md#4.1", "protobuf-format.md#6", "json-format.md#7.5"],
          {"specversion": "1.0", "operation_id": "op-1",
           "hits": [{"record": {"id": "f1", "kind": "fact", "fact": {"text": "a"}}, "score": -0.0},
                    {"record": {"id": "f2", "kind": "fact", "fact": {"text": "b"}}, "score": 0.0}]},
          type="memorywire.v1.SearchResponse"),
    invalid("NanToken", "The token NaN is not JSON: SYNTAX_ERROR.", ["json-format.md#2.1", "json-format.md#3.3"],
            "SYNTAX_ERROR", "", json=jbase('"lifecycle":{"importance":NaN}')),
    invalid("InfinityToken", "The token Infinity is not JSON: SYNTAX_ERROR.", ["json-format.md#2.1"],
            "SYNTAX_ERROR", "", json=jbase('"metadata":{"x":-Infinity}')),
    invalid("NanString", "A string \"NaN\" in a Float field fails with TYPE_MISMATCH.", ["json-format.md#3.3"],
            "TYPE_MISMATCH", "/lifecycle/importance", json=jbase('"lifecycle":{"importance":"NaN"}')),
    invalid("OverflowingToken",
            "A token that overflows binary64 fails with NON_FINITE_NUMBER at the member.",
            ["json-format.md#3.3", "core.md#3.5"], "NON_FINITE_NUMBER", "/metadata/x",
            json=jbase('"metadata":{"x":1e400}')),
    invalid("OverflowingTokenInFloatField",
            "-2e308 in a Float field overflows binary64: NON_FINITE_NUMBER.",
            ["json-format.md#3.3"], "NON_FINITE_NUMBER", "/lifecycle/confidence",
            json=jbase('"lifecycle":{"confidence":-2e308}')),
    invalid("HugeExponent",
            "1e999999999 fails with NON_FINITE_NUMBER (converted in time linear in its length).",
            ["json-format.md#3.3"], "NON_FINITE_NUMBER", "/metadata/x",
            json=jbase('"metadata":{"x":1e999999999}'), level="recommended"),
    invalid("MsgpackNan", "A float 64 NaN fails with NON_FINITE_NUMBER.", ["msgpack-format.md#3.3"],
            "NON_FINITE_NUMBER", "/lifecycle/importance",
            msgpack=mbase(lifecycle={"importance": MRaw(b"\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00")}),
            json=None, protobuf=None),
    invalid("MsgpackInfinityInValue", "A float 64 infinity inside a Value fails with NON_FINITE_NUMBER.",
            ["msgpack-format.md#3.3", "msgpack-format.md#3.8"], "NON_FINITE_NUMBER", "/metadata/x/1",
            msgpack=mbase(metadata={"x": [1, MRaw(b"\xcb\x7f\xf0\x00\x00\x00\x00\x00\x00")]}),
            json=None, protobuf=None),
    invalid("MsgpackFloat32Nan", "A float 32 NaN (a quiet NaN with payload) fails with NON_FINITE_NUMBER.",
            ["msgpack-format.md#3.3"], "NON_FINITE_NUMBER", "/metadata/x",
            msgpack=mbase(metadata={"x": MRaw(b"\xca\x7f\xc0\x00\x01")}), json=None, protobuf=None),
    invalid("ProtobufNanInFloatField", "A double NaN fails with NON_FINITE_NUMBER.", ["protobuf-format.md#3.3"],
            "NON_FINITE_NUMBER", "/lifecycle/importance",
            protobuf=pbase(ld(23, f64(2, float("nan")))), json=None, msgpack=None),
    invalid("ProtobufInfinityInValue", "Value.float_value -infinity fails with NON_FINITE_NUMBER.",
            ["protobuf-format.md#3.3", "protobuf-format.md#3.8"], "NON_FINITE_NUMBER", "/metadata/x",
            protobuf=pbase(ld(27, ld(1, b"x") + ld(2, f64(4, float("-inf"))))), json=None, msgpack=None),
    invalid("ImportanceNegative", "-0.5 is below the minimum 0 of importance: VALUE_OUT_OF_RANGE.",
            ["core.md#8", "json-format.md#3.3"], "VALUE_OUT_OF_RANGE", "/lifecycle/importance",
            doc=with_(BASE, lifecycle={"importance": -0.5})),
    valid("NegativeZeroWithinRange",
          "For the minimum and maximum of a field's rules -0.0 equals 0: importance -0.0 is within 0..1 and "
          "keeps its sign.",
          ["json-format.md#3.3", "msgpack-format.md#3.3", "protobuf-format.md#3.3"],
          with_(BASE, lifecycle={"importance": -0.0})),
    invalid("BooleanForFloat", "A boolean in a Float field fails with TYPE_MISMATCH.",
            ["json-format.md#3", "msgpack-format.md#3"], "TYPE_MISMATCH", "/lifecycle/importance",
            doc=with_(BASE, lifecycle={"importance": True}), protobuf=None),
]
