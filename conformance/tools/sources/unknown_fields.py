"""UnknownFields: unknown members, field numbers and enum values, and
documents of a newer minor version."""

from typing import Any

from _common import fact, record, with_
from vectorkit import (
    MBin,
    MTs,
    PEnum,
    canonical_protobuf,
    invalid,
    ld,
    mp_pack,
    protobuf_input,
    tag,
    valid,
    vi,
)

AREA = "UnknownFields"
DESCRIPTION = (
    "Unknown content: in a document of the reader's minor version every unknown member, field number or "
    "enum value is an error; in a document of a newer minor version it is tolerated, preserved when the "
    "document is written again in the same encoding, and converting it to another encoding fails with "
    "UNREPRESENTABLE rather than losing it."
)

R = "memorywire.v1.MemoryRecord"
P = "memorywire.v1.PutRequest"
BASE = fact()
NEWER = with_(BASE, specversion="1.1")
S10 = ["json-format.md#6", "msgpack-format.md#6", "protobuf-format.md#5", "core.md#13.4", "versioning.md#4"]
S11 = ["versioning.md#3.2", "versioning.md#3.4", "core.md#13.4"]
UNREP = "UNREPRESENTABLE"


def newer(**fields: Any) -> dict[str, Any]:
    doc = {"specversion": "1.1", "id": "fact-1", "kind": "fact"}
    doc.update(fields)
    return doc


# A 1.1 document in Protobuf with unknown fields: field 99 (varint) after id, field 9 (LEN) inside the fact,
# and field 40 (LEN) after the fact. Canonical form: known fields in number order, then each message's unknown
# fields in the order read.
PB_UNKNOWN_IN = (ld(1, b"1.1") + ld(2, b"fact-1") + vi(99, 7) + vi(3, 4)
                 + ld(13, ld(9, b"hint") + ld(1, b"The user prefers window seats.")) + ld(40, b"hello"))
PB_UNKNOWN_CANON = (ld(1, b"1.1") + ld(2, b"fact-1") + vi(3, 4)
                    + ld(13, ld(1, b"The user prefers window seats.") + ld(9, b"hint")) + vi(99, 7) + ld(40, b"hello"))

# A 1.1 document in MessagePack whose unknown member holds a bin and a timestamp in a non-canonical layout.
MP_UNKNOWN_IN = mp_pack({"specversion": "1.1", "kind": "fact", "id": "fact-1",
                         "fact": {"text": "The user prefers window seats."},
                         "attachment": {"sha": MBin(b"\x01\x02\x03", "16"), "at": MTs(1714566600, 0, 96),
                                        "n": 1}})
MP_UNKNOWN_CANON = mp_pack({"attachment": {"at": MTs(1714566600, 0), "n": 1, "sha": b"\x01\x02\x03"},
                            "fact": {"text": "The user prefers window seats."}, "id": "fact-1", "kind": "fact",
                            "specversion": "1.1"})

CASES = [
    invalid("UnknownMember", "In a 1.0 document an unknown member fails with UNKNOWN_FIELD at the member.",
            S10, "UNKNOWN_FIELD", "/mood", doc=with_(BASE, mood="calm"), protobuf=None),
    invalid("UnknownNestedMember", "An unknown member of a nested message fails at its pointer.", S10,
            "UNKNOWN_FIELD", "/scope/region", doc=with_(BASE, scope={"user": "u-1", "region": "eu"}), protobuf=None),
    invalid("UnknownMemberInListElement", "An unknown member inside an element of a list fails at its pointer.",
            S10, "UNKNOWN_FIELD", "/message/content/0/text/lang",
            doc=record("message", {"role": "user", "content": [{"text": {"text": "Olá", "lang": "pt"}}]}, id="m"),
            protobuf=None),
    invalid("CamelCaseMember",
            "Member names are the proto field names exactly: createdAt is unknown.", S10 + ["json-format.md#3"],
            "UNKNOWN_FIELD", "/createdAt",
            json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"x"},'
                 '"createdAt":"2024-05-01T12:30:00Z"}'),
    invalid("ProtobufUnknownField", "In a 1.0 document an unknown field number fails with UNKNOWN_FIELD, named "
            "by its number.", S10 + ["protobuf-format.md#2.4"], "UNKNOWN_FIELD", "/99",
            protobuf=canonical_protobuf(BASE, R) + vi(99, 1), json=None, msgpack=None),
    invalid("ProtobufUnknownNestedField", "An unknown field of a nested message: /scope/99.",
            S10 + ["protobuf-format.md#2.4"], "UNKNOWN_FIELD", "/scope/99",
            protobuf=canonical_protobuf(BASE, R) + ld(5, ld(2, b"u-1") + ld(99, b"eu")), json=None, msgpack=None),
    invalid("ProtobufUnknownFieldInListElement", "An unknown field inside the second link: /links/1/9.",
            S10 + ["protobuf-format.md#2.4"], "UNKNOWN_FIELD", "/links/1/9",
            protobuf=canonical_protobuf(BASE, R) + ld(22, vi(1, 1) + ld(2, b"a"))
            + ld(22, vi(1, 1) + ld(2, b"b") + tag(9, 5) + b"\x00\x00\x00\x00"), json=None, msgpack=None),
    # -- newer minor -------------------------------------------------------------
    valid("NewerMinorUnknownMemberJson",
          "A 1.1 document with an unknown member is valid for a 1.0 reader. Written again in JSON the member is "
          "kept, in key order, its value in canonical form; converted to MessagePack or Protobuf it fails with "
          "UNREPRESENTABLE at the member.",
          S11 + ["json-format.md#6"],
          newer(fact={"text": "The user prefers window seats."}, kind_hint={"b": 1, "a": [1.0, 2]}),
          json='{"specversion":"1.1","kind_hint":{"b":1,"a":[1.0,2]},"id":"fact-1","kind":"fact",'
               '"fact":{"text":"The user prefers window seats."}}',
          msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/kind_hint"), "protobuf": (UNREP, "/kind_hint")}),
    valid("NewerMinorFirstUnknownMember",
          "UNREPRESENTABLE names the first unknown member in the order of the input, depth first.",
          S11 + ["json-format.md#6"],
          newer(scope={"user": "u-1", "zone": "eu"}, fact={"text": "x"}, aaa=1),
          json='{"specversion":"1.1","id":"fact-1","kind":"fact","scope":{"user":"u-1","zone":"eu"},'
               '"fact":{"text":"x"},"aaa":1}',
          msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/scope/zone"), "protobuf": (UNREP, "/scope/zone")}),
    valid("NewerMinorUnknownMemberMsgpack",
          "A 1.1 MessagePack document with an unknown key: written again in MessagePack the entry is kept, "
          "among the known keys in key order; converted to JSON or Protobuf it fails with UNREPRESENTABLE.",
          S11 + ["msgpack-format.md#6"],
          newer(fact={"text": "The user prefers window seats."}, zone={"b": [1, None], "a": "x"}),
          json=None, protobuf=None,
          msgpack=mp_pack({"specversion": "1.1", "zone": {"b": [1, None], "a": "x"}, "id": "fact-1",
                           "kind": "fact", "fact": {"text": "The user prefers window seats."}}),
          conversion_errors={"json": (UNREP, "/zone"), "protobuf": (UNREP, "/zone")}),
    valid("NewerMinorMsgpackBinAndTimestamp",
          "Unknown MessagePack content may hold bin and timestamp objects, which Values lack; the canonical "
          "writer writes them in their smallest format and canonical timestamp layout.",
          S11 + ["msgpack-format.md#6", "versioning.md#3.3"],
          newer(fact={"text": "The user prefers window seats."}), json=None, protobuf=None,
          msgpack=MP_UNKNOWN_IN, canonical={"msgpack": MP_UNKNOWN_CANON},
          conversion_errors={"json": (UNREP, "/attachment"), "protobuf": (UNREP, "/attachment")}),
    valid("NewerMinorUnknownFieldProtobuf",
          "A 1.1 Protobuf document with unknown fields: written again in Protobuf every unknown field is kept, "
          "after the known fields of its message, in the order read, byte for byte; converted to JSON or "
          "MessagePack it fails with UNREPRESENTABLE at the first unknown field read (/99).",
          S11 + ["protobuf-format.md#5", "protobuf-format.md#6"],
          newer(fact={"text": "The user prefers window seats."}), json=None, msgpack=None,
          protobuf=PB_UNKNOWN_IN, canonical={"protobuf": PB_UNKNOWN_CANON},
          conversion_errors={"json": (UNREP, "/99"), "msgpack": (UNREP, "/99")}),
    valid("NewerMinorUnknownEnumName",
          "A 1.1 document with an enum name the reader does not know, matching ^[a-z][a-z0-9_]*$: kept in JSON, "
          "UNREPRESENTABLE in the other encodings.",
          S11 + ["json-format.md#6"],
          newer(fact={"text": "I think aisle seats are better.", "category": "opinion"}),
          msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/fact/category"), "protobuf": (UNREP, "/fact/category")}),
    valid("NewerMinorUnknownEnumNameMsgpack",
          "The same in MessagePack: an unknown enum name is kept in MessagePack.",
          S11 + ["msgpack-format.md#6"],
          newer(fact={"text": "I think aisle seats are better.", "category": "opinion"}),
          json=None, protobuf=None,
          conversion_errors={"json": (UNREP, "/fact/category"), "protobuf": (UNREP, "/fact/category")}),
    valid("NewerMinorUnknownEnumNumber",
          "A 1.1 Protobuf document with an enum number the reader does not know: kept in Protobuf, "
          "UNREPRESENTABLE in JSON and MessagePack (a number has no name).",
          S11 + ["protobuf-format.md#5"],
          newer(fact={"text": "I think aisle seats are better."}), json=None, msgpack=None,
          protobuf=protobuf_input(newer(fact={"text": "I think aisle seats are better.", "category": PEnum(3)})),
          canonical={"protobuf": protobuf_input(newer(fact={"text": "I think aisle seats are better.",
                                                            "category": PEnum(3)}))},
          conversion_errors={"json": (UNREP, "/fact/category"), "msgpack": (UNREP, "/fact/category")}),
    valid("NewerMinorNestedRecord",
          "Nested records follow the version of their enclosing document: an unknown member of a record inside "
          "a 1.1 PutRequest is tolerated.",
          S11 + ["versioning.md#3.1", "core.md#13.3"],
          {"specversion": "1.1", "operation_id": "op-1",
           "items": [{"record": {"id": "f", "kind": "fact", "fact": {"text": "x"}, "weight": 2}}]},
          type=P, msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/items/0/record/weight"),
                             "protobuf": (UNREP, "/items/0/record/weight")}),
    valid("NewerMinorUnknownKindEncrypted",
          "A record of an unknown kind whose payload is encrypted is valid in a 1.1 document.",
          S11, newer(kind="plan", encrypted={"algorithm": "A256GCM", "ciphertext": "AAECAw=="}),
          json='{"specversion":"1.1","id":"fact-1","kind":"plan","encrypted":{"algorithm":"A256GCM",'
               '"ciphertext":"AAECAw=="}}', msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/kind"), "protobuf": (UNREP, "/kind")}),
    valid("NewerMinorUnknownPayloadMember",
          "A record of an unknown kind whose only payload is an unknown member satisfies the payload oneof.",
          S11, newer(kind="plan", plan={"steps": ["search", "book"]}),
          json='{"specversion":"1.1","id":"fact-1","kind":"plan","plan":{"steps":["search","book"]}}',
          msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/kind"), "protobuf": (UNREP, "/kind")}),
    valid("NewerMinorUnknownContentPart",
          "A content part whose only member is unknown satisfies the part oneof in a 1.1 document.",
          S11, {"specversion": "1.1", "id": "m", "kind": "message",
                "message": {"role": "user", "content": [{"location": {"lat": 38.7, "lon": -9.1}}]}},
          msgpack=None, protobuf=None,
          conversion_errors={"msgpack": (UNREP, "/message/content/0/location"),
                             "protobuf": (UNREP, "/message/content/0/location")}),
    valid("ErrorReadAsNewerMinor",
          "An Error carries no specversion; without a version from its context it is read as a document of a "
          "newer minor version, so an unknown member is tolerated and kept in JSON.",
          ["versioning.md#1.2", "versioning.md#3.1"],
          {"code": "unavailable", "reason": "UNAVAILABLE", "message": "Try again.", "region": "eu-west"},
          type="memorywire.v1.Error", msgpack=None, protobuf=None, level="recommended",
          conversion_errors={"msgpack": (UNREP, "/region"), "protobuf": (UNREP, "/region")}),
    invalid("NewerMinorUnknownKindWithKnownPayload",
            "In a 1.1 document, a record of an unknown kind with a payload member the reader knows fails with "
            "KIND_MISMATCH, since no known member matches an unknown kind.",
            S11, "KIND_MISMATCH", "/fact",
            json='{"specversion":"1.1","id":"fact-1","kind":"plan","fact":{"text":"x"}}'),
    invalid("NewerMinorUppercaseEnumName",
            "Unknown enum names are tolerated only when they match ^[a-z][a-z0-9_]*$: \"Opinion\" fails.",
            S11, "UNKNOWN_ENUM_VALUE", "/fact/category",
            doc=newer(fact={"text": "x", "category": "Opinion"}), protobuf=None),
    invalid("NewerMinorUnspecifiedName",
            "\"unspecified\" is never valid, not even in a document of a newer minor version.",
            S11 + ["json-format.md#3.7"], "UNKNOWN_ENUM_VALUE", "/fact/category",
            doc=newer(fact={"text": "x", "category": "unspecified"}), protobuf=None),
    invalid("NewerMinorKnownMemberWrongType",
            "Known members are still checked in a newer minor document: \"sequence\":\"5\" fails.",
            ["versioning.md#3.3"], "TYPE_MISMATCH", "/sequence",
            doc=newer(fact={"text": "x"}, sequence="5", extra=1), protobuf=None),
    invalid("NewerMinorNullStillRejected",
            "null outside a Value is still NULL_VALUE in a newer minor document.",
            ["versioning.md#3.3", "json-format.md#6"], "NULL_VALUE", "/tags",
            json='{"specversion":"1.1","id":"fact-1","kind":"fact","fact":{"text":"x"},"tags":null}'),
    invalid("NewerMinorDuplicateInUnknown",
            "Duplicate keys inside unknown content fail with DUPLICATE_KEY.",
            ["versioning.md#3.3", "json-format.md#5"], "DUPLICATE_KEY", "/zone/a",
            json='{"specversion":"1.1","id":"fact-1","kind":"fact","fact":{"text":"x"},"zone":{"a":1,"a":2}}'),
    invalid("NewerMinorProtobufBadWireType",
            "The wire format of unknown Protobuf fields is still checked: wire type 7 fails with "
            "INVALID_WIRE_FORMAT (a fault in a tag at the top level has no pointer).",
            ["versioning.md#3.3", "protobuf-format.md#2.3"], "INVALID_WIRE_FORMAT", "",
            protobuf=protobuf_input(newer(fact={"text": "x"})) + tag(99, 7) + b"\x00", json=None, msgpack=None),
]
