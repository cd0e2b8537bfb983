"""DuplicateKeys: repeated keys in JSON objects, MessagePack maps and
Protobuf map entries."""

from typing import Any

from _common import fact
from vectorkit import Pairs, canonical_protobuf, invalid, ld, mp_pack, pb_entries, pb_value, valid

AREA = "DuplicateKeys"
DESCRIPTION = (
    "An object or map MUST NOT repeat a key, at any depth, inside Values and unknown content too; a reader "
    "rejects it with DUPLICATE_KEY at the repeated member and never picks the first or the last value. "
    "Protobuf map entries follow the same rule."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
S = ["json-format.md#5", "msgpack-format.md#5", "core.md#13.5"]
J0 = '{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"The user prefers window seats."}'


def mp(pairs_doc: Any) -> bytes:
    return mp_pack(pairs_doc)


MP_HEAD = [("specversion", "1.0"), ("id", "fact-1"), ("kind", "fact"),
           ("fact", {"text": "The user prefers window seats."})]


def pb_meta(entries: Pairs) -> bytes:
    return canonical_protobuf(BASE, R) + pb_entries(entries, 27, sort=False)


CASES = [
    invalid("TopLevel",
            "A repeated member of the top-level object, even with an equal value, fails at the member.", S,
            "DUPLICATE_KEY", "/kind", json=J0 + ',"kind":"fact"}',
            msgpack=mp(Pairs(MP_HEAD + [("kind", "fact")]))),
    invalid("Nested", "A repeated member of a nested message: /scope/user.", S, "DUPLICATE_KEY", "/scope/user",
            json=J0 + ',"scope":{"user":"a","user":"b"}}',
            msgpack=mp(Pairs(MP_HEAD + [("scope", Pairs([("user", "a"), ("user", "b")]))]))),
    invalid("InMapField", "A repeated key of a map field.", S, "DUPLICATE_KEY", "/metadata/source",
            json=J0 + ',"metadata":{"source":"web","page":1,"source":"app"}}',
            msgpack=mp(Pairs(MP_HEAD + [("metadata", Pairs([("source", "web"), ("page", 1), ("source", "app")]))]))),
    invalid("InsideValue", "A repeated key deep inside a Value.", S + ["json-format.md#3.8"], "DUPLICATE_KEY",
            "/metadata/a/1/b",
            json=J0 + ',"metadata":{"a":[0,{"b":1,"c":2,"b":1}]}}',
            msgpack=mp(Pairs(MP_HEAD + [("metadata", {"a": [0, Pairs([("b", 1), ("c", 2), ("b", 1)])]})]))),
    invalid("InListElement", "A repeated member inside an element of a list of messages.", S, "DUPLICATE_KEY",
            "/message/content/0/text",
            json='{"specversion":"1.0","id":"m","kind":"message","message":{"role":"user","content":'
                 '[{"text":{"text":"a"},"text":{"text":"b"}}]}}',
            msgpack=mp({"specversion": "1.0", "id": "m", "kind": "message",
                        "message": {"role": "user", "content": [Pairs([("text", {"text": "a"}),
                                                                        ("text", {"text": "b"})])]}})),
    invalid("WhitespaceBeforeColon",
            "White space between a name and its colon does not hide a repeated name.", ["json-format.md#5"],
            "DUPLICATE_KEY", "/scope/user",
            json=J0 + ',"scope":{"user" :"a", "user"\t:\n"b"}}'),
    invalid("EscapedName",
            "Names are compared after their escapes are decoded: \"a\" and \"\\u0061\" are the same name.",
            ["json-format.md#5", "json-format.md#3.1"], "DUPLICATE_KEY", "/metadata/a",
            json=J0 + ',"metadata":{"a":1,"\\u0061":2}}'),
    invalid("NameWithSlash", "The pointer escapes / as ~1 and ~ as ~0.", ["json-format.md#5", "json-format.md#2.2"],
            "DUPLICATE_KEY", "/metadata/a~1b~0c",
            json=J0 + ',"metadata":{"a/b~c":1,"x":0,"a/b~c":2}}',
            msgpack=mp(Pairs(MP_HEAD + [("metadata", Pairs([("a/b~c", 1), ("x", 0), ("a/b~c", 2)]))]))),
    invalid("InUnknownMemberOfNewerMinor", "Duplicate keys inside unknown content of a newer minor document.",
            S + ["json-format.md#6"], "DUPLICATE_KEY", "/zone/id",
            json='{"specversion":"1.1","id":"fact-1","kind":"fact","fact":{"text":"x"},"zone":{"id":1,"id":2}}',
            msgpack=mp(Pairs([("specversion", "1.1"), ("id", "fact-1"), ("kind", "fact"), ("fact", {"text": "x"}),
                              ("zone", Pairs([("id", 1), ("id", 2)]))]))),
    valid("CaseDiffersNotDuplicate",
          "Keys that differ in case, or only in normalisation, are different keys.", S,
          {"specversion": "1.0", "id": "fact-1", "kind": "fact", "fact": {"text": "x"},
           "metadata": {"a": 1, "A": 2, "\u00e9": 3, "e\u0301": 4}}),
    invalid("ProtobufMapEntries",
            "Two MapEntry records with the same key in one map fail with DUPLICATE_KEY at the repeated key; a "
            "reader does not take the first or the last.", ["protobuf-format.md#3.9"], "DUPLICATE_KEY",
            "/metadata/source", protobuf=pb_meta(Pairs([("source", "web"), ("page", 1), ("source", "app")])),
            json=None, msgpack=None),
    invalid("ProtobufValueMapEntries",
            "The same inside a Value map.", ["protobuf-format.md#3.9"], "DUPLICATE_KEY", "/metadata/m/b",
            protobuf=canonical_protobuf(BASE, R)
            + ld(27, ld(1, b"m") + ld(2, ld(7, ld(1, ld(1, b"b") + ld(2, pb_value(1)))
                                        + ld(1, ld(1, b"b") + ld(2, pb_value(2)))))),
            json=None, msgpack=None),
    invalid("ProtobufEmptyKeyTwice",
            "An entry without key and one with the key written empty both have the key \"\": DUPLICATE_KEY "
            "at /metadata/, the pointer of the empty key.",
            ["protobuf-format.md#3.9"], "DUPLICATE_KEY", "/metadata/",
            protobuf=canonical_protobuf(BASE, R) + ld(27, ld(2, pb_value(1))) + ld(27, ld(1, b"") + ld(2, pb_value(2))),
            json=None, msgpack=None),
]
