"""CanonicalProtobuf: the canonical Protobuf form."""


from _common import fact, record, with_
from vectorkit import f64, ld, pb_entries, pb_value, valid, vi

AREA = "CanonicalProtobuf"
DESCRIPTION = (
    "The canonical Protobuf form: fields in field-number order, each once, packed numeric lists, map "
    "entries sorted by key, minimal varints; and the inputs the Protocol Buffers rules accept: fields out of "
    "order, unpacked lists, repeated scalars (last wins), split messages (merged), oneofs (last member wins), "
    "non-minimal varints, unsorted map entries."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
S = ["protobuf-format.md#6", "core.md#13.6"]
S44 = ["protobuf-format.md#4.4"]
HEAD = ld(1, b"1.0") + ld(2, b"fact-1") + vi(3, 4)
FACT = ld(13, ld(1, b"The user prefers window seats."))

CASES = [
    valid("FieldsOutOfOrder",
          "Fields in reverse order of their numbers, nested too: the reader accepts them, the canonical writer "
          "orders them.", S + ["protobuf-format.md#2.3"],
          with_(BASE, sequence=7, lifecycle={"importance": 0.5, "status": "active"}, tags=["a", "b"]),
          protobuf=(ld(29, b"a") + ld(23, f64(2, 0.5) + vi(1, 1)) + FACT + vi(6, 7) + vi(3, 4) + ld(2, b"fact-1")
                    + ld(29, b"b") + ld(1, b"1.0")),
          json=None, msgpack=None),
    valid("UnsortedMapEntries",
          "Map entries in any order, in metadata and inside a Value map: the canonical writer sorts them by key.",
          S + ["protobuf-format.md#3.9"],
          with_(BASE, metadata={"z": 1, "a": {"y": True, "b": None}, "m": "x"}),
          protobuf=HEAD + FACT + pb_entries({"z": 1, "a": {"y": True, "b": None}, "m": "x"}, 27, sort=False),
          json=None, msgpack=None),
    valid("SpecExampleMapEntries",
          "The example of protobuf-format.md section 6: the metadata {\"x\":1.0,\"n\":1,\"e\":\"\",\"\":null} in "
          "key order \"\", e, n, x, the empty key omitted from its entry.", S + ["protobuf-format.md#3.9"],
          with_(BASE, metadata={"x": 1.0, "n": 1, "e": "", "": None})),
    valid("MapEntryExplicitEmptyKey",
          "A MapEntry that writes the empty key explicitly (0a 00), and one whose value precedes its key: the "
          "reader accepts both.", ["protobuf-format.md#3.9"],
          with_(BASE, metadata={"": 1, "k": 2}),
          protobuf=HEAD + FACT + ld(27, ld(1, b"") + ld(2, pb_value(1))) + ld(27, ld(2, pb_value(2)) + ld(1, b"k")),
          json=None, msgpack=None),
    valid("SpecExampleRecord", "The example of protobuf-format.md section 6: 52 bytes.", S,
          {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2024-05-01T12:30:00.500Z",
           "fact": {"text": "Prefers tea"}, "lifecycle": {"importance": 0.5}}),
    valid("RepeatedScalarLastWins",
          "A singular scalar field that occurs more than once takes its last value.", S44,
          with_(BASE, sequence=9),
          protobuf=HEAD + vi(6, 5) + FACT + vi(6, 9), json=None, msgpack=None),
    valid("SplitMessageMerged",
          "A singular message field that occurs more than once is the merge of its occurrences.", S44,
          with_(BASE, lifecycle={"status": "archived", "importance": 0.25, "pinned": True}),
          protobuf=HEAD + FACT + ld(23, vi(1, 3) + f64(2, 0.9)) + ld(23, f64(2, 0.25) + vi(7, 1)),
          json=None, msgpack=None),
    valid("OneofLastMemberWins",
          "The last member of a oneof on the wire is the one present: a fact payload followed by a message "
          "payload is a message record.", S44,
          record("message", {"role": "user", "content": [{"text": {"text": "Hi"}}]}, id="m1"),
          protobuf=(ld(1, b"1.0") + ld(2, b"m1") + vi(3, 1) + ld(13, ld(1, b"stale"))
                    + ld(10, vi(1, 3) + ld(3, ld(2, ld(1, b"Hi"))))),
          json=None, msgpack=None),
    valid("NonMinimalVarints",
          "Varints, tags and lengths in more bytes than needed are accepted: sequence 5 as 85 80 80 00, the "
          "length of id as 86 00, the tag of kind as 98 00.", ["protobuf-format.md#2.3"],
          with_(BASE, sequence=5),
          protobuf=(ld(1, b"1.0") + b"\x12\x86\x00fact-1" + b"\x98\x00\x04" + FACT + b"\x30\x85\x80\x80\x00"),
          json=None, msgpack=None),
    valid("BoolAsAnyNonZeroVarint",
          "A bool field is true when its varint is not zero: read_only written as 02 is true, written as 01.",
          ["protobuf-format.md#3.2"],
          record("block", {"label": "human", "read_only": True}, id="b1"),
          protobuf=ld(1, b"1.0") + ld(2, b"b1") + vi(3, 9) + ld(18, ld(1, b"human") + vi(4, 2)),
          json=None, msgpack=None, level="recommended"),
    valid("ValueKindsAlwaysWritten",
          "The member of a Value's kind is written even when zero, false or empty; explicit-presence fields "
          "of value zero are written; implicit-presence zeros are not.", S + ["protobuf-format.md#3.8"],
          record("tool_result", {"call_id": "c", "output": "", "duration_micros": 0, "artifact": 0, "stdout": ""},
                 id="tr", metadata={"f": False, "s": "", "l": [], "m": {}, "x": -0.0})),
    valid("NegativeSecondsTimestamp",
          "Negative seconds take 10 bytes as a varint: 1969-12-31T23:59:59Z is 08 ff ff ff ff ff ff ff ff ff 01.",
          S + ["protobuf-format.md#3.6"], with_(BASE, created_at="1969-12-31T23:59:59Z")),
]
