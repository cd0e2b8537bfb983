"""Enums: names in JSON and MessagePack, numbers in Protobuf."""

from _common import fact, record, with_
from vectorkit import PEnum, canonical_protobuf, invalid, ld, protobuf_input, valid, varint, vi

AREA = "Enums"
DESCRIPTION = (
    "Enum values: lower-case names without the prefix in JSON and MessagePack, numbers in Protobuf, the "
    "zero value as absence, and the rejection of unknown names and numbers, of \"unspecified\", of other "
    "spellings and of numbers in JSON and MessagePack."
)

R = "memorywire.v1.MemoryRecord"
H = "memorywire.v1.HistoryRequest"
BASE = fact()
S = ["core.md#3.9", "json-format.md#3.7", "msgpack-format.md#3.7", "protobuf-format.md#3.7"]

CASES = [
    valid("EveryRecordKindName",
          "Every RecordKind name, as HistoryRequest.kinds: JSON and MessagePack names, a packed repeated enum in "
          "Protobuf.",
          S + ["protobuf-format.md#6"],
          {"specversion": "1.0", "operation_id": "op-1",
           "kinds": ["message", "tool_call", "tool_result", "fact", "episode", "procedure", "emotion", "summary",
                     "block", "custom"], "thread": "all", "order": "descending"},
          type=H),
    valid("LinkTypes", "Every LinkType name.", S + ["core.md#7"],
          with_(BASE, links=[{"type": t, "target": f"r{i}"} for i, t in enumerate(
              ["derived_from", "summarizes", "supersedes", "contradicts", "responds_to", "references"])])),
    valid("OriginsAndTrust", "Origin and TrustLevel names.", S + ["core.md#9"],
          with_(BASE, provenance={"origin": "import", "trust": "system"})),
    valid("RecordStatuses", "RecordStatus names: archived and rejected.", S + ["core.md#8"],
          record("fact", {"text": "a"}, id="f", lifecycle={"status": "rejected", "reason": "wrong"},
                 metadata={"previous": "archived"})),
    valid("ErrorCodes", "ErrorCode names of more than one word.", S + ["operations.md#3.2"],
          {"code": "failed_precondition", "reason": "NOT_STAGED", "message": "The record is not staged.",
           "violations": [{"pointer": "/id", "reason": "NOT_STAGED"}]},
          type="memorywire.v1.Error"),
    valid("ProtobufZeroIsAbsent",
          "In Protobuf the number 0 of a singular enum field is its default: a Fact with category 0 written "
          "explicitly has no category.",
          ["protobuf-format.md#3.7", "protobuf-format.md#4.1"], BASE,
          protobuf=protobuf_input({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                                   "fact": {"text": "The user prefers window seats.", "category": PEnum(0)}}),
          json=None, msgpack=None),
    valid("ProtobufUnpackedEnums",
          "A Protobuf reader accepts a repeated enum unpacked (one VARINT record per element); the canonical "
          "writer packs it (32 02 01 04).",
          ["protobuf-format.md#6", "protobuf-format.md#4.4"],
          {"specversion": "1.0", "operation_id": "op-1", "kinds": ["message", "fact"]}, type=H,
          protobuf=canonical_protobuf({"specversion": "1.0", "operation_id": "op-1"}, H) + vi(6, 1) + vi(6, 4),
          json=None, msgpack=None),
    invalid("UnknownName", "A name the enum does not define fails with UNKNOWN_ENUM_VALUE at the member.",
            S, "UNKNOWN_ENUM_VALUE", "/message/role",
            doc=record("message", {"role": "moderator"}, id="m"), protobuf=None),
    invalid("CapitalizedName", "Names are case-sensitive: \"User\" is not a name.", S,
            "UNKNOWN_ENUM_VALUE", "/message/role", doc=record("message", {"role": "User"}, id="m"), protobuf=None),
    invalid("FullUppercaseName", "The Protobuf name ROLE_USER is not a JSON name.", S,
            "UNKNOWN_ENUM_VALUE", "/message/role", doc=record("message", {"role": "ROLE_USER"}, id="m"),
            protobuf=None),
    invalid("UnspecifiedName", "\"unspecified\" is never valid.", S, "UNKNOWN_ENUM_VALUE", "/fact/category",
            doc=with_(BASE, fact={"text": "x", "category": "unspecified"}), protobuf=None),
    invalid("UnknownNameInList", "An unknown name in a repeated enum field fails at the element.", S,
            "UNKNOWN_ENUM_VALUE", "/kinds/1",
            doc={"specversion": "1.0", "operation_id": "op-1", "kinds": ["fact", "memo"]}, type=H, protobuf=None),
    invalid("NumberForEnum", "A number in place of an enum name fails with TYPE_MISMATCH.",
            ["json-format.md#3.7", "msgpack-format.md#3.7"], "TYPE_MISMATCH", "/kind",
            doc={"specversion": "1.0", "id": "fact-1", "kind": 4, "fact": {"text": "x"}}, protobuf=None),
    invalid("ProtobufUnknownNumber", "A number the enum does not define fails with UNKNOWN_ENUM_VALUE.",
            ["protobuf-format.md#3.7", "protobuf-format.md#5"], "UNKNOWN_ENUM_VALUE", "/fact/category",
            protobuf=protobuf_input({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                                     "fact": {"text": "x", "category": PEnum(7)}}), json=None, msgpack=None),
    invalid("ProtobufUnknownKindNumber",
            "A RecordKind number the enum does not define fails with UNKNOWN_ENUM_VALUE at /kind.",
            ["protobuf-format.md#3.7"], "UNKNOWN_ENUM_VALUE", "/kind",
            protobuf=protobuf_input({"specversion": "1.0", "id": "fact-1", "kind": PEnum(99),
                                     "fact": {"text": "x"}}), json=None, msgpack=None),
    invalid("ProtobufRequiredEnumZero",
            "A required enum field holding 0 is absent: REQUIRED_FIELD_MISSING.",
            ["protobuf-format.md#3.7", "protobuf-format.md#4.3"], "REQUIRED_FIELD_MISSING", "/message/role",
            protobuf=protobuf_input({"specversion": "1.0", "id": "m", "kind": "message",
                                     "message": {"role": PEnum(0), "name": "x"}}), json=None, msgpack=None),
    invalid("ProtobufZeroInRepeatedEnum",
            "The number 0 as an element of a repeated enum field fails with UNKNOWN_ENUM_VALUE at the element.",
            ["protobuf-format.md#3.7"], "UNKNOWN_ENUM_VALUE", "/kinds/1",
            protobuf=canonical_protobuf({"specversion": "1.0", "operation_id": "op-1"}, H)
            + ld(6, varint(4) + varint(0)), type=H, json=None, msgpack=None),
    invalid("ProtobufUnknownNumberInList",
            "An unknown number in a packed repeated enum fails at its element.",
            ["protobuf-format.md#3.7"], "UNKNOWN_ENUM_VALUE", "/kinds/2",
            protobuf=canonical_protobuf({"specversion": "1.0", "operation_id": "op-1"}, H)
            + ld(6, varint(1) + varint(4) + varint(11)), type=H, json=None, msgpack=None),
]
