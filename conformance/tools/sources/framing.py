"""Framing: what a document is in each encoding, and what is not one."""

from _common import fact
from vectorkit import (
    Case,
    MRaw,
    canonical_json,
    canonical_msgpack,
    canonical_protobuf,
    invalid,
    ld,
    mp_pack,
    tag,
    valid,
    vi,
)

AREA = "Framing"
DESCRIPTION = (
    "The document as a whole: one JSON text whose top level is an object, one MessagePack map with nothing "
    "after it, one Protobuf message of well-formed records; white space around a JSON document; syntax "
    "errors, trailing data, wrong top-level types and malformed wire formats."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
JSON = canonical_json(BASE, R).decode()
MSGPACK = canonical_msgpack(BASE, R)
PROTOBUF = canonical_protobuf(BASE, R)
SJ = ["json-format.md#2.1"]
SM = ["msgpack-format.md#2.1"]
SP = ["protobuf-format.md#2.3"]


def syntax(name: str, text: str, what: str) -> Case:
    return invalid(name, f"{what} is not a JSON text: SYNTAX_ERROR, no pointer.", SJ, "SYNTAX_ERROR", "", json=text)


CASES = [
    valid("JsonSurroundingWhitespace",
          "White space (space, tab, line feed, carriage return) before and after the document is allowed.",
          SJ, BASE, json=" \t\r\n" + JSON + "\r\n \t", msgpack=None, protobuf=None),
    invalid("JsonTrailingGarbage", "Anything but white space after the document fails with TRAILING_DATA.", SJ,
            "TRAILING_DATA", "", json=JSON + " x"),
    invalid("JsonSecondDocument", "A second object after the first fails with TRAILING_DATA.",
            SJ + ["core.md#13.1"], "TRAILING_DATA", "", json=JSON + "\n{}"),
    invalid("JsonTrailingNul", "A NUL byte after the document fails with TRAILING_DATA.", SJ, "TRAILING_DATA", "",
            json=JSON + "\u0000"),
    syntax("JsonEmptyInput", "Empty input", ""),
    syntax("JsonWhitespaceOnly", "Input of white space only", " \n\t "),
    syntax("JsonByteOrderMark", "A document that begins with a byte order mark", "\ufeff" + JSON),
    syntax("JsonComment", "A document with a comment", JSON[:-1] + ',/* note */"tags":["x"]}'),
    syntax("JsonTrailingComma", "An object with a trailing comma", JSON[:-1] + ",}"),
    syntax("JsonSingleQuotes", "A string in single quotes",
           "{'specversion':'1.0','id':'fact-1','kind':'fact','fact':{'text':'x'}}"),
    syntax("JsonUnquotedName", "An unquoted member name", '{specversion:"1.0"}'),
    syntax("JsonLeadingZero", "A number with a leading zero", JSON[:-1] + ',"sequence":01}'),
    syntax("JsonPlusSign", "A number with a leading +", JSON[:-1] + ',"sequence":+1}'),
    syntax("JsonBareFraction", "A number with a bare fraction (.5)", JSON[:-1] + ',"metadata":{"x":.5}}'),
    syntax("JsonTrailingDot", "A number ending in a dot (5.)", JSON[:-1] + ',"metadata":{"x":5.}}'),
    syntax("JsonHexNumber", "A hexadecimal number", JSON[:-1] + ',"sequence":0x10}'),
    syntax("JsonMissingComma", "Members without a comma between them", JSON[:-1] + ' "sequence":1}'),
    *[invalid(f"JsonTopLevel{name}", f"A top-level {name.lower()} is not an object: TYPE_MISMATCH at \"\".",
              SJ + ["core.md#13.1"], "TYPE_MISMATCH", "", json=text)
      for name, text in [("Array", "[" + JSON + "]"), ("String", '"fact-1"'), ("Null", "null"),
                         ("Number", "42")]],
    invalid("MsgpackTrailingByte", "A byte after the map fails with TRAILING_DATA.", SM, "TRAILING_DATA", "",
            msgpack=MSGPACK + b"\xc0"),
    invalid("MsgpackSecondDocument", "A second map after the first fails with TRAILING_DATA.",
            SM + ["core.md#13.1"], "TRAILING_DATA", "", msgpack=MSGPACK + b"\x80"),
    invalid("MsgpackNeverUsedByte", "The byte c1 where a format byte is expected fails with INVALID_WIRE_FORMAT.",
            SM, "INVALID_WIRE_FORMAT", "", msgpack=b"\xc1"),
    invalid("MsgpackNeverUsedByteNested", "The byte c1 as a value inside the document.", SM, "INVALID_WIRE_FORMAT",
            "", msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                                 "fact": {"text": MRaw(b"\xc1")}})),
    *[invalid(f"MsgpackTopLevel{name}", f"A top-level {name.lower()} is not a map: TYPE_MISMATCH at \"\".",
              SM + ["core.md#13.1"], "TYPE_MISMATCH", "", msgpack=data)
      for name, data in [("Array", b"\x91" + MSGPACK), ("Nil", b"\xc0"), ("Int", b"\x2a"), ("Str", b"\xa1x")]],
    invalid("ProtobufFieldNumberZero", "A record with field number 0 fails with INVALID_WIRE_FORMAT; a fault in a "
            "tag at the top level has no pointer.", SP, "INVALID_WIRE_FORMAT", "",
            protobuf=PROTOBUF + b"\x00\x01"),
    invalid("ProtobufFieldNumberAbove2To29Minus1",
            "A record with field number 536870912 (2^29, beyond the greatest the encoding allows) fails with "
            "INVALID_WIRE_FORMAT; a fault in a tag at the top level has no pointer.", SP, "INVALID_WIRE_FORMAT",
            "", protobuf=PROTOBUF + tag(536870912, 0) + b"\x01"),
    invalid("ProtobufGreatestFieldNumber",
            "Field number 536870911 (2^29-1) is well-formed: in a 1.0 document it is an unknown field and fails "
            "with UNKNOWN_FIELD, named by its number.", SP + ["protobuf-format.md#2.4", "versioning.md#4"],
            "UNKNOWN_FIELD", "/536870911", protobuf=PROTOBUF + vi(536870911, 1)),
    invalid("ProtobufWireType6", "Wire type 6 does not exist: INVALID_WIRE_FORMAT, no pointer.", SP,
            "INVALID_WIRE_FORMAT", "", protobuf=PROTOBUF + tag(6, 6) + b"\x01"),
    invalid("ProtobufGroupStart", "Wire type 3 (start group): memorywire has no groups.", SP,
            "INVALID_WIRE_FORMAT", "", protobuf=PROTOBUF + tag(29, 3) + tag(29, 4)),
    invalid("ProtobufWrongWireType",
            "A known field with a wire type other than its own (sequence as LEN) fails with INVALID_WIRE_FORMAT "
            "at the field.", SP, "INVALID_WIRE_FORMAT", "/sequence", protobuf=PROTOBUF + ld(6, b"\x05")),
    invalid("ProtobufWrongWireTypeNested",
            "lifecycle.importance (a double) written as a VARINT fails at the field.", SP, "INVALID_WIRE_FORMAT",
            "/lifecycle/importance", protobuf=PROTOBUF + ld(23, vi(2, 1))),
    invalid("ProtobufOverlongVarint", "A varint of 11 bytes fails with INVALID_WIRE_FORMAT at its field.", SP,
            "INVALID_WIRE_FORMAT", "/sequence", protobuf=PROTOBUF + b"\x30" + b"\x80" * 10 + b"\x01"),
    valid("ProtobufEmptyMessageIsValidError",
          "A Protobuf document needs no bytes beyond its fields: an Error of three fields.",
          ["protobuf-format.md#2.3", "operations.md#3.1"],
          {"code": "not_found", "reason": "RECORD_NOT_FOUND", "message": "No record fact-9."},
          type="memorywire.v1.Error"),
]
