"""What only the PostgreSQL store has: several stores (replicas) on one
database, each behind a server of its own, serve the same tenants
consistently; and a database that goes away answers UNAVAILABLE until it is
back. (Everything else runs on both stores through the fixtures of
conftest.py.)"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from service_helpers import embedding, fact, fails

from memorywire.client import Client
from memorywire.service import MemoryServer, Store
from memorywire.service.postgres import PostgresStore, redacted
from memorywire.service.server import main

DIMS = 8


@pytest.fixture
def replicas(postgres_dsn: str) -> Iterator[Callable[..., Client]]:
    """Two replicas (stores and servers) on one new database, and a SQLite
    server beside them; ``client(i, tenant)`` connects to replica 0 or 1,
    or to the SQLite server (i = 2)."""
    stores = [PostgresStore(postgres_dsn, vector_exact_threshold=0, text_index_threshold=0)
              for _ in range(2)]
    stores.append(Store(":memory:", vector_exact_threshold=0, text_index_threshold=0))  # type: ignore[arg-type]
    servers = [MemoryServer(s, "127.0.0.1:0", strict=True, log=None) for s in stores]
    ports = [s.start() for s in servers]
    clients: list[Client] = []

    def client(i: int, tenant: str) -> Client:
        c = Client(f"127.0.0.1:{ports[i]}", tenant=tenant, timeout=30)
        clients.append(c)
        return c

    yield client
    for c in clients:
        c.close()
    for server, store in zip(servers, stores, strict=True):
        server.stop(grace=0.5)
        store.close()


def _vector(rng: random.Random) -> list[float]:
    return [rng.uniform(-1, 1) for _ in range(DIMS)]


WORDS = "window seat aisle blue red quiet loud early late meal vegetarian legroom exit row".split()


def _records(n: int, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    return [fact(f"r{i}", " ".join(rng.choices(WORDS, k=rng.randint(3, 12))),
                 embeddings=embedding(_vector(rng)), scope={"user": f"u{i % 3}"}) for i in range(n)]


def _hits(out: dict[str, Any]) -> list[tuple[str, float, float | None, float | None]]:
    return [(h["record"]["id"], h.get("score", 0.0), h.get("text_score"), h.get("vector_score"))
            for h in out.get("hits", [])]


def _searches(c: Client) -> list[list[tuple[str, float, float | None, float | None]]]:
    q = {"model": "demo", "values": _vector(random.Random(7))}
    return [_hits(c.search(text, limit=20)) for text in ("window seat", "exit row legroom", "blue")] + [
        _hits(c.search(vector=q, limit=20)),
        _hits(c.search("window seat", vector=q, limit=20)),
        _hits(c.search("quiet", vector=q, fusion={"method": "weighted", "text_weight": 0.25}, limit=20)),
        _hits(c.search("aisle meal", scope={"user": "u1"}, limit=20)),
    ]


def test_a_write_through_one_replica_is_read_searched_and_watched_through_the_other(
        replicas: Callable[..., Client]) -> None:
    a, b, lite = replicas(0, "acme"), replicas(1, "acme"), replicas(2, "acme")
    records = _records(60, 1)
    for c in (a, lite):
        c.put(records[:10])
    assert _searches(b) == _searches(lite)  # b loads its indexes
    with b.watch() as events:
        for c in (a, lite):
            c.put(records[10:40])
        assert [next(events)["record"]["id"] for _ in range(30)] == [f"r{i}" for i in range(10, 40)]
        assert b.get("r13")["records"][0]["fact"] == records[13]["fact"]
        assert [x["id"] for x in b.history(limit=100)["records"]] == [f"r{i}" for i in range(40)]
        # the same hits, with the same scores to the last bit, as on SQLite
        assert _searches(b) == _searches(lite)
        for c in (a, lite):
            c.put(records[40:])
        assert next(events)["record"]["id"] == "r40"
    assert _searches(b) == _searches(lite) == _searches(a)
    assert any(_searches(b))


def test_an_index_loaded_on_one_replica_follows_updates_and_deletes_through_the_other(
        replicas: Callable[..., Client]) -> None:
    a, b, lite = replicas(0, "acme"), replicas(1, "acme"), replicas(2, "acme")
    records = _records(40, 2)
    for c in (a, lite):
        c.put(records)
    assert _searches(b) == _searches(lite)  # b loads its indexes
    rng = random.Random(3)
    for c in (a, lite):
        c.delete(["r0", "r1"])  # tombstones
        c.delete(["r2", "r3"], mode="hard")
        c.update("r4", {"fact": {"text": "exit row window seat"}, "embeddings": embedding(_vector(rng))})
        c.put(fact("new", "window seat blue", embeddings=embedding(_vector(random.Random(9)))))
        rng = random.Random(3)
    got = _searches(b)
    assert got == _searches(lite)
    found = {hit[0] for hits in got for hit in hits}
    assert not found & {"r0", "r1", "r2", "r3"} and {"r4", "new"} <= found


def test_an_idempotent_retry_through_the_other_replica_returns_the_first_result(
        replicas: Callable[..., Client]) -> None:
    a, b = replicas(0, "acme"), replicas(1, "acme")
    first = a.put(fact("x", "once"), operation_id="op-retry")
    again = b.put(fact("x", "once"), operation_id="op-retry")
    assert again["results"] == first["results"]
    assert [x["id"] for x in b.history()["records"]] == ["x"]
    fails("OPERATION_ID_REUSED", lambda: b.put(fact("y", "other"), operation_id="op-retry"))


def test_concurrent_writers_of_one_tenant_on_both_replicas_give_dense_sequences(
        replicas: Callable[..., Client]) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    clients = [replicas(i % 2, tenant) for i in range(8)]
    errors: list[BaseException] = []

    def write(i: int) -> None:
        try:
            for j in range(15):
                clients[i].put([fact(f"w{i}-{j}-{k}", "x") for k in range(3)])
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(len(clients))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    rows = clients[0].history(limit=1000)["records"]
    assert [x["sequence"] for x in rows] == list(range(1, 8 * 15 * 3 + 1))
    with clients[1].watch(from_start=True, max_events=len(rows)) as events:
        seen = [e["record"]["id"] for e in events]
    assert seen == [x["id"] for x in rows]  # the log is in sequence order too


def test_the_database_going_away_answers_unavailable_until_it_is_back() -> None:
    from postgres_cluster import Cluster

    with Cluster.start() as cluster:
        dsn = cluster.create_database("away")
        store = PostgresStore(dsn, connect_timeout=2)
        server = MemoryServer(store, "127.0.0.1:0", log=None)
        port = server.start()
        data = str(cluster.directory / "data")
        try:
            with Client(f"127.0.0.1:{port}", tenant="acme", timeout=30) as c:
                c.put(fact("before", "x"))
                cluster._run("pg_ctl", "-D", data, "-m", "fast", "-w", "stop")
                for call in (lambda: c.put(fact("during", "x")), lambda: c.get("before"),
                             lambda: c.search("x")):
                    e = fails("UNAVAILABLE", call)
                    assert e.retry_after_millis == 5000 and redacted(dsn) in e.message, e.message
                cluster._run("pg_ctl", "-D", data, "-o",
                             f"-p {cluster.port} -k {cluster.directory} -c listen_addresses={cluster.host}",
                             "-l", str(cluster.directory / "server.log"), "-w", "start")
                deadline = time.monotonic() + 20
                while True:
                    try:
                        c.put(fact("after", "x"))
                        break
                    except Exception:
                        if time.monotonic() > deadline:
                            raise
                        time.sleep(0.5)
                assert {x["id"] for x in c.get(["before", "during", "after"])["records"]} == {"before", "after"}
                with c.watch(from_start=True, max_events=2) as events:
                    assert [e["record"]["id"] for e in events] == ["before", "after"]
        finally:
            server.stop(grace=0.5)
            store.close()


def test_serve_names_a_database_it_cannot_reach_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    url = "postgresql://someone:s3cret@127.0.0.1:1/nowhere"
    assert main(["--store", url, "--listen", "127.0.0.1:0"]) == 1
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "start_failed" in err, err
    assert "postgresql://someone@127.0.0.1:1/nowhere" in err and "s3cret" not in err
    assert "refused" in err.lower()


def test_a_dsn_is_named_without_its_password() -> None:
    assert redacted("postgresql://u:pw@db.example:5433/mem") == "postgresql://u@db.example:5433/mem"
    assert redacted("host=/tmp port=5432 dbname=mem password=pw") == "postgresql://[/tmp]:5432/mem"
    assert "pw" not in redacted("postgres://u:pw@h/mem")


def test_the_schema_version_is_checked(postgres_dsn: str) -> None:
    import psycopg

    PostgresStore(postgres_dsn).close()
    with psycopg.connect(postgres_dsn, autocommit=True) as conn:
        conn.execute("UPDATE meta SET value = 'x' WHERE key = 'schema'")
    with pytest.raises(ValueError, match="schema version x"):
        PostgresStore(postgres_dsn)


def test_replicas_starting_at_once_share_one_schema_and_secret(postgres_dsn: str) -> None:
    stores: list[PostgresStore] = []
    threads = [threading.Thread(target=lambda: stores.append(PostgresStore(postgres_dsn))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert len(stores) == 4 and len({s.secret for s in stores}) == 1
    finally:
        for s in stores:
            s.close()


def test_housekeeping_on_one_replica_expires_cursors_and_reloads_indexes_on_the_other(
        postgres_dsn: str) -> None:
    a = PostgresStore(postgres_dsn, change_retention_seconds=0, operation_retention_seconds=0,
                      vector_exact_threshold=0)
    b = PostgresStore(postgres_dsn, vector_exact_threshold=0)
    servers = [MemoryServer(s, "127.0.0.1:0", log=None) for s in (a, b)]
    ports = [s.start() for s in servers]
    try:
        with Client(f"127.0.0.1:{ports[0]}", tenant="acme") as ca, \
                Client(f"127.0.0.1:{ports[1]}", tenant="acme") as cb:
            rng = random.Random(5)
            ca.put([fact(f"r{i}", "x", embeddings=embedding(_vector(rng))) for i in range(5)],
                   operation_id="op-first")
            q = {"model": "demo", "values": _vector(rng)}
            assert len(cb.search(vector=q)["hits"]) == 5  # b loads its index
            with cb.watch(from_start=True, max_events=1) as events:
                cursor = next(events)["cursor"]
            ca.delete(["r0"], mode="hard")
            time.sleep(0.01)
            a.maintain()  # forgets every change and operation
            fails("CURSOR_EXPIRED", lambda: next(iter(cb.watch(cursor=cursor))))
            # b's index was behind the pruned log: loaded again, without r0
            assert sorted(h["record"]["id"] for h in cb.search(vector=q)["hits"]) == [f"r{i}" for i in range(1, 5)]
            # the operation was forgotten: the same identifier is a new operation
            assert cb.put(fact("r9", "x"), operation_id="op-first")["results"][0]["id"] == "r9"
    finally:
        for server, store in zip(servers, (a, b), strict=True):
            server.stop(grace=0.5)
            store.close()


def test_two_serve_processes_on_one_database_and_one_killed_mid_writes(postgres_dsn: str) -> None:
    """Two ``memorywire serve`` processes on one database: writes through one
    are read, searched and watched through the other; one killed (SIGKILL)
    in the middle of batched writes loses no acknowledged batch, and the
    other serves on, a retry of the batch in flight included."""
    import os
    import signal
    from collections import Counter

    from memorywire.client import ServiceError
    from memorywire.service.process import ServeProcess

    first, second = ServeProcess(postgres_dsn, ["--quiet"]), ServeProcess(postgres_dsn, ["--quiet"])
    try:
        assert {x.get("store") for x in first.lines if x.get("event") == "listening"} == {redacted(postgres_dsn)}
        acknowledged: list[int] = []
        sent: list[int] = []
        with Client(second.target, tenant="acme", timeout=30) as other:
            with other.watch() as events:
                with Client(first.target, tenant="acme", timeout=30) as one:
                    one.put(fact("hello", "window seat", embeddings=embedding([1.0, 0.0])))
                assert next(events)["record"]["id"] == "hello"
            assert other.search("window")["hits"][0]["record"]["id"] == "hello"
            assert other.search(vector={"model": "demo", "values": [1.0, 0.1]})["hits"][0]["record"]["id"] == "hello"

            def writer() -> None:
                with Client(first.target, tenant="acme", timeout=10) as mw:
                    for i in range(100_000):
                        sent.append(i)
                        try:
                            mw.put([fact(f"b{i}-{j}", f"batch {i}", tags=[f"batch-{i}"]) for j in range(20)],
                                   atomic=True, operation_id=f"batch-{i}")
                        except ServiceError:
                            return
                        acknowledged.append(i)

            thread = threading.Thread(target=writer)
            thread.start()
            deadline = time.monotonic() + 30
            while len(acknowledged) < 50 and time.monotonic() < deadline and thread.is_alive():
                time.sleep(0.01)
            assert first.process is not None
            os.kill(first.process.pid, signal.SIGKILL)
            thread.join(30)
            assert not thread.is_alive() and len(acknowledged) >= 50
            counts = Counter(x["tags"][0] for x in other.export() if x.get("tags"))
            assert all(counts[f"batch-{i}"] == 20 for i in acknowledged)
            assert all(n == 20 for n in counts.values())  # the batch in flight: all or nothing
            last = sent[-1]
            out = other.put([fact(f"b{last}-{j}", f"batch {last}", tags=[f"batch-{last}"]) for j in range(20)],
                            atomic=True, operation_id=f"batch-{last}")
            assert len(out["results"]) == 20
            assert Counter(x["tags"][0] for x in other.export() if x.get("tags"))[f"batch-{last}"] == 20
    finally:
        first.stop()
        second.stop()


def test_a_replica_is_woken_by_the_others_commits_after_losing_its_listener(postgres_dsn: str) -> None:
    import psycopg

    a, b = PostgresStore(postgres_dsn), PostgresStore(postgres_dsn)
    try:
        def woken_by_a_write(n: int) -> bool:
            with b.changed:
                with a.write() as tx:
                    t = tx.tenant("acme")
                    assert t is not None
                    tx.change(t, 1, {"id": f"x{n}"}, None)
                return b.changed.wait(5)

        time.sleep(0.5)  # both listeners are up
        assert woken_by_a_write(1)
        with psycopg.connect(postgres_dsn, autocommit=True) as conn:
            killed = conn.execute("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                  "WHERE query LIKE 'LISTEN %%' AND datname = current_database()").fetchone()
        assert killed is not None and killed[0] == 2
        time.sleep(2)  # they connect again
        assert woken_by_a_write(2)
        assert b.positions[b.tenant_num("acme") or 0] == 2
    finally:
        a.close()
        b.close()
    assert not a._listener.is_alive() and not b._listener.is_alive()


def test_a_replica_killed_while_both_take_batched_writes_loses_no_acknowledged_write(postgres_dsn: str) -> None:
    """Both replicas take batched writes; one is killed (SIGKILL) in the
    middle of them while the other keeps serving: no acknowledged batch is
    lost or partial, the tenant's sequence has no hole, and the killed one,
    started again, serves what the other wrote meanwhile."""
    import os
    import signal
    from collections import Counter

    from memorywire.client import ServiceError
    from memorywire.service.process import ServeProcess

    dsn = postgres_dsn
    batch_size = 20
    doomed, survivor = ServeProcess(dsn, ["--quiet"]), ServeProcess(dsn, ["--quiet"])
    acknowledged: dict[str, int] = {}
    lock = threading.Lock()
    killed, stop = threading.Event(), threading.Event()
    failures: list[BaseException] = []

    def writer(served: ServeProcess, name: str) -> None:
        with Client(served.target, tenant="durability", timeout=10) as mw:
            for i in range(100_000):
                if stop.is_set():
                    return
                batch = [fact(f"{name}-{i}-{k}", f"batch {name} {i} item {k}", tags=[f"{name}-{i}"])
                         for k in range(batch_size)]
                try:
                    mw.put(batch, atomic=i % 2 == 0, operation_id=f"{name}-{i}")
                except ServiceError as e:
                    if not (served is doomed and killed.is_set()):
                        failures.append(e)
                    return
                with lock:
                    acknowledged[f"{name}-{i}"] = batch_size

    try:
        threads = [threading.Thread(target=writer, args=(served, f"{label}{n}"))
                   for label, served in (("d", doomed), ("s", survivor)) for n in range(2)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 60
        while sum(1 for k in list(acknowledged) if k.startswith("d")) < 40 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert doomed.process is not None
        killed.set()
        os.kill(doomed.process.pid, signal.SIGKILL)  # in the middle of its batches
        before = sum(1 for k in list(acknowledged) if k.startswith("s"))
        time.sleep(1.0)
        served_on = sum(1 for k in list(acknowledged) if k.startswith("s")) - before
        stop.set()
        for t in threads:
            t.join(30)
        assert not failures, failures
        assert served_on > 0, "the surviving replica stopped serving"

        with Client(survivor.target, tenant="durability", timeout=30) as mw:
            records = list(mw.export())
        counts = Counter(r["tags"][0] for r in records)
        missing = [batch for batch in acknowledged if counts[batch] != batch_size]
        assert not missing, f"acknowledged batches lost or partial: {missing[:5]}"
        assert all(n == batch_size for n in counts.values()), "a batch is there in part"
        # The killed replica's transaction in flight left no hole in the order.
        assert sorted(r["sequence"] for r in records) == list(range(1, len(records) + 1))

        doomed.stop()
        doomed.start()  # back on the same port, it serves what the other wrote meanwhile
        with Client(doomed.target, tenant="durability", timeout=30) as mw:
            assert Counter(r["tags"][0] for r in mw.export()) == counts
    finally:
        stop.set()
        doomed.stop()
        survivor.stop()
