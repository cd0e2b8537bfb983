"""Truncation: documents cut short in every encoding."""

from _common import record
from vectorkit import canonical_json, canonical_msgpack, canonical_protobuf, invalid, ld, tag, vi

AREA = "Truncation"
DESCRIPTION = (
    "Documents that end before they are complete: JSON texts and MessagePack objects cut at many offsets "
    "fail with TRUNCATED and no pointer; Protobuf messages cut inside a record fail with TRUNCATED at the "
    "field in which the input ends, and a record that runs past the end of its enclosing message with "
    "INVALID_WIRE_FORMAT."
)

R = "memorywire.v1.MemoryRecord"
DOC = record("fact", {"text": "Prefers an aisle seat.", "category": "preference"}, id="fact-7",
             sequence=18339, created_at="2026-03-09T14:06:12.904Z",
             lifecycle={"importance": 0.75}, embeddings=[{"model": "m", "dimensions": 2, "values": [0.5, -1.0]}],
             tags=["travel"])
JSON = canonical_json(DOC, R)
MSGPACK = canonical_msgpack(DOC, R)
PROTOBUF = canonical_protobuf(DOC, R)
SJ = ["json-format.md#2.1", "core.md#13.1"]
SM = ["msgpack-format.md#2.1", "core.md#13.1"]
SP = ["protobuf-format.md#2.3", "core.md#13.1"]


def jcut(marker: bytes, after: int = 0) -> bytes:
    """The canonical JSON cut right after the first occurrence of marker (plus `after` bytes)."""
    i = JSON.index(marker) + len(marker) + after
    return JSON[:i]


def mcut(marker: bytes, after: int = 0) -> bytes:
    i = MSGPACK.index(marker) + len(marker) + after
    return MSGPACK[:i]


CASES = [
    invalid("JsonOnlyOpeningBrace", "The input is only {.", SJ, "TRUNCATED", "", json=b"{"),
    invalid("JsonInsideMemberName", "The input ends inside a member name.", SJ, "TRUNCATED", "",
            json=jcut(b'{"crea')),
    invalid("JsonAfterColon", "The input ends after a colon.", SJ, "TRUNCATED", "", json=jcut(b'"created_at":')),
    invalid("JsonInsideString", "The input ends inside a string value.", SJ, "TRUNCATED", "",
            json=jcut(b'"Prefers an ')),
    invalid("JsonInsideNumber", "The input ends inside a number, in a nested array.", SJ, "TRUNCATED", "",
            json=jcut(b'"values":[0.')),
    invalid("JsonInsideEscape", "The input ends inside a \\u escape.", SJ, "TRUNCATED", "",
            json=b'{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"caf\\u00'),
    invalid("JsonInsideLiteral", "The input ends inside the literal true.", SJ, "TRUNCATED", "",
            json=b'{"specversion":"1.0","id":"b","kind":"block","block":{"label":"h","read_only":tr'),
    invalid("JsonNestedObjectOpen", "The input ends before a nested object is closed.", SJ, "TRUNCATED", "",
            json=jcut(b'"lifecycle":{"importance":0.75')),
    invalid("JsonLastBraceMissing", "Only the last } is missing.", SJ, "TRUNCATED", "", json=JSON[:-1]),
    invalid("MsgpackEmpty", "Empty input.", SM, "TRUNCATED", "", msgpack=b"", json=None),
    invalid("MsgpackMapHeaderOnly", "Only the map header, which declares entries that are missing.", SM,
            "TRUNCATED", "", msgpack=MSGPACK[:1]),
    invalid("MsgpackInsideKey", "The input ends inside a key.", SM, "TRUNCATED", "", msgpack=mcut(b"\xaacreat")),
    invalid("MsgpackInsideTimestamp", "The input ends inside a timestamp extension.", SM, "TRUNCATED", "",
            msgpack=mcut(b"created_at\xd7\xff", 3)),
    invalid("MsgpackInsideFloat", "The input ends inside a float 64.", SM, "TRUNCATED", "",
            msgpack=mcut(b"importance\xcb", 4)),
    invalid("MsgpackInsideVectorBin", "The input ends inside the bin of a float32 vector.", SM, "TRUNCATED", "",
            msgpack=mcut(b"values\xc4\x08", 5)),
    invalid("MsgpackMissingLastEntry", "The map declares one more entry than the input holds.", SM, "TRUNCATED", "",
            msgpack=MSGPACK[: MSGPACK.index(b"\xa4tags")]),
    invalid("MsgpackLastByteMissing", "Only the last byte is missing.", SM, "TRUNCATED", "", msgpack=MSGPACK[:-1]),
    invalid("MsgpackStrLengthPastEnd", "A str 8 declares 200 bytes and 5 follow.", SM + ["security.md#5"],
            "TRUNCATED", "", msgpack=b"\x81\xa2id\xd9\xc8fact-"),
    invalid("ProtobufInsideLenRecord",
            "The input ends inside the bytes of the fact record: TRUNCATED, which has no pointer.", SP,
            "TRUNCATED", "",
            protobuf=PROTOBUF[: PROTOBUF.index(b"Prefers an ") + 4]),
    invalid("ProtobufInsideVarint",
            "The input ends inside the varint of sequence (18339, three bytes): TRUNCATED, without a pointer.",
            SP, "TRUNCATED", "",
            protobuf=PROTOBUF[: PROTOBUF.index(vi(6, 18339)) + 2]),
    invalid("ProtobufInsideLength",
            "The input ends after the tag of created_at, before its length: TRUNCATED, without a pointer.",
            SP, "TRUNCATED", "", protobuf=PROTOBUF[: PROTOBUF.index(b"\x42") + 1]),
    invalid("ProtobufInsideTag",
            "The input ends inside the two-byte tag of lifecycle (ba 01): a fault in a tag at the top level has "
            "no pointer.", SP, "TRUNCATED", "",
            protobuf=PROTOBUF[: PROTOBUF.index(tag(23, 2)) + 1]),
    invalid("ProtobufInsideNestedFixed64",
            "The input ends inside the double of lifecycle.importance: the lifecycle record runs past the end.",
            SP, "TRUNCATED", "",
            protobuf=PROTOBUF[: PROTOBUF.index(tag(23, 2)) + 6]),
    invalid("ProtobufNestedRecordOverrunsMessage",
            "A LEN record inside a complete nested message runs past the end of that message: "
            "INVALID_WIRE_FORMAT at the inner field.", SP, "INVALID_WIRE_FORMAT", "/fact/text",
            protobuf=ld(1, b"1.0") + ld(2, b"fact-1") + vi(3, 4) + ld(13, b"\x0a\x09Prefers") + ld(29, b"travel"),
            json=None, msgpack=None),
    invalid("ProtobufLengthBeyondInput",
            "A LEN record declares 2^40 bytes and 3 follow: TRUNCATED, without allocating them.",
            SP + ["security.md#5"], "TRUNCATED", "",
            protobuf=ld(1, b"1.0") + ld(2, b"fact-1") + vi(3, 4) + tag(13, 2) + b"\x80\x80\x80\x80\x80\x20"
            + b"\x0a\x01x", json=None, msgpack=None),
]
