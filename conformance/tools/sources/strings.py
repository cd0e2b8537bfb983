"""Strings: escapes, code points, lengths and types."""

from _common import fact, with_
from vectorkit import invalid, mp_pack, valid

AREA = "Strings"
DESCRIPTION = (
    "Strings as sequences of Unicode scalar values: every JSON escape on input, the canonical escaping on "
    "output, characters that are written literally, no normalisation, lengths counted in code points, and "
    "values of the wrong type."
)

BASE = fact()

CASES = [
    valid("EveryJsonEscape",
          "A reader decodes every escape of RFC 8259 (\\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\u with upper- and "
          "lower-case hex digits); the canonical writer escapes only \", \\ and U+0000..U+001F, with the short "
          "forms where they exist.",
          ["json-format.md#3.1", "json-format.md#7.3"],
          with_(BASE, fact={"text": "q\"b\\s/b\bf\fn\nr\rt\t\u00e9\u00c9"}),
          json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":'
               '"q\\"b\\\\s\\/b\\bf\\fn\\nr\\rt\\t\\u00e9\\u00C9"}}'),
    valid("CanonicalEscapingExample",
          "The example of json-format.md section 7.3: the input \"a\\/b\\u00E9\\u2028\\u007f\\u001F\\t\" is "
          "written with / , é, U+2028 and U+007F literal, U+001F as \\u001f and the tab as \\t.",
          ["json-format.md#7.3"],
          with_(BASE, fact={"text": "a/b\u00e9\u2028\u007f\u001f\t"}),
          json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":'
               '"a\\/b\\u00E9\\u2028\\u007f\\u001F\\t"}}'),
    valid("ControlCharacters",
          "Every C0 control character without a short escape is written \\u00XX with lower-case hex digits; "
          "U+0000 is a valid character of a string field without a pattern.",
          ["json-format.md#7.3", "core.md#3.1"],
          with_(BASE, fact={"text": "".join(chr(c) for c in range(0x20))})),
    valid("LiteralNonAscii",
          "Non-ASCII characters, U+2028, U+2029, noncharacters such as U+FFFF and characters outside the BMP "
          "are written literally in UTF-8.",
          ["json-format.md#7.3", "json-format.md#3.1"],
          with_(BASE, fact={"text": "Olá, 東京 \u2028\u2029 \uffff \U0001F600 \U0010FFFF"})),
    valid("SurrogatePairEscape",
          "A \\u escape of a high surrogate followed by one of a low surrogate is one supplementary character.",
          ["json-format.md#3.1"],
          with_(BASE, fact={"text": "\U0001F600 and \U0001D11E"}),
          json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":'
               '"\\ud83d\\ude00 and \\uD834\\uDD1E"}}'),
    valid("EscapedMemberName",
          "Member names are decoded before they are matched: \"\\u0066act\" is the member fact.",
          ["json-format.md#3.1"], BASE,
          json='{"specversion":"1.0","\\u0069d":"fact-1","kind":"fact","\\u0066act":'
               '{"te\\u0078t":"The user prefers window seats."}}'),
    valid("NoUnicodeNormalization",
          "No normalisation: the metadata keys \"é\" (U+00E9) and \"é\" (U+0065 U+0301) are two different "
          "keys, and the values \"Å\" (U+00C5) and \"Å\" (U+212B) stay as read.",
          ["json-format.md#3.1", "core.md#3.1"],
          with_(BASE, metadata={"\u00e9": "\u00c5", "e\u0301": "\u212b"})),
    valid("EmptyStringIsDefault",
          "The empty string is the default of a string field: \"key\":\"\" is accepted and not written.",
          ["core.md#3.1", "core.md#3.11"], with_(BASE, key="")),
    valid("NamespaceLengthInCodePoints",
          "Length constraints count code points: a namespace element of 256 characters outside the BMP is "
          "within its limit of 256, although it is 1024 bytes of UTF-8 and 512 UTF-16 code units.",
          ["core.md#3.1", "core.md#5"],
          with_(BASE, scope={"namespace": ["\U0001F680" * 256]})),
    invalid("NamespaceElementOver256CodePoints",
            "257 code points exceed the limit of 256.", ["core.md#3.1", "core.md#5"],
            "LENGTH_OUT_OF_RANGE", "/scope/namespace/0",
            doc=with_(BASE, scope={"namespace": ["\u00e9" * 257]})),
    invalid("NumberForString",
            "A number where a string is expected fails with TYPE_MISMATCH.",
            ["json-format.md#3", "msgpack-format.md#3"], "TYPE_MISMATCH", "/key",
            doc=with_(BASE, key=42), protobuf=None),
    invalid("ArrayForString",
            "An array where a string is expected fails with TYPE_MISMATCH.",
            ["json-format.md#3", "msgpack-format.md#3"], "TYPE_MISMATCH", "/fact/text",
            doc=with_(BASE, fact={"text": ["The user", "prefers tea"]}), protobuf=None),
    invalid("BinForString",
            "In MessagePack a bin where a str is expected fails with TYPE_MISMATCH.",
            ["msgpack-format.md#3", "msgpack-format.md#3.1"], "TYPE_MISMATCH", "/fact/text",
            msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                             "fact": {"text": b"The user prefers tea."}}), json=None, protobuf=None),
    invalid("StringForList",
            "A single string where a list is expected fails with TYPE_MISMATCH.",
            ["json-format.md#3", "msgpack-format.md#3"], "TYPE_MISMATCH", "/tags",
            doc=with_(BASE, tags="travel"), protobuf=None),
    invalid("InvalidEscape",
            "An escape that RFC 8259 does not define (\\x41) is a syntax error.",
            ["json-format.md#2.1"], "SYNTAX_ERROR", "",
            json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"\\x41"}}'),
    invalid("RawControlCharacter",
            "An unescaped U+000A inside a JSON string is a syntax error.",
            ["json-format.md#2.1"], "SYNTAX_ERROR", "",
            json='{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"line\nbreak"}}'),
]
