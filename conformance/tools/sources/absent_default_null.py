"""AbsentDefaultNull: absence, defaults, explicit presence and null."""

from _common import fact, record, with_
from vectorkit import MInt, canonical_protobuf, invalid, mp_pack, mp_tree, protobuf_input, valid, vi

AREA = "AbsentDefaultNull"
DESCRIPTION = (
    "Absent, default and null: explicitly written defaults of implicit-presence fields are accepted and "
    "omitted from canonical output, present zeros of explicit-presence fields are kept, and null or nil "
    "is rejected everywhere except as a Value."
)

R = "memorywire.v1.MemoryRecord"
P = "memorywire.v1.PutRequest"
BASE = fact()
S = ["core.md#3.11", "json-format.md#4", "msgpack-format.md#4", "protobuf-format.md#4"]

DEFAULTS_DOC = {
    "specversion": "1.0", "id": "fact-1", "kind": "fact", "key": "", "sequence": 0, "revision": 0,
    "fact": {"text": "The user prefers window seats.", "subject": ""},
    "links": [], "metadata": {}, "extensions": {}, "tags": [],
    "lifecycle": {"access_count": 0, "pinned": False, "reason": ""},
}


def jbase(extra: str) -> str:
    return ('{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"The user prefers window seats."},'
            + extra + "}")


CASES = [
    valid("ExplicitDefaultsAccepted",
          "Explicitly written defaults of implicit-presence fields (\"\", 0, false, [], {}) are accepted and "
          "treated as absent; the canonical writer omits them. lifecycle is a message field and stays present, "
          "as an empty object.",
          S + ["json-format.md#7.5"], DEFAULTS_DOC,
          msgpack=mp_pack(mp_tree(DEFAULTS_DOC, R)),
          protobuf=protobuf_input(DEFAULTS_DOC)),
    valid("PutDefaultsAccepted",
          "\"atomic\":false and \"require_approval\":false in a PutRequest are defaults: accepted, not written.",
          S + ["operations.md#6"],
          {"specversion": "1.0", "operation_id": "op-1", "items": [{"record": {"id": "f", "kind": "fact",
                                                                               "fact": {"text": "x"}}}],
           "atomic": False, "require_approval": False},
          type=P),
    valid("MsgpackUint64ZeroIsDefault",
          "The integer 0 written as uint 64 is still the default: accepted and not written.",
          ["msgpack-format.md#4"], BASE,
          msgpack=mp_pack(mp_tree(with_(BASE, sequence=MInt(0, "u64")), R)), json=None, protobuf=None),
    valid("ExplicitPresenceZerosKept",
          "Explicit-presence fields are written whenever present: importance 0.0, confidence 0.0, an empty "
          "lifecycle and an empty provenance message are present and kept in every encoding.",
          S + ["protobuf-format.md#4.2"],
          with_(BASE, lifecycle={"importance": 0.0, "confidence": 0.0}, provenance={})),
    valid("EmptyMessageFieldIsPresent",
          "A present message with no fields set is kept: \"lifecycle\":{} is ba 01 00 in Protobuf and 80 in "
          "MessagePack.",
          S + ["protobuf-format.md#4.2"], with_(BASE, lifecycle={})),
    valid("OptionalIntegersZero",
          "Optional integers are present at 0: PutItem.expected_revision 0 means \"must not exist\" and is "
          "written.",
          S + ["operations.md#6"],
          {"specversion": "1.0", "operation_id": "op-1",
           "items": [{"record": {"id": "f", "kind": "fact", "fact": {"text": "x"}}, "expected_revision": 0}]},
          type=P),
    valid("ProtobufExplicitDefaults",
          "In Protobuf a record holding the default of an implicit-presence field (sequence 30 00, revision "
          "38 00) is accepted and treated as absent.",
          ["protobuf-format.md#4.1"], BASE,
          protobuf=canonical_protobuf(BASE, R) + vi(6, 0) + vi(7, 0), json=None, msgpack=None),
    valid("NullInsideValues",
          "Inside a Value null is the null Value: a metadata entry whose value is null, and nulls in lists.",
          S + ["core.md#3.4"], with_(BASE, metadata={"k": None, "l": [None, 1]})),
    valid("NullValueField",
          "ToolResult.artifact written null is a present Value holding null; in Protobuf it is 52 02 08 00.",
          S, record("tool_result", {"call_id": "call_1", "output": "done", "artifact": None}, id="tr-1")),
    invalid("NullForList", "\"tags\":null is not the empty list: NULL_VALUE.", S, "NULL_VALUE", "/tags",
            json=jbase('"tags":null'), msgpack=mp_pack({**mp_tree(BASE, R), "tags": None})),
    invalid("NullForMessage", "\"scope\":null fails with NULL_VALUE.", S, "NULL_VALUE", "/scope",
            json=jbase('"scope":null'), msgpack=mp_pack({**mp_tree(BASE, R), "scope": None})),
    invalid("NullForMap", "\"metadata\":null fails with NULL_VALUE: only the values of a map are Values.", S,
            "NULL_VALUE", "/metadata", json=jbase('"metadata":null'), msgpack=mp_pack({**mp_tree(BASE, R),
                                                                                       "metadata": None})),
    invalid("NullForOptionalFloat", "An optional field is not nullable: \"importance\":null fails.", S,
            "NULL_VALUE", "/lifecycle/importance", json=jbase('"lifecycle":{"importance":null}'),
            msgpack=mp_pack({**mp_tree(BASE, R), "lifecycle": {"importance": None}})),
    invalid("NullForString", "\"key\":null fails with NULL_VALUE.", S, "NULL_VALUE", "/key",
            json=jbase('"key":null'), msgpack=mp_pack({**mp_tree(BASE, R), "key": None})),
    invalid("NullForEnum", "\"category\":null fails with NULL_VALUE.", S, "NULL_VALUE", "/fact/category",
            json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"x","category":null}}',
            msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                             "fact": {"text": "x", "category": None}})),
    invalid("NullForTimestamp", "\"created_at\":null fails with NULL_VALUE.", S, "NULL_VALUE", "/created_at",
            json=jbase('"created_at":null'), msgpack=mp_pack({**mp_tree(BASE, R), "created_at": None})),
    invalid("NullListElement", "A null element of a list of strings fails with NULL_VALUE at the element.", S,
            "NULL_VALUE", "/tags/1", json=jbase('"tags":["travel",null]'),
            msgpack=mp_pack({**mp_tree(BASE, R), "tags": ["travel", None]})),
    invalid("NullMessageElement", "A null element of a list of messages fails with NULL_VALUE at the element.", S,
            "NULL_VALUE", "/links/0", json=jbase('"links":[null]'),
            msgpack=mp_pack({**mp_tree(BASE, R), "links": [None]})),
    invalid("NullForRequiredField", "\"id\":null fails with NULL_VALUE (not REQUIRED_FIELD_MISSING).", S,
            "NULL_VALUE", "/id",
            json='{"specversion":"1.0","id":null,"kind":"fact","fact":{"text":"x"}}',
            msgpack=mp_pack({"specversion": "1.0", "id": None, "kind": "fact", "fact": {"text": "x"}})),
    invalid("NullPayload", "A payload member written null fails with NULL_VALUE.", S, "NULL_VALUE", "/fact",
            json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":null,'
                 '"encrypted":{"algorithm":"A256GCM","ciphertext":"AAEC"}}',
            msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact", "fact": None,
                             "encrypted": {"algorithm": "A256GCM", "ciphertext": b"\x00\x01\x02"}})),
]
