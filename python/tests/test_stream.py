"""Streams of documents: JSON Lines, concatenated MessagePack, length-delimited Protobuf."""

from __future__ import annotations

import io
import json
import pathlib
from typing import Any

import msgpack
import pytest
from strategies import pb_varint

import memorywire
from memorywire import Limits, stream
from memorywire import json as mjson
from memorywire import msgpack as mmsgpack
from memorywire import protobuf as mprotobuf

ENCODINGS = ("json", "msgpack", "protobuf")
COUNT = 3000


def make_record(i: int) -> dict[str, Any]:
    """A valid record; the kind, the fields present and the texts vary with i."""
    kind = ("message", "fact", "tool_call")[i % 3]
    record: dict[str, Any] = {
        "specversion": "1.0",
        "id": f"mem_{i:06d}",
        "kind": kind,
        "scope": {"tenant": "acme", "user": f"u-{i % 17}", "agent": "concierge"},
        "sequence": i + 1,
        "created_at": f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(7 * i) % 60:02d}"
                      + (f".{i % 1000:03d}Z" if i % 4 else "Z"),
    }
    if kind == "message":
        record["message"] = {
            "role": ("user", "assistant", "system")[i // 3 % 3],
            "content": [{"text": {
                "text": f"message {i}: caf\u00e9 \u2603 \"quoted\"\n" * (1 + i % 3)}}],
        }
    elif kind == "fact":
        record["fact"] = {"text": f"fact number {i} about seat {i % 40}"}
        if i % 2:
            record["embeddings"] = [{
                "model": "tiny",
                "dimensions": 4,
                "values": [((i * 7 + k) % 13 - 6) / 8 for k in range(4)],
            }]
    else:
        record["tool_call"] = {
            "call_id": f"call_{i}",
            "name": ("search", "rebook_flight", "lookup")[i % 3],
            "arguments": json.dumps({"n": i, "q": f"query {i}"}),
        }
    if i % 5 == 0:
        record["tags"] = [f"t{i % 7}", "stream"]
    if i % 11 == 0:
        record["lifecycle"] = {"importance": (i % 10) / 10 + 0.05, "pinned": True}
    return record


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [make_record(i) for i in range(COUNT)]


@pytest.fixture(scope="module")
def canonical_jsonl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(mjson.encode(r) + b"\n" for r in records)


def write_file(path: pathlib.Path, docs: list[dict[str, Any]], encoding: str) -> int:
    with path.open("wb") as fp:
        return stream.write(fp, docs, encoding)


def read_file(path: pathlib.Path, encoding: str, **kw: Any) -> list[tuple[int, dict[str, Any]]]:
    with path.open("rb") as fp:
        return list(stream.read(fp, encoding, **kw))


def results(data: bytes, encoding: str, **kw: Any) -> list[Any]:
    return list(stream.iter_results(io.BytesIO(data), encoding, **kw))


def errors(items: list[Any]) -> list[tuple[int, memorywire.MemorywireError]]:
    return [(p, x) for p, x in items if isinstance(x, memorywire.MemorywireError)]


# -- round trips ------------------------------------------------------------


def test_records_are_valid_and_varied(records: list[dict[str, Any]]) -> None:
    for r in records[:60]:
        memorywire.validate(r)
    assert {r["kind"] for r in records} == {"message", "fact", "tool_call"}
    assert len({r["id"] for r in records}) == COUNT


def test_writers_write_canonical_framing(tmp_path: pathlib.Path,
                                         records: list[dict[str, Any]],
                                         canonical_jsonl: bytes) -> None:
    sample = records[:50]
    for encoding in ENCODINGS:
        assert write_file(tmp_path / encoding, sample, encoding) == 50
    assert (tmp_path / "json").read_bytes() == b"".join(mjson.encode(r) + b"\n" for r in sample)
    assert (tmp_path / "msgpack").read_bytes() == b"".join(mmsgpack.encode(r) for r in sample)
    delimited = b""
    for r in sample:
        body = mprotobuf.encode(r)
        delimited += pb_varint(len(body)) + body
    assert (tmp_path / "protobuf").read_bytes() == delimited
    assert canonical_jsonl.startswith((tmp_path / "json").read_bytes())


def test_round_trip_through_every_stream_encoding(tmp_path: pathlib.Path,
                                                  records: list[dict[str, Any]],
                                                  canonical_jsonl: bytes) -> None:
    # json -> msgpack -> protobuf -> json, each step reading the file the
    # previous one wrote.
    source = tmp_path / "records.jsonl"
    source.write_bytes(canonical_jsonl)
    previous, previous_encoding = source, "json"
    for encoding in ("msgpack", "protobuf", "json"):
        docs = [doc for _, doc in read_file(previous, previous_encoding)]
        assert len(docs) == COUNT
        target = tmp_path / f"records.{encoding}.out"
        assert write_file(target, docs, encoding) == COUNT
        previous, previous_encoding = target, encoding
    assert previous.read_bytes() == canonical_jsonl


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_read_yields_positions_and_canonical_documents(tmp_path: pathlib.Path, encoding: str,
                                                       records: list[dict[str, Any]],
                                                       canonical_jsonl: bytes) -> None:
    path = tmp_path / "stream"
    write_file(path, records, encoding)
    items = read_file(path, encoding)
    assert [p for p, _ in items] == list(range(1, COUNT + 1))
    again = b"".join(mjson.encode(doc) + b"\n" for _, doc in items)
    assert again == canonical_jsonl


def test_aliases_and_unknown_encoding() -> None:
    line = mjson.encode(make_record(1)) + b"\n"
    for alias in ("jsonl", "ndjson"):
        assert len(results(line, alias)) == 1
    with pytest.raises(ValueError, match="unknown stream encoding"):
        stream.iter_results(io.BytesIO(line), "yaml")
    with pytest.raises(ValueError):
        stream.Writer(io.BytesIO(), "xml")


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_empty_stream(encoding: str) -> None:
    assert results(b"", encoding) == []
    out = io.BytesIO()
    assert stream.write(out, [], encoding) == 0
    assert out.getvalue() == b""


def test_other_message_types() -> None:
    nested = {k: v for k, v in make_record(3).items() if k != "specversion"}
    request = {"specversion": "1.0", "operation_id": "op-1", "items": [{"record": nested}]}
    out = io.BytesIO()
    stream.write(out, [request, request], "protobuf", type="memorywire.v1.PutRequest")
    out.seek(0)
    got = list(stream.read(out, "protobuf", type="memorywire.v1.PutRequest"))
    assert [p for p, _ in got] == [1, 2]
    assert got[0][1]["items"][0]["record"]["id"] == "mem_000003"
    out.seek(0)
    with pytest.raises(memorywire.MemorywireError) as raised:
        list(stream.read(out, "protobuf"))  # not MemoryRecord documents
    assert raised.value.violations[0].line == 1


# -- JSON Lines -------------------------------------------------------------


def test_one_broken_record_among_thousands(tmp_path: pathlib.Path,
                                           records: list[dict[str, Any]]) -> None:
    lines = [json.dumps(r) for r in records]
    broken = {**make_record(0), "id": "broken"}
    broken["message"] = {**broken["message"], "role": "narrator"}
    lines[1741] = json.dumps(broken)
    path = tmp_path / "records.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    with path.open("rb") as fp:
        items = list(stream.iter_results(fp, "json"))
    assert len(items) == COUNT
    found = errors(items)
    assert len(found) == 1
    position, error = found[0]
    assert position == 1742
    assert isinstance(error, memorywire.ValidationError)
    assert (error.reason, error.pointer) == ("UNKNOWN_ENUM_VALUE", "/message/role")
    assert [v.line for v in error.violations] == [1742]
    assert items[1742] == (1743, records[1742])

    with path.open("rb") as fp, pytest.raises(memorywire.ValidationError) as raised:
        for _ in stream.read(fp, "json"):
            pass
    assert raised.value.violations[0].line == 1742
    assert raised.value.pointer == "/message/role"


def test_error_is_a_new_object_of_the_same_class() -> None:
    bad = b'{"specversion":"1.0","id":"x","kind":"fact"}\n'
    try:
        mjson.decode(bad.strip())
    except memorywire.ValidationError as e:
        original = e
    (position, error), = results(bad, "json")
    assert position == 1
    assert type(error) is type(original) and error is not original
    assert (error.reason, error.pointer, error.message, error.code) == \
        (original.reason, original.pointer, original.message, original.code)
    assert original.violations[0].line is None
    assert error.violations[0].line == 1


def test_json_lines_framing_rules() -> None:
    doc = mjson.encode(make_record(1))
    # CRLF line ends and white space inside a line are accepted; so is a
    # last line without a line feed.
    data = doc + b"\r\n" + b"  " + doc + b"\t\n" + doc
    assert [p for p, x in results(data, "json") if isinstance(x, dict)] == [1, 2, 3]
    # An empty or blank line is a SYNTAX_ERROR; reading goes on after it.
    items = results(doc + b"\n\n \r\n" + doc + b"\n", "json")
    assert [(p, getattr(x, "reason", "ok")) for p, x in items] == \
        [(1, "ok"), (2, "SYNTAX_ERROR"), (3, "SYNTAX_ERROR"), (4, "ok")]
    # A last line cut short is TRUNCATED.
    (_, last), = errors(results(doc + b"\n" + doc[:-9], "json"))
    assert last.reason == "TRUNCATED"


@pytest.mark.parametrize(("bad", "reason", "pointer"), [
    (b'{"a":1E400,}', "SYNTAX_ERROR", ""),
    (b'{"specversion":"1.0","id":"x","kind":"fact","fact":{"text":"x"},"metadata":{"a":1e999,}}',
     "SYNTAX_ERROR", ""),
    (b'{"specversion":"1.0","id":"x","kind":"fact","fact":{"text":"x"},"metadata":{"a":' + b"4" * 5000 + b"}}",
     "NUMBER_OUT_OF_RANGE", "/metadata/a"),
    (b'{"specversion":"1.0","id":"x","kind":"fact","fact":{"text":"x"},"sequence":-' + b"4" * 9000 + b"}",
     "NUMBER_OUT_OF_RANGE", "/sequence"),
])
def test_json_lines_report_a_line_the_exact_parser_refuses_and_go_on(bad: bytes, reason: str,
                                                                     pointer: str) -> None:
    doc = mjson.encode(make_record(1))
    items = results(doc + b"\n" + bad + b"\n" + doc + b"\n", "json")
    assert [p for p, _ in items] == [1, 2, 3]
    (position, error), = errors(items)
    assert position == 2 and isinstance(error, memorywire.MemorywireError)
    assert (error.reason, error.pointer, error.violations[0].line) == (reason, pointer, 2)
    with pytest.raises(memorywire.MemorywireError):
        list(stream.read(io.BytesIO(doc + b"\n" + bad + b"\n"), "json"))


def test_json_line_longer_than_the_limit(tmp_path: pathlib.Path) -> None:
    doc = mjson.encode(make_record(2))
    limits = Limits(max_document_bytes=len(doc))
    huge = b'{"specversion":"1.0","id":"' + b"x" * 5_000_000 + b'","kind":"fact"}'
    path = tmp_path / "big.jsonl"
    path.write_bytes(doc + b"\n" + huge + b"\n" + doc + b"\n")
    with path.open("rb") as fp:
        items = list(stream.iter_results(fp, "json", limits=limits))
    assert [p for p, _ in items] == [1, 2, 3]
    position, error = errors(items)[0]
    assert position == 2
    assert isinstance(error, memorywire.LimitError)
    assert error.reason == "DOCUMENT_TOO_LARGE" and error.code == "RESOURCE_EXHAUSTED"
    assert error.violations[0].line == 2
    with path.open("rb") as fp, pytest.raises(memorywire.LimitError):
        list(stream.read(fp, "json", limits=limits))
    # A line exactly at the limit passes; the line feed does not count.
    assert errors(results(doc + b"\n", "json", limits=limits)) == []


def test_json_line_limit_reads_a_bounded_amount() -> None:
    limit = 1000

    class Source(io.BytesIO):
        largest = 0

        def readline(self, size: int | None = -1, /) -> bytes:
            assert size is not None and 0 <= size <= limit + 1 or size == stream._CHUNK
            line = super().readline(size)
            Source.largest = max(Source.largest, len(line))
            return line

    fp = Source(b"[" + b"1," * 200_000 + b"1]\n")
    limits = Limits(max_document_bytes=limit)
    (position, error), = list(stream.iter_results(fp, "json", limits=limits))
    assert isinstance(error, memorywire.LimitError)
    assert (position, error.reason) == (1, "DOCUMENT_TOO_LARGE")
    assert Source.largest <= stream._CHUNK


# -- MessagePack ------------------------------------------------------------


def test_msgpack_truncated_stream() -> None:
    docs = [mmsgpack.encode(make_record(i)) for i in range(3)]
    items = results(b"".join(docs)[:-4], "msgpack")
    assert [p for p, x in items if isinstance(x, dict)] == [1, 2]
    (position, error), = errors(items)
    assert (position, error.reason) == (3, "TRUNCATED")
    assert error.violations[0].line == 3


def test_msgpack_invalid_document_then_more() -> None:
    good = mmsgpack.encode(make_record(1))
    not_a_map = msgpack.packb([1, 2])
    invalid = msgpack.packb({"specversion": "1.0", "id": "x", "kind": "fact"})
    duplicate = b"\x84\xabspecversion\xa31.0\xa2id\xa1x\xa4kind\xa4fact" \
                b"\xa4fact\x82\xa4text\xa1t\xa4text\xa1u"
    items = results(good + not_a_map + invalid + duplicate + good, "msgpack")
    assert [(p, getattr(x, "reason", "ok")) for p, x in items] == [
        (1, "ok"), (2, "TYPE_MISMATCH"), (3, "REQUIRED_FIELD_MISSING"), (4, "DUPLICATE_KEY"),
        (5, "ok")]
    assert items[3][1].pointer == "/fact/text"
    # The same bytes, one document at a time, give the same errors.
    with pytest.raises(memorywire.DecodeError) as single:
        mmsgpack.decode(duplicate)
    assert (single.value.reason, single.value.pointer) == ("DUPLICATE_KEY", "/fact/text")


def test_msgpack_stream_refuses_a_record_it_could_not_write_back() -> None:
    # Found by fuzzing: a specversion cut to "" (the bytes of "1.0" after it
    # read as three more objects) was accepted, and written without it.
    good = mmsgpack.encode(make_record(1))
    cut = good.replace(b"\xa31.0", b"\xa01.0")
    assert cut != good
    items = results(cut + good, "msgpack")
    assert [(p, getattr(x, "reason", "ok")) for p, x in items] == [
        (1, "REQUIRED_FIELD_MISSING"), (2, "TYPE_MISMATCH"), (3, "TYPE_MISMATCH"), (4, "TYPE_MISMATCH"),
        (5, "ok")]
    assert items[0][1].pointer == "/specversion"


def test_msgpack_stops_at_bytes_that_are_not_msgpack() -> None:
    good = mmsgpack.encode(make_record(1))
    items = results(good + b"\xc1" + good, "msgpack")
    assert [(p, getattr(x, "reason", "ok")) for p, x in items] == \
        [(1, "ok"), (2, "INVALID_WIRE_FORMAT")]


def test_msgpack_document_larger_than_the_limit_reads_a_bounded_amount(
        tmp_path: pathlib.Path) -> None:
    limit = 100_000
    big = msgpack.packb({"specversion": "1.0", "id": "x", "kind": "fact",
                         "tags": ["tag"] * 2_000_000})
    path = tmp_path / "big.msgpack"
    path.write_bytes(mmsgpack.encode(make_record(1)) + big)
    limits = Limits(max_document_bytes=limit, max_items=10_000_000)
    with path.open("rb") as fp:
        items = list(stream.iter_results(fp, "msgpack", limits=limits))
        consumed = fp.tell()
    assert [(p, getattr(x, "reason", "ok")) for p, x in items] == \
        [(1, "ok"), (2, "DOCUMENT_TOO_LARGE")]
    assert isinstance(items[1][1], memorywire.LimitError)
    assert consumed <= 2 * limit


def test_msgpack_document_just_over_the_limit() -> None:
    doc = mmsgpack.encode(make_record(1))
    items = results(doc + doc, "msgpack", limits=Limits(max_document_bytes=len(doc) - 1))
    assert [getattr(x, "reason", "ok") for _, x in items] == ["DOCUMENT_TOO_LARGE"] * 2


# -- length-delimited Protobuf ----------------------------------------------


def delimited(*bodies: bytes) -> bytes:
    return b"".join(pb_varint(len(b)) + b for b in bodies)


def test_protobuf_truncated_body_and_length() -> None:
    bodies = [mprotobuf.encode(make_record(i)) for i in range(3)]
    data = delimited(*bodies)
    items = results(data[:-5], "protobuf")
    assert [p for p, x in items if isinstance(x, dict)] == [1, 2]
    (position, error), = errors(items)
    assert (position, error.reason) == (3, "TRUNCATED")
    assert isinstance(error, memorywire.DecodeError)
    # A length prefix cut inside its varint.
    (position, error), = errors(results(data[:len(delimited(bodies[0]))] + b"\x80", "protobuf"))
    assert (position, error.reason) == (2, "TRUNCATED")
    with pytest.raises(memorywire.DecodeError) as raised:
        list(stream.read(io.BytesIO(data[:-1]), "protobuf"))
    assert raised.value.reason == "TRUNCATED"
    assert raised.value.violations[0].line == 3


def test_protobuf_declared_length_over_the_limit_is_not_read() -> None:
    # A declared length of 2**40 bytes with three bytes behind it.
    data = pb_varint(2**40) + b"abc"
    fp = io.BytesIO(data)
    (position, error), = list(stream.iter_results(fp, "protobuf"))
    assert isinstance(error, memorywire.LimitError)
    assert (position, error.reason) == (1, "DOCUMENT_TOO_LARGE")
    assert fp.tell() == len(pb_varint(2**40))
    body = mprotobuf.encode(make_record(1))
    items = results(delimited(body), "protobuf", limits=Limits(max_document_bytes=len(body) - 1))
    assert [getattr(x, "reason", "ok") for _, x in items] == ["DOCUMENT_TOO_LARGE"]


def test_protobuf_length_prefix_too_long() -> None:
    (_, error), = results(b"\xff" * 11, "protobuf")
    assert error.reason == "INVALID_WIRE_FORMAT"


def test_protobuf_invalid_message_then_more() -> None:
    good = mprotobuf.encode(make_record(1))
    items = results(delimited(good, b"", b"\x0a\x02\xff\xfe", good), "protobuf")
    assert [(p, getattr(x, "reason", "ok")) for p, x in items] == [
        (1, "ok"), (2, "REQUIRED_FIELD_MISSING"), (3, "INVALID_UTF8"), (4, "ok")]


# -- writers ----------------------------------------------------------------


def test_writer_refuses_an_invalid_document_and_writes_nothing_of_it() -> None:
    out = io.BytesIO()
    writer = stream.Writer(out, "protobuf")
    writer.write(make_record(1))
    size = len(out.getvalue())
    bad = {**make_record(2), "kind": "narrator"}
    with pytest.raises(memorywire.ValidationError) as raised:
        writer.write(bad)
    assert raised.value.violations[0].line == 2
    assert raised.value.pointer == "/kind"
    assert len(out.getvalue()) == size == writer.bytes_written
    assert writer.count == 1


def test_json_lines_writer_has_one_line_per_document() -> None:
    out = io.BytesIO()
    docs = [make_record(i) for i in range(0, 30, 3)]  # messages with line feeds in their text
    stream.write(out, docs, "jsonl")
    lines = out.getvalue().split(b"\n")
    assert lines[-1] == b"" and len(lines) == len(docs) + 1
    assert all(b"\r" not in line for line in lines)
