"""The change log as the stores keep it (operations.md section 16.1): every
change replays the record exactly as the change left it, whatever happened to
the record since; retention drops the oldest changes and a resume beyond
them is answered with CURSOR_EXPIRED; batched Put keeps the order and the
atomicity of its items. On each store (``kind``)."""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import STORES, open_test_store
from service_helpers import downgrade_to_schema_3, fact

import memorywire.protobuf
from memorywire.service import Service, Store, stores_common
from memorywire.service import postgres as postgres_module
from memorywire.service import store as store_module
from memorywire.service.errors import ServiceError
from memorywire.service.operations import Call
from memorywire.service.storage import Storage

CALL = Call("t")


def _f32(values: list[float]) -> list[float]:
    return array("f", values).tolist()


def _vec(i: int, dims: int = 8) -> list[float]:
    return _f32([((i * 7 + d * 3) % 11 - 5) / 4.0 for d in range(dims)])


@pytest.fixture(params=STORES)
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def open_store(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[..., Storage]]:
    opened: list[Storage] = []

    def make(**options: Any) -> Storage:
        store = open_test_store(kind, request, tmp_path / f"s{len(opened)}.sqlite3", **options)
        opened.append(store)
        return store

    yield make
    for store in opened:
        store.close()


def _op(svc: Service, method: str, n: list[int], **req: Any) -> Any:
    n[0] += 1
    data = getattr(svc, method)(CALL, {"specversion": "1.0", "operation_id": f"op-{n[0]}", **req})
    return memorywire.protobuf.decode(data, type=f"memorywire.v1.{_RESPONSES[method]}")


_RESPONSES = {"put": "PutResponse", "get": "GetResponse", "update": "UpdateResponse",
              "delete": "DeleteResponse"}


def _events(svc: Service, count: int, **req: Any) -> list[dict[str, Any]]:
    """The first ``count`` events of a Watch."""
    frames = svc.watch(CALL, {"specversion": "1.0", "operation_id": "w", "max_events": count, **req})
    return [memorywire.protobuf.decode(data, type="memorywire.v1.WatchResponse")["event"] for data in frames]


def _stored(svc: Service, n: list[int], record_id: str) -> dict[str, Any]:
    got = _op(svc, "get", n, ids=[record_id], include_deleted=True)
    return dict(got["records"][0])


def test_every_change_replays_the_record_as_it_left_it(open_store: Callable[..., Storage]) -> None:
    """A change keeps the record as the change left it: a later version, an
    access counted by Get, a soft deletion do not alter what it replays; a
    deletion for good leaves its earlier changes as minimal tombstones."""
    svc = Service(open_store())
    n = [0]
    expected: list[tuple[str, dict[str, Any]]] = []
    a = fact("a", "first text", embeddings=[{"model": "m", "dimensions": 8, "values": _vec(1)}])
    _op(svc, "put", n, items=[{"record": a}])
    expected.append(("created", _stored(svc, n, "a")))
    _op(svc, "get", n, ids=["a"], touch=True)  # an access: no change
    a2 = fact("a", "second text", embeddings=[{"model": "m", "dimensions": 8, "values": _vec(2)}])
    _op(svc, "put", n, items=[{"record": a2}])
    expected.append(("updated", _stored(svc, n, "a")))
    _op(svc, "update", n, id="a", patch={"tags": ["x"]})
    expected.append(("updated", _stored(svc, n, "a")))
    _op(svc, "get", n, ids=["a"], touch=True)
    _op(svc, "put", n, items=[{"record": fact("b", "other")}, {"record": fact("c", "gone soon")}])
    expected.append(("created", _stored(svc, n, "b")))
    expected.append(("created", _stored(svc, n, "c")))
    _op(svc, "delete", n, ids=["b"])
    expected.append(("deleted", _stored(svc, n, "b")))
    _op(svc, "update", n, id="c", patch={"tags": ["y"]})
    _op(svc, "delete", n, ids=["c"], mode="hard")
    events = _events(svc, len(expected) + 2, from_start=True)
    assert [(e["type"], e["record"]["id"]) for e in events] == [
        *[(t, d["id"]) for t, d in expected], ("updated", "c"), ("deleted", "c")]
    for (_, want), event in zip(expected, events, strict=False):
        if want["id"] != "c":
            assert event["record"] == want
    # the access fields of Get's touch are in the record, not in the changes before it
    assert _stored(svc, n, "a")["lifecycle"]["access_count"] == 2
    assert "access_count" not in events[0]["record"].get("lifecycle", {})
    # a deletion for good: the earlier changes of c carry no content
    for event in (events[4], *events[-2:]):
        record = event["record"]
        assert "fact" not in record and record["lifecycle"]["status"] == "deleted"
    # the stream resumes from any event with exactly the events after it
    for i, event in enumerate(events):
        rest = _events(svc, len(events) - i - 1, cursor=event["cursor"]) if i < len(events) - 1 else []
        assert [e["cursor"] for e in rest] == [e["cursor"] for e in events[i + 1:]]


def test_retention_expires_old_cursors_and_keeps_the_rest_exact(open_store: Callable[..., Storage],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the retention the oldest changes go: a cursor or offset naming
    one of them is answered with CURSOR_EXPIRED; a cursor within what is kept
    resumes with exactly the later changes, and from_start begins at the
    first change kept."""
    store = open_store(change_retention_seconds=1.0)
    svc = Service(store)
    n = [0]
    _op(svc, "put", n, items=[{"record": fact(f"old{i}", f"old {i}")} for i in range(5)])
    _op(svc, "put", n, items=[{"record": fact("old0", "old 0, second version")}])
    old = _events(svc, 6, from_start=True)
    svc.commit_offset(CALL, {"specversion": "1.0", "operation_id": "offset", "consumer": "k",
                             "cursor": old[2]["cursor"]})
    time.sleep(1.2)
    cut = time.time()
    _op(svc, "put", n, items=[{"record": fact(f"new{i}", f"new {i}")} for i in range(4)])
    _op(svc, "update", n, id="old1", patch={"tags": ["kept"]})
    # Housekeeping as of half a second after the cut, however late it runs:
    # the old changes are then past the retention, the new ones within it.
    def as_of_the_cut(now: float, operations: float, changes: float) -> tuple[float, float]:
        return stores_common.retention_cutoffs(cut + 0.5, operations, changes)

    for module in (store_module, postgres_module):
        monkeypatch.setattr(module, "retention_cutoffs", as_of_the_cut)
    store.maintain()
    for event in old:
        with pytest.raises(ServiceError) as info:
            _events(svc, 1, cursor=event["cursor"])
        assert (info.value.reason, info.value.code, info.value.pointer) == (
            "CURSOR_EXPIRED", "OUT_OF_RANGE", "/cursor")
    with pytest.raises(ServiceError) as info:
        _events(svc, 1, consumer="k")
    assert (info.value.reason, info.value.pointer) == ("CURSOR_EXPIRED", "/consumer")
    kept = _events(svc, 5, from_start=True)
    assert [(e["type"], e["record"]["id"]) for e in kept] == [
        ("created", "new0"), ("created", "new1"), ("created", "new2"), ("created", "new3"), ("updated", "old1")]
    assert kept[4]["record"]["tags"] == ["kept"] and kept[4]["record"]["revision"] == 2
    for i, event in enumerate(kept[:-1]):
        rest = _events(svc, len(kept) - i - 1, cursor=event["cursor"])
        assert rest == kept[i + 1:]
    # the records themselves stay; only their old changes are gone
    assert _stored(svc, n, "old0")["fact"]["text"] == "old 0, second version"


def test_batched_put_keeps_order_and_atomicity(open_store: Callable[..., Storage]) -> None:
    """Large batches: the items get sequences in their order, with their
    embeddings bit for bit; an atomic batch with a failing item leaves
    nothing behind, no record and no change; a batch that is not atomic
    stores every other item."""
    svc = Service(open_store())
    n = [0]
    items = [{"record": fact(f"r{i}", f"note {i}", embeddings=[{"model": "m", "dimensions": 8,
                                                                 "values": _vec(i)}])} for i in range(1500)]
    results = _op(svc, "put", n, items=items)["results"]
    assert [r["sequence"] for r in results] == list(range(1, 1501))
    assert {r["status"] for r in results} == {"created"}
    events = _events(svc, 1500, from_start=True)
    assert [e["record"]["id"] for e in events] == [f"r{i}" for i in range(1500)]
    assert all(e["record"]["embeddings"][0]["values"] == _vec(i) for i, e in enumerate(events))
    # the same id twice in one batch: a creation, then a new version
    twice = _op(svc, "put", n, items=[{"record": fact("d", "one")}, {"record": fact("d", "two")}])["results"]
    assert [(r["status"], r["revision"]) for r in twice] == [("created", 1), ("updated", 2)]
    last = _events(svc, 2, cursor=events[-1]["cursor"])
    assert [(e["record"]["fact"]["text"], e["record"]["revision"]) for e in last] == [("one", 1), ("two", 2)]
    cursor = last[-1]["cursor"]
    bad = [{"record": fact(f"x{i}", "x")} for i in range(1000)]
    bad[700] = {"record": fact("r3", "changed"), "expected_revision": 9}
    with pytest.raises(ServiceError) as info:
        _op(svc, "put", n, items=bad, atomic=True)
    assert info.value.reason == "BATCH_FAILED"
    assert _op(svc, "get", n, ids=["x0", "x999"])["missing_ids"] == ["x0", "x999"]
    _op(svc, "put", n, items=[{"record": fact("after", "after")}])
    assert [e["record"]["id"] for e in _events(svc, 1, cursor=cursor)] == ["after"]
    results = _op(svc, "put", n, items=bad)["results"]
    assert [r["status"] for r in results].count("failed") == 1 and results[700]["status"] == "failed"
    assert results[701]["sequence"] == results[699]["sequence"] + 1


def test_a_schema_3_store_keeps_its_log(tmp_path: Path) -> None:
    """A store file of schema 3 (a full document in every change, embeddings
    kept twice) opens with the same records and the same replay of its log,
    and keeps no second copy of a record whose latest change is its own."""
    path = str(tmp_path / "v3.sqlite3")
    svc = Service(Store(path))
    n = [0]
    _op(svc, "put", n, items=[{"record": fact(f"r{i}", f"note {i}", embeddings=[
        {"model": "m", "dimensions": 8, "values": _vec(i)}])} for i in range(6)])
    _op(svc, "update", n, id="r1", patch={"tags": ["x"]})
    _op(svc, "get", n, ids=["r2"], touch=True)
    _op(svc, "delete", n, ids=["r3"], mode="hard")
    before = _events(svc, 8, from_start=True)
    records = [_stored(svc, n, f"r{i}") for i in (0, 1, 2, 4, 5)]
    svc.store.close()
    downgrade_to_schema_3(path)
    svc = Service(Store(path))
    try:
        assert _events(svc, 8, from_start=True) == before
        assert [_stored(svc, n, f"r{i}") for i in (0, 1, 2, 4, 5)] == records
        conn = svc.store._writer  # type: ignore[attr-defined]
        # r0, r4, r5 and the update of r1 read their records; r1's creation,
        # r2's (touched since) and r3's (deleted for good) have their own copies
        assert conn.execute("SELECT count(*) FROM changes WHERE doc IS NULL").fetchone()[0] == 4
        hits = svc.search(CALL, {"specversion": "1.0", "operation_id": "s", "limit": 1,
                                 "vector": {"model": "m", "values": _vec(4)}})
        found = memorywire.protobuf.decode(hits, type="memorywire.v1.SearchResponse")["hits"]
        assert found[0]["record"]["id"] == "r4"
    finally:
        svc.store.close()


def test_embeddings_are_kept_bit_for_bit_and_searched_by_their_slice(open_store: Callable[..., Storage]) -> None:
    """A record's embeddings, kept once as binary32 bytes: several of them
    (one a zero vector, which no search compares), -0.0 and the smallest
    binary32 values come back exactly from Get, Watch and Export, and a
    vector search of each model finds the record by its own embedding."""
    svc = Service(open_store(vector_exact_threshold=0))
    n = [0]
    tiny = _f32([1e-45, -0.0, 3.4028234663852886e38])
    embeddings = [{"model": "a", "dimensions": 3, "values": tiny},
                  {"model": "zero", "dimensions": 2, "values": [0.0, -0.0]},
                  {"model": "c", "dimensions": 4, "values": _f32([0.1, -0.2, 0.3, -0.4])}]
    _op(svc, "put", n, items=[{"record": fact("e", "vectors", embeddings=embeddings)},
                              {"record": fact("f", "other", embeddings=[
                                  {"model": "c", "dimensions": 4, "values": _f32([-0.1, 0.2, -0.3, 0.4])}])}])
    stored = _stored(svc, n, "e")["embeddings"]
    assert stored == embeddings
    assert [str(x) for x in stored[0]["values"]] == [str(x) for x in tiny]  # -0.0 stays -0.0
    assert str(stored[1]["values"][1]) == "-0.0"
    assert _events(svc, 1, from_start=True)[0]["record"]["embeddings"] == embeddings
    for model, values, first in (("c", _f32([0.1, -0.2, 0.3, -0.4]), "e"), ("c", _f32([-0.1, 0.2, -0.3, 0.4]), "f"),
                                 ("a", tiny, "e")):
        data = svc.search(CALL, {"specversion": "1.0", "operation_id": f"s-{model}-{first}", "limit": 2,
                                 "vector": {"model": model, "values": values}})
        hits = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse").get("hits", [])
        assert hits[0]["record"]["id"] == first and hits[0]["score"] == pytest.approx(1.0)
    data = svc.search(CALL, {"specversion": "1.0", "operation_id": "s-zero", "limit": 2,
                             "vector": {"model": "zero", "values": [1.0, 1.0]}})
    assert memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse").get("hits", []) == []
    # a new version with other embeddings replaces them, slices and all
    _op(svc, "put", n, items=[{"record": fact("e", "vectors", embeddings=embeddings[2:])}])
    assert _stored(svc, n, "e")["embeddings"] == embeddings[2:]
    data = svc.search(CALL, {"specversion": "1.0", "operation_id": "s-a-gone", "limit": 2,
                             "vector": {"model": "a", "values": tiny}})
    assert memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse").get("hits", []) == []
