"""Utf8: ill-formed UTF-8 and lone surrogates in every encoding."""

from _common import fact
from vectorkit import MStr, canonical_protobuf, invalid, ld, mp_pack, valid

AREA = "Utf8"
DESCRIPTION = (
    "Strings are well-formed UTF-8 in every encoding: invalid bytes, overlong forms, encoded surrogates "
    "and code points above U+10FFFF fail with INVALID_UTF8, and JSON escapes of lone surrogates with "
    "INVALID_UNICODE, at the pointer of the member that holds the string."
)

BASE = fact("ok")
HEAD = b'{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"'
TAIL = b'"}}'


def json_with(text_bytes: bytes) -> bytes:
    return HEAD + text_bytes + TAIL


def mp_with(text_bytes: bytes) -> bytes:
    return mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact", "fact": {"text": MStr(text_bytes)}})


def pb_with(text_bytes: bytes) -> bytes:
    # specversion, id, kind as canonical, then fact { text } with raw bytes
    head = canonical_protobuf({"specversion": "1.0", "id": "fact-1", "kind": "fact", "fact": {"text": "x"}},
                              "memorywire.v1.MemoryRecord")
    head = head[: head.index(b"\x6a")]
    return head + ld(13, ld(1, text_bytes))


BAD = {
    "InvalidByte": (b"caf\xff", "the byte FF, which never occurs in UTF-8"),
    "ContinuationWithoutLead": (b"a\x80b", "a continuation byte without a lead byte"),
    "OverlongSlash": (b"\xc0\xaf", "the overlong two-byte form of /"),
    "OverlongThreeByte": (b"\xe0\x80\xaf", "an overlong three-byte form"),
    "EncodedSurrogate": (b"\xed\xa0\x80", "U+D800 encoded as UTF-8 (ED A0 80), which is not a scalar value"),
    "AboveMaxCodePoint": (b"\xf4\x90\x80\x80", "the four-byte form of U+110000, above U+10FFFF"),
    "TruncatedSequence": (b"price \xe2\x82", "a three-byte sequence cut after two bytes"),
}

CASES = []
for name, (raw, what) in BAD.items():
    CASES.append(invalid(
        name, f"A string holding {what} fails with INVALID_UTF8 at the member that holds it, in every encoding.",
        ["json-format.md#3.1", "msgpack-format.md#3.1", "protobuf-format.md#3.1", "core.md#3.1"],
        "INVALID_UTF8", "/fact/text", json=json_with(raw), msgpack=mp_with(raw), protobuf=pb_with(raw)))

CASES += [
    invalid("InvalidUtf8InMemberName",
            "Ill-formed UTF-8 in a member name fails with INVALID_UTF8 at the object that holds the member.",
            ["json-format.md#2.2", "msgpack-format.md#2.2"], "INVALID_UTF8", "/fact",
            json=b'{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"te\xffxt":"ok"}}',
            msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                             "fact": {MStr(b"te\xffxt"): "ok"}})),
    invalid("ProtobufInvalidMapKey",
            "A map key that is not well-formed UTF-8 fails with INVALID_UTF8 at the pointer of the Map field.",
            ["protobuf-format.md#2.3", "protobuf-format.md#3.9"], "INVALID_UTF8", "/metadata",
            protobuf=canonical_protobuf(BASE, "memorywire.v1.MemoryRecord")
            + ld(27, ld(1, b"k\xc3") + ld(2, ld(5, b"v")))),
    invalid("LoneHighSurrogateEscape",
            "A \\u escape of a high surrogate not followed by a low one fails with INVALID_UNICODE.",
            ["json-format.md#3.1", "core.md#3.1"], "INVALID_UNICODE", "/fact/text",
            json=json_with(b"\\ud83d!")),
    invalid("LoneLowSurrogateEscape",
            "A \\u escape of a low surrogate on its own fails with INVALID_UNICODE.",
            ["json-format.md#3.1"], "INVALID_UNICODE", "/fact/text", json=json_with(b"\\ude00")),
    invalid("SurrogatesInWrongOrder",
            "A low surrogate escape followed by a high one is two lone surrogates: INVALID_UNICODE.",
            ["json-format.md#3.1"], "INVALID_UNICODE", "/fact/text", json=json_with(b"\\ude00\\ud83d")),
    invalid("HighSurrogateAtEndOfString",
            "A high surrogate escape at the end of the string fails with INVALID_UNICODE.",
            ["json-format.md#3.1"], "INVALID_UNICODE", "/fact/text", json=json_with(b"ab\\ud800")),
    valid("FourByteSequences",
          "Well-formed four-byte sequences up to U+10FFFF are accepted in every encoding.",
          ["core.md#3.1", "json-format.md#3.1"], fact("\U00010000 \U0001F9ED \U0010FFFF")),
    valid("NulCharacter",
          "U+0000 is a valid character: JSON escapes it as \\u0000, MessagePack and Protobuf carry the byte 00.",
          ["core.md#3.1", "json-format.md#7.3"], fact("before\u0000after")),
]
