"""Float32Vectors: embedding and query vectors, bit for bit."""

import struct
from typing import Any

from _common import fact, with_
from vectorkit import (
    MBin,
    canonical_protobuf,
    f32,
    f32_bits,
    invalid,
    ld,
    mp_pack,
    mp_tree,
    tag,
    valid,
    vi,
)

AREA = "Float32Vectors"
DESCRIPTION = (
    "Embedding.values and VectorQuery.values: binary32 values carried bit for bit between encodings "
    "(negative zero, subnormals, the greatest finite value, 0.1 rounded to binary32), the two-step rounding "
    "of JSON input, little-endian bin in MessagePack, packed and unpacked floats in Protobuf, and the "
    "dimension check."
)

R = "memorywire.v1.MemoryRecord"
BASE = fact()
S = ["core.md#3.6", "json-format.md#3.4", "msgpack-format.md#3.4", "protobuf-format.md#3.4"]
FLT_MAX = f32_bits(0x7F7FFFFF)
MIN_SUB = f32_bits(0x00000001)
MAX_SUB = f32_bits(0x007FFFFF)
MIN_NORMAL = f32_bits(0x00800000)


#: A vector long enough that a reader may take it by another path than a short one.
LONG = ["1", "-0e0", "-0.0", "0.5", "1E2", "2.5e-3", "-7", "0.1", "1e+1", "0.010821457952260971",
        "-0.0027788865845650434", "3", "16777217", "1e-46", "-1e-46", "1e-45", "0.25", "4.0", "123456789",
        "-0.75"]


def emb(values: list[Any], dims: int | None = None, **more: Any) -> dict[str, Any]:
    e = {"model": "text-embedding-3-small", "dimensions": len(values) if dims is None else dims, "values": values}
    e.update(more)
    return with_(BASE, embeddings=[e])


def jbase(values_text: str, dims: int) -> str:
    return ('{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"The user prefers window seats."},'
            '"embeddings":[{"model":"text-embedding-3-small","dimensions":' + str(dims) + ',"values":['
            + values_text + ']}]}')


def mvec(values_bin: Any) -> bytes:
    doc = with_(BASE, embeddings=[{"model": "text-embedding-3-small", "dimensions": 2, "values": values_bin}])
    tree = mp_tree(doc, R)
    tree["embeddings"][0]["values"] = values_bin
    return mp_pack(tree)


def pvec(raw_values_record: bytes, dims: int = 2) -> bytes:
    head = canonical_protobuf(BASE, R)
    body = ld(1, b"text-embedding-3-small") + vi(2, dims) + raw_values_record
    return head + ld(25, body)


CASES = [
    valid("BitExactSpecialValues",
          "-0.0, the least subnormal, the greatest subnormal, the least normal and the greatest finite binary32 "
          "survive every encoding bit for bit; JSON writes each widened exactly to binary64.",
          S + ["core.md#10"], emb([-0.0, MIN_SUB, MAX_SUB, MIN_NORMAL, FLT_MAX, -FLT_MAX])),
    valid("PointOneRoundedToBinary32",
          "The JSON number 0.1 is rounded to the nearest binary32 (0x3dcccccd) and written "
          "0.10000000149011612; 1 is written 1.0 and -0.5 stays -0.5.",
          S, emb([1.0, -0.5, f32(0.1)]), json=jbase("1,-0.5,0.1", 3)),
    valid("WidenedSpellingReadsBack",
          "The canonical spelling of a binary32 value reads back to the same bits.",
          S, emb([f32(0.1), f32(0.2), f32(1 / 3)])),
    valid("GreatestFiniteShortSpelling",
          "3.4028235e38, the usual short spelling of the greatest binary32, rounds to it: the two-step "
          "conversion reads it as a binary64 just above FLT_MAX, which rounds down to FLT_MAX.",
          ["json-format.md#3.4"], emb([FLT_MAX]), json=jbase("3.4028235e38", 1), msgpack=None, protobuf=None),
    valid("JustBelowOverflowThreshold",
          "3.4028235677973362e38 is below the binary32 overflow threshold (2^128 - 2^103) and rounds to FLT_MAX.",
          ["json-format.md#3.4"], emb([FLT_MAX]), json=jbase("3.4028235677973362e38", 1),
          msgpack=None, protobuf=None, level="recommended"),
    valid("SubnormalRounding",
          "1e-46 and -1e-46 round to binary32 zeros of their sign; 1e-45 rounds to the least subnormal.",
          ["json-format.md#3.4"], emb([0.0, -0.0, MIN_SUB]), json=jbase("1e-46,-1e-46,1e-45", 3),
          msgpack=None, protobuf=None),
    valid("RoundsTiesToEven",
          "16777217 lies halfway between two binary32 values and rounds to the even one, 16777216.",
          ["json-format.md#3.4"], emb([16777216.0]), json=jbase("16777217", 1), msgpack=None, protobuf=None),
    valid("LongVectorSpellings",
          "A vector of 20 values in every JSON spelling of a number (integers, -0e0 and -0.0, fractions, exponents "
          "with and without a sign, 17 significant digits after leading zeros, spaces around the separators) reads each "
          "value as a short vector does: to the binary32 nearest its binary64 value.",
          ["json-format.md#3.4"], emb([f32(float(t)) for t in LONG]), json=jbase(" , ".join(LONG), len(LONG)),
          msgpack=None, protobuf=None),
    invalid("LongVectorOverflowElement",
            "The 18th of 20 values overflows binary32: NUMBER_OUT_OF_RANGE at that element, however long the "
            "vector.",
            ["json-format.md#3.4"], "NUMBER_OUT_OF_RANGE", "/embeddings/0/values/17",
            json=jbase(",".join(LONG[:17] + ["3.5e38"] + LONG[18:]), len(LONG))),
    valid("QueryVector",
          "VectorQuery.values follows the same rules as Embedding.values.",
          S + ["operations.md#9.2"],
          {"specversion": "1.0", "operation_id": "op-1",
           "vector": {"model": "text-embedding-3-small", "values": [f32(0.14), -0.0, MIN_SUB, 1.0]}},
          type="memorywire.v1.SearchRequest"),
    valid("ProtobufUnpackedFloats",
          "A Protobuf reader accepts unpacked floats (one I32 record per element) and a mix of packed and "
          "unpacked records; the canonical writer packs them.",
          ["protobuf-format.md#3.4", "protobuf-format.md#6"],
          emb([1.0, -0.0, 0.5]),
          protobuf=pvec(tag(3, 5) + struct.pack("<f", 1.0) + ld(3, struct.pack("<f", -0.0))
                        + tag(3, 5) + struct.pack("<f", 0.5), dims=3),
          json=None, msgpack=None),
    valid("MsgpackBin16Vector",
          "A vector of 64 elements is 256 bytes of data, which the canonical MessagePack writer puts in a bin 16.",
          ["msgpack-format.md#3.4", "msgpack-format.md#7"],
          emb([f32(i / 64) for i in range(64)])),
    valid("MsgpackBin32Input",
          "A reader accepts a float32 vector in bin 32 format.",
          ["msgpack-format.md#3.4", "msgpack-format.md#3.5"], emb([1.0, 2.0], dims=2),
          msgpack=mvec(MBin(struct.pack("<ff", 1.0, 2.0), "32")), json=None, protobuf=None),
    invalid("Binary32Overflow",
            "3.4028235677973366e38 reaches the binary32 overflow threshold: NUMBER_OUT_OF_RANGE at the element.",
            ["json-format.md#3.4", "core.md#3.6"], "NUMBER_OUT_OF_RANGE", "/embeddings/0/values/1",
            json=jbase("0.5,3.4028235677973366e38", 2)),
    invalid("Binary32OverflowNegative", "-1e39 overflows binary32: NUMBER_OUT_OF_RANGE at the element.",
            ["json-format.md#3.4"], "NUMBER_OUT_OF_RANGE", "/embeddings/0/values/0", json=jbase("-1e39", 1)),
    invalid("Binary64OverflowElement", "An element that overflows binary64 fails with NON_FINITE_NUMBER.",
            ["json-format.md#3.4"], "NON_FINITE_NUMBER", "/embeddings/0/values/0", json=jbase("1e400,0.5", 2)),
    invalid("NullElement", "A null element fails with NULL_VALUE at the element.",
            ["json-format.md#3.4", "json-format.md#4"], "NULL_VALUE", "/embeddings/0/values/1",
            json=jbase("0.5,null", 2)),
    invalid("StringElement", "A string element fails with TYPE_MISMATCH at the element.",
            ["json-format.md#3.4"], "TYPE_MISMATCH", "/embeddings/0/values/0", json=jbase('"0.5"', 1)),
    invalid("MsgpackBinNotMultipleOf4",
            "A bin of 7 bytes is not a vector of binary32: INVALID_VECTOR at the member.",
            ["msgpack-format.md#3.4"], "INVALID_VECTOR", "/embeddings/0/values",
            msgpack=mvec(b"\x00\x00\x80\x3f\x00\x00\x00"), json=None, protobuf=None),
    invalid("MsgpackArrayForVector",
            "An array of floats in place of the bin fails with TYPE_MISMATCH: the encoding of a vector is unique.",
            ["msgpack-format.md#3.4"], "TYPE_MISMATCH", "/embeddings/0/values",
            msgpack=mvec([1.0, 2.0]), json=None, protobuf=None),
    invalid("MsgpackNanElement",
            "A NaN element (bytes 00 00 c0 7f) fails with NON_FINITE_NUMBER at the element.",
            ["msgpack-format.md#3.4"], "NON_FINITE_NUMBER", "/embeddings/0/values/1",
            msgpack=mvec(b"\x00\x00\x80\x3f\x00\x00\xc0\x7f"), json=None, protobuf=None),
    invalid("MsgpackInfinityElement",
            "An infinite element (bytes 00 00 80 ff) fails with NON_FINITE_NUMBER at the element.",
            ["msgpack-format.md#3.4"], "NON_FINITE_NUMBER", "/embeddings/0/values/0",
            msgpack=mvec(b"\x00\x00\x80\xff\x00\x00\x80\x3f"), json=None, protobuf=None),
    invalid("ProtobufNanElement",
            "A NaN element in a packed float field fails with NON_FINITE_NUMBER at the element.",
            ["protobuf-format.md#3.4"], "NON_FINITE_NUMBER", "/embeddings/0/values/1",
            protobuf=pvec(ld(3, struct.pack("<f", 1.0) + b"\x00\x00\xc0\x7f")), json=None, msgpack=None),
    invalid("ProtobufPackedNotMultipleOf4",
            "A packed float field whose length is not a multiple of 4 fails with INVALID_WIRE_FORMAT at the field.",
            ["protobuf-format.md#2.3"], "INVALID_WIRE_FORMAT", "/embeddings/0/values",
            protobuf=pvec(ld(3, b"\x00\x00\x80\x3f\x00\x00")), json=None, msgpack=None),
    invalid("DimensionMismatch",
            "dimensions MUST equal the number of values: DIMENSION_MISMATCH at the dimensions member.",
            S + ["core.md#10"], "DIMENSION_MISMATCH", "/embeddings/0/dimensions", doc=emb([0.5, 0.25], dims=3)),
    invalid("FieldNotAJsonPointer",
            "Embedding.field has the format json-pointer: \"fact/text\" lacks the leading slash.",
            ["core.md#10", "core.md#3"], "INVALID_FORMAT", "/embeddings/0/field",
            doc=emb([1.0], field="fact/text"), level="recommended"),
]
