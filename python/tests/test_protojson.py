"""ProtoJSON (memorywire.protojson): exact both ways, agreeing with the stock
json_format of Protocol Buffers, and a typed error for every bad input."""

from __future__ import annotations

import io
import json
import math
import pathlib
from typing import Any

import pytest
from google.protobuf import json_format
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire import _model, cli
from memorywire import json as mjson
from memorywire import msgpack as mmsgpack
from memorywire import protobuf as mprotobuf
from memorywire import protojson as mprotojson
from memorywire.convert import convert
from memorywire.errors import DecodeError, LimitError, MemorywireError, UnrepresentableError
from memorywire.limits import DEFAULT_LIMITS, Limits

ROOT = pathlib.Path(__file__).resolve().parents[2]
CODECS: dict[str, Any] = {"json": mjson, "msgpack": mmsgpack, "protobuf": mprotobuf}


def example_type(path: pathlib.Path) -> str:
    if path.parent.name == "records":
        return "memorywire.v1.MemoryRecord"
    if path.stem.startswith("error"):
        return "memorywire.v1.Error"
    return "memorywire.v1." + "".join(p.capitalize() for p in path.stem.split("-"))


def examples() -> list[tuple[str, str, bytes]]:
    """(id, type, JSON bytes) of every example document."""
    return [(f"{p.parent.name}/{p.name}", example_type(p), p.read_bytes())
            for p in sorted((ROOT / "examples" / "v1").glob("*/*.json"))]


def vector_documents() -> list[tuple[str, str, str, bytes]]:
    """(id, type, encoding, bytes) of every input of every valid vector."""
    out = []
    for path in sorted((ROOT / "conformance" / "vectors" / "v1").glob("*.json")):
        area = json.loads(path.read_text())
        for case in area.get("cases", []):
            if not case["expected"].get("valid"):
                continue
            for enc, given_ in case["inputs"].items():
                data = given_["text"].encode() if "text" in given_ else bytes.fromhex(given_["hex"])
                out.append((f"{path.stem}.{case['name']}.{enc}", case["type"], enc, data))
    return out


EXAMPLES = examples()
VECTORS = vector_documents()


def canonical_json(doc: Any, type_name: str) -> bytes:
    """The canonical memorywire JSON of a document: 1, 1.0 and true, 0.0 and
    -0.0 are spelled apart, so equal bytes are the same document type for type."""
    return mjson.encode(doc, type=type_name)


# -- exact both ways --------------------------------------------------------------


@pytest.mark.parametrize(("name", "type_name", "data"), EXAMPLES, ids=[e[0] for e in EXAMPLES])
def test_every_example_goes_to_protojson_and_back_identical(name: str, type_name: str, data: bytes) -> None:
    doc = mjson.decode(data, type=type_name)
    text = mprotojson.encode(doc, type=type_name)
    back = mprotojson.decode(text, type=type_name)
    assert canonical_json(back, type_name) == canonical_json(doc, type_name)
    # What the protobuf codec reads from the same document is what ProtoJSON gives.
    assert canonical_json(back, type_name) == canonical_json(
        mprotobuf.decode(mprotobuf.encode(doc, type=type_name), type=type_name), type_name)


@pytest.mark.parametrize(("name", "type_name", "enc", "data"), VECTORS, ids=[v[0] for v in VECTORS])
def test_every_valid_vector_goes_to_protojson_and_back_identical(
        name: str, type_name: str, enc: str, data: bytes) -> None:
    doc, walk = CODECS[enc]._codecs.decoder(type_name).decode_walk(data)
    if walk.unknown or getattr(doc, "unread", None) or walk.parsed is not None:
        # Content of a newer minor version: refused as by every other target.
        with pytest.raises(UnrepresentableError) as info:
            convert(data, source=enc, target="protojson", type=type_name)
        assert info.value.reason == "UNREPRESENTABLE"
        return
    text = convert(data, source=enc, target="protojson", type=type_name)
    assert convert(text, source="protojson", target="json", type=type_name) \
        == canonical_json(doc, type_name)
    # Written again, the same bytes: the ProtoJSON output is canonical.
    assert convert(text, source="protojson", target="protojson", type=type_name) == text


@pytest.mark.parametrize(("name", "type_name", "data"), EXAMPLES[:8], ids=[e[0] for e in EXAMPLES[:8]])
def test_the_command_converts_examples_both_ways(name: str, type_name: str, data: bytes,
                                                  tmp_path: pathlib.Path) -> None:
    source = tmp_path / "doc.json"
    source.write_bytes(data)
    out = tmp_path / "doc.protojson"
    assert run("convert", source, "--type", type_name, "--to", "protojson", "-o", out)[0] == 0
    status, back, err = run("convert", out, "--type", type_name, "--from", "protojson", "--to", "json")
    assert (status, err) == (0, "")
    assert back == canonical_json(mjson.decode(data, type=type_name), type_name)


# -- the stock json_format of Protocol Buffers as the oracle -------------------------


def _stock_cases() -> list[tuple[str, str, bytes]]:
    out = [(n, t, d) for n, t, d in EXAMPLES]
    out += [(n, t, d) for n, t, enc, d in VECTORS if enc == "json"]
    return out


STOCK = _stock_cases()


@pytest.mark.parametrize(("name", "type_name", "data"), STOCK, ids=[s[0] for s in STOCK])
def test_stock_json_format_reads_and_writes_the_same_protojson(name: str, type_name: str,
                                                                data: bytes) -> None:
    doc, walk = mjson._codecs.decoder(type_name).decode_walk(data)
    if walk.unknown:
        return  # refused, as tested above
    pb = mprotobuf.encode(doc, type=type_name)
    cls = _model.message(type_name).cls
    ours = mprotojson.encode(doc, type=type_name)
    # json_format reads our ProtoJSON into the canonical Protobuf bytes.
    parsed = json_format.Parse(ours, cls(), max_recursion_depth=4 * Limits().max_depth)
    assert parsed.SerializeToString(deterministic=True) == pb
    try:
        message = cls.FromString(pb)
    except Exception:
        # Deeper than upb's default recursion limit: json_format cannot write it.
        assert name.startswith("Limits.")
        return
    # Its output, in either naming, reads back as the same document; its
    # members come in the same order as ours.
    stock = json_format.MessageToJson(message, indent=None)
    assert list(json.loads(stock)) == list(json.loads(ours))
    for text in (stock, json_format.MessageToJson(message, preserving_proto_field_name=True)):
        assert canonical_json(mprotojson.decode(text, type=type_name), type_name) \
            == canonical_json(doc, type_name)


# -- type for type ----------------------------------------------------------------------


def record(**extra: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "id": "r-1", "kind": "fact", "fact": {"text": "t"}, **extra}


def test_values_keep_their_kinds() -> None:
    metadata = {"i": 1, "f": 1.0, "t": True, "z": -0.0, "p": 0.0, "n": None, "s": "1", "e": "",
                "max": 2**63 - 1, "min": -(2**63), "l": [1, 1.0, [], {}], "m": {"": {"a": False}}}
    text = mprotojson.encode(record(metadata=metadata))
    entries = {e.get("key", ""): e["value"] for e in json.loads(text)["metadata"]}
    assert entries["i"] == {"integerValue": "1"}
    assert entries["f"] == {"floatValue": 1.0}
    assert entries["t"] == {"boolValue": True}
    assert entries["n"] == {"nullValue": "NULL_VALUE"}
    assert entries["max"] == {"integerValue": "9223372036854775807"}
    assert entries["min"] == {"integerValue": "-9223372036854775808"}
    assert entries["l"] == {"listValue": {"values": [{"integerValue": "1"}, {"floatValue": 1.0},
                                                    {"listValue": {}}, {"mapValue": {}}]}}
    assert entries["m"] == {"mapValue": {"entries": [
        {"value": {"mapValue": {"entries": [{"key": "a", "value": {"boolValue": False}}]}}}]}}
    # The null Value as json_format writes it reads too.
    assert mprotojson.decode(text.replace(b'"NULL_VALUE"', b"null"))["metadata"]["n"] is None
    assert b'"floatValue":-0.0' in text and b'"floatValue":0.0' in text
    back = mprotojson.decode(text)["metadata"]
    for key, value in metadata.items():
        assert type(back[key]) is type(value) and back[key] == value, key
    assert math.copysign(1.0, back["z"]) == -1.0 and math.copysign(1.0, back["p"]) == 1.0
    assert [type(x) for x in back["l"]] == [int, float, list, dict]


def test_the_spellings_protojson_allows_are_read() -> None:
    # Proto names, numbers as strings, enum numbers, offsets, URL-safe base64.
    text = json.dumps({
        "specversion": "1.0", "id": "r-1", "kind": 4, "fact": {"text": "t"},
        "created_at": "2026-03-09T15:08:15.5+01:00", "updatedAt": "2026-03-09t14:08:15z",
        "sequence": "7", "revision": 2.0,
        "metadata": [{"key": "i", "value": {"integer_value": 5}},
                     {"key": "f", "value": {"floatValue": "2.5"}},
                     {"key": "x", "value": {"floatValue": "MINUS_ZERO"}}],
        "embeddings": [{"model": "m", "dimensions": "2", "values": ["0.5", 1]}],
    }).replace('"MINUS_ZERO"', "-0")
    doc = mprotojson.decode(text)
    assert doc["kind"] == "fact"
    assert doc["created_at"] == "2026-03-09T14:08:15.500Z"
    assert doc["updated_at"] == "2026-03-09T14:08:15Z"
    assert (doc["sequence"], doc["revision"]) == (7, 2) and type(doc["revision"]) is int
    assert doc["metadata"]["i"] == 5 and type(doc["metadata"]["i"]) is int
    assert doc["metadata"]["f"] == 2.5
    assert math.copysign(1.0, doc["metadata"]["x"]) == -1.0
    assert doc["embeddings"][0]["values"] == [0.5, 1.0]


def test_bytes_are_base64_and_float32_values_shortest() -> None:
    doc = mprotojson.decode(json.dumps({
        "specversion": "1.0", "id": "r-1", "kind": "RECORD_KIND_FACT", "fact": {"text": "t"},
        "embeddings": [{"model": "m", "dimensions": 2, "values": [0.1, 3.4028235e38]}]}))
    text = mprotojson.encode(doc)
    # The shortest spelling of a binary32, but not one above its greatest
    # value, which json_format refuses as too large.
    assert b'"values":[0.1,3.4028234663852886e+38]' in text


def test_bytes_are_standard_base64_and_url_safe_base64_reads() -> None:
    src = ROOT / "examples" / "v1" / "records" / "fact-encrypted.json"
    doc = mjson.decode(src.read_bytes())
    doc["encrypted"]["ciphertext"] = "+/8+AA=="  # bytes fb ff 3e 00
    tree = json.loads(mprotojson.encode(doc))
    assert tree["encrypted"]["ciphertext"] == "+/8+AA=="
    tree["encrypted"]["ciphertext"] = "-_8-AA"
    assert mprotojson.decode(json.dumps(tree))["encrypted"]["ciphertext"] == "+/8+AA=="


# -- typed errors, with the pointer of the ProtoJSON input ---------------------------------

R = '"specversion":"1.0","id":"r-1","kind":"RECORD_KIND_FACT","fact":{"text":"t"}'
PUT = "PutRequest"

BAD: list[tuple[str, str, str, str, str]] = [
    # (id, type, ProtoJSON, reason, pointer)
    ("empty", "MemoryRecord", "", "TRUNCATED", ""),
    ("syntax", "MemoryRecord", "{" + R + ",}", "SYNTAX_ERROR", ""),
    ("overflow then syntax", "MemoryRecord", '{"a":1E400,}', "SYNTAX_ERROR", ""),
    ("duplicate then syntax", "MemoryRecord", '{"o":{"a":1,"a":2},"x":1E400,}', "SYNTAX_ERROR", ""),
    ("duplicate beside 5000 digits", "MemoryRecord", '{"a":1,"a":2,"b":' + "9" * 5000 + "}",
     "DUPLICATE_KEY", "/a"),
    ("not an object", "MemoryRecord", "[]", "TYPE_MISMATCH", ""),
    ("duplicate member", "MemoryRecord", "{" + R + ',"id":"x"}', "DUPLICATE_KEY", "/id"),
    ("both names", "MemoryRecord", "{" + R + ',"createdAt":"2026-01-01T00:00:00Z",'
     '"created_at":"2026-01-01T00:00:00Z"}', "DUPLICATE_KEY", "/created_at"),
    ("unknown member", "MemoryRecord", "{" + R + ',"colour":1}', "UNKNOWN_FIELD", "/colour"),
    ("memorywire enum name", "MemoryRecord", '{"specversion":"1.0","id":"r","kind":"fact"}',
     "UNKNOWN_ENUM_VALUE", "/kind"),
    ("unknown enum number", "MemoryRecord", '{"specversion":"1.0","id":"r","kind":99}',
     "UNKNOWN_ENUM_VALUE", "/kind"),
    ("string for a string", "MemoryRecord", '{"specversion":"1.0","id":7}', "TYPE_MISMATCH", "/id"),
    ("fraction in an integer", "MemoryRecord", "{" + R + ',"sequence":1.5}', "TYPE_MISMATCH", "/sequence"),
    ("5000 digits", "MemoryRecord", "{" + R + ',"sequence":' + "9" * 5000 + "}",
     "NUMBER_OUT_OF_RANGE", "/sequence"),
    ("exponent of 5000 digits", "MemoryRecord", "{" + R + ',"sequence":"1e' + "9" * 5000 + '"}',
     "NUMBER_OUT_OF_RANGE", "/sequence"),
    ("uint64 negative", "MemoryRecord", "{" + R + ',"sequence":"-1"}', "NUMBER_OUT_OF_RANGE", "/sequence"),
    ("above 2^53", "MemoryRecord", "{" + R + ',"sequence":"9007199254740992"}',
     "NUMBER_OUT_OF_RANGE", "/sequence"),
    ("int64 overflow", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":'
     '{"integerValue":"9223372036854775808"}}]}', "NUMBER_OUT_OF_RANGE", "/metadata/0/value/integerValue"),
    ("NaN", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":{"floatValue":"NaN"}}]}',
     "NON_FINITE_NUMBER", "/metadata/0/value/floatValue"),
    ("number overflows binary64", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":'
     '{"floatValue":1E400}}]}', "NON_FINITE_NUMBER", "/metadata/0/value/floatValue"),
    ("float32 overflows", "MemoryRecord", "{" + R + ',"embeddings":[{"model":"m","dimensions":1,'
     '"values":[1e39]}]}', "NUMBER_OUT_OF_RANGE", "/embeddings/0/values/0"),
    ("two kinds", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":{"boolValue":true,'
     '"stringValue":"x"}}]}', "ONEOF_CONFLICT", "/metadata/0/value/stringValue"),
    ("no kind", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":{}}]}',
     "VALUE_KIND_MISSING", "/metadata/0/value"),
    ("entry without value", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k"}]}',
     "VALUE_KIND_MISSING", "/metadata/0/value"),
    ("repeated map key", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":{"nullValue":null}},'
     '{"key":"k","value":{"nullValue":null}}]}', "DUPLICATE_KEY", "/metadata/1/key"),
    ("null element", "MemoryRecord", "{" + R + ',"tags":["a",null]}', "NULL_VALUE", "/tags/1"),
    ("bad null value", "MemoryRecord", "{" + R + ',"metadata":[{"key":"k","value":{"nullValue":1}}]}',
     "UNKNOWN_ENUM_VALUE", "/metadata/0/value/nullValue"),
    ("bad base64", "MemoryRecord", '{"specversion":"1.0","id":"r","kind":"RECORD_KIND_MESSAGE",'
     '"message":{"role":"ROLE_USER","content":[{"image":{"data":"a!=="}}]}}', "TYPE_MISMATCH",
     "/message/content/0/image/data"),
    ("bad timestamp", "MemoryRecord", "{" + R + ',"createdAt":"2026-02-30T00:00:00Z"}',
     "INVALID_TIMESTAMP", "/createdAt"),
    ("timestamp offset out of range", "MemoryRecord", "{" + R + ',"createdAt":"0001-01-01T00:00:00+01:00"}',
     "INVALID_TIMESTAMP", "/createdAt"),
    ("major version 2", "MemoryRecord", '{"specversion":"2.0","id":"r","kind":"RECORD_KIND_FACT","x":1}',
     "UNSUPPORTED_VERSION", "/specversion"),
    ("newer minor unknown member", "MemoryRecord", "{" + R.replace("1.0", "1.9") + ',"weight":1}',
     "UNREPRESENTABLE", "/weight"),
    # Faults the validator finds are named where they are in the input.
    ("required, in camelCase", PUT, '{"specversion":"1.0","operationId":"o","items":[{"record":'
     '{"kind":"RECORD_KIND_FACT","fact":{"text":"t"}}}]}', "REQUIRED_FIELD_MISSING", "/items/0/record/id"),
    ("deep in a Value", "MemoryRecord", "{" + R + ',"metadata":[{"key":"a","value":{"nullValue":null}},'
     '{"key":"k","value":{"mapValue":{"entries":[{"key":"x","value":{"listValue":{"values":'
     '[{"stringValue":"s"},{"stringValue":"' + "y" * (1024 * 1024 + 1) + '"}]}}}]}}}]}',
     "STRING_TOO_LONG", "/metadata/1/value/mapValue/entries/0/value/listValue/values/1"),
    ("bad map key", "MemoryRecord", "{" + R + ',"extensions":[{"key":"acme.ok","value":{"nullValue":null}},'
     '{"key":"Not A Key","value":{"nullValue":null}}]}', "PATTERN_MISMATCH", "/extensions/1/key"),
    ("payload of another kind", "MemoryRecord", '{"specversion":"1.0","id":"r","kind":"RECORD_KIND_FACT",'
     '"message":{"role":"ROLE_USER"}}', "KIND_MISMATCH", "/message"),
]


@pytest.mark.parametrize(("name", "type_name", "text", "reason", "pointer"), BAD, ids=[b[0] for b in BAD])
def test_bad_protojson_is_a_typed_error_naming_the_input_member(
        name: str, type_name: str, text: str, reason: str, pointer: str) -> None:
    with pytest.raises(MemorywireError) as info:
        mprotojson.decode(text, type=f"memorywire.v1.{type_name}")
    assert (info.value.reason, info.value.pointer) == (reason, pointer), info.value.violations
    # The command reports it on a line of its own, with no traceback.
    status, out, err = run("validate", "-", "--from", "protojson", "--type", type_name, stdin=text.encode())
    assert status == 1 and f"<stdin>:1: {pointer or '/'}: " in out.decode() and f"[{reason}]" in out.decode()
    assert "Traceback" not in err


def test_nesting_is_limited_in_the_terms_of_the_document() -> None:
    value: Any = {"nullValue": None}
    for _ in range(70):
        value = {"listValue": {"values": [value]}}
    text = "{" + R + ',"metadata":[{"key":"k","value":' + json.dumps(value) + "}]}"
    with pytest.raises(LimitError) as info:
        mprotojson.decode(text)
    assert info.value.reason == "NESTING_TOO_DEEP"
    # The first list deeper than the limit: the record is depth 1, metadata 2,
    # the Value of k 3, and each list one more; as memorywire JSON counts it.
    lists = DEFAULT_LIMITS.max_depth - 2
    assert info.value.pointer == "/metadata/0/value" + "/listValue/values/0" * lists
    plain: Any = None
    for _ in range(70):
        plain = [plain]
    with pytest.raises(LimitError) as plain_info:
        mjson.decode(json.dumps(record(metadata={"k": plain})))
    assert plain_info.value.pointer == "/metadata/k" + "/0" * lists
    # Within a limit that allows it, the same document reads.
    deep = Limits(max_depth=80)
    doc = mprotojson.decode(text, limits=deep)
    assert mprotojson.decode(mprotojson.Encoder(limits=deep).encode(doc), limits=deep) == doc


def test_a_document_too_large_is_refused_before_it_is_parsed() -> None:
    with pytest.raises(LimitError) as info:
        mprotojson.decode("{" + R + "}", limits=Limits(max_document_bytes=10))
    assert info.value.reason == "DOCUMENT_TOO_LARGE"


def test_content_protojson_cannot_carry_is_refused_not_dropped() -> None:
    newer = json.dumps(record(specversion="1.9", weight=3)).encode()
    with pytest.raises(UnrepresentableError) as info:
        convert(newer, source="json", target="protojson")
    assert (info.value.reason, info.value.pointer) == ("UNREPRESENTABLE", "/weight")
    status, out, err = run("convert", "-", "--from", "json", "--to", "protojson", stdin=newer)
    assert status == 1 and out == b"" and "[UNREPRESENTABLE]" in err


def test_protojson_is_one_document_at_a_time_in_the_command(tmp_path: pathlib.Path) -> None:
    stream = tmp_path / "records.jsonl"
    stream.write_bytes(json.dumps(record()).encode() + b"\n")
    status, out, err = run("convert", stream, "--to", "protojson")
    assert status == 2 and out == b"" and "one document at a time" in err
    status, out, err = run("validate", "--stream", "--from", "protojson", stream)
    assert status == 2 and "one document at a time" in err and "Traceback" not in err


def test_an_error_document_reads_from_protojson() -> None:
    src = ROOT / "examples" / "v1" / "operations" / "error-validation.json"
    doc = mjson.decode(src.read_bytes(), type="memorywire.v1.Error")
    text = mprotojson.encode(doc, type="memorywire.v1.Error")
    assert b'"code":"ERROR_CODE_INVALID_ARGUMENT"' in text
    assert mprotojson.decode(text, type="memorywire.v1.Error") == doc


# -- no input escapes the typed errors --------------------------------------------------------

SEEDS = [mprotojson.encode(mjson.decode(d, type=t), type=t) for _, t, d in EXAMPLES[:12]]


@settings(max_examples=400, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_protojson_never_escapes_the_typed_errors(data: st.DataObject) -> None:
    seed = data.draw(st.sampled_from(range(len(SEEDS))))
    text = bytearray(SEEDS[seed])
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(text) - 1))
        choice = data.draw(st.sampled_from([b"", b"0", b"-", b"\"", b"{", b"}", b"[", b"]", b",", b"null",
                                            b"1e999", b"\"NaN\"", b"\"1\"", b"true", b"\\u0000", b"99"]))
        text[at:at + data.draw(st.integers(0, 3))] = choice
    try:
        mprotojson.decode(bytes(text), type=EXAMPLES[seed][1])
    except (DecodeError, MemorywireError):
        pass


def run(*args: Any, stdin: bytes = b"") -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.run([str(a) for a in args], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()
