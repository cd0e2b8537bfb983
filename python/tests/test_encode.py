"""The writers of memorywire._encode against the walkers of memorywire._compiled.

Every encoder must write exactly the bytes it wrote before the writers that
hand their work to upb and msgspec: the tests here compare the two on every
document of the conformance vectors (as each decoder gives it back) and on
generated documents. With MEMORYWIRE_PURE=1 only the walkers run.
"""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import subprocess
import sys
from typing import Any

import msgpack
import orjson
import pytest
import strategies as S
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import memorywire.json as mj
import memorywire.msgpack as mm
import memorywire.protobuf as mp
from memorywire import _codec, _compiled, _encode, _model, validation
from memorywire.errors import MemorywireError

ROOT = pathlib.Path(__file__).resolve().parents[2]
VECTORS = sorted((ROOT / "conformance" / "vectors" / "v1").glob("[A-Z]*.json"))
RECORD = "memorywire.v1.MemoryRecord"
_PACK = msgpack.Packer(use_bin_type=True, datetime=False).pack


def walkers(doc: Any, type_name: str) -> dict[str, bytes]:
    """The canonical bytes the walkers of memorywire._compiled write."""
    return {
        "json": orjson.dumps(_compiled.function("js", type_name)(doc), option=orjson.OPT_SORT_KEYS),
        "msgpack": _PACK(_compiled.function("mp", type_name)(doc)),
        "protobuf": _compiled.function("pb", type_name)(doc),
    }


def writers(doc: Any, type_name: str) -> dict[str, bytes]:
    """The canonical bytes the writers of memorywire._encode write."""
    return {
        "json": orjson.dumps(_encode.json_canonical(type_name)(doc), option=orjson.OPT_SORT_KEYS),
        "msgpack": _encode.msgpack_writer(type_name)(doc),
        "protobuf": _encode.protobuf_writer(type_name)(doc),
    }


def _vector_documents() -> list[tuple[str, str, Any]]:
    """Every document a decoder accepts among the inputs of the vectors."""
    decoders = {"json": mj, "msgpack": mm, "protobuf": mp}
    out = []
    for path in VECTORS:
        for case in json.loads(path.read_text())["cases"]:
            for encoding, given_input in case["inputs"].items():
                data = given_input["text"].encode() if "text" in given_input else bytes.fromhex(given_input["hex"])
                try:
                    doc, walk = decoders[encoding].Decoder(case["type"]).decode_walk(data)
                except MemorywireError:
                    continue
                if not walk.unknown and type(doc) is not _codec.PartialDocument:
                    out.append((f"{case['name']}/{encoding}", case["type"], doc))
    return out


DOCUMENTS = _vector_documents()


def test_the_vectors_give_documents_of_every_kind() -> None:
    assert len(DOCUMENTS) >= 300
    assert any(type(v) is _codec.Float32Values for _, _, doc in DOCUMENTS
               for e in doc.get("embeddings", []) for v in [e.get("values")])


@pytest.mark.parametrize(("name", "type_name", "doc"), DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_writers_agree_with_the_walkers_on_the_vectors(name: str, type_name: str, doc: Any) -> None:
    assert writers(doc, type_name) == walkers(doc, type_name)


def test_writers_serve_the_vectors_without_falling_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The upb writer builds the message of every record of the vectors; a
    writer that always fell back would agree with the walkers trivially."""
    built = []
    for _, type_name, doc in DOCUMENTS:
        if type_name == RECORD:
            info = _model.message(type_name)
            message = info.cls(**_encode.FUNCTIONS["up_MemoryRecord"](doc))
            fix = _encode.FUNCTIONS.get("fix_MemoryRecord")
            if fix is not None:
                fix(message, doc)
            built.append(message.SerializeToString() == _compiled.function("pb", type_name)(doc))
    assert len(built) >= 100 and all(built)


def test_canonical_forms_keep_the_document_where_nothing_changes() -> None:
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"},
           "created_at": "2026-01-01T00:00:00.100Z", "scope": {"tenant": "a"}}
    assert _encode.json_canonical(RECORD)(doc) is doc
    # A member with its default value is dropped, by the walker.
    assert "tags" not in _encode.json_canonical(RECORD)({**doc, "tags": []})
    # A spelling that is not canonical is rewritten, in a copy.
    changed = {**doc, "created_at": "2026-01-01T00:00:00.100000Z"}
    out = _encode.json_canonical(RECORD)(changed)
    assert out["created_at"] == "2026-01-01T00:00:00.100Z" and changed["created_at"].endswith("100000Z")


def test_msgpack_writer_writes_timestamps_as_the_walkers() -> None:
    write = _encode.msgpack_writer(RECORD)
    for stamp in ("1970-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", "2514-05-30T01:53:04Z",
                  "2514-05-30T01:53:04.000000001Z", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z",
                  "1969-12-31T23:59:59.999Z"):
        doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}, "created_at": stamp,
               "lifecycle": {"importance": 0.0, "expires_at": stamp}}
        assert write(doc) == walkers(doc, RECORD)["msgpack"], stamp


_STAMPS = st.builds(
    lambda day, second, digits, fraction: (
        f"{datetime.date.fromordinal(day).isoformat()}T"
        f"{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
        + (f".{fraction % 10**digits:0{digits}d}" if digits else "") + "Z"),
    st.integers(1, datetime.date(9999, 12, 31).toordinal()), st.integers(0, 86399),
    st.integers(0, 9), st.integers(0, 10**9 - 1))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(stamp=st.one_of(_STAMPS, st.sampled_from([
    "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "1969-12-31T23:59:59.999999Z",
    "2106-02-07T06:28:15Z", "2106-02-07T06:28:16Z", "2514-05-30T01:53:03.999999Z", "2514-05-30T01:53:04Z",
    "2024-02-29T12:00:00.1Z", "1970-01-01T00:00:00.000001Z", "1970-01-01T00:00:00.0000001Z"])))
def test_writers_write_any_timestamp_as_the_walkers(stamp: str) -> None:
    """Timestamps with at most six digits of a fraction take datetime (read
    in C, and written by msgspec); the others the arithmetic of
    memorywire._timestamp: both give the walkers' bytes, in each of the
    three forms of the MessagePack extension (32, 64 and 96 bits)."""
    doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}, "created_at": stamp,
           "lifecycle": {"importance": 0.5, "expires_at": stamp}}
    assert not validation.check(doc, RECORD)[0]
    expected = walkers(doc, RECORD)
    assert writers(doc, RECORD) == expected
    # Where datetime cannot read the "Z" (Python 3.10), the arithmetic alone.
    reads_utc = _encode._ISO_UTC
    try:
        _encode._ISO_UTC = False
        assert writers(doc, RECORD) == expected
    finally:
        _encode._ISO_UTC = reads_utc


GENERATED = settings(max_examples=40, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                            HealthCheck.data_too_large])


@pytest.mark.parametrize("type_name", [RECORD, "memorywire.v1.PutRequest", "memorywire.v1.SearchRequest",
                                       "memorywire.v1.GetResponse", "memorywire.v1.Error"],
                         ids=lambda t: t.rsplit(".", 1)[1])
def test_writers_agree_with_the_walkers_on_generated_documents(type_name: str) -> None:
    counts = {"valid": 0}

    @GENERATED
    @given(doc=S.documents(type_name))
    def agree(doc: dict[str, Any]) -> None:
        if validation.check(doc, type_name)[0]:
            return
        counts["valid"] += 1
        assert writers(doc, type_name) == walkers(doc, type_name)
        # And as each decoder gives the document back.
        for module in (mj, mm, mp):
            back = module.decode(module.encode(doc, type=type_name), type=type_name)
            assert writers(back, type_name) == walkers(back, type_name)

    agree()
    assert counts["valid"] >= 10, counts


def _with_surrogate(node: Any, index: int) -> tuple[Any, int]:
    """A copy of node in which the string (or member name) at the given
    position, in document order, ends in a lone surrogate; and how many
    strings were passed."""
    if type(node) is str:
        return (node + "\ud800" if index == 0 else node), 1
    count = 0
    if type(node) is list:
        out = []
        for x in node:
            y, n = _with_surrogate(x, index - count)
            out.append(y)
            count += n
        return out, count
    if type(node) is dict:
        doc = {}
        for k, v in node.items():
            key = k + "\udfff" if type(k) is str and index - count == 0 else k
            count += type(k) is str
            doc[key], n = _with_surrogate(v, index - count)
            count += n
        return doc, count
    return node, 0


def _error(call: Any, *args: Any, **kwargs: Any) -> tuple[str, list[tuple[str, str, str]]] | None:
    try:
        call(*args, **kwargs)
    except MemorywireError as e:
        return e.reason, [(v.pointer, v.reason, v.message) for v in e.violations]
    return None


@pytest.mark.parametrize("type_name", [RECORD, "memorywire.v1.PutRequest"], ids=lambda t: t.rsplit(".", 1)[1])
def test_encoders_name_a_lone_surrogate_as_the_screen_does(type_name: str) -> None:
    """The encoders screen the strings of a document only once the validator
    or the writer refused it: the error is the one the screen before the
    write gave, for a surrogate in any string or member name, and a valid
    document is written as before."""
    counts = {"documents": 0}

    @GENERATED
    @given(doc=S.documents(type_name), data=st.data())
    def named(doc: dict[str, Any], data: Any) -> None:
        _, strings = _with_surrogate(doc, -1)
        bad, _ = _with_surrogate(doc, data.draw(st.integers(0, strings - 1)))
        limits = mj.Encoder(type_name).limits
        for candidate in (doc, bad):
            screened = _error(validation_written, candidate, type_name, limits)
            for module in (mj, mm, mp):
                for canonical in (True, False):
                    encoder = module.Encoder(type_name)
                    assert _error(encoder.encode, candidate, canonical=canonical) == screened, module
        counts["documents"] += 1

    named()
    assert counts["documents"] >= 20


def validation_written(doc: Any, type_name: str, limits: Any) -> None:
    """The validator and the screen of strings, as the encoders ran them
    before every write."""
    from memorywire import _document

    _document.validated(doc, type_name, limits, written=True)


def test_without_the_fast_writers_the_encoders_write_the_same_bytes() -> None:
    """MEMORYWIRE_PURE=1: the encoders take the walkers, with the same output."""
    docs = [doc for _, type_name, doc in DOCUMENTS if type_name == RECORD][:60]
    text = json.dumps([mj.encode(doc).decode() for doc in docs])
    script = (
        "import json, sys\n"
        "import memorywire.json as mj, memorywire.msgpack as mm, memorywire.protobuf as mp\n"
        "from memorywire import _encode\n"
        "assert not _encode.ENABLED\n"
        "docs = [mj.decode(t) for t in json.loads(sys.stdin.read())]\n"
        "print(json.dumps([[mj.encode(d).decode(), mm.encode(d).hex(), mp.encode(d).hex()] for d in docs]))\n"
    )
    env = {**os.environ, "MEMORYWIRE_PURE": "1"}
    done = subprocess.run([sys.executable, "-c", script], input=text, capture_output=True, text=True,
                          env=env, check=True)
    pure = json.loads(done.stdout)
    assert len(pure) == len(docs) >= 50
    for doc, (js, mp_hex, pb_hex) in zip(docs, pure, strict=True):
        assert js.encode() == mj.encode(doc)
        assert bytes.fromhex(mp_hex) == mm.encode(doc)
        assert bytes.fromhex(pb_hex) == mp.encode(doc)


def test_without_the_extension_the_encoders_write_the_same_bytes() -> None:
    """An install where memorywire._speedups could not be built: the
    generated functions write every document, with the same output."""
    docs = [doc for _, type_name, doc in DOCUMENTS if type_name == RECORD][:60]
    text = json.dumps([mj.encode(doc).decode() for doc in docs])
    script = (
        "import json, sys\n"
        "sys.modules['memorywire._speedups'] = None  # its import fails, as where it was not built\n"
        "import memorywire.json as mj, memorywire.msgpack as mm\n"
        "from memorywire import _encode\n"
        "assert _encode.ENABLED and not _encode._C_TABLES\n"
        "assert _encode.c_canonical('js', 'memorywire.v1.MemoryRecord') is None\n"
        "docs = [mj.decode(t) for t in json.loads(sys.stdin.read())]\n"
        "print(json.dumps([[mj.encode(d).decode(), mm.encode(d).hex()] for d in docs]))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], input=text, capture_output=True, text=True, check=True)
    generated = json.loads(done.stdout)
    assert len(generated) == len(docs) >= 50
    for doc, (js, mp_hex) in zip(docs, generated, strict=True):
        assert js.encode() == mj.encode(doc)
        assert bytes.fromhex(mp_hex) == mm.encode(doc)


def test_float32_vectors_round_as_an_array_does() -> None:
    """struct packs a vector's values in one call; they round to nearest as
    the array of binary32 values the validator builds would."""
    import struct
    from array import array

    largest = struct.unpack("<f", b"\xff\xff\x7f\x7f")[0]
    values = [0.0, -0.0, 1, -3, 0.1, 1e-45, 1e-46, -1e-40, largest, -largest,
              3.4028235677973362e38, 2.0**-149, 0.3333333333333333, 16777217, 1.0000000596046448]
    expected = array("f", values)
    if sys.byteorder != "little":
        expected.byteswap()
    assert _compiled.float32_bytes(values) == expected.tobytes()
    assert _compiled.float32_values(values) == tuple(array("f", values).tolist())
    vector = _codec.Float32Values([1.5])
    vector.raw = b"\x00\x00\xc0\x3f"
    assert _compiled.float32_bytes(vector) is vector.raw


def test_msgspec_writes_the_vectors_without_falling_back() -> None:
    """msgspec writes the MessagePack form of every record of the vectors;
    a writer that always fell back would agree with the walkers trivially."""
    import msgspec

    encode = msgspec.msgpack.Encoder(order="deterministic", enc_hook=_encode._mp_hook).encode
    records = [doc for _, type_name, doc in DOCUMENTS if type_name == RECORD]
    assert len(records) >= 100
    for doc in records:
        assert encode(_encode.FUNCTIONS["mp_MemoryRecord"](doc)) == walkers(doc, RECORD)["msgpack"]


# -- the canonical pass and the MessagePack writer in C -----------------------


def _outcome(call: Any, *args: Any) -> tuple[Any, ...]:
    """What a call gives: its value, or the type and text of what it raises."""
    try:
        return ("value", call(*args))
    except Exception as e:  # noqa: BLE001 - the two paths must raise alike, whatever they raise
        return ("raises", type(e), str(e))


def compiled_agree(doc: Any, type_name: str, exact_errors: bool) -> None:
    """The passes in C give what the generated functions give: the same
    canonical form (the document itself exactly where it is kept), the same
    MessagePack bytes, or an error; with exact_errors (a document with one
    fault at most) the same error. Of two faults, the generated functions
    may meet either first: they find some members through a set."""
    def same(got: tuple[Any, ...], expected: tuple[Any, ...], job: str) -> None:
        if exact_errors or expected[0] == "value":
            assert got == expected, job
        else:
            assert got[0] == "raises", job

    for job in ("js", "mp"):
        c, py = _encode.c_canonical(job, type_name), _encode.FUNCTIONS[f"{job}_{_model.message(type_name).name}"]
        got, expected = _outcome(c, doc), _outcome(py, doc)
        if expected[0] == "value":
            assert got[0] == "value" and (got[1] is doc) == (expected[1] is doc), job
            if job == "js":
                got, expected = (_outcome(orjson.dumps, x[1], orjson.OPT_SORT_KEYS) for x in (got, expected))
            else:
                encode = _encode.msgspec.msgpack.Encoder(order="deterministic", enc_hook=_encode._mp_hook).encode
                got, expected = (_outcome(encode, x[1]) for x in (got, expected))
        same(got, expected, job)
    written = _outcome(_encode.msgpack_writer(type_name), doc)
    same(written, _outcome(_encode.msgpack_writer(type_name, compiled=False), doc), "msgpack")
    js = _outcome(lambda d: orjson.dumps(_encode.json_canonical(type_name)(d), option=orjson.OPT_SORT_KEYS), doc)
    same(js, _outcome(lambda d: orjson.dumps(_encode.json_canonical(type_name, compiled=False)(d),
                                             option=orjson.OPT_SORT_KEYS), doc), "json")


#: Values of every kind a member may hold by mistake or by default.
_ODD_VALUES = st.sampled_from([
    "", 0, 0.0, -0.0, False, None, [], {}, True, 1, 2**64, -(2**63) - 1, 2**64 - 1, -(2**63), 1.5, "x",
    "\ud800", "2026-01-01T00:00:00Z", "0000-01-01T00:00:00.5Z", "1969-12-31T23:59:59.123456789Z",
    "2514-05-30T01:53:04Z", "AAEC", b"\x00", [1, "a"], {"a": 1}, (1,), [{}], [{"a": ""}],
    _codec.Float32Values([0.5]), [0.1, 2**70], [1e39], [True, 1e-46, -0.0],
    datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc),
    msgpack.Timestamp(1, 2)])


@pytest.mark.parametrize("type_name", [RECORD, "memorywire.v1.PutRequest", "memorywire.v1.SearchRequest",
                                       "memorywire.v1.GetResponse", "memorywire.v1.ExportResponse"],
                         ids=lambda t: t.rsplit(".", 1)[1])
def test_the_passes_in_c_agree_with_the_generated_functions(type_name: str) -> None:
    """On generated documents, valid or not, and on copies in which one
    member of a message, or one string, is changed: to a default value, a
    value of another type, a lone surrogate."""
    counts = {"documents": 0, "changed": 0, "valid": 0}

    @GENERATED
    @given(doc=S.documents(type_name), data=st.data())
    def agree(doc: dict[str, Any], data: Any) -> None:
        valid = not validation.check(doc, type_name)[0]
        compiled_agree(doc, type_name, valid)
        counts["documents"] += 1
        _, strings = _with_surrogate(doc, -1)
        if strings:
            compiled_agree(_with_surrogate(doc, data.draw(st.integers(0, strings - 1)))[0], type_name, valid)
        nodes = S.message_nodes(doc, type_name)
        node, info, _ = nodes[data.draw(st.integers(0, len(nodes) - 1))]
        name = data.draw(st.sampled_from(sorted(info.fields) + ["unknown"]))
        node[name] = data.draw(_ODD_VALUES)
        compiled_agree(doc, type_name, valid)
        counts["changed"] += 1
        counts["valid"] += valid

    agree()
    assert counts["documents"] >= 20 and counts["changed"] >= 20 and counts["valid"] >= 5, counts


def test_the_msgpack_writer_in_c_serves_the_vectors_itself() -> None:
    """The writer in C writes every record of the vectors without handing it
    to the generated functions: agreeing with them is not by falling back."""
    import functools

    from memorywire import _speedups

    tables, index = _encode._C_TABLES["mp"]
    handed: list[Any] = []
    write = functools.partial(_speedups.canonical_msgpack, tables, index["MemoryRecord"], handed.append)
    records = [doc for _, type_name, doc in DOCUMENTS if type_name == RECORD]
    for doc in records:
        assert write(doc) == walkers(doc, RECORD)["msgpack"]
    assert len(records) >= 100 and not handed


def test_the_passes_in_c_hold_no_reference() -> None:
    """Every object a pass in C is given or makes is released, on every way
    out: a kept document, a copy, the walker, the fallback, an error."""
    base = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"},
            "created_at": "2026-01-01T00:00:00.100000Z",
            "lifecycle": {"importance": 1, "expires_at": "2026-01-02T00:00:00Z"},
            "embeddings": [{"values": [0.5, 1], "model": "m"}], "tags": ["a"], "metadata": {"b": [1, {"c": None}]}}
    docs = [base, {**base, "tags": []}, {**base, "fact": {"text": "t", "subject": ""}},
            {**base, "id": "\ud800"}, {**base, "metadata": {"x": 2**70}}, {**base, "tags": ("a",)},
            {**base, "lifecycle": {"importance": "not a number"}}, {**base, "created_at": 5}]
    writers = [_encode.c_canonical("js", RECORD), _encode.c_canonical("mp", RECORD), _encode.msgpack_writer(RECORD)]

    def objects(node: Any) -> list[Any]:
        out = [node]
        if type(node) is dict:
            for k, v in node.items():
                out += [k, *objects(v)]
        elif type(node) in (list, tuple):
            for v in node:
                out += objects(v)
        return out

    def shared(x: Any) -> bool:
        # Objects the whole interpreter holds (None, the small ints, interned
        # names such as "values"): other threads of the process move their
        # counts too, so a leak shows there as a count grown by every call.
        return x is None or type(x) is bool or (type(x) is int and -5 <= x <= 256) or (
            type(x) is str and sys.intern(x) is x)

    calls = 50
    for doc in docs:
        for write in writers:
            _outcome(write, doc)  # the names of the document enter the caches of the tables
            parts = objects(doc)
            kinds = [shared(x) for x in parts]
            held = [sys.getrefcount(x) for x in parts]
            for _ in range(calls):
                _outcome(write, doc)
            now = [sys.getrefcount(x) for x in parts]
            for x, is_shared, before, after in zip(parts, kinds, held, now, strict=True):
                if is_shared:
                    assert abs(after - before) < calls, (x, before, after)
                else:
                    assert after == before, (x, before, after)


def test_the_msgpack_writer_in_c_hands_on_deep_documents() -> None:
    """Nesting beyond what the writer in C follows goes to the former
    writer, with the same bytes; nesting within it stays in C."""
    import functools

    from memorywire import _speedups

    tables, index = _encode._C_TABLES["mp"]
    for depth, handed_on in ((50, False), (300, True)):  # a map and a list a level
        value: Any = "leaf"
        for _ in range(depth):
            value = {"a": [value]}
        doc = {"specversion": "1.0", "id": "r", "kind": "fact", "fact": {"text": "t"}, "metadata": {"v": value}}
        handed: list[Any] = []

        def former(d: Any, handed: list[Any] = handed) -> bytes:
            handed.append(d)
            return _encode.msgpack_writer(RECORD, compiled=False)(d)  # type: ignore[no-any-return]

        write = functools.partial(_speedups.canonical_msgpack, tables, index["MemoryRecord"], former)
        assert write(doc) == _encode.msgpack_writer(RECORD, compiled=False)(doc)
        assert bool(handed) is handed_on
        compiled_agree(doc, RECORD, True)
