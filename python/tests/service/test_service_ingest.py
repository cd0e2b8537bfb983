"""What batched Put computes once a batch, against the forms it replaces:
the digest of its request (and the operations stores recorded with the
single form before), the norms of embeddings, and the text columns of the
SQLite store."""

from __future__ import annotations

import gc
import hashlib
import math
import operator
import os
import pickle
import random
import sqlite3
import subprocess
import sys
import threading
from array import array
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import STORES, open_test_store
from service_helpers import embedding, fact, fails

import memorywire.protobuf
from memorywire import _compiled
from memorywire.service import Service, Store, records, store, vectors
from memorywire.service.operations import Call
from memorywire.service.operations.common import collector_paused
from memorywire.service.records import Vector, canonical, float32s, recanonical
from memorywire.service.storage import Selection
from memorywire.service.store import Analyzer
from memorywire.service.vectors import norm_of, norms_of, raw_of


def _request(op: str, **extra: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "operation_id": op, "items": [
        {"record": {**fact("a", "one"), "embeddings": embedding([0.1, -0.0, 3e-39, 1e30]),
                    "metadata": {"x": 1, "y": [1.0, True, "s"]}}},
        {"record": fact("b", "two"), "mode": "create"}], **extra}


def _single_digest(req: dict[str, Any]) -> bytes:
    """The digest stores recorded for a Put before: SHA-256 of the method
    and the canonical Protobuf bytes of the request with canonical records."""
    doc = {**req, "items": [{**it, "record": canonical(it["record"])} for it in req["items"]]}
    return hashlib.sha256(b"Put\x00" + memorywire.protobuf.Encoder("memorywire.v1.PutRequest")
                          .encode_valid(doc)).digest()


def _recorded(store: Any, op: str) -> tuple[str, bytes, bytes]:
    with store.write() as tx:
        found = tx.recorded(tx.tenant("t"), op)
        tx.abandon = True
    assert found is not None
    return found  # type: ignore[no-any-return]


@pytest.mark.parametrize("kind", STORES)
def test_put_digest_tells_requests_apart(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    store = open_test_store(kind, request, tmp_path / "s.sqlite3")
    try:
        svc = Service(store)
        call = Call("t")
        first = svc.put(call, _request("op-1"))
        method, digest, response = _recorded(store, "op-1")
        assert (method, digest[:1], len(digest), response) == ("Put", b"\x02", 33, first)
        # Equal requests: map members in another order, a default spelled
        # out, values that round to the same binary32 numbers.
        same = _request("op-1", atomic=False)
        rec = same["items"][0]["record"]
        rec["metadata"] = {"y": [1.0, True, "s"], "x": 1}
        rec["embeddings"][0]["values"][0] = float(array("f", [0.1])[0])
        assert svc.put(call, same) == first
        # Different requests: a value of another binary32 number, another
        # type of a metadata value, -0.0 for 0.0, another item field.
        for change in (lambda r: r["items"][0]["record"]["embeddings"][0]["values"].__setitem__(0, 0.2),
                       lambda r: r["items"][0]["record"]["metadata"].__setitem__("x", 1.0),
                       lambda r: r["items"][0]["record"]["embeddings"][0]["values"].__setitem__(1, 0.0),
                       lambda r: r["items"][1].pop("mode"),
                       lambda r: r.__setitem__("atomic", True)):
            other = _request("op-1")
            change(other)
            fails("OPERATION_ID_REUSED", lambda: svc.put(call, other), "/operation_id")  # noqa: B023
    finally:
        store.close()


def _items_digest(req: dict[str, Any]) -> bytes:
    """The digest of a Put as ``Base.items_digest`` states it, from copies:
    the method, the request without its records, then each canonical record
    with the values of each embedding replaced by their number, and their
    binary32 bytes."""
    h = hashlib.sha256(b"Put\x00")
    bare = memorywire.protobuf.Encoder("memorywire.v1.PutRequest").encode_valid(
        {**req, "items": [{k: v for k, v in it.items() if k != "record"} for it in req["items"]]})
    h.update(len(bare).to_bytes(8, "little") + bare)
    for it in req["items"]:
        rec = canonical(it["record"])
        embeddings = rec.get("embeddings", [])
        counted = {**rec, "embeddings": [{**e, "values": len(e["values"])} for e in embeddings]}
        data = orjson.dumps(counted if embeddings else rec, option=orjson.OPT_SORT_KEYS)
        h.update(len(data).to_bytes(8, "little") + data)
        for e in embeddings:
            h.update(array("f", e["values"]).tobytes())
    return b"\x02" + h.digest()


@pytest.mark.parametrize("kind", STORES)
def test_put_digest_is_that_of_the_records_with_counted_values(kind: str, request: pytest.FixtureRequest,
                                                              tmp_path: Path) -> None:
    """Embeddings of several lengths, several in a record, none, and items
    with and without fields of their own."""
    store = open_test_store(kind, request, tmp_path / "s.sqlite3")
    try:
        svc = Service(store)
        call = Call("t")
        two = [*embedding([0.5, -0.0, 1e-45]), {"model": "other", "dimensions": 2, "values": [1.0, 2.5]}]
        req = _request("op-c")
        req["items"] += [{"record": fact("c", "three", embeddings=two)}, {"record": fact("d", "four"),
                                                                          "expected_revision": 0}]
        svc.put(call, req)
        assert _recorded(store, "op-c")[1] == _items_digest(req)
        # the same records, values as the codec reads them from bytes
        same = memorywire.protobuf.decode(memorywire.protobuf.Encoder("memorywire.v1.PutRequest").encode(
            {**req, "operation_id": "op-d"}), type="memorywire.v1.PutRequest")
        svc.put(call, same)
        assert _recorded(store, "op-d")[1] == _items_digest({**req, "operation_id": "op-d"})
    finally:
        store.close()


def test_stored_form_is_that_of_the_values_as_floats() -> None:
    """pack_split and same write a record's Vectors as a list of floats of
    the same values would be written."""
    doc = records.canonical_record(fact("c", "three", embeddings=[
        *embedding([0.5, -0.0, 1e-45]), {"model": "other", "dimensions": 2, "values": [1.0, 2.5]}]))
    assert all(type(e["values"]) is Vector for e in doc["embeddings"])
    floats = {**doc, "embeddings": [{**e, "values": e["values"].tolist()} for e in doc["embeddings"]]}
    data, vecs = records.pack_split(doc)
    assert (data, vecs) == records.pack_split(floats)
    assert orjson.loads(data)["embeddings"] == [{"dimensions": 3, "model": "demo", "values": 3},
                                                {"dimensions": 2, "model": "other", "values": 2}]
    assert vecs == array("f", [0.5, -0.0, 1e-45, 1.0, 2.5]).tobytes()
    assert records.unpack_split(data, vecs) == floats
    assert records.same(doc, floats) and records.same(floats, doc)
    assert not records.same(doc, {**floats, "embeddings": [{**e, "values": [0.0] * len(e["values"])}
                                                           for e in floats["embeddings"]]})
    with pytest.raises(TypeError):
        records.counted_dumps({"x": b"bytes"}, [])  # no other value is written as a count


@pytest.mark.parametrize("kind", STORES)
def test_put_replays_an_operation_recorded_with_the_single_digest(kind: str, request: pytest.FixtureRequest,
                                                                  tmp_path: Path) -> None:
    store = open_test_store(kind, request, tmp_path / "s.sqlite3")
    try:
        svc = Service(store)
        call = Call("t")
        response = svc.put(call, _request("op-0"))
        # An operation as a store written before recorded it.
        with store.write() as tx:
            tx.record(tx.tenant("t"), "op-old", "Put", _single_digest(_request("op-old")), response)
        with store.reader() as reads:
            before = [row.rev for row in reads.records_by_ids(store.tenant_num("t") or 0, ["a", "b"])]
        assert svc.put(call, _request("op-old", atomic=False)) == response
        with store.reader() as reads:
            assert [row.rev for row in reads.records_by_ids(store.tenant_num("t") or 0, ["a", "b"])] == before
        assert _recorded(store, "op-old")[1] == _single_digest(_request("op-old"))
        other = _request("op-old")
        other["items"][0]["record"]["embeddings"][0]["values"][3] = 2e30
        fails("OPERATION_ID_REUSED", lambda: svc.put(call, other), "/operation_id")
        fails("OPERATION_ID_REUSED", lambda: svc.delete(call, {"specversion": "1.0", "operation_id": "op-old",
                                                               "ids": ["a"]}), "/operation_id")
    finally:
        store.close()


def test_norms_are_those_cosine_computes() -> None:
    rng = random.Random(5)
    vectors = [[], [0.0] * 8, [-0.0, 1e-45, -1e-45], [3.4e38] * 4]
    for _ in range(300):
        scale = 10.0 ** rng.randint(-40, 30)
        vectors.append([rng.gauss(0, 1) * scale for _ in range(rng.choice((1, 3, 384, 1536)))])
    for values in vectors:
        widened = array("f", values).tolist()
        raw = array("f", values).tobytes()
        expected = math.sqrt(sum(map(operator.mul, widened, widened)))
        assert norm_of(raw) == expected
        assert raw_of(values) == (raw, expected)
    # together, vectors of several lengths mixed, as each alone
    raws = [array("f", values).tobytes() for values in vectors]
    rng.shuffle(raws)
    assert norms_of(raws) == [norm_of(raw) for raw in raws]
    assert norms_of(raws[:1]) == [norm_of(raws[0])] and norms_of([]) == []


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "python"])
def test_text_columns_of_the_sqlite_store_are_those_of_its_tokens(compiled: bool,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted from the terms of the chunks of the texts (the compiled
    term columns, or the analyzer's own count) as from their tokens."""
    if compiled:
        assert _compiled.term_columns is not None, "the extension is built where the tests run"
    else:
        monkeypatch.setattr(_compiled, "term_columns", None)
    rng = random.Random(9)
    words = ["memory", "Topic", "Zürich", "naïve", "ÉCOLE", "running", "runs", "a:b", "x\ty", "日本語",
             "emoji😀", "über", "1.5", "foo-bar", "ǅ", "straße", "ﬁle", "Ωmega", "ωmega", "a_b", "'quoted'",
             "123", "0042", "٣٤", "²", "12ab", "1" * 70, "runs123", "e\u0301te", "caf\u0300", "\u0301x"]
    # every kind of whitespace Python splits at
    spaces = [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u2028",
              "\u3000", "  "]
    texts = ["", "   ", "!!!", "a a a a", "A a á", "\x00z", "\u3000", "7", "7 7 07"]
    texts += ["".join(rng.choice(words) + rng.choice(spaces) for _ in range(rng.randint(1, 40))) for _ in range(1500)]
    tokens = Analyzer()
    expected = [tokens.columns(t) for t in texts]
    assert any(n > 1 for n, _ in expected) and (0, None) in expected
    prepared = Analyzer(offsets=False)
    prepared.prepare(texts)
    assert [prepared.columns(t) for t in texts] == expected
    # not prepared, and prepared again once taken
    assert [prepared.columns(t) for t in texts[:300]] == expected[:300]
    for analyzer in (tokens, prepared):
        analyzer.close()


@pytest.mark.parametrize("kind", STORES)
def test_new_records_are_stored_canonical(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> None:
    """A new record is stored as ``recanonical`` gives it, members in their
    order, though write_record orders the members it sets without
    converting the values again (sequence and revision, which the store
    numbers last, follow)."""
    store = open_test_store(kind, request, tmp_path / "s.sqlite3")
    try:
        svc = Service(store)
        call = Call("t")
        records = [
            {**fact("a", "one"), "embeddings": embedding([0.1, 0.2]), "tags": ["x"],
             "provenance": {"trust": "verified", "origin": "system", "source": "s"},
             "scope": {"user": "u", "namespace": ["n", "m"]}},
            {**fact("b", "two"), "lifecycle": {"status": "deleted", "reason": "gone"}},
            {**fact("c", "three"), "provenance": {"trust": "untrusted"}, "created_at": "2020-01-02T03:04:05.5+01:00"},
            {"id": "d", "kind": "custom", "custom": {"type": "t", "value": {"b": 1, "a": [True, 1.5]}},
             "routing": {"agent": "x"}, "lifecycle": {"pinned": True, "importance": 0.5}},
        ]
        for staged, op in ((False, "p-1"), (True, "p-2")):
            svc.put(call, {"specversion": "1.0", "operation_id": op, "require_approval": staged,
                           "scope": {"agent": "g", "session": "s1", "namespace": ["n"]},
                           "items": [{"record": {**x, "id": x["id"] + op}} for x in records]})
        with store.reader() as reads:
            rows = list(reads.records(store.tenant_num("t") or 0, Selection()))
        assert len(rows) == 8
        for row in rows:
            doc = dict(row.doc)
            assert [doc.pop("sequence"), doc.pop("revision")] == [row.seq, 1]
            assert orjson.dumps(doc) == orjson.dumps(recanonical(doc))
            assert list(doc["scope"]) == sorted(doc["scope"]) and "tenant" in doc["scope"]
    finally:
        store.close()


def test_absent_columns_of_a_new_record_are_null(tmp_path: Path) -> None:
    """The SQLite store binds a new record's absent key, terms and vecs as
    empty values that the statement makes NULL, and its documents as
    bytearrays: what it stores is the same as binding None and bytes."""
    store = Store(str(tmp_path / "s.sqlite3"))
    try:
        svc = Service(store)
        svc.put(Call("t"), {"specversion": "1.0", "operation_id": "p", "items": [
            {"record": fact("bare", "!!!")},
            {"record": {**fact("full", "cat dog dog"), "key": "k", "embeddings": embedding([0.5, -0.0])}}]})
        conn = sqlite3.connect(str(tmp_path / "s.sqlite3"))
        rows = conn.execute("SELECT id, key, words, terms, typeof(doc), vecs FROM records ORDER BY id").fetchall()
        conn.close()
        assert rows == [("bare", None, 0, None, "blob", None),
                        ("full", "k", 3, "\tcat:1\tdog:2\t", "blob", array("f", [0.5, -0.0]).tobytes())]
        with store.reader() as reads:
            got = {row.id: row for row in reads.records(store.tenant_num("t") or 0, Selection())}
        assert got["bare"].key is None and "embeddings" not in got["bare"].doc
        assert got["full"].doc["embeddings"][0]["values"] == [0.5, -0.0]
    finally:
        store.close()


def _ordered(value: Any) -> Any:
    """A value with the order of the members of each dict made visible."""
    if type(value) is dict:
        return [(k, _ordered(v)) for k, v in value.items()]
    return value


def test_the_compiled_canonical_order_is_that_of_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """``in_canonical_order`` gives the same members in the same order with
    the compiled ordering as without, nested members included; what the
    compiled one leaves to Python (a member not a dict where it orders one,
    a name not an exact str) comes out as Python orders it."""
    assert _compiled.ordered_record is not None, "the extension is built where the tests run"
    rng = random.Random(13)
    names = ["id", "kind", "fact", "embeddings", "scope", "lifecycle", "provenance", "created_at", "updated_at",
             "tags", "sequence", "revision", "a", "A", "ab", "b", "é", "z\u0301", "日本", "😀", "", "scope2",
             "lifecycles", "Scope", "embedding"]

    def member() -> Any:
        if rng.random() < 0.3:
            sub = {rng.choice(names): rng.randint(0, 3) for _ in range(rng.randint(0, 6))}
            return sub
        return rng.choice([None, 0, 1.5, "x", [1, {"b": 1, "a": 2}], {"b": 1, "a": 2}])

    docs: list[Any] = [{}, {"embeddings": None, "a": 1}, {"embeddings": [1], "z": 0},
                       {"scope": {"tenant": "t", "agent": "a"}, "provenance": {"x": 1}, "lifecycle": None},
                       {"scope": [2, 1]}, {"scope": "ab"}, {"lifecycle": {"b": 1, 1: 2}}, {1: "x", "a": 2}]
    for _ in range(3000):
        doc = {rng.choice(names): member() for _ in range(rng.randint(0, 14))}
        for name in ("scope", "lifecycle", "provenance"):
            if rng.random() < 0.5:
                doc[name] = {rng.choice(names): rng.random() for _ in range(rng.randint(0, 5))}
        docs.append(doc)
    compiled = [None] * len(docs)
    for i, doc in enumerate(docs):
        try:
            compiled[i] = _ordered(records.in_canonical_order(doc))
        except Exception as e:  # noqa: BLE001 - compared with Python's below
            compiled[i] = type(e)
    monkeypatch.setattr(_compiled, "ordered_record", None)
    for i, doc in enumerate(docs):
        try:
            expected = _ordered(records.in_canonical_order(doc))
        except Exception as e:  # noqa: BLE001
            expected = type(e)
        assert compiled[i] == expected, doc
    # the compiled ordering answers where it can (most of them), and leaves the rest
    monkeypatch.undo()
    assert _compiled.ordered_record is not None
    assert sum(_compiled.ordered_record(doc) is not None for doc in docs) > 2000
    assert _compiled.ordered_record({"b": 1, "a": {"y": 1, "x": 2}}) is not None
    for left in ({"scope": [2, 1]}, {1: "x"}, {"lifecycle": {"b": 1, 1: 2}}, {"provenance": "ab"}):
        assert _compiled.ordered_record(left) is None
    assert _compiled.ordered_record(DictSubclass()) is None


class DictSubclass(dict):  # type: ignore[type-arg]
    """A dict subclass, which the compiled ordering leaves to Python."""


def _exact(value: Any) -> Any:
    """A value with the type of each part spelled out: 1, 1.0 and True, 0.0
    and -0.0, bytes and bytearray differ."""
    if isinstance(value, (tuple, list)):
        return (type(value).__name__, [_exact(x) for x in value])
    if isinstance(value, float):
        return ("float", value.hex())
    return (type(value).__name__, value)


def _record_rows(doc: Any, terms: str | None) -> Any:
    """What ``store.record_row`` gives of a document, or the type of what it raises."""
    try:
        return _exact(store.record_row(doc, 7 << 40 | 3, 7, 3, 11, 5, terms))
    except Exception as e:  # noqa: BLE001 - compared below
        return type(e)


def test_the_compiled_record_row_is_that_of_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """A new record's row of ``records`` (bound values and their types), its
    rows of ``embeddings`` and its vector-index entries are the same with the
    compiled builder as without, and so is what either raises; what the
    compiled one leaves to Python (a value not of the type it takes for
    granted) comes out as Python builds it."""
    assert _compiled.record_row is not None, "the extension is built where the tests run"
    rng = random.Random(17)

    def vector() -> Any:
        v = Vector(array("f", [rng.uniform(-1, 1) for _ in range(rng.choice([0, 1, 3, 8]))]).tobytes())
        v.norm = rng.choice([None, 0.0, -0.0, 1.5, 2.25, 1, float("nan")])
        if rng.random() < 0.05:
            v.raw = bytearray(v.raw)  # type: ignore[assignment]
        return v

    def embedding_of() -> Any:
        e: dict[str, Any] = {"model": rng.choice(["m", "n", ""]), "values": vector()}
        if rng.random() < 0.5:
            e["dimensions"] = rng.choice([3, 8, 0, True, 3.0, None, "3"])
        if rng.random() < 0.05:
            del e[rng.choice(["model", "values"])]
        if rng.random() < 0.05:
            e["values"] = rng.choice([[0.5, 1.0], None, "v"])
        return e

    def scope_of() -> Any:
        scope: dict[str, Any] = {name: rng.choice(["", "u", 1]) for name in
                                 rng.sample(["user", "agent", "session", "run", "task", "project", "tenant"],
                                            rng.randint(0, 7))}
        if rng.random() < 0.5:
            scope["namespace"] = rng.choice([[], ["a"], ["a", "b"], None, 5, "ab"])
        return scope

    docs: list[Any] = []
    for _ in range(3000):
        doc: dict[str, Any] = {"id": f"r{rng.randint(0, 9)}", "kind": "fact", "fact": {"text": "t"},
                               "sequence": 3, "revision": 1}
        if rng.random() < 0.6:
            doc["embeddings"] = [embedding_of() for _ in range(rng.randint(0, 3))]
        if rng.random() < 0.6:
            doc["scope"] = scope_of()
        if rng.random() < 0.3:
            doc["routing"] = {name: "a" for name in rng.sample(["agent", "caller_agent", "other"], rng.randint(0, 3))}
        if rng.random() < 0.3:
            doc["lifecycle"] = rng.choice([None, {}, {"status": "archived"}, {"status": 1}, {"access_count": 2}])
        if rng.random() < 0.3:
            doc["key"] = rng.choice([None, "", "k", 0, 5])
        if rng.random() < 0.05:
            doc[rng.choice(["scope", "routing", "embeddings"])] = rng.choice([None, "x", (), [1]])
        if rng.random() < 0.03:
            del doc[rng.choice(["id", "kind"])]
        if rng.random() < 0.02:
            doc["tags"] = {1, 2}  # no JSON
        docs.append(doc)
    terms = [rng.choice([None, "", "\ta:1\t"]) for _ in docs]
    compiled = [_record_rows(doc, t) for doc, t in zip(docs, terms, strict=True)]

    def answers(doc: Any) -> bool:
        assert _compiled.record_row is not None
        try:
            return _compiled.record_row(doc, 1, 1, 1, 1, 1, None, Vector, orjson.dumps, records.dumps_counted,
                                        records.namespace_key) is not None
        except Exception:  # noqa: BLE001 - raised as Python raises it, above
            return True

    answered = sum(map(answers, docs))
    monkeypatch.setattr(_compiled, "record_row", None)
    for doc, t, got in zip(docs, terms, compiled, strict=True):
        assert got == _record_rows(doc, t), doc
    # the compiled builder answers where it can, and leaves the rest
    assert answered > 1000
    assert len({type(x) for x in compiled}) > 1  # some raise, alike


def test_float32s_are_the_binary32_bytes_and_values_when_read() -> None:
    rng = random.Random(11)
    vectors: list[list[Any]] = [[], [0, 1, -2], [-0.0, 0.0, 1e-46, 3e-39, 3.4028235e38, 1e39, -1e39]]
    vectors += [[rng.gauss(0, 1) * 10.0 ** rng.randint(-45, 38) for _ in range(n)]
                for n in (1, 7, 384, 385) for _ in range(50)]
    for values in vectors:
        a = array("f", values)
        out = float32s(values)
        assert type(out) is Vector and out.raw == a.tobytes() and len(out) == len(a)
        assert (out.tolist(), [type(x) for x in out]) == (a.tolist(), [float] * len(a))
        assert float32s(out) is out and bool(out) == bool(values)
        # equal to the values of the same binary32 bytes, in any form
        assert out == a.tolist() and a.tolist() == out and out == float32s(a.tolist())
        assert not out != a.tolist()
    # 0.0 and -0.0 differ, so do values of other binary32 numbers and lengths
    assert float32s([0.0]) != [-0.0] and float32s([0.1]) != [0.2] and float32s([1.0]) != [1.0, 1.0]
    assert float32s([0.1]) == [float(array("f", [0.1])[0])] and float32s([1.0]) != ["x"]
    with pytest.raises(TypeError):
        orjson.dumps(float32s([1.0]))  # never written as something else


def test_float32s_are_the_same_without_the_compiled_packer() -> None:
    """With MEMORYWIRE_PURE=1 (and where the extension is not built) struct
    packs every vector, to the same bytes as the compiled packer, and numpy
    or ``sum`` measure their norms, as the compiled sums do."""
    rng = random.Random(12)
    tests: list[list[Any]] = [[], [0, 1, -2, True], [-0.0, 0.0, 1e-46, 3e-39, 3.4028235e38, 1e39, -1e39],
                                [math.inf, -math.inf, 0.5], [3.4028235677973366e38, 1.0]]
    tests += [[rng.gauss(0, 1) * 10.0 ** rng.randint(-45, 38) for _ in range(n)]
                for n in (1, 7, 384, 385) for _ in range(20)]
    assert _compiled.float32_le is not None  # the compiled packer is in use here
    assert (vectors._sum_squares is not None) == (sys.version_info < (3, 12))
    script = ("import sys, pickle\n"
              "from memorywire import _compiled\n"
              "from memorywire.service import records, vectors\n"
              "assert _compiled.float32_le is None and vectors._sum_squares is None\n"
              "raws = [records.float32s(v).raw for v in pickle.loads(sys.stdin.buffer.read())]\n"
              "sys.stdout.buffer.write(pickle.dumps((raws, vectors.norms_of(raws))))\n")
    done = subprocess.run([sys.executable, "-c", script], input=pickle.dumps(tests),
                          env={**os.environ, "MEMORYWIRE_PURE": "1"}, capture_output=True, check=True)
    pure, pure_norms = pickle.loads(done.stdout)
    assert pure == [float32s(v).raw for v in tests] == [array("f", v).tobytes() for v in tests]
    # the norms too, the compiled sums (where Python's sum adds in order) and numpy's
    norms = norms_of(pure)
    assert [str(x) for x in norms] == [str(x) for x in pure_norms] == [str(norm_of(raw)) for raw in pure]
    with pytest.raises(TypeError):
        records.raw_values([0.5, "x"])


def test_a_put_leaves_no_reference_cycle(tmp_path: Path) -> None:
    """What a Put leaves, reference counting frees as it returns: the
    collector, paused during the Put, finds nothing to collect after it
    (a write transaction in a cycle would hold its embeddings' bytes)."""
    store = Store(str(tmp_path / "s.sqlite3"))
    svc = Service(store)
    try:
        svc.put(Call("t"), _request("op-1"))  # the tenant, the first statements
        gc.collect()
        gc.disable()
        try:
            svc.put(Call("t"), {**_request("op-2"), "items": [
                {"record": {**fact(f"r{i}", f"text {i}"), "embeddings": embedding([0.5, float(i)])}}
                for i in range(50)]})
            assert gc.collect() == 0
        finally:
            gc.enable()
    finally:
        store.close()


def test_the_collector_is_paused_during_a_put(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "s.sqlite3"))
    seen: list[tuple[str, bool]] = []
    svc = Service(store)

    def observed(name: str) -> None:
        original = getattr(svc, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            seen.append((name, gc.isenabled()))
            return original(*args, **kwargs)

        setattr(svc, name, call)

    for name in ("items_digest", "mutate", "write_record"):
        observed(name)
    try:
        assert gc.isenabled()
        svc.put(Call("t"), _request("op-1"))
        assert seen == [("items_digest", False), ("mutate", False), ("write_record", False),
                        ("write_record", False)]
        assert gc.isenabled()
        # The block that turned it off turns it on; one within, or in
        # another thread meanwhile, changes nothing.
        with collector_paused():
            with collector_paused():
                assert not gc.isenabled()
            assert not gc.isenabled()
            done = threading.Event()

            def other() -> None:
                with collector_paused():
                    pass
                done.set()

            threading.Thread(target=other).start()
            assert done.wait(10) and not gc.isenabled()
        assert gc.isenabled()
        gc.disable()
        try:
            svc.put(Call("t"), _request("op-2"))
            assert not gc.isenabled()
        finally:
            gc.enable()
        # A failing Put turns it on again too.
        other = _request("op-3", atomic=True)
        other["items"][1]["mode"] = "create"
        fails("BATCH_FAILED", lambda: svc.put(Call("t"), other))
        assert gc.isenabled()
    finally:
        store.close()
