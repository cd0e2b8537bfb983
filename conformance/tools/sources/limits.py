"""Limits: the default resource limits."""

from _common import fact, nested, with_
from vectorkit import (
    MRaw,
    canonical_json,
    canonical_msgpack,
    canonical_protobuf,
    invalid,
    mp_pack,
    valid,
)

AREA = "Limits"
DESCRIPTION = (
    "The default resource limits of security.md section 4: a nesting depth of 32 (counted on the JSON form "
    "in every encoding, Values included), strings of at most 1 MiB of UTF-8, and declared lengths checked "
    "against the input before anything is allocated. Implementations MAY be configured with other limits, "
    "so these cases are recommended."
)

R = "memorywire.v1.MemoryRecord"
P = "memorywire.v1.PutRequest"
BASE = fact()
S = ["security.md#4", "core.md#3"]
MIB = 1 << 20

# The record is depth 1 and metadata depth 2; 30 nested arrays reach depth 32, 31 reach 33.
AT_LIMIT = with_(BASE, metadata={"a": nested(1, 30)})
OVER_LIMIT = with_(BASE, metadata={"a": nested(1, 31)})
OVER_POINTER = "/metadata/a" + "/0" * 30


def deep_maps(depth: int) -> object:
    v: object = "bottom"
    for _ in range(depth):
        v = {"k": v}
    return v


def deep_pointer(prefix: str, depth: int) -> str:
    return prefix + "/k" * depth


# PutRequest (1) > items (2) > item (3) > record (4) > native (5) > native.record map (6) ...
PUT_OVER = {"specversion": "1.0", "operation_id": "op-1", "items": [{"record": {
    "id": "f", "kind": "fact", "fact": {"text": "x"},
    "native": {"framework": "letta", "record": deep_maps(28)}}}]}
PUT_POINTER = "/items/0/record/native/record" + "/k" * 27

# The deepest Protobuf nesting at the limit: each map inside a Value is a Value, a ValueMap and a
# MapEntry; UpdateRequest (1) > patch (2) > ... > the map at depth 32, then its scalar: 95 messages.
U = "memorywire.v1.UpdateRequest"
DEEPEST_PROTOBUF = {"specversion": "1.0", "operation_id": "op-1", "id": "fact-1", "patch": deep_maps(31)}

BOMB_DEPTH = 10000

CASES = [
    valid("DepthAtLimit",
          "A document nested exactly 32 deep (the record, metadata and 30 arrays) is within the limit in every "
          "encoding.", S + ["protobuf-format.md#2.3"], AT_LIMIT, level="recommended"),
    valid("DeepestProtobufAtLimit",
          "An UpdateRequest whose patch nests maps 32 deep is within the limit: in Protobuf it is 95 messages "
          "deep, within the default recursion limit (100) of stock Protobuf parsers.",
          S + ["protobuf-format.md#2.3"], DEEPEST_PROTOBUF, type=U, level="recommended"),
    invalid("NestingTooDeep",
            "A Value nested one level deeper (33) fails with NESTING_TOO_DEEP at the first array whose depth "
            "exceeds the limit.", S + ["security.md#5"], "NESTING_TOO_DEEP", OVER_POINTER,
            json=canonical_json(OVER_LIMIT, R), msgpack=canonical_msgpack(OVER_LIMIT, R),
            protobuf=canonical_protobuf(OVER_LIMIT, R), level="recommended"),
    invalid("NestingTooDeepInRequest",
            "Depth counts every object and array of the JSON form: a map inside the native record of a record "
            "inside a PutRequest fails at depth 33.", S, "NESTING_TOO_DEEP", PUT_POINTER,
            json=canonical_json(PUT_OVER, P), msgpack=canonical_msgpack(PUT_OVER, P),
            protobuf=canonical_protobuf(PUT_OVER, P), type=P, level="recommended"),
    invalid("NestingBomb",
            f"A nesting bomb of {BOMB_DEPTH} arrays fails with NESTING_TOO_DEEP at level 33, without descending "
            "further.", S + ["security.md#5"], "NESTING_TOO_DEEP", OVER_POINTER,
            json=canonical_json(BASE, R)[:-1] + b',"metadata":{"a":' + b"[" * BOMB_DEPTH + b"1"
            + b"]" * BOMB_DEPTH + b"}}",
            msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                             "fact": {"text": "The user prefers window seats."},
                             "metadata": {"a": MRaw(b"\x91" * BOMB_DEPTH + b"\x01")}}),
            level="recommended"),
    invalid("StringTooLong",
            "A string of 1 MiB + 1 bytes of UTF-8 fails with STRING_TOO_LONG at its member.",
            S, "STRING_TOO_LONG", "/fact/text",
            json=b'{"specversion":"1.0","id":"fact-1","kind":"fact","fact":{"text":"' + b"a" * (MIB + 1) + b'"}}',
            level="recommended"),
    invalid("MsgpackDeclaredBinPastEnd",
            "A bin 32 that declares 1000000 bytes when 4 follow fails with TRUNCATED before anything is "
            "allocated.", S + ["security.md#5", "msgpack-format.md#2.1"], "TRUNCATED", "",
            msgpack=mp_pack({"specversion": "1.0", "id": "fact-1", "kind": "fact",
                             "encrypted": {"algorithm": "A256GCM",
                                           "ciphertext": MRaw(b"\xc6\x00\x0f\x42\x40\x00\x01\x02\x03")}}),
            level="recommended"),
    invalid("MsgpackDeclaredArrayPastEnd",
            "An array 32 that declares 4294967295 elements when 2 bytes follow is TRUNCATED at once: every "
            "element takes at least one byte.", S + ["security.md#5"], "TRUNCATED", "",
            msgpack=b"\x81\xa4tags\xdd\xff\xff\xff\xff\xa1a", level="recommended"),
    invalid("MsgpackDeclaredMapPastEnd",
            "A map 32 that declares 4294967295 entries when 2 bytes follow is TRUNCATED at once.",
            S + ["security.md#5"], "TRUNCATED", "", msgpack=b"\xdf\xff\xff\xff\xff\xa1a", level="recommended"),
]
