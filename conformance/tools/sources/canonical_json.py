"""CanonicalJson: the canonical JSON form."""

from _common import fact, record, with_
from vectorkit import valid

AREA = "CanonicalJson"
DESCRIPTION = (
    "The canonical JSON form: members sorted by code point at every depth (which differs from UTF-16 order "
    "above U+FFFF), no white space, the examples of json-format.md section 7, and non-canonical inputs that "
    "every reader accepts and every canonical writer normalises."
)

BASE = fact()
S = ["json-format.md#7", "json-format.md#7.2", "core.md#13.6"]

PRETTY = (
    '\r\n{\r\n\t"tags" : [ "travel" , "seating" ],\r\n  "fact"\t:\t{ "text" : "Prefers tea", "category": '
    '"preference" } ,\n  "kind":"fact", "id" :"r1",\n  "specversion": "1.0",\n  "lifecycle": {"pinned": false, '
    '"importance": 5e-1}\n}\n\t \r\n'
)

CASES = [
    valid("MemberOrderAscii",
          "Members sorted by code point: a, ab, b; and Z, _, a (U+005A, U+005F, U+0061).", S,
          with_(BASE, metadata={"b": 1, "ab": 2, "a": 3, "_": 4, "Z": 5})),
    valid("MemberOrderAboveBmp",
          "Code point order, not UTF-16 order: U+D7FF, U+E000, U+FF61, U+FFFF, then U+1F600 (whose UTF-16 "
          "surrogates would sort before U+E000).", S,
          with_(BASE, metadata={"\U0001F600": 1, "\uff61": 2, "\uffff": 3, "\ue000": 4, "\ud7ff": 5})),
    valid("MemberOrderPrefix",
          "A name that is a prefix of another comes first, and U+0000 sorts before every other character: "
          "a, a\\u0000, a\\u0001, a0.", S,
          with_(BASE, metadata={"a0": 1, "a\u0001": 2, "a": 3, "a\u0000": 4})),
    valid("MemberOrderAtEveryDepth",
          "Members are sorted at every depth: messages, payloads, lists of messages and nested Values.", S,
          record("message", {"status": "completed", "role": "assistant",
                             "content": [{"text": {"text": "ok", "annotations": [{"url": "https://e.com",
                                                                                 "type": "url_citation"}]},
                                          "id": "p1"}]},
                 id="msg-1", routing={"recipients": ["b", "a"], "agent": "x"},
                 metadata={"z": {"y": {"x": 1, "w": 2}, "a": [{"d": 1, "c": 2}]}})),
    valid("WhitespaceAndUnsortedInput",
          "Input with white space everywhere it may appear (CR LF, tabs, spaces around colons and commas, a "
          "trailing line feed), unsorted members and defaults: the canonical form has none of them.",
          S + ["json-format.md#2.1", "json-format.md#7.1"],
          {"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "Prefers tea", "category": "preference"},
           "lifecycle": {"importance": 0.5}, "tags": ["travel", "seating"]},
          json=PRETTY),
    valid("SpecExampleRecord",
          "The first example of json-format.md section 7.6: its canonical form is 146 bytes.",
          ["json-format.md#7.6", "msgpack-format.md#7", "protobuf-format.md#6"],
          {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2024-05-01T12:30:00.500Z",
           "fact": {"text": "Prefers tea"}, "lifecycle": {"importance": 0.5}},
          json='{\n  "specversion": "1.0",\n  "id": "r1",\n  "kind": "fact",\n  "created_at": '
               '"2024-05-01T12:30:00.5Z",\n  "fact": { "text": "Prefers tea" },\n  "lifecycle": '
               '{ "importance": 5e-1, "pinned": false },\n  "tags": []\n}\n'),
    valid("SpecExampleBlock",
          "The second example of json-format.md section 7.6: block must come before embeddings.",
          ["json-format.md#7.6"],
          {"specversion": "1.0", "id": "r2", "kind": "block", "block": {"label": "human"},
           "embeddings": [{"dimensions": 3, "model": "m", "values": [1.0, -0.5, 0.10000000149011612]}],
           "metadata": {"big": 9223372036854775807, "n": 1, "x": 1.0}},
          json='{"embeddings":[{"dimensions":3,"model":"m","values":[1.0,-0.5,0.10000000149011612]}],"id":"r2",'
               '"kind":"block","block":{"label":"human"},"metadata":{"big":9223372036854775807,"n":1,"x":1.0},'
               '"specversion":"1.0"}'),
    valid("RfcExampleKeysAndNumbers",
          "Where canonical JSON differs from RFC 8785: 1.0 is not 1, 1e+16 is not 10000000000000000, -0.0 is "
          "not 0, and 😀 sorts after ｡.",
          S + ["json-format.md#7.4"],
          with_(BASE, metadata={"\U0001F600": 1.0, "\uff61": 1e16, "n": -0.0, "i": 1})),
]
