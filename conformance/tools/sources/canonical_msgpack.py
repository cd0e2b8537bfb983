"""CanonicalMsgpack: the canonical MessagePack form."""


from _common import fact, with_
from vectorkit import MF32, MArr, MInt, MMap, MStr, MTs, mp_pack, valid

AREA = "CanonicalMsgpack"
DESCRIPTION = (
    "The canonical MessagePack form: keys sorted by UTF-8 bytes, the smallest format for every int, str, "
    "bin, array and map (str 8 included), Float fields as float 64, float32 vectors as little-endian bin, "
    "timestamps in the smallest layout; and non-canonical inputs that every reader accepts."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
S = ["msgpack-format.md#7", "core.md#13.6"]


def s(text: str, fmt: str) -> MStr:
    return MStr(text.encode("utf-8"), fmt)


NONCANONICAL = mp_pack(MMap([
    (s("kind", "32"), s("fact", "8")),
    (s("tags", "16"), MArr([s("travel", "16"), "seating"], "32")),
    (s("fact", "8"), MMap([(s("text", "fix"), s("Prefers tea", "32"))], "16")),
    ("sequence", MInt(42, "u32")),
    ("revision", MInt(1, "u64")),
    ("lifecycle", MMap([("importance", MF32(0.5)), ("access_count", MInt(7, "i16"))], "32")),
    ("created_at", MTs(1714566600, 500000000, 96)),
    ("id", s("r1", "16")),
    ("metadata", MMap([("n", MInt(-5, "i64")), ("b", MInt(200, "u16"))], "16")),
    ("specversion", s("1.0", "8")),
], "16"))

CASES = [
    valid("NonMinimalFormats",
          "Every int, str, array and map in a larger format than needed (str 8/16/32, map 16/32, array 32, "
          "uint 32/64, int 16/64), a float 32 in a Float field, a timestamp 96 and unsorted keys: the reader "
          "accepts it and the canonical writer uses the smallest formats, float 64 and sorted keys.",
          S + ["msgpack-format.md#3", "msgpack-format.md#3.1", "msgpack-format.md#3.2"],
          {"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "Prefers tea"}, "sequence": 42,
           "revision": 1, "created_at": "2024-05-01T12:30:00.500Z",
           "lifecycle": {"importance": 0.5, "access_count": 7}, "metadata": {"n": -5, "b": 200},
           "tags": ["travel", "seating"]},
          msgpack=NONCANONICAL, json=None, protobuf=None),
    valid("SpecExampleRecord",
          "The example of msgpack-format.md section 7: 108 bytes.", S,
          {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2024-05-01T12:30:00.500Z",
           "fact": {"text": "Prefers tea"}, "lifecycle": {"importance": 0.5}}),
    valid("SpecExampleEmbedding",
          "The example of msgpack-format.md section 3.4: an embedding with the bin c4 0c 00 00 80 3f 00 00 00 bf "
          "cd cc cc 3d.", ["msgpack-format.md#3.4"],
          with_(BASE, embeddings=[{"dimensions": 3, "model": "m", "values": [1.0, -0.5, 0.10000000149011612]}])),
    valid("StrBoundaries",
          "Strings of 31 bytes (fixstr), 32 bytes (str 8), 255 bytes (str 8) and 256 bytes (str 16).",
          S + ["msgpack-format.md#3.1"],
          with_(BASE, fact={"text": "t" * 31, "subject": "s" * 32, "predicate": "p" * 255, "object": "o" * 256})),
    valid("MultibyteStrLength",
          "The length of a str is its UTF-8 bytes: 11 characters of 3 bytes are 33 bytes, a str 8.",
          ["msgpack-format.md#3.1"], with_(BASE, fact={"text": "東京東京東京東京東京東"})),
    valid("MapAndArrayBoundaries",
          "A map of 15 entries is a fixmap and one of 16 a map 16; an array of 15 elements is a fixarray and "
          "one of 16 an array 16.", S,
          with_(BASE, metadata={"fifteen": {f"k{i:02d}": i for i in range(15)},
                                "sixteen": {f"k{i:02d}": i for i in range(16)},
                                "list15": list(range(15)), "list16": list(range(16))})),
    valid("KeysSortedByUtf8Bytes",
          "Keys are sorted by their UTF-8 bytes, which is code point order: é (c3 a9) after z, U+FF61 "
          "(ef bd a1) before U+1F600 (f0 9f 98 80).", S,
          with_(BASE, metadata={"\U0001F600": 1, "\uff61": 2, "\u00e9": 3, "z": 4, "Z": 5})),
    valid("FloatFieldAlwaysFloat64",
          "A Float field whose value fits a float 32 exactly (0.5, 0.25) is still written as float 64.",
          ["msgpack-format.md#3.3"], with_(BASE, lifecycle={"importance": 0.5, "confidence": 0.25})),
]
