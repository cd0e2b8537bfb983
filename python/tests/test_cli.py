"""The memorywire command: validate, convert, inspect; run on real files."""

from __future__ import annotations

import io
import json
import os
import pathlib
import stat
import subprocess
import sys
import threading
from typing import Any

import msgpack
import pytest

import memorywire
from memorywire import cli, stream
from memorywire import json as mjson
from memorywire import msgpack as mmsgpack
from memorywire import protobuf as mprotobuf

COUNT = 3000
BROKEN_LINE = 1742


def make_record(i: int) -> dict[str, Any]:
    """A valid record; the kind, the fields present and the texts vary with i."""
    kind = ("message", "fact", "tool_call")[i % 3]
    record: dict[str, Any] = {
        "specversion": "1.0",
        "id": f"rec-{i}",
        "kind": kind,
        "scope": {"tenant": "acme", "session": f"s{i % 23}"},
        "created_at": f"2026-01-{1 + i % 28:02d}T08:{i % 60:02d}:00.{i % 1000:03d}Z",
    }
    if kind == "message":
        record["message"] = {"role": ("user", "assistant", "tool")[i // 3 % 3],
                             "content": [{"text": {"text": f"turn {i} \u00e9\u00e8 \u2713"}}]}
    elif kind == "fact":
        record["fact"] = {"text": f"fact {i}"}
        if i % 4 == 1:
            record["embeddings"] = [{"model": "m", "dimensions": 3,
                                     "values": [i / 7, -i / 9, 0.1]}]
    else:
        record["tool_call"] = {"call_id": f"c{i}", "name": "lookup",
                               "arguments": json.dumps({"i": i})}
    if i % 6 == 0:
        record["tags"] = ["a", f"b{i % 5}"]
    return record


def run(*args: str | os.PathLike[str], stdin: bytes = b"") -> tuple[int, bytes, str]:
    out, err = io.BytesIO(), io.StringIO()
    status = cli.run([os.fspath(a) for a in args], stdin=io.BytesIO(stdin), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def records() -> list[dict[str, Any]]:
    return [make_record(i) for i in range(COUNT)]


@pytest.fixture(scope="module")
def canonical_jsonl(records: list[dict[str, Any]]) -> bytes:
    return b"".join(mjson.encode(r) + b"\n" for r in records)


@pytest.fixture
def jsonl(tmp_path: pathlib.Path, records: list[dict[str, Any]]) -> pathlib.Path:
    """3,000 records as JSON Lines, not canonical (spaces, source member order)."""
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


@pytest.fixture
def broken_jsonl(tmp_path: pathlib.Path, records: list[dict[str, Any]]) -> pathlib.Path:
    """The same records, with the one on line 1,742 given the role "narrator"."""
    lines = [json.dumps(r) for r in records]
    broken = {**make_record(0), "id": "broken"}
    broken["message"] = {**broken["message"], "role": "narrator"}
    lines[BROKEN_LINE - 1] = json.dumps(broken)
    path = tmp_path / "broken.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


# -- validate --------------------------------------------------------------------


def test_validate_valid_stream(jsonl: pathlib.Path) -> None:
    assert run("validate", jsonl) == (0, b"", "")


def test_validate_reports_the_one_broken_line(broken_jsonl: pathlib.Path) -> None:
    status, out, err = run("validate", broken_jsonl)
    assert status == 1
    lines = out.decode().splitlines()
    assert len(lines) == 1
    assert f":{BROKEN_LINE}: /message/role:" in lines[0]
    assert lines[0] == (f"{broken_jsonl}:{BROKEN_LINE}: /message/role: "
                        "'narrator' is not a value of Role [UNKNOWN_ENUM_VALUE]")
    assert err == ""


def test_validate_json_output(broken_jsonl: pathlib.Path, tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"specversion": "1.0", "kind": "fact", "fact": {"text": 3}}))
    status, out, _ = run("validate", "--output", "json", broken_jsonl, bad)
    assert status == 1
    errors = [json.loads(line) for line in out.decode().splitlines()]
    assert errors[0] == {
        "file": str(broken_jsonl), "line": BROKEN_LINE, "pointer": "/message/role",
        "reason": "UNKNOWN_ENUM_VALUE", "code": "INVALID_ARGUMENT",
        "message": "'narrator' is not a value of Role",
    }
    rest = {(e["file"], e["line"], e["pointer"], e["reason"]) for e in errors[1:]}
    assert rest == {(str(bad), 1, "/fact/text", "TYPE_MISMATCH"),
                    (str(bad), 1, "/id", "REQUIRED_FIELD_MISSING")}
    for e in errors:
        assert set(e) == {"file", "line", "pointer", "reason", "code", "message"}


def test_validate_writes_the_rejected_records(broken_jsonl: pathlib.Path, tmp_path: pathlib.Path) -> None:
    """--errors writes each rejected document with its typed Error, as JSON
    Lines, ready to be fixed and sent again; valid documents are not in it."""
    lines = broken_jsonl.read_text(encoding="utf-8").splitlines()
    lines[9] = "{not json"
    broken_jsonl.write_text("\n".join(lines) + "\n", encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"kind": "fact", "fact": {"text": "no id"}}))
    errors = tmp_path / "rejected.jsonl"
    status, out, _ = run("validate", "--errors", errors, broken_jsonl, bad)
    assert status == 1 and out
    rejected = [json.loads(line) for line in errors.read_text(encoding="utf-8").splitlines()]
    assert [(r["file"], r["line"]) for r in rejected] == [
        (str(broken_jsonl), 10), (str(broken_jsonl), BROKEN_LINE), (str(bad), 1)]
    assert rejected[0]["text"] == "{not json" and "document" not in rejected[0]
    assert rejected[0]["error"]["reason"] == "SYNTAX_ERROR"
    assert rejected[1]["document"] == json.loads(lines[BROKEN_LINE - 1])
    assert rejected[1]["error"] == {
        "code": "invalid_argument", "reason": "UNKNOWN_ENUM_VALUE",
        "message": "'narrator' is not a value of Role",
        "violations": [{"pointer": "/message/role", "reason": "UNKNOWN_ENUM_VALUE",
                        "message": "'narrator' is not a value of Role"}]}
    assert rejected[2]["document"] == {"kind": "fact", "fact": {"text": "no id"}}
    assert "/id" in {v["pointer"] for v in rejected[2]["error"]["violations"]}
    assert run("validate", "--errors", tmp_path / "none" / "x.jsonl", bad)[0] == 2


@pytest.mark.parametrize("encoding,suffix", [("json", ".jsonl"), ("msgpack", ".msgpack"),
                                             ("protobuf", ".binpb")])
def test_validate_every_stream_encoding(tmp_path: pathlib.Path, records: list[dict[str, Any]],
                                        encoding: str, suffix: str) -> None:
    path = tmp_path / f"records{suffix}"
    with path.open("wb") as fp:
        stream.write(fp, records, encoding)
    assert run("validate", "--stream", path) == (0, b"", "")
    assert run("validate", "--stream", "--from", encoding, path)[0] == 0
    # Without a suffix, the stream's encoding is found from its first bytes.
    bare = tmp_path / f"bare-{encoding}"
    bare.write_bytes(path.read_bytes())
    if encoding != "protobuf":  # a length prefix can look like a MessagePack map
        assert run("validate", "--stream", bare)[0] == 0


def test_validate_single_documents(tmp_path: pathlib.Path) -> None:
    doc = make_record(4)
    files = {
        "r.json": json.dumps(doc, indent=2).encode(),
        "r.msgpack": mmsgpack.encode(doc),
        "r.pb": mprotobuf.encode(doc),
        "r.bin": mmsgpack.encode(doc),  # detected from its first byte
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    assert run("validate", *(tmp_path / n for n in files)) == (0, b"", "")
    request = tmp_path / "put.json"
    nested = {k: v for k, v in doc.items() if k != "specversion"}
    request.write_text(json.dumps({"specversion": "1.0", "operation_id": "op-1",
                                   "items": [{"record": nested}]}))
    assert run("validate", "--type", "PutRequest", request) == (0, b"", "")
    assert run("validate", "--type", "memorywire.v1.PutRequest", request)[0] == 0
    status, out, _ = run("validate", request)
    assert status == 1 and b"/items: " in out and b"[UNKNOWN_FIELD]" in out


def test_validate_truncated_protobuf_stream(tmp_path: pathlib.Path,
                                            records: list[dict[str, Any]]) -> None:
    path = tmp_path / "cut.binpb"
    buffer = io.BytesIO()
    stream.write(buffer, records[:10], "protobuf")
    path.write_bytes(buffer.getvalue()[:-3])
    status, out, _ = run("validate", "--stream", "--output", "json", path)
    assert status == 1
    (error,) = [json.loads(line) for line in out.splitlines()]
    assert (error["line"], error["reason"], error["code"]) == (10, "TRUNCATED", "INVALID_ARGUMENT")


def test_validate_oversize_line(tmp_path: pathlib.Path) -> None:
    small = mjson.encode(make_record(1))
    path = tmp_path / "big.jsonl"
    path.write_bytes(small + b"\n" + b'{"id":"' + b"x" * 200_000 + b'"}\n' + small + b"\n"
                     + b'{"kind":"fact"}\n')
    status, out, _ = run("validate", "--output", "json", "--max-document-bytes", "4096", path)
    assert status == 1
    errors = [json.loads(line) for line in out.splitlines()]
    assert [(e["line"], e["reason"]) for e in errors][:1] == [(2, "DOCUMENT_TOO_LARGE")]
    assert errors[0]["code"] == "RESOURCE_EXHAUSTED"
    assert {e["line"] for e in errors[1:]} == {4}  # reading went on after the long line


def test_validate_single_document_over_the_limit(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b'{"id":"' + b"x" * 10_000 + b'"}')
    status, out, _ = run("validate", "--max-document-bytes", "1000", path)
    assert status == 1
    assert out.decode().strip().endswith("[DOCUMENT_TOO_LARGE]")


def test_validate_stdin() -> None:
    lines = b"".join(mjson.encode(make_record(i)) + b"\n" for i in range(20))
    assert run("validate", "--from", "jsonl", "-", stdin=lines) == (0, b"", "")
    assert run("validate", "--stream", "-", stdin=lines)[0] == 0
    assert run("validate", "-", stdin=mprotobuf.encode(make_record(1)))[0] == 0
    status, out, _ = run("validate", "--from", "jsonl", "-", stdin=lines + b'{"kind":"fact"}\n')
    assert status == 1
    assert out.decode().startswith("<stdin>:21: /")


def test_validate_no_progress_when_stderr_is_not_a_terminal(jsonl: pathlib.Path) -> None:
    status, _, err = run("validate", jsonl)
    assert status == 0 and err == ""


def test_progress_line_on_a_terminal() -> None:
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        progress = cli._Progress(tty)
        assert progress.enabled
        progress._next = 0.0
        progress.update(1200, 345678)
        progress.clear()
    text = os.read(master, 4096).decode()
    os.close(master)
    assert "\r  1200 documents, 345678 bytes" in text


OVERFLOW_THEN_COMMA = b'{"a":1E400,}'
LONG_INTEGER = (b'{"specversion":"1.0","id":"x","kind":"fact","fact":{"text":"x"},"metadata":{"a":'
                + b"1" * 5000 + b"}}")


@pytest.mark.parametrize(("bad", "reason"), [(OVERFLOW_THEN_COMMA, "SYNTAX_ERROR"),
                                             (LONG_INTEGER, "NUMBER_OUT_OF_RANGE")])
def test_every_command_reports_documents_the_exact_parser_refuses(tmp_path: pathlib.Path, bad: bytes,
                                                                  reason: str) -> None:
    single = tmp_path / "bad.json"
    single.write_bytes(bad)
    lines = tmp_path / "bad.jsonl"
    good = mjson.encode(make_record(1))
    lines.write_bytes(good + b"\n" + bad + b"\n" + good + b"\n")
    status, out, err = run("validate", single, lines)
    assert status == 1 and err == ""
    assert out.decode().splitlines() == [
        line for line in out.decode().splitlines() if line.endswith(f"[{reason}]")]
    assert out.decode().startswith(f"{single}:1: ") and f"\n{lines}:2: " in out.decode()
    for args in (["convert", single, "--to", "msgpack"], ["convert", lines, "--to", "protobuf"],
                 ["inspect", single]):
        status, out, err = run(*args)
        assert status == 1 and f"[{reason}]" in err and "Traceback" not in err, (args, err)
    status, out, err = run("inspect", lines)
    assert status == 1 and len(parse_all(out.decode())) == 2 and f"{lines}:2: " in err


# -- usage errors -------------------------------------------------------------------


@pytest.mark.parametrize("args", [
    [],
    ["frobnicate"],
    ["validate"],
    ["validate", "--bogus", "x.json"],
    ["validate", "--from", "yaml", "x.json"],
    ["validate", "--output", "xml", "x.json"],
    ["validate", "--max-document-bytes", "0", "x.json"],
    ["validate", "--max-document-bytes", "-1", "x.json"],
    ["validate", "--max-document-bytes", "2147483648", "x.json"],
    ["validate", "--max-document-bytes", "99999999999999999999", "x.json"],
    ["validate", "--max-document-bytes", "9" * 5000, "x.json"],
    ["validate", "--max-document-bytes", "1e6", "x.json"],
    ["validate", "--max-document-bytes", "+-5", "x.json"],
    ["validate", "--max-document-bytes", "\u0663", "x.json"],
    ["convert", "--max-document-bytes", str(2**62), "x.json", "--to", "json"],
    ["inspect", "--max-document-bytes", str(2**40), "x.json"],
    ["convert", "x.json"],
    ["convert", "x.json", "--to", "cbor"],
])
def test_usage_errors_exit_2(args: list[str]) -> None:
    status, out, err = run(*args)
    assert status == 2
    assert out == b""
    assert "usage:" in err


def test_limit_options_state_and_enforce_their_bounds(tmp_path: pathlib.Path) -> None:
    low, high = memorywire.limits.BOUNDS["max_document_bytes"]
    for command in ("validate", "convert", "inspect"):
        status, out, _ = run(command, "--help")
        assert status == 0 and f"{low} to {high}".encode() in b" ".join(out.split())
    status, _, err = run("validate", "--max-document-bytes", str(high + 1), "x.json")
    assert status == 2 and f"must be from {low} to {high}" in err and "Traceback" not in err
    path = tmp_path / "r.jsonl"
    path.write_bytes(mjson.encode(make_record(1)) + b"\n")
    for encoding, name in (("jsonl", "r.jsonl"), ("msgpack", "r.mpk"), ("protobuf", "r.binpb")):
        target = tmp_path / name
        if encoding != "jsonl":
            assert run("convert", path, "--to", encoding, "-o", target)[0] == 0
        for limit in (str(low), str(high)):
            status, _, err = run("validate", "--stream", "--max-document-bytes", limit, target)
            assert status == (1 if limit == "1" else 0) and "Traceback" not in err, (encoding, limit, err)
        status, _, err = run("validate", "--max-document-bytes", str(high), target)
        assert "Traceback" not in err


def test_unknown_type_exits_2_with_a_hint(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "r.json"
    path.write_bytes(mjson.encode(make_record(1)))
    for command in (["validate"], ["inspect"], ["convert", "--to", "json"]):
        status, out, err = run(*command, "--type", "MemoryRekord", path)
        assert status == 2 and out == b""
        assert "unknown message type 'MemoryRekord'" in err
        assert "PutRequest" in err and "GetRequest" not in err


def test_unreadable_files_exit_2(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(mjson.encode(make_record(1)))
    status, out, err = run("validate", tmp_path / "missing.json", good)
    assert status == 2 and out == b""
    assert "cannot read" in err and "missing.json" in err
    assert run("validate", tmp_path)[0] == 2  # a folder
    assert run("inspect", tmp_path / "missing.json")[0] == 2
    assert run("convert", tmp_path / "missing.json", "--to", "json")[0] == 2
    status, _, err = run("convert", good, "--to", "json", "-o", tmp_path / "no" / "such" / "out")
    assert status == 2 and "cannot write" in err


def test_convert_blames_an_output_it_cannot_write(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(mjson.encode(make_record(1)))
    folder = tmp_path / "folder"
    folder.mkdir()
    lines = tmp_path / "good.jsonl"
    lines.write_bytes(mjson.encode(make_record(1)) + b"\n")
    for source in (good, lines):
        status, out, err = run("convert", source, "--to", "msgpack", "-o", folder)
        assert (status, out) == (2, b"")
        assert err == f"memorywire: error: cannot write {folder}: Is a directory\n", err
    assert list(folder.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "good.json", "good.jsonl"]


def test_convert_writes_through_a_symbolic_link_and_into_a_fifo(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(mjson.encode(make_record(1)))
    target = tmp_path / "target.pb"
    link = tmp_path / "link.pb"
    link.symlink_to(target)
    assert run("convert", good, "--to", "protobuf", "-o", link)[0] == 0
    assert link.is_symlink() and target.read_bytes() == mprotobuf.encode(make_record(1))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    try:
        status, _, err = run("convert", good, "--to", "msgpack", "-o", fifo)
    finally:
        if reader.is_alive():  # unblock the reader if convert never opened the fifo
            try:
                # Without blocking: the reader may have finished since, and a
                # blocking open would then wait for a reader forever.
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                pass  # ENXIO: no reader left to unblock
            else:
                os.close(fd)
        reader.join()
    assert (status, err) == (0, "")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert received == [mmsgpack.encode(make_record(1))]


def test_convert_blames_an_output_that_fails_while_written(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.json"
    good.write_bytes(mjson.encode(make_record(1)))
    # The whole output is written to standard output at the end; a failing
    # standard output is named, not the input.
    class Failing(io.BytesIO):
        def write(self, data: Any, /) -> int:
            raise OSError(28, "No space left on device")

    err = io.StringIO()
    status = cli.run(["convert", os.fspath(good), "--to", "json"], stdin=io.BytesIO(), stdout=Failing(),
                     stderr=err)
    assert status == 2
    assert err.getvalue() == "memorywire: error: cannot write standard output: No space left on device\n"


def test_help_and_version() -> None:
    status, out, err = run("--help")
    assert status == 0 and err == ""
    text = out.decode()
    assert "examples:" in text and "memorywire convert records.jsonl" in text
    for command in ("validate", "convert", "inspect"):
        status, out, _ = run(command, "--help")
        assert status == 0 and b"examples:" in out
    status, out, _ = run("--version")
    assert status == 0
    assert out.decode().strip() == f"memorywire {memorywire.__version__} (specification 1.0)"


# -- convert -----------------------------------------------------------------------


def test_convert_stream_round_trip(tmp_path: pathlib.Path, jsonl: pathlib.Path,
                                   canonical_jsonl: bytes) -> None:
    packed = tmp_path / "records.msgpack"
    delimited = tmp_path / "records.binpb"
    back = tmp_path / "back.jsonl"
    assert run("convert", jsonl, "--to", "msgpack", "-o", packed) == (0, b"", "")
    assert run("convert", "--stream", packed, "--to", "protobuf", "-o", delimited)[0] == 0
    assert run("convert", "--stream", delimited, "--to", "jsonl", "-o", back)[0] == 0
    assert back.read_bytes() == canonical_jsonl
    # Every step wrote canonical bytes.
    records = [mjson.decode(line) for line in canonical_jsonl.splitlines()]
    assert packed.read_bytes() == b"".join(mmsgpack.encode(r) for r in records)
    buffer = io.BytesIO()
    stream.write(buffer, records, "protobuf")
    assert delimited.read_bytes() == buffer.getvalue()
    # --to json on a stream writes JSON Lines.
    assert run("convert", "--stream", packed, "--to", "json")[1] == canonical_jsonl
    # No temporary files are left behind.
    assert sorted(p.name for p in tmp_path.iterdir()) == \
        ["back.jsonl", "records.binpb", "records.jsonl", "records.msgpack"]


def test_convert_stops_at_the_broken_record_and_writes_nothing(
        tmp_path: pathlib.Path, broken_jsonl: pathlib.Path) -> None:
    out_file = tmp_path / "out.binpb"
    status, out, err = run("convert", broken_jsonl, "--to", "protobuf", "-o", out_file)
    assert status == 1 and out == b""
    assert f":{BROKEN_LINE}: /message/role:" in err
    assert not out_file.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.jsonl"]
    # To standard output: nothing either.
    status, out, err = run("convert", broken_jsonl, "--to", "msgpack")
    assert status == 1 and out == b""
    # An output file that was there before is left as it was.
    out_file.write_bytes(b"previous")
    assert run("convert", broken_jsonl, "--to", "protobuf", "-o", out_file)[0] == 1
    assert out_file.read_bytes() == b"previous"


def test_convert_single_documents(tmp_path: pathlib.Path) -> None:
    doc = make_record(5)
    source = tmp_path / "r.json"
    source.write_text(json.dumps(doc, indent=2))
    assert run("convert", source, "--to", "protobuf", "-o", tmp_path / "r.pb")[0] == 0
    assert (tmp_path / "r.pb").read_bytes() == mprotobuf.encode(doc)
    assert run("convert", tmp_path / "r.pb", "--to", "msgpack", "-o", tmp_path / "r.mpk")[0] == 0
    assert (tmp_path / "r.mpk").read_bytes() == mmsgpack.encode(doc)
    status, out, _ = run("convert", tmp_path / "r.mpk", "--to", "json")
    assert status == 0 and out == mjson.encode(doc)
    status, out, _ = run("convert", tmp_path / "r.mpk", "--to", "jsonl")
    assert status == 0 and out == mjson.encode(doc) + b"\n"
    # Overwriting an existing file replaces it whole.
    target = tmp_path / "r.pb"
    assert run("convert", source, "--to", "json", "-o", target)[0] == 0
    assert target.read_bytes() == mjson.encode(doc)


def test_convert_refuses_to_drop_unknown_members(tmp_path: pathlib.Path) -> None:
    newer = {**make_record(1), "specversion": "1.1", "mood": "sunny"}
    path = tmp_path / "newer.jsonl"
    path.write_bytes(json.dumps(newer).encode() + b"\n")
    status, out, err = run("convert", path, "--to", "msgpack")
    assert status == 1 and out == b""
    assert err.startswith(f"{path}:1: /mood: ") and "[UNREPRESENTABLE]" in err
    # Into its own encoding it is kept.
    status, out, _ = run("convert", path, "--to", "jsonl")
    assert status == 0 and b'"mood":"sunny"' in out


def test_convert_stdin_to_stdout() -> None:
    lines = b"".join(mjson.encode(make_record(i)) + b"\n" for i in range(30))
    status, packed, err = run("convert", "--from", "jsonl", "-", "--to", "msgpack", stdin=lines)
    assert (status, err) == (0, "")
    status, back, _ = run("convert", "--stream", "--from", "msgpack", "-", "--to", "json",
                          stdin=packed)
    assert status == 0 and back == lines


# -- inspect -----------------------------------------------------------------------


def parse_all(text: str) -> list[Any]:
    decoder = json.JSONDecoder()
    docs, i = [], 0
    while i < len(text):
        doc, end = decoder.raw_decode(text, i)
        docs.append(doc)
        i = end
        while i < len(text) and text[i].isspace():
            i += 1
    return docs


def test_inspect_stream_and_document(tmp_path: pathlib.Path) -> None:
    docs = [make_record(i) for i in range(6)]
    path = tmp_path / "r.binpb"
    with path.open("wb") as fp:
        stream.write(fp, docs, "protobuf")
    status, out, err = run("inspect", "--stream", path)
    assert (status, err) == (0, "")
    text = out.decode()
    assert '\n  "id": "rec-0",\n' in text  # indented, members sorted
    assert parse_all(text) == [json.loads(mjson.encode(d)) for d in docs]
    status, out, _ = run("inspect", "-", stdin=mmsgpack.encode(docs[1]))
    assert status == 0 and parse_all(out.decode()) == [json.loads(mjson.encode(docs[1]))]


def test_inspect_reports_invalid_documents(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(mjson.encode(make_record(0)) + b"\n" + b'{"kind":"fact"}\n'
                     + mjson.encode(make_record(1)) + b"\n")
    status, out, err = run("inspect", path)
    assert status == 1
    assert len(parse_all(out.decode())) == 2
    assert err.startswith(f"{path}:2: ")


def test_inspect_reports_newer_content_without_a_json_form(tmp_path: pathlib.Path) -> None:
    plain = msgpack.unpackb(mmsgpack.encode(make_record(1)), timestamp=0)  # its timestamps and bins kept
    newer = {**plain, "specversion": "1.1", "mood": b"\x00\x01"}
    path = tmp_path / "newer.mpk"
    path.write_bytes(msgpack.packb(newer, use_bin_type=True)
                     + msgpack.packb({**newer, "mood": msgpack.Timestamp(5, 0)}, datetime=False)
                     + mmsgpack.encode(make_record(2)))
    status, out, err = run("inspect", "--stream", path)
    assert status == 1
    assert err.splitlines() == [f"{path}:{i}: /mood: unknown member of a newer minor version [UNREPRESENTABLE]"
                                for i in (1, 2)]
    assert parse_all(out.decode()) == [json.loads(mjson.encode(make_record(2)))]


def test_inspect_says_which_protobuf_fields_it_cannot_show(tmp_path: pathlib.Path) -> None:
    data = mprotobuf.encode({**make_record(1), "specversion": "1.0"}).replace(b"1.0", b"1.1", 1)
    path = tmp_path / "newer.pb"
    path.write_bytes(data + bytes([0x98, 0x06, 0x07]))  # field 99, a varint
    status, out, err = run("inspect", path)
    assert status == 0 and parse_all(out.decode())[0]["specversion"] == "1.1"
    assert err == f"{path}:1: note: /99: fields of a newer minor version, not shown\n"


# -- the installed command ---------------------------------------------------------


def test_python_dash_m(tmp_path: pathlib.Path, broken_jsonl: pathlib.Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "memorywire", "validate", str(broken_jsonl)],
                          capture_output=True, check=False)
    assert proc.returncode == 1
    assert proc.stdout.decode().count("\n") == 1
    assert f":{BROKEN_LINE}: /message/role:".encode() in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "memorywire", "validate", "--type", "X", "-"],
                          capture_output=True, check=False, input=b"")
    assert proc.returncode == 2
