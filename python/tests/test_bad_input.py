"""Bad input of every kind gets a typed memorywire error, never another exception
and never a hang: the reason token of the registry (decisions.md, spec/v1/
operations.md §3.3) and the JSON Pointer of the offending member where the
specification names one."""

from __future__ import annotations

import base64
import gc
import json
import pathlib
import struct
import time
from collections.abc import Callable
from typing import Any, TypeVar

import msgpack
import pytest
import strategies as S
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import memorywire
from memorywire import Limits
from memorywire import json as mw_json
from memorywire import msgpack as mw_msgpack
from memorywire import protobuf as mw_protobuf
from memorywire.errors import DecodeError, MemorywireError, ValidationError

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENCODINGS = ("json", "msgpack", "protobuf")
MODULES = {"json": mw_json, "msgpack": mw_msgpack, "protobuf": mw_protobuf}
RECORD = "memorywire.v1.MemoryRecord"
LIMIT_REASONS = {"DOCUMENT_TOO_LARGE", "NESTING_TOO_DEEP", "STRING_TOO_LONG", "TOO_MANY_ITEMS"}
#: A generous bound for "no hang": each of these inputs is decoded in milliseconds.
HANG_GUARD_SECONDS = 1.0
HANG_GUARD_TRIES = 3

T = TypeVar("T")


def unhung(call: Callable[[], T], seconds: float = HANG_GUARD_SECONDS) -> T:
    """call's result, failing the test when call overruns seconds in every one of a few tries.

    A hang, or work that grows faster than the input, overruns every time; a pause of a shared
    machine (another process, a full garbage collection of the suite's heap) does not, so one
    slow try is not a failure."""
    times = []
    for _ in range(HANG_GUARD_TRIES):
        gc.disable()
        start = time.perf_counter()
        try:
            result = call()
        finally:
            times.append(time.perf_counter() - start)
            gc.enable()
        if times[-1] < seconds:
            return result
    raise AssertionError(f"over the {seconds} s hang guard in each try: " + ", ".join(f"{t:.2f} s" for t in times))


def fact(**members: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "x"}}
    doc.update(members)
    return doc


def decode(encoding: str, data: bytes, type_name: str = RECORD, limits: Limits | None = None) -> Any:
    return MODULES[encoding].decode(data, type=type_name, limits=limits)


def typed_error(encoding: str, data: bytes, type_name: str = RECORD,
                limits: Limits | None = None) -> MemorywireError:
    """Decode, expecting a memorywire error; any other exception fails the test."""
    try:
        decode(encoding, data, type_name, limits)
    except MemorywireError as e:
        return e
    raise AssertionError(f"{encoding}: the input was accepted: {data[:200]!r}")


def expect(encoding: str, data: bytes, reason: str, pointer: str | None = None, type_name: str = RECORD,
           limits: Limits | None = None) -> MemorywireError:
    error = typed_error(encoding, data, type_name, limits)
    assert error.reason == reason, f"{encoding}: expected {reason}, got {error.reason}: {error}"
    if pointer is not None:
        assert error.pointer == pointer, f"{encoding}: expected pointer {pointer!r}, got {error.pointer!r}: {error}"
    return error


def mp_with(doc: dict[str, Any], key: str, raw_value: bytes) -> bytes:
    """A MessagePack document: doc's entries, then key with hand-written value bytes."""
    packed = msgpack.packb(doc)
    assert 0x80 <= packed[0] <= 0x8E
    return bytes([packed[0] + 1]) + packed[1:] + msgpack.packb(key) + raw_value


def rich_document() -> dict[str, Any]:
    return {
        "specversion": "1.0", "id": "mem_01", "kind": "message", "key": "k/1",
        "scope": {"tenant": "t", "user": "u", "namespace": ["a", "b"]},
        "sequence": 9007199254740991, "revision": 3,
        "created_at": "1969-12-31T23:59:59.123456789Z", "updated_at": "2024-05-01T12:30:00Z",
        "message": {"role": "assistant", "content": [
            {"text": {"text": "héllo \U0001f600", "annotations": [{"type": "url_citation", "index": 0}]}},
            {"image": {"data": base64.b64encode(bytes(range(40))).decode(), "media_type": "image/png"}},
            {"tool_result": {"call_id": "c1", "output": "", "artifact": {"k": [1, 2.5, None]}}},
        ]},
        "lifecycle": {"importance": 0.0, "confidence": -0.0, "pinned": True, "expires_at": "9999-12-31T23:59:59Z"},
        "embeddings": [{"model": "m", "dimensions": 3, "values": [1.0, -0.5, 0.10000000149011612]}],
        "native": {"framework": "f", "record": {"z": [{}], "big": -9223372036854775808, "f": 1e-7}},
        "metadata": {"": None, "a": {"b": [True, False, "s"]}, "n": 2**63 - 1},
        "extensions": {"acme.priority": 3},
        "tags": ["x", "y"],
    }


def real_documents() -> list[dict[str, Any]]:
    docs = [rich_document()]
    for path in sorted((ROOT / "examples" / "v1" / "records").glob("*.json")):
        doc = json.loads(path.read_text())
        try:
            memorywire.validate(doc)
        except MemorywireError:
            continue
        docs.append(doc)
    return docs


DOCUMENTS = real_documents()


def test_the_corpus_of_real_documents_is_large_enough() -> None:
    assert len(DOCUMENTS) >= 8


# -- truncation at every offset ---------------------------------------------------


@pytest.mark.parametrize("index", range(len(DOCUMENTS)))
def test_truncated_msgpack_at_every_offset(index: int) -> None:
    data = mw_msgpack.encode(DOCUMENTS[index])
    for cut in range(len(data)):
        error = typed_error("msgpack", data[:cut])
        assert isinstance(error, DecodeError), (cut, error)
        assert error.reason == "TRUNCATED" and error.pointer == "", (cut, str(error))


@pytest.mark.parametrize("index", range(len(DOCUMENTS)))
def test_truncated_json_at_every_offset(index: int) -> None:
    doc = DOCUMENTS[index]
    for data in (mw_json.encode(doc), json.dumps(doc, indent=2, ensure_ascii=False).encode()):
        for cut in range(1, len(data)):  # the empty input has its own test (test_malformed_json)
            error = typed_error("json", data[:cut])
            assert isinstance(error, DecodeError), (cut, error)
            inside_character = cut < len(data) and (data[cut] & 0xC0) == 0x80
            allowed = {"TRUNCATED", "INVALID_UTF8"} if inside_character else {"TRUNCATED"}
            assert error.reason in allowed and error.pointer == "", (cut, data[:cut][-20:], str(error))


def _top_level_boundaries(data: bytes) -> set[int]:
    """The offsets at which a top-level Protobuf record starts or the input ends."""
    return {0} | {end for _, end in S.pb_top_fields(data)}


@pytest.mark.parametrize("index", range(len(DOCUMENTS)))
def test_truncated_protobuf_at_every_offset(index: int) -> None:
    data = mw_protobuf.encode(DOCUMENTS[index])
    boundaries = _top_level_boundaries(data)
    for cut in range(len(data)):
        try:
            decode("protobuf", data[:cut])
        except MemorywireError as error:
            if cut not in boundaries:
                assert error.reason == "TRUNCATED" and error.pointer == "", (cut, str(error))
        else:
            assert cut in boundaries, f"a prefix cut inside a record was accepted: {cut}"


# -- random corruption ------------------------------------------------------------

FUZZ = settings(max_examples=1000, deadline=None, derandomize=True, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def corrupted(draw: Any, encoding: str) -> bytes:
    doc = draw(st.sampled_from(DOCUMENTS))
    data = bytearray(MODULES[encoding].encode(doc))
    for _ in range(draw(st.integers(1, 4))):
        action = draw(st.sampled_from(["flip", "set", "insert", "delete"]))
        pos = draw(st.integers(0, len(data) - 1))
        if action == "flip":
            data[pos] ^= 1 << draw(st.integers(0, 7))
        elif action == "set":
            data[pos] = draw(st.integers(0, 255))
        elif action == "insert":
            data[pos:pos] = draw(st.binary(min_size=1, max_size=4))
        elif len(data) > 1:
            del data[pos:pos + draw(st.integers(1, 4))]
    return bytes(data)


def _only_typed_errors(encoding: str, data: bytes) -> None:
    note(f"input: {data!r}")
    try:
        doc = decode(encoding, data)
    except MemorywireError:
        return
    # Whatever is accepted can be written again, in every encoding, or refused with a typed error.
    for target in ENCODINGS:
        try:
            memorywire.convert(data, source=encoding, target=target)
            MODULES[target].encode(doc)
        except MemorywireError:
            pass


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_random_corruption_gives_only_typed_errors(encoding: str) -> None:
    @FUZZ
    @given(data=corrupted(encoding))
    def corrupt(data: bytes) -> None:
        _only_typed_errors(encoding, data)

    corrupt()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_random_bytes_give_only_typed_errors(encoding: str) -> None:
    @FUZZ
    @given(data=st.binary(max_size=200))
    def noise(data: bytes) -> None:
        _only_typed_errors(encoding, data)

    noise()


# -- invalid UTF-8 ------------------------------------------------------------------

BAD_UTF8 = {
    "invalid start byte": b"\xff",
    "lone continuation": b"\x80",
    "overlong slash": b"\xc0\xaf",
    "overlong nul": b"\xe0\x80\x80",
    "encoded surrogate": b"\xed\xa0\x80",
    "above U+10FFFF": b"\xf4\x90\x80\x80",
    "cut sequence": b"\xe2\x82",
}


@pytest.mark.parametrize("bad", list(BAD_UTF8), ids=list(BAD_UTF8))
def test_invalid_utf8_in_json(bad: str) -> None:
    raw = BAD_UTF8[bad]
    head = b'{"specversion":"1.0","id":"r1","kind":"fact",'
    expect("json", head + b'"fact":{"text":"a' + raw + b'b"}}', "INVALID_UTF8", "/fact/text")
    expect("json", head + b'"fact":{"text":"x"},"metadata":{"a":["' + raw + b'"]}}', "INVALID_UTF8",
           "/metadata/a/0")
    # in a member name: the pointer of the object that holds it
    expect("json", head + b'"fact":{"text":"x"},"metadata":{"k' + raw + b'":1}}', "INVALID_UTF8", "/metadata")


@pytest.mark.parametrize("bad", list(BAD_UTF8), ids=list(BAD_UTF8))
def test_invalid_utf8_in_msgpack_strings(bad: str) -> None:
    raw = BAD_UTF8[bad]
    s = bytes([0xA0 | (len(raw) + 2)]) + b"a" + raw + b"b"
    expect("msgpack", mp_with(fact(), "key", s), "INVALID_UTF8", "/key")
    expect("msgpack", mp_with(fact(), "metadata", b"\x81\xa1a\x91" + s), "INVALID_UTF8", "/metadata/a/0")
    expect("msgpack", mp_with(fact(), "metadata", b"\x81" + s + b"\x01"), "INVALID_UTF8", "/metadata")


@pytest.mark.parametrize("bad", list(BAD_UTF8), ids=list(BAD_UTF8))
def test_invalid_utf8_in_protobuf_strings(bad: str) -> None:
    raw = b"a" + BAD_UTF8[bad] + b"b"
    base = mw_protobuf.encode(fact())
    expect("protobuf", base + S.pb_len(4, raw), "INVALID_UTF8", "/key")
    expect("protobuf", base + S.pb_len(5, S.pb_len(2, raw)), "INVALID_UTF8", "/scope/user")
    entry = S.pb_len(1, b"a") + S.pb_len(2, S.pb_len(5, raw))
    expect("protobuf", base + S.pb_len(27, entry), "INVALID_UTF8", "/metadata/a")
    key = S.pb_len(1, raw) + S.pb_len(2, b"\x08\x00")
    expect("protobuf", base + S.pb_len(27, key), "INVALID_UTF8", "/metadata")


@pytest.mark.parametrize("escape", [b"\\ud800", b"\\udfff", b"\\udc00\\ud800", b"\\ud800x", b"\\ud800\\u0041"])
def test_lone_surrogate_escape_in_json(escape: bytes) -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"' + escape + b'"}}'
    expect("json", data, "INVALID_UNICODE", "/fact/text")


def test_surrogate_pair_escape_in_json_is_one_character() -> None:
    data = b'{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"\\ud83d\\ude00"}}'
    assert mw_json.decode(data)["fact"]["text"] == "\U0001f600"


def test_lone_surrogate_in_a_python_document_is_invalid() -> None:
    with pytest.raises(MemorywireError) as info:
        memorywire.validate(fact(fact={"text": "a\ud800"}))
    assert info.value.reason == "INVALID_UNICODE" and info.value.pointer == "/fact/text"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_lone_surrogate_in_a_python_document_is_refused_by_every_writer(encoding: str) -> None:
    for doc in (fact(fact={"text": "a\ud800"}), fact(metadata={"\udc00": 1}), fact(metadata={"a": ["\ud800"]})):
        with pytest.raises(MemorywireError):
            MODULES[encoding].encode(doc)


_TEXT_WITH_SURROGATES = st.text(st.one_of(st.characters(codec="utf-8"), st.sampled_from("\ud800\udbff\udc00\udfff")),
                                max_size=4)
_PYTHON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.floats(), st.integers(), _TEXT_WITH_SURROGATES,
              st.sampled_from([2**64, -(2**63) - 1, b"\xed"])),
    lambda inner: st.one_of(st.lists(inner, max_size=4),
                            st.dictionaries(st.one_of(_TEXT_WITH_SURROGATES, st.integers()), inner, max_size=4)),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(_PYTHON_VALUES)
def test_the_surrogate_check_finds_what_the_walk_finds(node: Any) -> None:
    """The C-speed screen in front of the walk (orjson refusing a lone
    surrogate) never hides one and never names another place: on any
    Python value, with non-string member names and integers orjson cannot
    write, the answer is the walk's alone."""
    from memorywire import validation

    assert validation.surrogate(node) == validation._surrogate(node, "")


# -- duplicate keys ----------------------------------------------------------------

HEAD = '{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"}'

DUPLICATE_JSON = {
    "top level": ('{"specversion":"1.0","id":"r1","id":"r2","kind":"fact","fact":{"text":"x"}}', "/id"),
    "top level, same value": ('{"specversion":"1.0","id":"r1","id":"r1","kind":"fact","fact":{"text":"x"}}', "/id"),
    "nested message": (HEAD + ',"scope":{"user":"a","user":"b"}}', "/scope/user"),
    "payload": ('{"specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x","text":"y"}}', "/fact/text"),
    "map field": (HEAD + ',"metadata":{"a":1,"a":2}}', "/metadata/a"),
    "inside a value": (HEAD + ',"metadata":{"a":{"b":{"c":1,"c":[]}}}}', "/metadata/a/b/c"),
    "inside a list in a value": (HEAD + ',"metadata":{"l":[0,{"k":1,"k":1}]}}', "/metadata/l/1/k"),
    "space before colon": (HEAD + ',"metadata":{"a" : 1,"a" : 2}}', "/metadata/a"),
    "whitespace everywhere": (HEAD + ',"metadata":{ "a"\n:\t1 ,\r\n"a" :2 }}', "/metadata/a"),
    "escaped name": (HEAD + ',"metadata":{"a":1,"\\u0061":2}}', "/metadata/a"),
    "escaped quote in strings": (HEAD + ',"tags":["x\\":","y\\" :"],"metadata":{"a\\"":1,"a\\"":2}}',
                                 '/metadata/a"'),
    "escaped quote decoy": (HEAD + ',"key":"\\"a\\":1,\\"a\\":2","metadata":{"q":1,"q":2}}', "/metadata/q"),
    "escaped backslash": (HEAD + ',"key":"\\\\","metadata":{"a\\\\":1,"a\\\\":2}}', "/metadata/a\\"),
    "long integer elsewhere": (HEAD + ',"metadata":{"n":9223372036854775807,"a":1,"a":2}}', "/metadata/a"),
    "specversion": ('{"specversion":"1.0","specversion":"1.0","id":"r1","kind":"fact","fact":{"text":"x"}}',
                    "/specversion"),
    "in a newer minor unknown member": ('{"specversion":"1.1","id":"r1","kind":"fact","fact":{"text":"x"},'
                                        '"zz":{"a":1,"a":2}}', "/zz/a"),
    "pointer escaping": (HEAD + ',"metadata":{"a/b~c":1,"a/b~c":2}}', "/metadata/a~1b~0c"),
    "after last wins would hide it": (HEAD + ',"metadata":{"a":{"x":1},"a":{"y":2}}}', "/metadata/a"),
}


@pytest.mark.parametrize("case", list(DUPLICATE_JSON), ids=list(DUPLICATE_JSON))
def test_duplicate_json_keys(case: str) -> None:
    text, pointer = DUPLICATE_JSON[case]
    expect("json", text.encode(), "DUPLICATE_KEY", pointer)


def test_json_strings_that_look_like_members_are_not_duplicates() -> None:
    text = HEAD + ',"key":"\\"a\\":1,\\"a\\" : 2","tags":["\\"t\\":","\\"t\\":"],"metadata":{"s":"\\"s\\":"}}'
    doc = mw_json.decode(text.encode())
    assert doc["key"] == '"a":1,"a" : 2'


DUPLICATE_MSGPACK = {
    "top level": (b"\x85" + msgpack.packb(fact())[1:] + msgpack.packb("id") + msgpack.packb("r2"), "/id"),
    "nested message": (mp_with(fact(), "scope", b"\x82\xa4user\xa1a\xa4user\xa1b"), "/scope/user"),
    "map field": (mp_with(fact(), "metadata", b"\x82\xa1a\x01\xa1a\x02"), "/metadata/a"),
    "inside a value": (mp_with(fact(), "metadata", b"\x81\xa1a\x81\xa1b\x82\xa1c\x01\xa1c\x01"), "/metadata/a/b/c"),
    "inside a list": (mp_with(fact(), "metadata", b"\x81\xa1l\x92\x00\x82\xa1k\x01\xa1k\x02"), "/metadata/l/1/k"),
    "str 8 and fixstr spellings": (mp_with(fact(), "metadata", b"\x82\xa1a\x01\xd9\x01a\x02"), "/metadata/a"),
}


@pytest.mark.parametrize("case", list(DUPLICATE_MSGPACK), ids=list(DUPLICATE_MSGPACK))
def test_duplicate_msgpack_keys(case: str) -> None:
    data, pointer = DUPLICATE_MSGPACK[case]
    expect("msgpack", data, "DUPLICATE_KEY", pointer)


def test_duplicate_protobuf_map_keys() -> None:
    entry = S.pb_len(27, S.pb_len(1, b"a") + S.pb_len(2, b"\x18\x02"))
    expect("protobuf", mw_protobuf.encode(fact()) + entry + entry, "DUPLICATE_KEY", "/metadata/a")
    empty = S.pb_len(27, S.pb_len(2, b"\x08\x00"))
    expect("protobuf", mw_protobuf.encode(fact()) + empty + S.pb_len(27, S.pb_len(1, b"") + S.pb_len(2, b"\x08\x00")),
           "DUPLICATE_KEY", "/metadata/")


# -- wrong types -------------------------------------------------------------------

WRONG_TYPES_JSON = {
    "string field gets a number": ('"key":5', "/key"),
    "integer field gets a string": ('"sequence":"5"', "/sequence"),
    "integer field gets a boolean": ('"sequence":true', "/sequence"),
    "list gets a single element": ('"tags":"x"', "/tags"),
    "list element of the wrong type": ('"tags":["a",1]', "/tags/1"),
    "message gets an array": ('"scope":[]', "/scope"),
    "message gets a string": ('"lifecycle":"active"', "/lifecycle"),
    "boolean gets a string": ('"lifecycle":{"pinned":"true"}', "/lifecycle/pinned"),
    "boolean gets a number": ('"lifecycle":{"pinned":1}', "/lifecycle/pinned"),
    "float gets a string": ('"lifecycle":{"importance":"0.5"}', "/lifecycle/importance"),
    "float gets NaN as a string": ('"lifecycle":{"importance":"NaN"}', "/lifecycle/importance"),
    "timestamp gets a number": ('"created_at":1714566600', "/created_at"),
    "map gets an array": ('"metadata":[1]', "/metadata"),
    "vector gets a string": ('"embeddings":[{"model":"m","dimensions":1,"values":"AACAPw=="}]',
                             "/embeddings/0/values"),
    "vector element gets a string": ('"embeddings":[{"model":"m","dimensions":1,"values":["1"]}]',
                                     "/embeddings/0/values/0"),
    "bytes gets a number": ('"encrypted":{"algorithm":"A","ciphertext":12}', "/encrypted/ciphertext"),
    "enum gets a number": ('"provenance":{"origin":1}', "/provenance/origin"),
}


@pytest.mark.parametrize("case", list(WRONG_TYPES_JSON), ids=list(WRONG_TYPES_JSON))
def test_wrong_types_in_json(case: str) -> None:
    member, pointer = WRONG_TYPES_JSON[case]
    if member.startswith('"encrypted"'):
        text = '{"specversion":"1.0","id":"r1","kind":"fact",' + member + "}"
    else:
        text = HEAD + "," + member + "}"
    expect("json", text.encode(), "TYPE_MISMATCH", pointer)


@pytest.mark.parametrize("text", ["[]", '"record"', "1", "null", "true", "[{}]"])
def test_json_top_level_not_an_object(text: str) -> None:
    expect("json", text.encode(), "TYPE_MISMATCH", "")


WRONG_TYPES_MSGPACK = {
    "string field gets an int": (mp_with(fact(), "key", b"\x05"), "/key"),
    "integer field gets a float": (mp_with(fact(), "sequence", b"\xcb" + struct.pack(">d", 1.0)), "/sequence"),
    "integer field gets a float 32": (mp_with(fact(), "sequence", b"\xca" + struct.pack(">f", 1.0)), "/sequence"),
    "bytes gets a str": (mp_with({"specversion": "1.0", "id": "r1", "kind": "fact"}, "encrypted",
                                 b"\x82\xa9algorithm\xa1A\xaaciphertext\xa4AA=="), "/encrypted/ciphertext"),
    "vector gets an array": (mp_with(fact(), "embeddings",
                                     b"\x91\x83\xa5model\xa1m\xaadimensions\x01\xa6values\x91\xcb"
                                     + struct.pack(">d", 1.0)), "/embeddings/0/values"),
    "timestamp gets a str": (mp_with(fact(), "created_at", msgpack.packb("2024-05-01T12:30:00Z")), "/created_at"),
    "timestamp gets an int": (mp_with(fact(), "created_at", msgpack.packb(1714566600)), "/created_at"),
    "string field gets a timestamp": (mp_with(fact(), "key", b"\xd6\xff\x00\x00\x00\x01"), "/key"),
    "string field gets bin": (mp_with(fact(), "key", b"\xc4\x01a"), "/key"),
    "enum gets an int": (mp_with(fact(), "provenance", b"\x81\xa6origin\x01"), "/provenance/origin"),
    "bin inside a value": (mp_with(fact(), "metadata", b"\x81\xa1a\xc4\x01x"), "/metadata/a"),
    "timestamp inside a value": (mp_with(fact(), "metadata", b"\x81\xa1a\xd6\xff\x00\x00\x00\x01"), "/metadata/a"),
    "ext type 5 inside a value": (mp_with(fact(), "metadata", b"\x81\xa1a\xd4\x05\x00"), "/metadata/a"),
    "ext type 5 in a timestamp field": (mp_with(fact(), "created_at", b"\xd6\x05\x00\x00\x00\x01"), "/created_at"),
    "int key in a value map": (mp_with(fact(), "metadata", b"\x81\xa1a\x81\x01\x02"), "/metadata/a"),
    "int key in a map field": (mp_with(fact(), "metadata", b"\x81\x01\x02"), "/metadata"),
    "int key at the top level": (mp_with(fact(), "x", b"\x01")[:1] + msgpack.packb(fact())[1:] + b"\x07\x01", ""),
}


@pytest.mark.parametrize("case", list(WRONG_TYPES_MSGPACK), ids=list(WRONG_TYPES_MSGPACK))
def test_wrong_types_in_msgpack(case: str) -> None:
    data, pointer = WRONG_TYPES_MSGPACK[case]
    expect("msgpack", data, "TYPE_MISMATCH", pointer)


@pytest.mark.parametrize("data", [b"\x90", b"\xa1x", b"\x01", b"\xc0", b"\xc4\x00", b"\x91\x80"])
def test_msgpack_top_level_not_a_map(data: bytes) -> None:
    expect("msgpack", data, "TYPE_MISMATCH", "")


WRONG_WIRE_PROTOBUF = {
    "known varint field as I64": (S.pb_tag(6, 1) + bytes(8), "/sequence"),
    "known string field as varint": (S.pb_tag(4, 0) + b"\x01", "/key"),
    "message field as varint": (S.pb_tag(5, 0) + b"\x01", "/scope"),
    "wire type 3": (S.pb_tag(4, 3), ""),
    "wire type 4": (S.pb_tag(4, 4), ""),
    "wire type 6": (S.pb_tag(4, 6), ""),
    "wire type 7": (S.pb_tag(4, 7), ""),
    "field number 0": (b"\x00\x01", ""),
    "varint of 11 bytes": (S.pb_tag(6, 0) + b"\xff" * 10 + b"\x01", "/sequence"),
    "packed floats not a multiple of 4": (S.pb_len(25, S.pb_len(1, b"m") + S.pb_tag(2, 0) + b"\x01"
                                                   + S.pb_len(3, b"\x00\x00\x80")), "/embeddings/0/values"),
    # (followed by another field, so that the input does not end there too)
    "LEN past the end of its message": (S.pb_len(5, S.pb_tag(2, 2) + b"\x05ab") + S.pb_len(4, b"key"),
                                        "/scope/user"),
}


@pytest.mark.parametrize("case", list(WRONG_WIRE_PROTOBUF), ids=list(WRONG_WIRE_PROTOBUF))
def test_invalid_protobuf_wire_format(case: str) -> None:
    tail, pointer = WRONG_WIRE_PROTOBUF[case]
    expect("protobuf", mw_protobuf.encode(fact()) + tail, "INVALID_WIRE_FORMAT", pointer)


@pytest.mark.parametrize("version", ["1.0", "1.1"])
@pytest.mark.parametrize("number", [2**29, 2**32 - 1, 625561513201438])
def test_protobuf_field_number_beyond_the_greatest(version: str, number: int) -> None:
    # Found by fuzzing the length-delimited stream: read as an unknown field of
    # a newer minor version, such a document could not be written back.
    data = mw_protobuf.encode(fact()).replace(b"1.0", version.encode(), 1)
    expect("protobuf", data + S.pb_varint(number << 3) + b"\x01", "INVALID_WIRE_FORMAT")
    small = S.pb_varint((2**29 - 1) << 3) + b"\x01"  # the greatest is a field like any other
    if version == "1.0":
        expect("protobuf", data + small, "UNKNOWN_FIELD")
    else:
        assert decode("protobuf", data + small).unread == [f"/{2**29 - 1}"]


def test_protobuf_value_without_a_kind() -> None:
    entry = S.pb_len(27, S.pb_len(1, b"a") + S.pb_len(2, b""))
    expect("protobuf", mw_protobuf.encode(fact()) + entry, "VALUE_KIND_MISSING", "/metadata/a")
    listed = S.pb_len(27, S.pb_len(1, b"a") + S.pb_len(2, S.pb_len(6, S.pb_len(1, b"\x08\x00") + S.pb_len(1, b""))))
    expect("protobuf", mw_protobuf.encode(fact()) + listed, "VALUE_KIND_MISSING", "/metadata/a/1")


# An empty specversion is the default of the field, the same as none: a record
# that is read with one would be written without it, and not read back.
@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_empty_specversion_of_a_record_is_missing(encoding: str) -> None:
    doc = fact(specversion="")
    data = json.dumps(doc).encode() if encoding == "json" else msgpack.packb(doc)
    expect(encoding, data, "REQUIRED_FIELD_MISSING", "/specversion")
    with pytest.raises(ValidationError) as raised:
        memorywire.validate(doc)
    assert (raised.value.reason, raised.value.pointer) == ("REQUIRED_FIELD_MISSING", "/specversion")


@pytest.mark.parametrize("encoding", ["json", "msgpack"])
def test_empty_specversion_of_a_nested_record_is_absent(encoding: str) -> None:
    record = {k: v for k, v in fact().items() if k != "specversion"}
    request = {"specversion": "1.0", "operation_id": "op-1", "items": [{"record": {**record, "specversion": ""}}]}
    data = json.dumps(request).encode() if encoding == "json" else msgpack.packb(request)
    doc = decode(encoding, data, "memorywire.v1.PutRequest")
    written = MODULES[encoding].encode(doc, type="memorywire.v1.PutRequest")
    assert decode(encoding, written, "memorywire.v1.PutRequest")["items"][0]["record"] == record


# -- unknown enum values, versions -------------------------------------------------


@pytest.mark.parametrize("name", ["bogus", "User", "USER", "ROLE_USER", "unspecified"])
def test_unknown_enum_values(name: str) -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "message",
           "message": {"role": name, "content": [{"text": {"text": "x"}}]}}
    expect("json", json.dumps(doc).encode(), "UNKNOWN_ENUM_VALUE", "/message/role")
    expect("msgpack", msgpack.packb(doc), "UNKNOWN_ENUM_VALUE", "/message/role")
    history = {"specversion": "1.0", "operation_id": "o", "kinds": ["fact", name]}
    expect("json", json.dumps(history).encode(), "UNKNOWN_ENUM_VALUE", "/kinds/1", "memorywire.v1.HistoryRequest")


@pytest.mark.parametrize("number", [11, 99, 2**31 - 1])
def test_unknown_enum_numbers_in_protobuf(number: int) -> None:
    expect("protobuf", mw_protobuf.encode(fact()) + S.pb_tag(3, 0) + S.pb_varint(number), "UNKNOWN_ENUM_VALUE", "/kind")
    data = S.pb_len(1, b"1.0") + S.pb_len(2, b"o") + S.pb_len(6, b"\x04" + S.pb_varint(number))
    expect("protobuf", data, "UNKNOWN_ENUM_VALUE", "/kinds/1", "memorywire.v1.HistoryRequest")


# -- NaN and infinities ---------------------------------------------------------------

NON_FINITE = [float("nan"), float("inf"), float("-inf")]


@pytest.mark.parametrize("token", [b"NaN", b"Infinity", b"-Infinity", b"nan", b"inf", b"+1", b"01", b".5", b"5.",
                                   b"0x10", b"1e", b"-", b"'a'", b"tru", b"undefined"])
def test_non_json_number_tokens_are_syntax_errors(token: bytes) -> None:
    expect("json", HEAD.encode() + b',"metadata":{"a":' + token + b"}}", "SYNTAX_ERROR", "")


@pytest.mark.parametrize(("member", "pointer"), [
    (b'"metadata":{"a":1e400}', "/metadata/a"),
    (b'"metadata":{"a":[-2e308]}', "/metadata/a/0"),
    (b'"metadata":{"a":1e999999999}', "/metadata/a"),
    (b'"lifecycle":{"importance":1e400}', "/lifecycle/importance"),
    (b'"embeddings":[{"model":"m","dimensions":1,"values":[1e400]}]', "/embeddings/0/values/0"),
])
def test_json_number_overflowing_binary64_is_non_finite(member: bytes, pointer: str) -> None:
    expect("json", HEAD.encode() + b"," + member + b"}", "NON_FINITE_NUMBER", pointer)


# An overflowing number sends the reader to its exact parser; a fault after it
# is still a fault of well-formedness, of the whole document, with its offset.
@pytest.mark.parametrize(("tail", "reason", "offset"), [
    (b',"metadata":{"a":1E400,}}', "SYNTAX_ERROR", 87),
    (b',"metadata":{"a":1E400}} x', "TRAILING_DATA", 89),
    (b',"metadata":{"a":1E400,', "TRUNCATED", 87),
    (b',"metadata":{"a":1E400,"b":"x', "TRUNCATED", None),
    (b',"metadata":{"a":1E400,"b":"\\q"}}', "SYNTAX_ERROR", None),
    (b',"metadata":{"a":-1e999,"b":NaN}}', "SYNTAX_ERROR", None),
])
def test_json_syntax_fault_after_an_overflowing_number(tail: bytes, reason: str, offset: int | None) -> None:
    error = expect("json", HEAD.encode() + tail, reason, "")
    assert isinstance(error, DecodeError)
    if offset is not None:
        assert f"byte {offset}" in error.message, error.message


def test_json_minimal_overflow_then_syntax_fault() -> None:
    expect("json", b'{"a":1E400,}', "SYNTAX_ERROR", "")


def test_json_invalid_utf8_after_an_overflowing_number() -> None:
    expect("json", HEAD.encode() + b',"metadata":{"a":1e400,"b":"\xff"}}', "INVALID_UTF8", "/metadata/b")
    expect("json", HEAD.encode() + b',"metadata":{"a":' + b"9" * 5000 + b',"b":"\xff"}}', "INVALID_UTF8",
           "/metadata/b")


# Well-formedness (phase 1) comes before the value of a number (phase 3).
@pytest.mark.parametrize(("member", "pointer"), [
    (b'"metadata":{"a":1e400},"key":"\\ud800"', "/key"),
    (b'"metadata":{"a":-1e400,"b\\uDC00":1}', "/metadata"),
    (b'"metadata":{"a":' + b"7" * 400 + b',"b":["\\udbff"]}', "/metadata/b/0"),
])
def test_json_lone_surrogate_escape_after_an_overflowing_number(member: bytes, pointer: str) -> None:
    expect("json", HEAD.encode() + b"," + member + b"}", "INVALID_UNICODE", pointer)


def test_json_surrogate_pair_after_an_overflowing_number_is_one_character() -> None:
    expect("json", HEAD.encode() + b',"metadata":{"a":1e400},"tags":["\\ud83d\\ude00"]}', "NON_FINITE_NUMBER",
           "/metadata/a")


# Integer tokens of any length: beyond 19 digits always out of range, and
# never beyond the interpreter's limit on the digits of an integer's text.
@pytest.mark.parametrize(("member", "reason", "pointer"), [
    (b'"metadata":{"a":%s}', "NUMBER_OUT_OF_RANGE", "/metadata/a"),
    (b'"metadata":{"a":[0,-%s]}', "NUMBER_OUT_OF_RANGE", "/metadata/a/1"),
    (b'"native":{"framework":"f","record":{"z":{"y":%s}}}', "NUMBER_OUT_OF_RANGE", "/native/record/z/y"),
    (b'"sequence":%s', "NUMBER_OUT_OF_RANGE", "/sequence"),
    (b'"revision":-%s', "NUMBER_OUT_OF_RANGE", "/revision"),
    (b'"key":%s', "TYPE_MISMATCH", "/key"),
])
@pytest.mark.parametrize("digits", [20, 25, 400, 4301, 5000, 100_000])
def test_json_long_integer_tokens(member: bytes, reason: str, pointer: str, digits: int) -> None:
    token = b"1" + b"2" * (digits - 1)
    error = unhung(lambda: expect("json", HEAD.encode() + b"," + member % token + b"}", reason, pointer))
    assert len(error.message) < 200, error.message


def test_json_long_integer_token_message_names_its_size() -> None:
    error = expect("json", HEAD.encode() + b',"metadata":{"a":' + b"7" * 5000 + b"}}", "NUMBER_OUT_OF_RANGE")
    assert error.message == "an integer of more than 30 digits is outside the 64-bit signed range"
    error = expect("json", HEAD.encode() + b',"metadata":{"a":-' + b"7" * 31 + b"}}", "NUMBER_OUT_OF_RANGE")
    assert error.message == "a negative integer of more than 30 digits is outside the 64-bit signed range"
    error = expect("json", HEAD.encode() + b',"metadata":{"a":' + b"7" * 30 + b"}}", "NUMBER_OUT_OF_RANGE")
    assert error.message == "7" * 30 + " is outside the 64-bit signed range"


@pytest.mark.parametrize(("members", "reason", "pointer"), [
    ({"lifecycle": {"importance": 10**400}}, "NON_FINITE_NUMBER", "/lifecycle/importance"),
    ({"lifecycle": {"confidence": -(2**1024)}}, "NON_FINITE_NUMBER", "/lifecycle/confidence"),
    ({"embeddings": [{"model": "m", "dimensions": 2, "values": [0.5, 2**1100]}]}, "NUMBER_OUT_OF_RANGE",
     "/embeddings/0/values/1"),
])
def test_integers_beyond_binary64_in_float_fields_of_python_documents(members: dict[str, Any], reason: str,
                                                                        pointer: str) -> None:
    doc = fact(**members)
    with pytest.raises(ValidationError) as raised:
        memorywire.validate(doc)
    assert (raised.value.reason, raised.value.pointer) == (reason, pointer)
    for encoding in ENCODINGS:
        with pytest.raises(ValidationError):
            MODULES[encoding].encode(doc)


# In a float field an integer token is the binary64 value nearest to it.
@pytest.mark.parametrize(("digits", "reason"), [
    (25, "VALUE_OUT_OF_RANGE"), (309, "VALUE_OUT_OF_RANGE"), (310, "NON_FINITE_NUMBER"),
    (5000, "NON_FINITE_NUMBER"), (100_000, "NON_FINITE_NUMBER"),
])
def test_json_long_integer_tokens_in_a_float_field(digits: int, reason: str) -> None:
    token = b"1" * digits
    expect("json", HEAD.encode() + b',"lifecycle":{"importance":' + token + b"}}", reason, "/lifecycle/importance")


@pytest.mark.parametrize(("digits", "reason"), [
    (25, None), (35, None), (39, None), (40, "NUMBER_OUT_OF_RANGE"),
    (400, "NON_FINITE_NUMBER"), (5000, "NON_FINITE_NUMBER"),
])
def test_json_long_integer_tokens_in_a_float32_vector(digits: int, reason: str | None) -> None:
    token = b"3" * digits
    data = (HEAD.encode() + b',"embeddings":[{"model":"m","dimensions":2,"values":[-0,' + token + b"]}]}")
    if reason is None:
        values = mw_json.decode(data)["embeddings"][0]["values"]
        assert float(values[1]) == float(token)
        assert str(values[0]) == "-0.0"
    else:
        expect("json", data, reason, "/embeddings/0/values/1")


def test_json_long_integer_among_repeated_members_is_a_duplicate() -> None:
    data = HEAD.encode() + b',"metadata":{"a":' + b"9" * 5000 + b',"a":1}}'
    expect("json", data, "DUPLICATE_KEY", "/metadata/a")


@pytest.mark.parametrize("sign", [1, -1])
@pytest.mark.parametrize("exponent", [64, 200, 16_000])
def test_long_integers_in_python_documents(sign: int, exponent: int) -> None:
    doc = fact(metadata={"a": sign * 2**exponent})
    with pytest.raises(ValidationError) as raised:
        memorywire.validate(doc)
    assert (raised.value.reason, raised.value.pointer) == ("NUMBER_OUT_OF_RANGE", "/metadata/a")
    assert len(raised.value.message) < 200
    for encoding in ENCODINGS:
        with pytest.raises(ValidationError):
            MODULES[encoding].encode(doc)


def test_json_tiny_and_huge_exponents_parse_quickly() -> None:
    decoded = unhung(lambda: mw_json.decode(HEAD.encode() + b',"metadata":{"a":0e999999999,"b":1e-400}}'))
    assert decoded["metadata"]["a"] == 0.0


@pytest.mark.parametrize("value", NON_FINITE, ids=repr)
def test_non_finite_floats_in_msgpack(value: float) -> None:
    f64 = b"\xcb" + struct.pack(">d", value)
    f32 = b"\xca" + struct.pack(">f", value)
    for raw in (f64, f32):
        expect("msgpack", mp_with(fact(), "metadata", b"\x81\xa1a" + raw), "NON_FINITE_NUMBER", "/metadata/a")
        expect("msgpack", mp_with(fact(), "lifecycle", b"\x81\xaaimportance" + raw), "NON_FINITE_NUMBER",
               "/lifecycle/importance")
    vector = struct.pack("<3f", 1.0, value, 2.0)
    data = mp_with(fact(), "embeddings", b"\x91\x83\xa5model\xa1m\xaadimensions\x03\xa6values\xc4\x0c" + vector)
    expect("msgpack", data, "NON_FINITE_NUMBER", "/embeddings/0/values/1")


@pytest.mark.parametrize("value", NON_FINITE, ids=repr)
def test_non_finite_floats_in_protobuf(value: float) -> None:
    base = mw_protobuf.encode(fact())
    expect("protobuf", base + S.pb_len(23, S.pb_tag(2, 1) + struct.pack("<d", value)), "NON_FINITE_NUMBER",
           "/lifecycle/importance")
    entry = S.pb_len(1, b"a") + S.pb_len(2, S.pb_tag(4, 1) + struct.pack("<d", value))
    expect("protobuf", base + S.pb_len(27, entry), "NON_FINITE_NUMBER", "/metadata/a")
    head = S.pb_len(1, b"m") + S.pb_tag(2, 0) + b"\x02"
    packed = head + S.pb_len(3, struct.pack("<2f", 1.0, value))
    expect("protobuf", base + S.pb_len(25, packed), "NON_FINITE_NUMBER", "/embeddings/0/values/1")
    unpacked = head + S.pb_tag(3, 5) + struct.pack("<f", 1.0) + S.pb_tag(3, 5) + struct.pack("<f", value)
    expect("protobuf", base + S.pb_len(25, unpacked), "NON_FINITE_NUMBER", "/embeddings/0/values/1")


@pytest.mark.parametrize("value", NON_FINITE, ids=repr)
def test_non_finite_floats_in_python_documents(value: float) -> None:
    for doc, pointer in ((fact(metadata={"a": value}), "/metadata/a"),
                         (fact(lifecycle={"importance": value}), "/lifecycle/importance"),
                         (fact(embeddings=[{"model": "m", "dimensions": 1, "values": [value]}]),
                          "/embeddings/0/values/0")):
        with pytest.raises(ValidationError) as info:
            memorywire.validate(doc)
        assert info.value.reason == "NON_FINITE_NUMBER" and info.value.pointer == pointer
        for encoding in ENCODINGS:
            with pytest.raises(MemorywireError):
                MODULES[encoding].encode(doc)


# -- other malformed input of each encoding ----------------------------------------------


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "TRUNCATED"), (b"   \n", "TRUNCATED"), (b"{", "TRUNCATED"),
    (HEAD.encode() + b"} x", "TRAILING_DATA"), (HEAD.encode() + b"}{}", "TRAILING_DATA"),
    (HEAD.encode() + b"}\x00", "TRAILING_DATA"),
    (b"\xef\xbb\xbf" + HEAD.encode() + b"}", "SYNTAX_ERROR"),
    (HEAD.encode() + b",}", "SYNTAX_ERROR"), (HEAD.encode() + b"/* c */}", "SYNTAX_ERROR"),
    (HEAD.encode()[:-1] + b",'key':'v'}}", "SYNTAX_ERROR"),
    (HEAD.encode() + b',"key":"a\x01b"}', "SYNTAX_ERROR"),
    (HEAD.encode() + b',"key":"\\x41"}', "SYNTAX_ERROR"),
    (HEAD.encode() + b',"key":"\\u00G1"}', "SYNTAX_ERROR"),
])
def test_malformed_json(data: bytes, reason: str) -> None:
    expect("json", data, reason, "")


@pytest.mark.parametrize(("data", "reasons"), [
    (b"", {"TRUNCATED"}),
    (msgpack.packb(fact()) + b"\x00", {"TRAILING_DATA"}),
    (msgpack.packb(fact()) * 2, {"TRAILING_DATA"}),
    (b"\xc1", {"INVALID_WIRE_FORMAT"}),
    (mp_with(fact(), "key", b"\xc1"), {"INVALID_WIRE_FORMAT"}),
    # a declared length beyond the input and beyond a limit: either fault may be named
    (mp_with(fact(), "key", b"\xdb\x7f\xff\xff\xff" + b"x"), {"TRUNCATED", "STRING_TOO_LONG"}),
    (mp_with(fact(), "tags", b"\xdd\x7f\xff\xff\xff"), {"TRUNCATED", "TOO_MANY_ITEMS"}),
    (mp_with(fact(), "metadata", b"\xdf\x7f\xff\xff\xff"), {"TRUNCATED", "TOO_MANY_ITEMS"}),
    (mp_with(fact(), "created_at", b"\xc7\x05\xff" + bytes(5)), {"INVALID_TIMESTAMP"}),
    (mp_with(fact(), "created_at", b"\xd5\xff" + bytes(2)), {"INVALID_TIMESTAMP"}),
    (mp_with(fact(), "created_at", b"\xd7\xff" + struct.pack(">Q", 1_000_000_000 << 34)), {"INVALID_TIMESTAMP"}),
    (mp_with(fact(), "created_at", b"\xc7\x0c\xff" + struct.pack(">Iq", 1_000_000_000, 0)), {"INVALID_TIMESTAMP"}),
    (mp_with(fact(), "created_at", b"\xc7\x0c\xff" + struct.pack(">Iq", 0, 253402300800)), {"INVALID_TIMESTAMP"}),
    (mp_with(fact(), "created_at", b"\xc7\x0c\xff" + struct.pack(">Iq", 0, -62135596801)), {"INVALID_TIMESTAMP"}),
    (mp_with(fact(), "embeddings", b"\x91\x83\xa5model\xa1m\xaadimensions\x01\xa6values\xc4\x05" + bytes(5)),
     {"INVALID_VECTOR"}),
])
def test_malformed_msgpack(data: bytes, reasons: set[str]) -> None:
    error = unhung(lambda: typed_error("msgpack", data))
    assert error.reason in reasons, str(error)


@pytest.mark.parametrize(("tail", "reason", "pointer"), [
    (S.pb_tag(4, 2) + S.pb_varint(2**31), "TRUNCATED", ""),
    (S.pb_tag(4, 2) + S.pb_varint(2**62), "TRUNCATED", ""),
    (S.pb_tag(6, 0) + b"\xff", "TRUNCATED", ""),
    (S.pb_tag(8, 2), "TRUNCATED", ""),
    (b"\xff", "TRUNCATED", ""),
    (S.pb_len(8, S.pb_tag(2, 0) + S.pb_varint(1_000_000_000)), "INVALID_TIMESTAMP", "/created_at"),
    (S.pb_len(8, S.pb_tag(2, 0) + S.pb_varint(-1)), "INVALID_TIMESTAMP", "/created_at"),
    (S.pb_len(8, S.pb_tag(1, 0) + S.pb_varint(253402300800)), "INVALID_TIMESTAMP", "/created_at"),
    (S.pb_len(8, S.pb_tag(1, 0) + S.pb_varint(-62135596801)), "INVALID_TIMESTAMP", "/created_at"),
    (S.pb_tag(6, 0) + S.pb_varint(2**53), "NUMBER_OUT_OF_RANGE", "/sequence"),
])
def test_malformed_protobuf(tail: bytes, reason: str, pointer: str) -> None:
    unhung(lambda: expect("protobuf", mw_protobuf.encode(fact()) + tail, reason, pointer))


# -- limits ---------------------------------------------------------------------------

SMALL = Limits(max_document_bytes=4096, max_depth=8, max_string_bytes=32, max_items=5)

OVER_LIMIT = {
    "string": (fact(key="k" * 33), "STRING_TOO_LONG", "/key"),
    "multibyte string": (fact(key="é" * 17), "STRING_TOO_LONG", "/key"),
    "string in a value": (fact(metadata={"a": ["x" * 33]}), "STRING_TOO_LONG", "/metadata/a/0"),
    "array": (fact(tags=list("abcdef")), "TOO_MANY_ITEMS", "/tags"),
    "map": (fact(metadata={c: 1 for c in "abcdef"}), "TOO_MANY_ITEMS", "/metadata"),
    "list in a value": (fact(metadata={"a": [1, 2, 3, 4, 5, 6]}), "TOO_MANY_ITEMS", "/metadata/a"),
    "object in a value": (fact(native={"framework": "f", "record": {c: 1 for c in "abcdef"}}), "TOO_MANY_ITEMS",
                          "/native/record"),
    "depth": (fact(metadata={"a": [[[[[[[[1]]]]]]]]}), "NESTING_TOO_DEEP", None),
    "document": (fact(fact={"text": "y" * 30}, tags=["z" * 30] * 5, metadata={"m": ["w" * 30] * 5},
                      extensions={"a.b": ["v" * 30] * 5, "a.c": ["v" * 30] * 5, "a.d": ["v" * 30] * 5,
                                  "a.e": ["v" * 30] * 5, "a.f": ["v" * 30] * 5}) | {"key": "q" * 30},
                 "DOCUMENT_TOO_LARGE", ""),
}


def _over_limit_input(encoding: str, doc: dict[str, Any]) -> bytes:
    return MODULES[encoding].encode(doc)


def _limit_case(encoding: str, case: str) -> MemorywireError:
    doc, _, _ = OVER_LIMIT[case]
    limits = SMALL if case != "document" else Limits(max_document_bytes=300)
    data = _over_limit_input(encoding, doc)
    if case == "document":
        assert len(data) > 300
    return typed_error(encoding, data, limits=limits)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("case", list(OVER_LIMIT), ids=list(OVER_LIMIT))
def test_limits_give_their_reason_and_resource_exhausted(encoding: str, case: str) -> None:
    reason = OVER_LIMIT[case][1]
    error = _limit_case(encoding, case)
    assert (error.reason, error.code) == (reason, "RESOURCE_EXHAUSTED"), str(error)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_limit_errors_are_limit_error_instances(encoding: str) -> None:
    """python-api.md: LimitError, a DecodeError subclass, when a limit is exceeded."""
    wrong = {case: type(_limit_case(encoding, case)).__name__ for case in OVER_LIMIT}
    wrong = {case: name for case, name in wrong.items() if name != "LimitError"}
    assert not wrong, f"not LimitError: {wrong}"


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_limit_errors_point_at_the_member(encoding: str) -> None:
    """security.md §4: the string's member; the array or map; none for the document."""
    wrong = {}
    for case, (_, reason, pointer) in OVER_LIMIT.items():
        if pointer is None:
            continue
        error = _limit_case(encoding, case)
        if (error.reason, error.pointer) != (reason, pointer):
            wrong[case] = (error.reason, error.pointer, "expected", pointer)
    assert not wrong, wrong


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_limits_are_inclusive(encoding: str) -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact", "fact": {"text": "k" * 32},
           "metadata": {"a": [[[[[1, 2, 3, 4, 5]]]]], "b": 1, "c": 2, "d": 3, "e": 4}}
    limits = Limits(max_string_bytes=32, max_items=5, max_depth=8)
    assert decode(encoding, MODULES[encoding].encode(doc), limits=limits) == doc


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_max_items_counts_the_members_of_message_objects(encoding: str) -> None:
    """security.md §4: the entries of one object or map, at every depth."""
    doc = fact(key="k", tags=["t"], sequence=1)  # seven members
    error = typed_error(encoding, MODULES[encoding].encode(doc), limits=Limits(max_items=5))
    assert (error.reason, error.pointer) == ("TOO_MANY_ITEMS", ""), str(error)


@pytest.mark.parametrize("encoding", ["json", "msgpack"])  # Protobuf has no member names on the wire
def test_max_string_bytes_counts_member_names(encoding: str) -> None:
    """security.md §4: a string value, an element of a list of strings, a member name or map key."""
    error = typed_error(encoding, MODULES[encoding].encode(fact()), limits=Limits(max_string_bytes=10))
    assert (error.reason, error.pointer) == ("STRING_TOO_LONG", "/specversion"), str(error)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_max_batch_records(encoding: str) -> None:
    item = {"record": {"id": "r", "kind": "fact", "fact": {"text": "x"}}}
    doc = {"specversion": "1.0", "operation_id": "o", "items": [item, item, item]}
    data = MODULES[encoding].encode(doc, type="memorywire.v1.PutRequest")
    error = typed_error(encoding, data, "memorywire.v1.PutRequest", Limits(max_batch_records=2))
    assert (error.reason, error.pointer, error.code) == ("TOO_MANY_ITEMS", "/items", "RESOURCE_EXHAUSTED")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_bytes_fields_are_not_string_limited(encoding: str) -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact",
           "encrypted": {"algorithm": "A256GCM", "ciphertext": base64.b64encode(bytes(300)).decode()}}
    decode(encoding, MODULES[encoding].encode(doc), limits=Limits(max_string_bytes=32))


def test_max_dimensions() -> None:
    doc = fact(embeddings=[{"model": "m", "dimensions": 4, "values": [1.0, 2.0, 3.0, 4.0]}])
    for encoding in ENCODINGS:
        error = typed_error(encoding, MODULES[encoding].encode(doc), limits=Limits(max_dimensions=3))
        assert error.reason == "TOO_MANY_ITEMS", encoding


# -- nesting bombs ---------------------------------------------------------------------

DEPTH = 10_000


def _json_bomb(opening: bytes, closing: bytes, leaf: bytes = b"1", extra: bytes = b"") -> bytes:
    return HEAD.encode() + extra + b',"metadata":{"a":' + opening * DEPTH + leaf + closing * DEPTH + b"}}"


def _msgpack_bomb(opening: bytes, leaf: bytes = b"\x01") -> bytes:
    return mp_with(fact(), "metadata", b"\x81\xa1a" + opening * DEPTH + leaf)


def _protobuf_bomb(kind: str) -> bytes:
    value = b"\x08\x00"  # null
    for _ in range(DEPTH):
        if kind == "list":
            value = S.pb_len(6, S.pb_len(1, value))
        else:
            value = S.pb_len(7, S.pb_len(1, S.pb_len(1, b"k") + S.pb_len(2, value)))
    return mw_protobuf.encode(fact()) + S.pb_len(27, S.pb_len(1, b"a") + S.pb_len(2, value))


def _filter_bomb_json() -> bytes:
    inner = b'{"compare":{"field":"/id","operator":"exists"}}'
    return (b'{"specversion":"1.0","operation_id":"o","filter":' + b'{"not":' * DEPTH + inner + b"}" * DEPTH + b"}")


def _filter_bomb_protobuf() -> bytes:
    value = S.pb_len(4, S.pb_len(1, b"/id") + S.pb_tag(2, 0) + b"\x08")
    for _ in range(DEPTH):
        value = S.pb_len(3, value)
    return S.pb_len(1, b"1.0") + S.pb_len(2, b"o") + S.pb_len(4, value)


BOMBS = {
    "json arrays": ("json", lambda: _json_bomb(b"[", b"]"), RECORD),
    "json objects": ("json", lambda: _json_bomb(b'{"a":', b"}"), RECORD),
    "json arrays with a long integer": (
        "json", lambda: _json_bomb(b"[", b"]", extra=b',"sequence":12345678901234567890'), RECORD),
    "json arrays with an escaped backslash": ("json", lambda: _json_bomb(b"[", b"]", extra=b',"key":"\\\\"'), RECORD),
    "json arrays with -0": ("json", lambda: _json_bomb(b"[", b"]", leaf=b"-0"), RECORD),
    "json unclosed arrays": ("json", lambda: HEAD.encode() + b',"metadata":{"a":' + b"[" * DEPTH, RECORD),
    "msgpack arrays": ("msgpack", lambda: _msgpack_bomb(b"\x91"), RECORD),
    "msgpack maps": ("msgpack", lambda: _msgpack_bomb(b"\x81\xa1a"), RECORD),
    "msgpack unclosed arrays": ("msgpack", lambda: _msgpack_bomb(b"\x92", b""), RECORD),
    "protobuf lists": ("protobuf", lambda: _protobuf_bomb("list"), RECORD),
    "protobuf maps": ("protobuf", lambda: _protobuf_bomb("map"), RECORD),
    "json filters": ("json", _filter_bomb_json, "memorywire.v1.SearchRequest"),
    "protobuf filters": ("protobuf", _filter_bomb_protobuf, "memorywire.v1.SearchRequest"),
}


@pytest.mark.parametrize("case", list(BOMBS), ids=list(BOMBS))
def test_nesting_bombs_are_refused_quickly(case: str) -> None:
    encoding, build, type_name = BOMBS[case]
    data = build()
    error = unhung(lambda: typed_error(encoding, data, type_name))
    if "unclosed" in case:
        assert error.reason in ("NESTING_TOO_DEEP", "TRUNCATED"), str(error)
    else:
        assert error.reason == "NESTING_TOO_DEEP", str(error)


@pytest.mark.parametrize("case", [c for c in BOMBS if "unclosed" not in c])
def test_nesting_bombs_with_a_generous_depth_limit_give_typed_errors(case: str) -> None:
    encoding, build, type_name = BOMBS[case]
    data = build()

    def attempt() -> None:
        try:
            decode(encoding, data, type_name, Limits(max_depth=100_000))
        except MemorywireError:
            pass

    unhung(attempt, 5 * HANG_GUARD_SECONDS)


JSON_VARIANTS = {
    "plain": (b"", b"1"),
    "escaped backslash": (b',"key":"\\\\"', b"1"),
    "minus zero": (b"", b"-0"),
    "integer beyond 64 bits": (b"", b"123456789012345678901234567890"),
    "objects": (b"", b"1"),
}


DEPTHS = [65, 100, 500, 999, 1000, 1023, 1500, 3000]


def _nesting_outcomes(build: Any, encoding: str) -> dict[int, str]:
    """The depths at which decoding does not give NESTING_TOO_DEEP, with what it gave."""
    wrong = {}
    for depth in DEPTHS:
        data = build(depth)

        def outcome_of(data: bytes = data) -> str:
            try:
                decode(encoding, data)
                return "accepted"
            except MemorywireError as e:
                return e.reason
            except Exception as e:  # noqa: BLE001 - the point is to report it
                return f"{type(e).__name__}: {str(e)[:80]}"

        outcome = unhung(outcome_of)
        if outcome != "NESTING_TOO_DEEP":
            wrong[depth] = outcome
    return wrong


@pytest.mark.parametrize("variant", list(JSON_VARIANTS))
def test_json_nesting_just_past_the_limit_and_beyond(variant: str) -> None:
    extra, leaf = JSON_VARIANTS[variant]
    opening, closing = (b'{"a":', b"}") if variant == "objects" else (b"[", b"]")

    def build(depth: int) -> bytes:
        return HEAD.encode() + extra + b',"metadata":{"a":' + opening * depth + leaf + closing * depth + b"}}"

    assert not _nesting_outcomes(build, "json")


@pytest.mark.parametrize("encoding", ["msgpack", "protobuf"])
def test_nesting_just_past_the_limit_and_beyond(encoding: str) -> None:
    assert not _nesting_outcomes(lambda depth: _nested(encoding, depth), encoding)


def _nested(encoding: str, depth: int) -> bytes:
    if encoding == "msgpack":
        return _msgpack_bomb_of(depth)
    inner = b"\x18\x02"
    for _ in range(depth):
        inner = S.pb_len(6, S.pb_len(1, inner))
    return mw_protobuf.encode(fact()) + S.pb_len(27, S.pb_len(1, b"a") + S.pb_len(2, inner))


def _msgpack_bomb_of(depth: int) -> bytes:
    return mp_with(fact(), "metadata", b"\x81\xa1a" + b"\x91" * depth + b"\x01")


def test_depth_32_is_allowed_and_33_is_not() -> None:
    # the top-level object is depth 1; metadata 2; the value of "a" 3 ...
    def doc_at(levels: int) -> dict[str, Any]:
        value: Any = 1
        for _ in range(levels):
            value = [value]
        return fact(metadata={"a": value})

    for encoding in ENCODINGS:
        ok = MODULES[encoding].encode(doc_at(30))
        decode(encoding, ok)
        with pytest.raises(MemorywireError) as info:
            MODULES[encoding].encode(doc_at(31))
        assert info.value.reason == "NESTING_TOO_DEEP"


# -- duplicate keys anywhere in generated documents -------------------------------------

DUPLICATE_TYPES = ["memorywire.v1.MemoryRecord", "memorywire.v1.PutRequest", "memorywire.v1.SearchRequest",
                   "memorywire.v1.GetResponse", "memorywire.v1.Error", "memorywire.v1.UpdateRequest"]


def _objects(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    out = []
    if isinstance(node, dict):
        if node:
            out.append((path, node))
        for k, v in node.items():
            out.extend(_objects(v, path + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            out.extend(_objects(v, path + (i,)))
    return out


def _dump(node: Any, path: tuple[Any, ...], target: tuple[Any, ...], extra: tuple[int, str, Any], colon: str) -> str:
    if isinstance(node, dict):
        items = [(k, v) for k, v in node.items()]
        if path == target:
            position, key, value = extra
            items.insert(position, (key, value))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + colon + _dump(v, path + (k,), target, extra, colon)
                              for k, v in items) + "}"
    if isinstance(node, list):
        return "[" + ",".join(_dump(v, path + (i,), target, extra, colon) for i, v in enumerate(node)) + "]"
    return json.dumps(node, ensure_ascii=False)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(type_name=st.sampled_from(DUPLICATE_TYPES), data=st.data())
def test_a_duplicate_member_anywhere_in_a_generated_document_is_found(type_name: str, data: st.DataObject) -> None:
    doc = data.draw(S.documents(type_name), label="document")
    if validation_errors(doc, type_name):
        return
    objects = _objects(doc)
    path, node = objects[data.draw(st.integers(0, len(objects) - 1), label="object")]
    key = data.draw(st.sampled_from(sorted(node)), label="key")
    value = data.draw(st.sampled_from([node[key], 0, "dup", None, {"k": [1]}]), label="value")
    position = data.draw(st.integers(0, len(node)), label="position")
    colon = data.draw(st.sampled_from([":", " :", ": ", "\t:\n", "\r\n :"]), label="colon")
    text = _dump(doc, (), path, (position, key, value), colon)
    note(text)
    expect("json", text.encode(), "DUPLICATE_KEY", S.pointer(path + (key,)), type_name)


def validation_errors(doc: Any, type_name: str) -> list[Any]:
    from memorywire import validation

    return validation.check(doc, type_name)[0]


# -- depth is that of the JSON form in every encoding ----------------------------------


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_depth_counts_the_array_of_a_float32_vector(encoding: str) -> None:
    """security.md §4: the bin of a float32 vector (an array in JSON) adds a level."""
    doc = fact(embeddings=[{"model": "m", "dimensions": 1, "values": [1.0]}])  # values at depth 4
    data = MODULES[encoding].encode(doc)
    decode(encoding, data, limits=Limits(max_depth=4))
    expect(encoding, data, "NESTING_TOO_DEEP", "/embeddings/0/values", limits=Limits(max_depth=3))


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_depth_does_not_count_timestamps_bytes_or_map_entries(encoding: str) -> None:
    doc = {"specversion": "1.0", "id": "r1", "kind": "fact", "created_at": "2024-01-01T00:00:00Z",
           "encrypted": {"algorithm": "A", "ciphertext": "AAAA"}, "metadata": {"a": 1, "b": "s"}}
    assert decode(encoding, MODULES[encoding].encode(doc), limits=Limits(max_depth=2)) == doc


def test_protobuf_vectors_are_read_with_their_binary32_bytes() -> None:
    """A float32 vector read from Protobuf, packed or not, holds the values of
    its bytes and keeps the bytes, which writers and the service reuse."""
    values = [1.5, -0.0, 3.0e-39, -2.0]  # a negative zero and a binary32 subnormal
    raw = struct.pack("<4f", *values)
    base = mw_protobuf.encode(fact())
    head = S.pb_len(1, b"m") + S.pb_tag(2, 0) + b"\x04"
    unpacked = b"".join(S.pb_tag(3, 5) + raw[i:i + 4] for i in range(0, 16, 4))
    for embedding in (head + S.pb_len(3, raw), head + unpacked):
        read = mw_protobuf.decode(base + S.pb_len(25, embedding))["embeddings"][0]["values"]
        assert read.raw == raw
        assert [struct.pack("<f", x) for x in read] == [raw[i:i + 4] for i in range(0, 16, 4)]
        assert all(type(x) is float for x in read)
        assert mw_protobuf.encode(mw_protobuf.decode(base + S.pb_len(25, embedding))).endswith(S.pb_len(3, raw))
