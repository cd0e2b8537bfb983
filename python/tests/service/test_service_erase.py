"""Erase (operations.md section 19): nothing of the subject stays reachable
by Get, History, Search (text and vector), Watch replay or Export, nor
readable in the store's file (SQLite, after its checkpoint) or tables
(PostgreSQL), on both stores."""

from __future__ import annotations

import glob
import hashlib
import struct
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from service_helpers import embedding, fact, fails, message

import memorywire.protobuf
from memorywire.client import Client
from memorywire.service import MemoryServer, Service, Store
from memorywire.service.operations import Call
from memorywire.service.storage import Storage

#: What only the subject's records hold: a word of their text, their user,
#: a word of their identifiers, and a vector.
MARKER = "zanzibarmarker"
USER = "ada-quintessa"
ID_WORD = "adaonly"
VECTOR = [0.123456789, -0.987654321, 0.5555555]
OTHER_VECTOR = [0.2, -0.9, 0.6]


def subject_records() -> list[dict[str, Any]]:
    scope = {"user": USER, "session": "s-ada"}
    return [
        fact(f"{ID_WORD}-f1", f"{MARKER} lives on the coast", scope=scope, embeddings=embedding(VECTOR)),
        fact(f"{ID_WORD}-f2", f"second {MARKER} fact", scope=scope, key=f"{ID_WORD}-key"),
        message(f"{ID_WORD}-m1", "user", f"tell me about {MARKER}", scope=scope),
        fact(f"{ID_WORD}-gone", f"{MARKER} tombstone", scope=scope),
    ]


def other_records() -> list[dict[str, Any]]:
    scope = {"user": "bob", "session": "s-bob"}
    return [
        fact("bob-f1", "bob lives inland", scope=scope, embeddings=embedding(OTHER_VECTOR)),
        message("bob-m1", "user", "hello there", scope=scope),
    ]


def leaks(data: bytes) -> list[str]:
    """What of the subject a byte string holds."""
    needles = {"marker": MARKER[:8].encode(), "user": USER.encode(), "id": ID_WORD.encode(),
               "vector": struct.pack("<3f", *VECTOR)}
    return [name for name, needle in needles.items() if needle in data]


def everything_in_tables(store: Storage) -> bytes:
    """Every value of every table of a PostgreSQL store, as text."""
    import psycopg

    out = []
    with psycopg.connect(store.dsn) as conn:  # type: ignore[attr-defined]
        tables = [t for (t,) in conn.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        assert {"records", "postings", "embeddings", "changes", "operations", "reviews"} <= set(tables)
        for table in tables:
            for row in conn.execute(f"SELECT * FROM {table}"):  # noqa: S608 (names from pg_tables)
                for value in row:
                    out.append(bytes(value) if isinstance(value, (bytes, memoryview)) else
                               str(value).encode())
    return b"\n".join(out)


def readable(server: MemoryServer) -> list[str]:
    """What of the subject the store's files (SQLite) or tables (PostgreSQL) hold."""
    store = server.store
    if isinstance(store, Store):
        return leaks(b"".join(Path(p).read_bytes() for p in sorted(glob.glob(store.path + "*"))))
    return leaks(everything_in_tables(store))


def replay(mw: Client, sentinel: str) -> list[dict[str, Any]]:
    """Every event of the tenant's change log, up to a sentinel record put last."""
    mw.put(fact(sentinel, "end"))
    events = []
    for event in mw.watch(from_start=True):
        events.append(event)
        if event["record"]["id"] == sentinel:
            return events
    raise AssertionError("the watch ended before the sentinel")


def test_erase_leaves_nothing_reachable_or_readable(serve: Callable[..., tuple[MemoryServer, str]]) -> None:
    server, target = serve()
    mw = Client(target, tenant="acme", timeout=30)
    try:
        put = mw.put(subject_records() + other_records(), operation_id="op-put-all")
        only_bob = mw.put(fact("bob-f2", "bob's second", scope={"user": "bob"}), operation_id="op-put-bob")
        mw.update(f"{ID_WORD}-f2", {"tags": ["coast"]}, operation_id="op-update-ada")
        mw.delete(f"{ID_WORD}-gone", operation_id="op-delete-ada")  # a tombstone is erased too
        mw.commit_offset("reader", next(mw.watch(from_start=True))["cursor"])
        assert len(mw.search(MARKER)["hits"]) == 3
        assert readable(server) != []  # the checks below could fail

        receipt = mw.erase({"user": USER}, operation_id="op-erase")["receipt"]
        ids = sorted(r["id"] for r in subject_records())
        assert receipt["records"] == 4
        assert receipt["changes"] == 6  # 4 created, 1 updated, 1 deleted
        assert receipt["operations"] == 3  # the Put of all, the Update and the Delete
        assert receipt["digest"] == "sha256:" + hashlib.sha256(
            "".join(i + "\n" for i in ids).encode()).hexdigest()
        assert receipt["erased_at"].endswith("Z")
        # A replay answers with the same receipt and erases nothing more.
        assert mw.erase({"user": USER}, operation_id="op-erase")["receipt"] == receipt

        # Get, History, Search (text, vector, hybrid) and Export.
        got = mw.get(ids, include_deleted=True)
        assert got["records"] == [] and sorted(got["missing_ids"]) == ids
        assert mw.history(scope={"user": USER})["records"] == []
        assert [r["id"] for r in mw.history()["records"]] == ["bob-f1", "bob-m1", "bob-f2"]
        assert mw.search(MARKER)["hits"] == []
        hits = mw.search(vector={"model": "demo", "values": VECTOR})["hits"]
        assert [h["record"]["id"] for h in hits] == ["bob-f1"]
        hybrid = mw.search(MARKER, vector={"model": "demo", "values": VECTOR})["hits"]
        assert [h["record"]["id"] for h in hybrid] == ["bob-f1"]
        exported = list(mw.export(include_deleted=True))
        assert [r["id"] for r in exported] == ["bob-f1", "bob-m1", "bob-f2"]
        assert leaks(repr(exported).encode()) == []

        # Watch replay: the subject's changes are gone, and the log reads on.
        events = replay(mw, "bob-end")
        assert [(e["type"], e["record"]["id"]) for e in events] == [
            ("created", "bob-f1"), ("created", "bob-m1"), ("created", "bob-f2"), ("created", "bob-end")]
        assert leaks(repr(events).encode()) == []
        # A consumer's offset at an erased change still resumes after it.
        assert [e["record"]["id"] for e in mw.watch(consumer="reader", max_events=1)] == ["bob-f1"]

        # A replay of an operation whose response named the subject is
        # refused; one that did not is answered as before.
        fails("OPERATION_ERASED", lambda: mw.put(subject_records() + other_records(),
                                                  operation_id="op-put-all"), "/operation_id")
        fails("OPERATION_ERASED", lambda: mw.update(f"{ID_WORD}-f2", {"tags": ["coast"]},
                                                     operation_id="op-update-ada"), "/operation_id")
        assert mw.put(fact("bob-f2", "bob's second", scope={"user": "bob"}),
                      operation_id="op-put-bob") == only_bob
        assert mw.get(ids, include_deleted=True)["records"] == []
        assert put["results"][0]["id"] == f"{ID_WORD}-f1"

        # Nothing of the subject in the store's file or tables.
        assert readable(server) == []
    finally:
        mw.close()


def test_erase_by_filter_and_its_errors(mw: Client) -> None:
    mw.put([fact("a", "about Ada", scope={"user": "u1"}, tags=["ada"]),
            fact("b", "about Bob", scope={"user": "u1"}, tags=["bob"])])
    receipt = mw.erase(filter={"compare": {"field": "/tags", "operator": "contains", "value": "ada"}}
                       )["receipt"]
    assert receipt["records"] == 1
    assert [r["id"] for r in mw.get(["a", "b"])["records"]] == ["b"]
    nothing = mw.erase({"user": "nobody"})["receipt"]
    assert (nothing.get("records", 0), nothing["digest"]) == (
        0, "sha256:" + hashlib.sha256(b"").hexdigest())
    fails("REQUIRED_FIELD_MISSING", lambda: mw.erase(), "/scope")
    fails("REQUIRED_FIELD_MISSING", lambda: mw.erase({"tenant": mw.tenant}), "/scope")
    fails("TENANT_MISMATCH", lambda: mw.erase({"tenant": "other", "user": "u1"}), "/scope/tenant")


def _stores(kind: str, request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    from conftest import open_test_store

    store = open_test_store(kind, request, tmp_path / "s.sqlite3")
    try:
        yield store
    finally:
        store.close()


@pytest.fixture(params=("sqlite", "postgresql"))
def own_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    yield from _stores(request.param, request, tmp_path)


def test_erase_stops_an_export_in_progress(own_store: Storage) -> None:
    """An Export that runs while an Erase commits sends none of the erased
    records in the messages it sends after: here the subject's records come
    in the export's second message, which the export makes after the Erase."""
    svc = Service(own_store)
    call = Call("t")
    head = {"specversion": "1.0"}
    others = [fact(f"o{i}", f"other {i}", scope={"user": "bob"}) for i in range(1000)]
    subject = [fact(f"s{i}", f"{MARKER} {i}", scope={"user": USER}) for i in range(5)]
    for n, start in enumerate(range(0, 1000, 500)):
        svc.put(call, {**head, "operation_id": f"p{n}",
                       "items": [{"record": x} for x in others[start:start + 500]]})
    svc.put(call, {**head, "operation_id": "p-s", "items": [{"record": x} for x in subject]})
    frames = svc.export(call, {**head, "operation_id": "e"})
    first = memorywire.protobuf.decode(next(frames), type="memorywire.v1.ExportResponse")["records"]
    assert len(first) == 1000 and all(r["scope"]["user"] == "bob" for r in first)
    svc.erase(call, {**head, "operation_id": "x", "scope": {"user": USER}})
    assert list(frames) == []  # the second message would have held only the subject's records

    # Without the Erase, the same export sends them.
    svc.put(call, {**head, "operation_id": "p-s2", "items": [{"record": x} for x in subject]})
    frames = svc.export(call, {**head, "operation_id": "e2"})
    next(frames)
    rest = [memorywire.protobuf.decode(f, type="memorywire.v1.ExportResponse")["records"] for f in frames]
    assert [r["id"] for batch in rest for r in batch] == [x["id"] for x in subject]


@pytest.mark.sqlite_only(reason="the bytes of the SQLite file while a reader holds an older snapshot")
def test_checkpoint_waits_for_no_reader(tmp_path: Path) -> None:
    """An Erase does not wait for a reader that holds an older snapshot (its
    checkpoint gives up at once); the store's next checkpoint, once the
    reader is gone, leaves nothing of the subject in the file."""
    store = Store(str(tmp_path / "s.sqlite3"))
    try:
        svc = Service(store)
        call = Call("t")
        svc.put(call, {"specversion": "1.0", "operation_id": "p",
                       "items": [{"record": fact("s1", f"{MARKER} text", scope={"user": USER})},
                                 {"record": fact("o1", "other", scope={"user": "bob"})}]})
        with store.snapshot() as conn:
            assert conn.execute("SELECT count(*) FROM records").fetchone() == (2,)
            svc.erase(call, {"specversion": "1.0", "operation_id": "x", "scope": {"user": USER}})
        store.scrub()
        files = b"".join(Path(p).read_bytes() for p in sorted(glob.glob(store.path + "*")))
        assert leaks(files) == []
        assert Path(store.path + "-wal").stat().st_size == 0
    finally:
        store.close()


def test_the_other_replica_drops_what_an_erase_removed(postgres_dsn: str) -> None:
    """Two processes on one PostgreSQL database: the one that did not
    perform the Erase drops the erased records from its loaded in-memory
    indexes (vector and full text) before its next search."""
    from memorywire.service.postgres import PostgresStore

    stores = [PostgresStore(postgres_dsn, vector_exact_threshold=0, text_index_threshold=0) for _ in range(2)]
    try:
        writer, reader = (Service(s) for s in stores)
        call = Call("t")
        records = [fact(f"s{i}", f"{MARKER} {i}", scope={"user": USER}, embeddings=embedding(VECTOR))
                   for i in range(3)]
        records += [fact(f"o{i}", f"other {i}", scope={"user": "bob"}, embeddings=embedding(OTHER_VECTOR))
                    for i in range(3)]
        writer.put(call, {"specversion": "1.0", "operation_id": "p", "items": [{"record": r} for r in records]})

        def search(**request: Any) -> list[str]:
            data = reader.search(call, {"specversion": "1.0", "operation_id": "s", "limit": 10, **request})
            hits = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse").get("hits", [])
            return sorted(h["record"]["id"] for h in hits)

        query = {"model": "demo", "values": VECTOR}
        assert search(vector=query) == ["o0", "o1", "o2", "s0", "s1", "s2"]
        assert search(text=MARKER) == ["s0", "s1", "s2"]
        num = stores[1].tenant_num("t")
        assert num is not None
        assert len(stores[1].vectors.of_tenant(num)[0]) == 6 and len(stores[1].texts.loaded(num) or ()) == 6
        writer.erase(call, {"specversion": "1.0", "operation_id": "x", "scope": {"user": USER}})
        assert search(vector=query) == ["o0", "o1", "o2"]
        assert search(text=MARKER) == []
        assert len(stores[1].vectors.of_tenant(num)[0]) == 3 and len(stores[1].texts.loaded(num) or ()) == 3
    finally:
        for s in stores:
            s.close()
