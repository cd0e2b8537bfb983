"""Integers: uint32 and uint64 fields, and 64-bit integer Values."""

from typing import Any

from _common import fact, with_
from vectorkit import MF32, MInt, canonical_protobuf, invalid, mp_pack, mp_tree, valid, vi

AREA = "Integers"
DESCRIPTION = (
    "Integer fields: the uint64 range of 0..2^53-1 checked on the exact value, uint32 fields, integer "
    "tokens only in JSON and int formats only in MessagePack, range rules, and the full signed 64-bit "
    "range of integer Values."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
MAX = 9007199254740991
S = ["core.md#3.3", "json-format.md#3.2", "msgpack-format.md#3.2", "protobuf-format.md#3.2"]


def jbase(extra: str) -> str:
    return ('{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"The user prefers window seats."},'
            + extra + "}")


def mbase(**extra: Any) -> bytes:
    return mp_pack(mp_tree(with_(BASE, **extra), R))


def pbase(raw: bytes) -> bytes:
    return canonical_protobuf(BASE, R) + raw


CASES = [
    valid("Uint64Max", "sequence at 2^53-1, the greatest value of every uint64 field.", S,
          with_(BASE, sequence=MAX, revision=1)),
    invalid("Uint64TwoToThe53",
            "2^53 is above the range of uint64 fields: NUMBER_OUT_OF_RANGE in every encoding.",
            S, "NUMBER_OUT_OF_RANGE", "/sequence", doc=with_(BASE, sequence=MAX + 1)),
    invalid("Uint64RoundsToTwoToThe53",
            "9007199254740993 rounds to 2^53 in binary64; the range check is made on the exact value, and "
            "fails.", S, "NUMBER_OUT_OF_RANGE", "/sequence", doc=with_(BASE, sequence=MAX + 2)),
    invalid("Uint64Max64Bit",
            "2^64-1, the greatest varint value, fails with NUMBER_OUT_OF_RANGE.", S,
            "NUMBER_OUT_OF_RANGE", "/revision", doc=with_(BASE, revision=2**64 - 1)),
    invalid("NegativeUint",
            "A negative value in an unsigned field fails with NUMBER_OUT_OF_RANGE (JSON and MessagePack).",
            S, "NUMBER_OUT_OF_RANGE", "/sequence", doc=with_(BASE, sequence=-1), protobuf=None),
    valid("NegativeZeroToken",
          "The JSON token -0 in an integer field is the value 0: accepted, and as a default not written.",
          ["json-format.md#3.2"], BASE, json=jbase('"sequence":-0'), msgpack=None, protobuf=None),
    invalid("IntegerWithFraction",
            "A number token with a fraction fails with TYPE_MISMATCH in an integer field, even when whole.",
            ["json-format.md#3.2", "core.md#3.3"], "TYPE_MISMATCH", "/sequence", json=jbase('"sequence":1.0')),
    invalid("IntegerWithExponent",
            "A number token with an exponent fails with TYPE_MISMATCH in an integer field, even when whole.",
            ["json-format.md#3.2", "core.md#3.3"], "TYPE_MISMATCH", "/revision", json=jbase('"revision":1e3')),
    invalid("IntegerWithUppercaseExponent", "10E0 in an integer field fails with TYPE_MISMATCH.",
            ["json-format.md#3.2"], "TYPE_MISMATCH", "/sequence", json=jbase('"sequence":10E0')),
    invalid("IntegerAsString", "A string in an integer field fails with TYPE_MISMATCH.",
            ["json-format.md#3", "msgpack-format.md#3"], "TYPE_MISMATCH", "/sequence",
            doc=with_(BASE, sequence="5"), protobuf=None),
    invalid("MsgpackFloatForInteger",
            "A MessagePack float 64 in an integer field fails with TYPE_MISMATCH, even when its value is whole.",
            ["msgpack-format.md#3.2"], "TYPE_MISMATCH", "/sequence", msgpack=mbase(sequence=1.0),
            json=None, protobuf=None),
    invalid("MsgpackFloat32ForInteger",
            "A MessagePack float 32 in an integer field fails with TYPE_MISMATCH.",
            ["msgpack-format.md#3.2"], "TYPE_MISMATCH", "/revision", msgpack=mbase(revision=MF32(2.0)),
            json=None, protobuf=None),
    valid("MsgpackAnyIntFormat",
          "A reader accepts any int format that holds the value: sequence 5 as uint 64, revision 1 as int 8, "
          "access_count 300 as int 32.",
          ["msgpack-format.md#3.2"],
          with_(BASE, sequence=5, revision=1, lifecycle={"access_count": 300}),
          msgpack=mbase(sequence=MInt(5, "u64"), revision=MInt(1, "i8"),
                        lifecycle={"access_count": MInt(300, "i32")}),
          json=None, protobuf=None),
    valid("Uint32Max",
          "A uint32 field without a range rule (Limits.max_depth) holds 4294967295.",
          ["core.md#3.3", "json-format.md#3.2"],
          {"specversion": "1.0", "operation_id": "op-1", "implementation": "x", "specversions": ["1.0"],
           "limits": {"max_depth": 4294967295}},
          type="memorywire.v1.GetCapabilitiesResponse"),
    invalid("Uint32Overflow",
            "4294967296 is above the range of a uint32 field: NUMBER_OUT_OF_RANGE (JSON and MessagePack).",
            ["core.md#3.3", "json-format.md#3.2", "msgpack-format.md#3.2"], "NUMBER_OUT_OF_RANGE",
            "/limits/max_depth",
            doc={"specversion": "1.0", "operation_id": "op-1", "implementation": "x", "specversions": ["1.0"],
                 "limits": {"max_depth": 4294967296}},
            type="memorywire.v1.GetCapabilitiesResponse", protobuf=None),
    valid("ProtobufUint32Truncated",
          "In Protobuf a varint of more than 32 bits in a uint32 field is truncated to its low 32 bits, as the "
          "Protocol Buffers rules say: 2^32 + 64 reads as 64.",
          ["protobuf-format.md#3.2"],
          {"specversion": "1.0", "operation_id": "op-1", "implementation": "x", "specversions": ["1.0"],
           "limits": {"max_depth": 64}},
          type="memorywire.v1.GetCapabilitiesResponse", json=None, msgpack=None,
          protobuf=canonical_protobuf({"specversion": "1.0", "operation_id": "op-1", "implementation": "x",
                                       "specversions": ["1.0"]}, "memorywire.v1.GetCapabilitiesResponse")
          + bytes([0x42, 0x06]) + vi(2, 2**32 + 64), level="recommended"),
    invalid("AboveRuleMaximum",
            "A value within the range of the type but above the maximum of the field's rules fails with "
            "VALUE_OUT_OF_RANGE, not NUMBER_OUT_OF_RANGE: HistoryRequest.limit is at most 1000.",
            ["core.md#3.3", "json-format.md#3.2", "msgpack-format.md#3.2", "protobuf-format.md#3.2"],
            "VALUE_OUT_OF_RANGE", "/limit",
            doc={"specversion": "1.0", "operation_id": "op-1", "limit": 1001},
            type="memorywire.v1.HistoryRequest"),
    valid("ValueInt64Extremes",
          "Integer Values span -2^63..2^63-1 exactly in every encoding.",
          ["core.md#3.4", "json-format.md#3.8", "msgpack-format.md#3.8", "protobuf-format.md#3.8"],
          with_(BASE, metadata={"max": 9223372036854775807, "min": -9223372036854775808})),
    valid("ValueIntegersBeyond2To53",
          "Integer Values beyond 2^53 are parsed exactly: 2^53+1 and -(2^53+1) are not rounded.",
          ["core.md#3.4", "json-format.md#3.8"],
          with_(BASE, metadata={"a": 9007199254740993, "b": -9007199254740993, "c": 1234567890123456789})),
    valid("ValueIntegerBoundaries",
          "Integer Values at the boundaries of the MessagePack int formats.",
          ["msgpack-format.md#3.2", "msgpack-format.md#3.8"],
          with_(BASE, metadata={"a": 127, "b": 128, "c": 255, "d": 256, "e": 65535, "f": 65536,
                                "g": 4294967295, "h": 4294967296, "i": -1, "j": -32, "k": -33, "l": -128,
                                "m": -129, "n": -32768, "o": -32769, "p": -2147483648, "q": -2147483649})),
    invalid("ValueIntegerTwoToThe63",
            "2^63 is above the range of integer Values: NUMBER_OUT_OF_RANGE (JSON token, MessagePack uint 64).",
            ["core.md#3.4", "json-format.md#3.8", "msgpack-format.md#3.8"], "NUMBER_OUT_OF_RANGE",
            "/metadata/n", doc=with_(BASE, metadata={"n": 9223372036854775808}), protobuf=None),
    invalid("ValueIntegerBelowMin",
            "-2^63-1 is below the range of integer Values: NUMBER_OUT_OF_RANGE.",
            ["core.md#3.4", "json-format.md#3.8"], "NUMBER_OUT_OF_RANGE", "/metadata/n",
            json=jbase('"metadata":{"n":-9223372036854775809}')),
    invalid("ValueInteger20Digits",
            "An integer token of more than 19 digits is always out of range.",
            ["json-format.md#3.8"], "NUMBER_OUT_OF_RANGE", "/metadata/n/0",
            json=jbase('"metadata":{"n":[12345678901234567890123]}')),
    valid("ValueNegativeZeroInteger",
          "The JSON token -0 in a Value is the integer 0 (not the float -0.0).",
          ["json-format.md#3.8"], with_(BASE, metadata={"z": 0}),
          json=jbase('"metadata":{"z":-0}'), msgpack=None, protobuf=None),
]
