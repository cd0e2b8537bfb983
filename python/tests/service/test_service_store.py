"""The embedded store: tenants cost the same however many there are, a
failed call leaves nothing behind, and the full-text index is one table for
every tenant (service/store.py)."""

from __future__ import annotations

import itertools
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import memorywire.protobuf
from memorywire.service import Service, ServiceError, Store
from memorywire.service.operations import Call
from memorywire.service.storage import Selection
from memorywire.service.store import Analyzer, RWLock, rid_range, term_key

_ops = itertools.count()


def request(**fields: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "operation_id": f"op-{next(_ops)}", **fields}


def put(svc: Service, tenant: str, *records: dict[str, Any], **fields: Any) -> None:
    fields.setdefault("items", [{"record": x} for x in records])
    svc.put(Call(tenant), request(**fields))


def fact(id: str, text: str) -> dict[str, Any]:
    return {"id": id, "kind": "fact", "fact": {"text": text}}


def test_a_new_tenant_costs_the_same_whatever_the_number_of_tenants(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "store.sqlite3"), synchronous="OFF")
    svc = Service(store)
    created = 0

    def fill(count: int) -> None:
        nonlocal created
        while created < count:
            put(svc, f"tenant-{created}", fact("f", f"Tenant {created} prefers window seats."))
            created += 1

    def first_write() -> float:
        """The median time of the first Put in a new tenant."""
        times = []
        for _ in range(9):
            started = time.perf_counter()
            put(svc, f"tenant-{created}-new", fact("f", "The user prefers window seats."))
            times.append(time.perf_counter() - started)
            fill(created + 1)
        return statistics.median(times)

    try:
        fill(10)
        few = first_write()
        fill(1000)
        many = first_write()
    finally:
        store.close()
    assert many < 5 * few, f"a first write takes {many * 1e3:.2f} ms at 1000 tenants, " \
        f"{few * 1e3:.2f} ms at 10"


def test_a_failed_call_creates_nothing() -> None:
    store = Store(":memory:")
    svc = Service(store)
    put(svc, "existing", fact("f", "The user prefers window seats."))

    def state() -> tuple[Any, ...]:
        with store.read() as conn:
            return (conn.execute("SELECT type, name FROM sqlite_master ORDER BY name").fetchall(),
                    *(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
                      for table in ("tenants", "records", "texts_data", "changes", "operations",
                                    "embeddings")))

    before = state()
    call = Call("newcomer")
    with pytest.raises(ServiceError) as e:
        svc.update(call, request(id="f", patch={"tags": ["x"]}))
    assert e.value.reason == "RECORD_NOT_FOUND"
    with pytest.raises(ServiceError) as e:
        put(svc, "newcomer", atomic=True, items=[{"record": fact("a", "window")},
                   {"record": fact("b", "seat"), "expected_revision": 3}])
    assert e.value.reason == "BATCH_FAILED"
    with pytest.raises(ServiceError):
        svc.merge(call, request(target_id="f", source_ids=["g"]))
    assert state() == before
    assert store.tenant_num("newcomer") is None

    # A write that succeeds creates rows, never a table.
    put(svc, "newcomer", fact("a", "window seat"))
    after = state()
    assert after[0] == before[0]
    assert after[1:4] == (before[1] + 1, before[2] + 1, before[3] + 1)
    store.close()


def test_one_text_index_for_every_tenant() -> None:
    store = Store(":memory:")
    svc = Service(store)
    for tenant in ("a", "b"):
        put(svc, tenant, fact("f", f"{tenant} swordfish"), fact("g", "swordfish swordfish"))
    with store.read() as conn:
        tables = [name for name, in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'")]
        assert tables == ["texts"]
        assert len(conn.execute("SELECT rowid FROM texts WHERE texts MATCH 'swordfish'").fetchall()) == 4
        # The length and the terms of each text, as the index reads them.
        assert conn.execute("SELECT id, words, terms FROM records WHERE tenant = ? ORDER BY seq",
                            (store.tenant_num("a"),)).fetchall() == [
            ("f", 2, "\ta:1\tswordfish:1\t"), ("g", 2, "\tswordfish:2\t")]
    # a text that changes leaves the index with it; a hard deletion removes it
    svc.update(Call("a"), request(id="f", patch={"fact": {"text": "a marlin"}}))
    svc.delete(Call("a"), request(ids=["g"], mode="hard"))
    with store.read() as conn:
        found = {word: [rid for rid, in conn.execute("SELECT rowid FROM texts WHERE texts MATCH ? "
                                                     "ORDER BY rowid", (word,))]
                 for word in ("swordfish", "marlin", "a", "b")}
        ids = dict(conn.execute("SELECT rid, id FROM records"))
    # each in its tenant's range of rids, which ends where the next tenant's begins
    a, b = rid_range(store.tenant_num("a") or 0), rid_range(store.tenant_num("b") or 0)
    assert a[1] + 1 == b[0]
    # what left the index is found no more
    assert {word: [(ids[rid], a[0] <= rid <= a[1], b[0] <= rid <= b[1]) for rid in rids]
            for word, rids in found.items()} == {
        "swordfish": [("f", False, True), ("g", False, True)], "marlin": [("f", True, False)],
        "a": [("f", True, False)], "b": [("f", False, True)]}
    store.close()


def test_records_read_by_rid_are_looked_up_by_key(tmp_path: Path) -> None:
    """The records a search found, read by rid, are looked up by the rowid,
    not found by reading every record of the tenant through an index on it
    (which took 11 ms for ten records of a tenant of 100,000)."""
    store = Store(str(tmp_path / "store.sqlite3"), synchronous="OFF")
    svc = Service(store)
    try:
        for start in range(0, 600, 200):
            put(svc, "t", *[fact(f"f{i}", f"Fact {i}.") for i in range(start, start + 200)])
        num = store.tenant_num("t")
        assert num is not None
        statements: list[str] = []
        with store.reader() as reads:
            rids = [rid for (rid,) in reads.conn.execute(
                "SELECT rid FROM records WHERE rid BETWEEN ? AND ? LIMIT 10", rid_range(num))]
            reads.conn.set_trace_callback(statements.append)
            for selection in (Selection(), Selection(statuses=("active",), fields=(("user", "u"),))):
                found = reads.rows_among(num, selection, rids)
                reads.sequences(num, selection, rids)
            reads.conn.set_trace_callback(None)
            assert sorted(row.rid for row in found) == [] and len(reads.rows_among(num, Selection(), rids)) == 10
            looked_up = [sql for sql in statements if " IN (" in sql]
            assert len(looked_up) == 4
            for sql in looked_up:
                plan = " ".join(row[3] for row in reads.conn.execute("EXPLAIN QUERY PLAN " + sql))
                assert "INTEGER PRIMARY KEY" in plan and "records_id" not in plan, (sql, plan)
    finally:
        store.close()


def test_the_analyzer_reads_text_as_the_index_does() -> None:
    analyzer = Analyzer()

    def columns(text: str) -> tuple[int, dict[str, int] | None]:
        words, terms = analyzer.columns(text)
        if terms is None:
            return words, None
        assert terms.startswith("\t") and terms.endswith("\t")
        found = dict(x.split(":") for x in terms[1:-1].split("\t"))
        assert all(terms.count(term_key(t)) == 1 for t in found)
        return words, {t: int(n) for t, n in found.items()}

    try:
        assert columns("") == (0, None)
        assert columns("The user prefers window seats; a window seat, SEATING!") == (
            9, {"the": 1, "user": 1, "prefer": 1, "window": 2, "seat": 3, "a": 1})
        assert columns("Été, ete; cafe\u0301 CAFÉ") == (4, {"et": 2, "cafe": 2})
        assert columns("foo_bar 3.14 don't\t:") == (
            6, {"foo": 1, "bar": 1, "3": 1, "14": 1, "don": 1, "t": 1})
        assert analyzer.word("seats") == analyzer.word("seating") == ("seat",)
        assert analyzer.word("???") == ()
        analyzer.prepare(["one two two", "three"])
        assert columns("one two two") == (3, {"on": 1, "two": 2})  # Porter: one -> on
    finally:
        analyzer.close()


def test_the_lock_lets_waiting_readers_in_between_writers() -> None:
    """Under a steady stream of writers, the readers waiting when a writer
    leaves go before the next writer (searches that use the in-memory
    indexes are not starved), and a waiting writer goes before readers
    that come after it."""
    lock = RWLock()
    order: list[str] = []

    def wait_for(condition: Any) -> None:
        deadline = time.monotonic() + 10
        while not condition():
            assert time.monotonic() < deadline
            time.sleep(0.005)

    def writer(name: str) -> None:
        with lock.exclusive():
            order.append(name)

    def reader(name: str) -> None:
        with lock.shared():
            order.append(name)

    with lock.exclusive():
        threads = [threading.Thread(target=reader, args=("reader-1",))]
        threads[0].start()
        wait_for(lambda: lock._readers_waiting == 1)
        threads.append(threading.Thread(target=writer, args=("writer-2",)))
        threads[1].start()
        wait_for(lambda: lock._waiting == 1)
    wait_for(lambda: len(order) == 2)
    assert order == ["reader-1", "writer-2"]

    order.clear()
    with lock.shared():
        threads.append(threading.Thread(target=writer, args=("writer-1",)))
        threads[-1].start()
        wait_for(lambda: lock._waiting == 1)
        threads.append(threading.Thread(target=reader, args=("reader-2",)))
        threads[-1].start()
        wait_for(lambda: lock._readers_waiting == 1)
    wait_for(lambda: len(order) == 2)
    assert order == ["writer-1", "reader-2"]
    for t in threads:
        t.join(10)


def test_the_service_writes_nothing_into_its_callers_requests() -> None:
    """The canonical form of a record shares its unchanged members with the
    request (records.canonical); what the service sets on a record it
    writes (scope, lifecycle, provenance, summary, links) goes into copies."""
    import copy

    store = Store(":memory:")
    svc = Service(store)
    call = Call("t")
    record = {"id": "f", "kind": "fact", "fact": {"text": "The user prefers window seats."},
              "scope": {"user": "u"}, "tags": ["seat"], "metadata": {"k": [1]},
              "links": [{"type": "references", "target": "g"}],
              "provenance": {"trust": "verified", "origin": "system", "source": "chat"},
              "lifecycle": {"status": "active", "importance": 0.5},
              "embeddings": [{"model": "m", "dimensions": 2, "values": [0.5, -0.0]}]}
    requests = [
        ("put", request(scope={"agent": "a"}, items=[{"record": record}])),
        ("put", request(items=[{"record": {**record, "tags": ["aisle"]}}])),
        ("put", request(require_approval=True, items=[{"record": {**record, "id": "p"}}])),
        ("put", request(items=[{"record": {"id": "g", "kind": "fact", "fact": {"text": "Aisle."},
                                           "lifecycle": {"status": "deleted", "reason": "gone"}}},
                               {"record": {"id": "h", "kind": "fact", "fact": {"text": "Window."},
                                           "scope": {"user": "u"}, "links": record["links"]}}])),
        ("update", request(id="f", patch={"lifecycle": {"importance": 0.9}, "provenance": {"source": "x"}})),
        ("merge", request(target_id="f", source_ids=["h"])),
        ("compact", request(ids=["f"], summary={"id": "s", "kind": "summary", "summary": {"text": "Seats."},
                                                "links": record["links"], "scope": {"user": "u"}})),
    ]
    try:
        for name, req in requests:
            before = copy.deepcopy(req)
            first = getattr(svc, name)(call, req)
            assert req == before, name
            # A replay finds the request it recorded: the same response.
            assert getattr(svc, name)(call, req) == first, name
    finally:
        store.close()


def _embedded_facts(batch: int, count: int) -> list[dict[str, Any]]:
    """Facts with a 384-dimension embedding: about 2 KB of log each."""
    return [{"record": {"id": f"b{batch}-{i}", "kind": "fact", "fact": {"text": f"fact {i} of batch {batch}"},
                        "embeddings": [{"model": "m", "dimensions": 384,
                                        "values": [((batch * count + i) * 384 + j) % 997 / 997 + 0.5
                                                   for j in range(384)]}]}}
            for i in range(count)]


def test_checkpoints_run_beside_the_writes(tmp_path: Path) -> None:
    """A commit makes no checkpoint of its own: the checkpointer's thread
    copies the log into the file once it is past its threshold, and what
    it copied reads back after the store reopens."""
    path = str(tmp_path / "store.sqlite3")
    store = Store(path, synchronous="OFF")
    assert store.checkpoints is not None
    assert store._writer.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
    store.checkpoints.threshold = 64 << 10
    store.checkpoint_limit = 1 << 40  # the writer never checkpoints itself
    svc = Service(store)
    for batch in range(10):
        svc.put(Call("t"), request(items=_embedded_facts(batch, 20)))
    deadline = time.monotonic() + 30
    while store.checkpoints.last is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert store.checkpoints.last is not None and store.checkpoints.last[2] > 0
    store.close()
    store = Store(path, synchronous="OFF")
    try:
        got = memorywire.protobuf.decode(Service(store).get(Call("t"), request(ids=["b0-0", "b9-19"])),
                                         type="memorywire.v1.GetResponse")
        assert [x["id"] for x in got["records"]] == ["b0-0", "b9-19"]
    finally:
        store.close()


def test_the_writer_checkpoints_a_log_the_checkpoints_fell_behind_on(tmp_path: Path) -> None:
    """With no checkpoint beside it, the writer checkpoints the log itself
    once it is past ``checkpoint_limit``, so that the log stays within the
    limit and a transaction's worth beyond it."""
    path = str(tmp_path / "store.sqlite3")
    store = Store(path, synchronous="OFF")
    assert store.checkpoints is not None
    store.checkpoints.stop()
    store.checkpoint_limit = 1 << 20
    svc = Service(store)
    most = 0
    for batch in range(40):
        svc.put(Call("t"), request(items=_embedded_facts(batch, 50)))
        most = max(most, Path(path + "-wal").stat().st_size)
    written = Path(path).stat().st_size
    store.close()
    assert written > 4 << 20  # the log would have held it all
    assert most < 2 << 20


def test_the_log_file_measures_the_log_once_it_restarts(tmp_path: Path) -> None:
    """A reader that holds an old snapshot keeps the log from restarting,
    and it grows past the writer's limit; once the reader is gone, the log
    restarts and its file is cut back to what it holds, so that the
    commits that follow make no checkpoint of the writer's own each."""
    path = str(tmp_path / "store.sqlite3")
    store = Store(path, synchronous="OFF")
    assert store.checkpoints is not None
    store.checkpoints.threshold = 1 << 40  # the writer's own checkpoints alone
    store.checkpoint_limit = 1 << 20
    checkpoints: list[str] = []
    store._writer.set_trace_callback(lambda sql: checkpoints.append(sql) if "wal_checkpoint" in sql else None)
    svc = Service(store)
    try:
        with store.snapshot() as conn:
            conn.execute("SELECT count(*) FROM records").fetchone()
            for batch in range(6):
                svc.put(Call("t"), request(items=_embedded_facts(batch, 50)))
        assert Path(path + "-wal").stat().st_size > 2 << 20
        checkpoints.clear()
        for batch in range(100, 120):
            svc.put(Call("t"), request(items=_embedded_facts(batch, 1)))
        assert len(checkpoints) <= 3
        assert Path(path + "-wal").stat().st_size < 1 << 20
    finally:
        store.close()


def test_scrub_waits_for_a_running_checkpoint(tmp_path: Path) -> None:
    """An erasure's checkpoint takes the checkpointer's lock, which the
    checkpointer holds around each of its own: it waits for one that runs
    rather than find the log busy and leave it."""
    path = str(tmp_path / "store.sqlite3")
    store = Store(path, synchronous="OFF")
    assert store.checkpoints is not None
    try:
        Service(store).put(Call("t"), request(items=_embedded_facts(0, 20)))
        assert Path(path + "-wal").stat().st_size > 0
        scrubbed = threading.Event()
        with store.checkpoints.lock:
            scrub = threading.Thread(target=lambda: (store.scrub(), scrubbed.set()))
            scrub.start()
            assert not scrubbed.wait(0.3)
        scrub.join(30)
        assert scrubbed.is_set()
        assert Path(path + "-wal").stat().st_size == 0
    finally:
        store.close()
