"""Bytes: base64 in JSON, bin in MessagePack, bytes in Protobuf."""

from typing import Any

from _common import record
from vectorkit import Case, MBin, invalid, mp_pack, mp_tree, valid

AREA = "Bytes"
DESCRIPTION = (
    "Bytes fields: the unique JSON form (base64, standard alphabet, with padding, zero pad bits), bin of "
    "any format in MessagePack with the smallest one written, and the rejection of every other spelling."
)

R = "memorywire.v1.MemoryRecord"
S = ["core.md#3.7", "json-format.md#3.5", "msgpack-format.md#3.5", "protobuf-format.md#3.5"]


def enc(**payload: Any) -> dict[str, Any]:
    p = {"algorithm": "A256GCM"}
    p.update(payload)
    return record("fact", None, id="fact-enc", encrypted=p)


def jenc(ciphertext_json: str) -> str:
    return ('{"specversion":"1.0","id":"fact-enc","kind":"fact","encrypted":{"algorithm":"A256GCM",'
            '"ciphertext":' + ciphertext_json + '}}')


def menc(ciphertext: Any) -> bytes:
    tree = mp_tree(enc(ciphertext="AA=="), R)
    tree["encrypted"]["ciphertext"] = ciphertext
    return mp_pack(tree)


def bad(name: str, text: str, what: str, level: str = "required") -> Case:
    return invalid(name, f"A bytes string {what} fails with INVALID_BASE64.", ["json-format.md#3.5", "core.md#3.7"],
                   "INVALID_BASE64", "/encrypted/ciphertext", json=jenc(text), level=level)


CASES = [
    valid("SpecTable",
          "The examples of json-format.md section 3.5: 00 is AA==, 00 01 02 03 is AAECAw==, fb ff is +/8= "
          "(the characters + and /), and empty bytes are the default.",
          S, enc(ciphertext="AAECAw==", nonce="AA==", aad="+/8=", key_id="")),
    valid("AllByteValues",
          "Every byte value 00..ff survives every encoding.",
          S, enc(ciphertext="AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7PD0+P0BB"
                            "QkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3eHl6e3x9fn+AgYKDhIWG"
                            "h4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKztLW2t7i5uru8vb6/wMHCw8TFxsfIycrL"
                            "zM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v8PHy8/T19vf4+fr7/P3+/w==")),
    valid("MsgpackBin16Boundary",
          "Bytes of 256 octets need bin 16 in canonical MessagePack; 255 octets fit bin 8.",
          ["msgpack-format.md#3.5", "msgpack-format.md#7"],
          enc(ciphertext="QUFB" * 85 + "QQ==", nonce="QUFB" * 85)),
    valid("MsgpackAnyBinFormat",
          "A MessagePack reader accepts bytes in any bin format: bin 32 for three bytes.",
          ["msgpack-format.md#3.5"], enc(ciphertext="AQID"),
          msgpack=menc(MBin(b"\x01\x02\x03", "32")), json=None, protobuf=None),
    valid("EscapedPadding",
          "A JSON string is decoded before it is checked: \"QQ\\u003d\\u003d\" is \"QQ==\".",
          ["json-format.md#3.5", "json-format.md#3.1"], enc(ciphertext="QQ=="),
          json=jenc('"QQ\\u003d\\u003d"'), msgpack=None, protobuf=None, level="recommended"),
    bad("UrlSafeAlphabet", '"-_8="', "in the URL-safe alphabet (- and _)"),
    bad("MissingPadding", '"AAECAw"', "without its padding"),
    bad("MissingOnePad", '"AAECAw="', "with one = too few"),
    bad("ExcessPadding", '"AA==="', "with three ="),
    bad("PaddingInside", '"AA==AAEC"', "with = inside"),
    bad("WithSpace", '"AAEC Aw=="', "holding a space"),
    bad("WithLineBreak", '"AAEC\\nAw=="', "holding a line break (as the MIME encoding writes)"),
    bad("NonZeroPadBits", '"QR=="', "whose last character has non-zero unused bits (QR== rather than QQ==)"),
    bad("NonZeroPadBitsOneEquals", '"AAF="', "whose last character has non-zero unused bits (AAF= rather than AAE=)"),
    bad("LengthNotMultipleOf4", '"AAECA"', "whose length is not a multiple of 4"),
    bad("OnlyPadding", '"===="', "of padding only"),
    invalid("NumberForBytes", "A number in a bytes field fails with TYPE_MISMATCH.",
            ["json-format.md#3.5"], "TYPE_MISMATCH", "/encrypted/ciphertext", json=jenc("42")),
    invalid("MsgpackStrForBytes", "A MessagePack str in a bytes field fails with TYPE_MISMATCH, even when it holds "
            "base64.", ["msgpack-format.md#3.5"], "TYPE_MISMATCH", "/encrypted/ciphertext",
            msgpack=menc("AAECAw=="), json=None, protobuf=None),
    invalid("MsgpackArrayForBytes", "A MessagePack array of ints in a bytes field fails with TYPE_MISMATCH.",
            ["msgpack-format.md#3.5"], "TYPE_MISMATCH", "/encrypted/ciphertext",
            msgpack=menc([0, 1, 2]), json=None, protobuf=None),
]
