"""Values: the value model of free-form data."""

from typing import Any

from _common import fact, record, with_
from vectorkit import (
    MF32,
    MBin,
    MExt,
    MMap,
    MRaw,
    MTs,
    canonical_protobuf,
    invalid,
    ld,
    mp_pack,
    mp_tree,
    pb_value,
    valid,
    vi,
)

AREA = "Values"
DESCRIPTION = (
    "memorywire.v1.Value: null, booleans, integers and floats kept apart, strings, nested lists and maps, "
    "empty lists and maps, Values in every field that holds one, and what is not a Value in each encoding."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
S = ["core.md#3.4", "json-format.md#3.8", "msgpack-format.md#3.8", "protobuf-format.md#3.8"]


def meta(**kv: Any) -> dict[str, Any]:
    return with_(BASE, metadata=kv)


def mmeta(value: Any) -> bytes:
    tree = mp_tree(BASE, R)
    tree["metadata"] = value
    return mp_pack(tree)


def pmeta(entry_bytes: bytes) -> bytes:
    return canonical_protobuf(BASE, R) + ld(27, entry_bytes)


CASES = [
    valid("KindsKeptApart",
          "null, true, false, the integer 1, the float 1.0 and the string \"1\" are six different Values, and each "
          "survives every encoding as what it is.", S,
          meta(n=None, t=True, f=False, i=1, x=1.0, s="1")),
    valid("ZeroValuesWritten",
          "The integer 0, the float 0.0, false, the empty string, the empty list and the empty map are Values "
          "and are written: in Protobuf the member of kind is written even when it is zero or empty "
          "(18 00, 21 0..0, 10 00, 2a 00, 32 00, 3a 00).", S + ["protobuf-format.md#6"],
          meta(i=0, x=0.0, f=False, s="", l=[], m={})),
    valid("NestedListsAndMaps",
          "Lists keep their order; maps of maps and lists of maps nest to any depth within the limits.", S,
          meta(route={"legs": [{"from": "FRA", "to": "OPO", "flight": "TP571", "delay_min": 95},
                               {"from": "OPO", "to": "LIS", "flight": None}],
                      "tags": ["rebooked", ["nested", ["deeper", [1, 2.5, None, True]]]]})),
    valid("EmptyKeyAndSpecialKeys",
          "Any string is a map key: the empty string, a key with / and ~, keys that differ only in case.", S +
          ["core.md#3.10"], meta(**{"": "empty", "a/b": 1, "~": 2, "A": 3, "a": 4})),
    valid("ValueFields",
          "Every field of type Value: DataPart.value, ToolResult.artifact, CustomRecord.value, "
          "NativeRecord.record.", S,
          record("message", {"role": "tool", "content": [
              {"data": {"value": [1, "two", 3.0, None]}},
              {"tool_result": {"call_id": "c1", "artifact": {"rows": 3}}}]}, id="msg-v",
              native={"framework": "openai", "record": "a plain string is a Value too"})),
    valid("NullValueFieldIsPresent",
          "A field of type Value written null holds the null Value and is present: ToolResult.artifact null and "
          "CustomRecord.value null are valid.",
          S + ["json-format.md#4", "core.md#3.11"],
          record("custom", {"type": "langgraph.item", "value": None}, id="item-null")),
    valid("ScalarTopLevelValues",
          "A Value field may hold a bare scalar: a string, a negative integer, a float.", S,
          record("custom", {"type": "counter", "value": -42}, id="c-1",
                 native={"framework": "autogen", "record": 2.5})),
    valid("MsgpackFloat32InValue",
          "A float 32 inside a Value is widened exactly and becomes a float (written as float 64).",
          ["msgpack-format.md#3.8"], meta(x=0.5, y=0.10000000149011612),
          msgpack=mmeta({"x": MF32(0.5), "y": MF32(0.1)}), json=None, protobuf=None),
    invalid("MsgpackBinInValue",
            "A bin inside a Value fails with TYPE_MISMATCH at its pointer: Values have no bytes kind.",
            ["msgpack-format.md#3.8"], "TYPE_MISMATCH", "/metadata/blob",
            msgpack=mmeta({"blob": MBin(b"\x00\x01")}), json=None, protobuf=None),
    invalid("MsgpackTimestampInValue",
            "A timestamp (ext -1) inside a Value fails with TYPE_MISMATCH: Values have no timestamp kind.",
            ["msgpack-format.md#3.8"], "TYPE_MISMATCH", "/metadata/when/0",
            msgpack=mmeta({"when": [MTs(1714566600)]}), json=None, protobuf=None),
    invalid("MsgpackExtInValue",
            "An ext of another type inside a Value fails with TYPE_MISMATCH.",
            ["msgpack-format.md#3.8", "msgpack-format.md#2.1"], "TYPE_MISMATCH", "/metadata/x",
            msgpack=mmeta({"x": MExt(5, b"\x01\x02")}), json=None, protobuf=None),
    invalid("MsgpackIntegerKey",
            "A map key that is not a str fails with TYPE_MISMATCH at the pointer of the map.",
            ["msgpack-format.md#2.1", "msgpack-format.md#3.8"], "TYPE_MISMATCH", "/metadata/m",
            msgpack=mmeta({"m": MMap([(1, "one")])}), json=None, protobuf=None),
    invalid("MsgpackUint64AboveInt64",
            "A uint 64 above 2^63-1 in a Value fails with NUMBER_OUT_OF_RANGE.",
            ["msgpack-format.md#3.8"], "NUMBER_OUT_OF_RANGE", "/metadata/n",
            msgpack=mmeta({"n": MRaw(b"\xcf\xff\xff\xff\xff\xff\xff\xff\xff")}), json=None, protobuf=None),
    invalid("ProtobufValueWithoutKind",
            "A Value message with no member of kind fails with VALUE_KIND_MISSING at the Value.",
            ["protobuf-format.md#3.8", "core.md#3.4"], "VALUE_KIND_MISSING", "/metadata/a",
            protobuf=pmeta(ld(1, b"a") + ld(2, b"")), json=None, msgpack=None),
    invalid("ProtobufEntryWithoutValue",
            "A MapEntry without value fails with VALUE_KIND_MISSING.",
            ["protobuf-format.md#3.8", "protobuf-format.md#3.9"], "VALUE_KIND_MISSING", "/metadata/a",
            protobuf=pmeta(ld(1, b"a")), json=None, msgpack=None),
    invalid("ProtobufEmptyListElement",
            "A ValueList element that is an empty message fails with VALUE_KIND_MISSING at the element.",
            ["protobuf-format.md#3.8"], "VALUE_KIND_MISSING", "/metadata/a/1",
            protobuf=pmeta(ld(1, b"a") + ld(2, ld(6, ld(1, pb_value(1)) + ld(1, b"")))), json=None, msgpack=None),
    invalid("ProtobufNullValueNotZero",
            "A null_value other than 0 fails with UNKNOWN_ENUM_VALUE.",
            ["protobuf-format.md#3.8"], "UNKNOWN_ENUM_VALUE", "/metadata/a",
            protobuf=pmeta(ld(1, b"a") + ld(2, vi(1, 1))), json=None, msgpack=None),
    valid("ProtobufLastKindWins",
          "Value.kind is a oneof: when two members occur, the last one on the wire is the Value.",
          ["protobuf-format.md#4.4"], meta(a="second"),
          protobuf=pmeta(ld(1, b"a") + ld(2, vi(3, 2) + ld(5, b"second"))), json=None, msgpack=None),
]
