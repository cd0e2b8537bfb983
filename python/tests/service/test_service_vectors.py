"""The in-memory vector index ranks exactly as comparing every record does
(operations.md section 9.2), and stays in step with writes."""

from __future__ import annotations

import math
import random
import sqlite3
from array import array
from typing import Any

import pytest
from service_helpers import downgrade_to_schema_3, put_records, search_hits

import memorywire.protobuf
from memorywire.service import Service, Store
from memorywire.service.operations import Call
from memorywire.service.store import SCHEMA_VERSION
from memorywire.service.vectors import Index, cosine, raw_of

DIMS = 24


def _vec(rng: random.Random, dims: int = DIMS) -> list[float]:
    return [rng.gauss(0.0, 1.0) for _ in range(dims)]


def _search(svc: Service, **req: Any) -> list[tuple[str, float]]:
    return [(x[0], x[1]) for x in search_hits(svc, **req)]


@pytest.fixture(scope="module")
def pair() -> Any:
    rng = random.Random(7)
    base = [_vec(rng) for _ in range(40)]
    records = []
    for i in range(1500):
        v = base[i % 40] if i % 7 == 0 else _vec(rng)  # exact duplicates make ties
        embeddings = [{"model": "m", "dimensions": DIMS, "values": v}]
        if i % 11 == 0:
            embeddings.append({"model": "m", "dimensions": DIMS, "values": _vec(rng)})
        if i % 13 == 0:
            embeddings.append({"model": "other", "dimensions": DIMS, "values": _vec(rng)})
        records.append({"id": f"r{i}", "kind": "fact",
                        "fact": {"text": f"note {i} " + ("alpha " if i % 3 == 0 else "beta ")},
                        "scope": {"user": f"u{i % 4}"}, "embeddings": embeddings,
                        "lifecycle": {"status": "archived"} if i % 17 == 0 else {"importance": i / 1500}})
    indexed = Service(Store(":memory:", vector_exact_threshold=0))
    exact = Service(Store(":memory:", vector_exact_threshold=10**9))
    for svc in (indexed, exact):
        put_records(svc, records, "load")
    yield indexed, exact, rng
    for svc in (indexed, exact):
        svc.store.close()


@pytest.mark.parametrize("extra", [
    {},
    {"limit": 100},
    {"include_archived": True, "limit": 50},
    {"scope": {"user": "u1"}, "limit": 30},
    {"filter": {"compare": {"field": "/lifecycle/importance", "operator": "lt", "value": 0.5}}, "limit": 40},
    {"min_score": 0.3, "limit": 1000},
    {"text": "alpha", "limit": 60},
    {"text": "alpha", "fusion": {"method": "weighted", "text_weight": 0.3}, "limit": 60},
])
def test_indexed_ranking_equals_exact(pair: Any, extra: dict[str, Any]) -> None:
    indexed, exact, rng = pair
    for _ in range(4):
        q = {"model": "m", "values": _vec(rng)}
        a = _search(indexed, vector=q, **extra)
        b = _search(exact, vector=q, **extra)
        assert a == b
        assert a


def test_ties_and_paging(pair: Any) -> None:
    indexed, exact, _ = pair
    q = {"model": "m", "values": [1.0] * DIMS}
    first = _search(indexed, vector=q, limit=1000)
    paged: list[tuple[str, float]] = []
    cursor = None
    while True:
        req: dict[str, Any] = {"vector": q, "limit": 97}
        if cursor:
            req["cursor"] = cursor
        data = indexed.search(Call("t"), {"specversion": "1.0", "operation_id": "p", **req})
        out = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse")
        paged += [(h["record"]["id"], h.get("score", 0.0)) for h in out.get("hits", [])]
        cursor = out.get("next_cursor")
        if not cursor:
            break
    assert len(paged) > 1000
    assert paged[:1000] == first == _search(exact, vector=q, limit=1000)
    scores = [s for _, s in first]
    assert scores == sorted(scores, reverse=True)


def test_index_follows_writes(pair: Any) -> None:
    indexed, exact, rng = pair
    q = list(array("f", _vec(rng)))  # binary32 values, as a request carries them
    changes = [{"id": "r3", "kind": "fact", "fact": {"text": "moved"},
                "embeddings": [{"model": "m", "dimensions": DIMS, "values": q}]},
               {"id": "new", "kind": "fact", "fact": {"text": "new"},
                "embeddings": [{"model": "m", "dimensions": DIMS, "values": [-x for x in q]}]}]
    for svc in (indexed, exact):
        put_records(svc, changes, "change")
        svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "del", "ids": ["r6", "r9"],
                               "mode": "hard"})
        svc.update(Call("t"), {"specversion": "1.0", "operation_id": "arch", "id": "r12",
                               "patch": {"lifecycle": {"status": "archived"}}})
    a = _search(indexed, vector={"model": "m", "values": q}, limit=1500)
    assert a == _search(exact, vector={"model": "m", "values": q}, limit=1500)
    assert a[0] == ("r3", 1.0)
    ids = [x for x, _ in a]
    assert "r6" not in ids and "r12" not in ids and ids[-1] == "new"


def _f32(values: list[float]) -> list[float]:
    return list(array("f", values))


@pytest.mark.parametrize("dims", [1, 3, 384, 1536])
def test_error_bound_holds(dims: int) -> None:
    """Every approximate cosine lies within the stated bound of the exact
    one, also for vectors whose binary32 dot products lose the most:
    large cancellations, components of very different magnitudes."""
    rng = random.Random(dims)
    index = Index(dims)
    rows = []
    for i in range(300):
        kind = i % 3
        if kind == 0:
            v = _vec(rng, dims)
        elif kind == 1:
            v = [rng.choice((1.0, -1.0)) * 10.0 ** rng.uniform(-12, 12) for _ in range(dims)]
        else:
            base = rng.gauss(0.0, 1.0)
            v = [base * (1.0 + 1e-7 * rng.gauss(0.0, 1.0)) * (-1) ** j for j in range(dims)]
        rows.append(_f32(v))
    raws = [raw_of(v) for v in rows]
    index.add(list(range(len(rows))), [1] * len(rows), list(range(len(rows))),
              b"".join(x[0] for x in raws), [x[1] for x in raws])
    for _ in range(5):
        q = _f32([rng.gauss(0.0, 1.0) * 10.0 ** rng.uniform(-3, 3) for _ in range(dims)])
        q_norm = math.sqrt(sum(x * x for x in q))
        rids, approx, delta = index.approximate(q, frozenset({1}), None)
        assert len(rids) == len(rows)
        assert delta < 1e-4  # the bound is tight enough to be of use
        for rid, a in zip(rids.tolist(), approx.tolist(), strict=True):
            exact = cosine(q, q_norm, rows[rid])
            assert exact is not None
            assert abs(a - exact) <= delta


def test_irregular_norms_rank_exactly() -> None:
    """Embeddings too large or too small for binary32 products are compared
    exactly; a zero embedding is never a candidate."""
    dims = 8
    huge = _f32([3.0e38] * dims)
    tiny = _f32([1.0e-44, -1.0e-44] + [0.0] * (dims - 2))
    records = [{"id": "huge", "kind": "fact", "fact": {"text": "a"},
                "embeddings": [{"model": "m", "dimensions": dims, "values": huge}]},
               {"id": "tiny", "kind": "fact", "fact": {"text": "b"},
                "embeddings": [{"model": "m", "dimensions": dims, "values": tiny}]},
               {"id": "zero", "kind": "fact", "fact": {"text": "c"},
                "embeddings": [{"model": "m", "dimensions": dims, "values": [0.0] * dims}]}]
    svc = Service(Store(":memory:", vector_exact_threshold=0))
    try:
        put_records(svc, records, "irregular")
        q = [1.0, -1.0] + [0.5] * (dims - 2)
        hits = dict(_search(svc, vector={"model": "m", "values": q}))
        q_norm = math.sqrt(sum(x * x for x in q))
        assert set(hits) == {"huge", "tiny"}
        assert hits["huge"] == cosine(q, q_norm, huge)
        assert hits["tiny"] == cosine(q, q_norm, tiny)
    finally:
        svc.store.close()


def test_store_of_schema_1_is_upgraded(tmp_path: Any) -> None:
    """A store file of schema 1, whose embeddings table also held indexed
    vectors, opens with its embeddings kept and searchable."""
    path = str(tmp_path / "old.sqlite3")
    v = _f32([1.0, 2.0, 3.0])
    svc = Service(Store(path))
    put_records(svc, [{"id": "a", "kind": "fact", "fact": {"text": "a"},
                "embeddings": [{"model": "m", "dimensions": 3, "values": v}]}], "old")
    svc.store.close()
    downgrade_to_schema_3(path)
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("ALTER TABLE embeddings RENAME TO e2")
        conn.execute("DROP INDEX embeddings_rid")
        conn.execute("DROP INDEX embeddings_group")
        conn.execute("CREATE TABLE embeddings (rid INTEGER NOT NULL, tenant INTEGER NOT NULL, model TEXT NOT NULL, "
                     "dims INTEGER NOT NULL, qv BLOB NOT NULL, scale REAL NOT NULL, qsum INTEGER NOT NULL, "
                     "err REAL NOT NULL, raw BLOB NOT NULL, norm REAL NOT NULL)")
        conn.execute("INSERT INTO embeddings SELECT rid, tenant, model, dims, x'00', 1.0, 0, 0.0, raw, norm FROM e2")
        conn.execute("DROP TABLE e2")
        conn.execute("CREATE INDEX embeddings_rid ON embeddings (rid)")
        conn.execute("CREATE INDEX embeddings_group ON embeddings (tenant, model, dims)")
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'schema'")
    conn.close()
    for threshold in (0, 10):
        svc = Service(Store(path, vector_exact_threshold=threshold))
        try:
            assert _search(svc, vector={"model": "m", "values": v}) == [("a", 1.0)]
            columns = [x[1] for x in svc.store._writer.execute("PRAGMA table_info(embeddings)")]
            assert columns == ["rid", "tenant", "model", "dims", "off", "norm"]
        finally:
            svc.store.close()
    conn = sqlite3.connect(path)
    with conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    conn.close()
    with pytest.raises(ValueError, match="schema version 99"):
        Store(path)


def _tenant_records(rng: random.Random, n: int) -> list[dict[str, Any]]:
    return [{"id": f"r{i}", "kind": "fact", "fact": {"text": f"note {i} alpha"},
             "embeddings": [{"model": "m", "dimensions": DIMS, "values": _vec(rng)}]} for i in range(n)]


def test_indexes_stay_within_the_memory_budget() -> None:
    """Loading an index beyond the store's budget drops the least recently
    used others; a dropped index is loaded again when next used, and every
    search gives what a store without indexes gives."""
    rng = random.Random(5)
    data = {t: _tenant_records(rng, 1500) for t in ("a", "b", "c")}
    one = Index(DIMS)
    raws = [raw_of(r["embeddings"][0]["values"]) for r in data["a"]]
    one.add(list(range(1500)), [1] * 1500, list(range(1500)), b"".join(x[0] for x in raws), [x[1] for x in raws])
    # Room for two vector indexes of this size, not three.
    budget = Service(Store(":memory:", vector_exact_threshold=0, index_memory_bytes=int(one.nbytes() * 2.5)))
    exact = Service(Store(":memory:", vector_exact_threshold=10**9))
    for svc in (budget, exact):
        for tenant, records in data.items():
            put_records(svc, records, tenant, tenant=tenant)
    store = budget.store

    def search(svc: Service, tenant: str, q: list[float]) -> Any:
        return search_hits(svc, tenant, limit=20, vector={"model": "m", "values": q})

    def loaded() -> set[str]:
        return {t for t in data if ("vectors", store.tenant_num(t), "m", DIMS) in store.indexes}

    try:
        for tenant, expected in (("a", {"a"}), ("b", {"a", "b"}), ("a", {"a", "b"}), ("c", {"a", "c"}),
                                 ("b", {"c", "b"})):
            q = _vec(rng)
            assert search(budget, tenant, q) == search(exact, tenant, q)
            assert loaded() == expected
        assert store.indexes.total() <= store.indexes.limit  # type: ignore[operator]
        assert store.vectors.loaded(store.tenant_num("a") or 0, "m", DIMS) is None  # dropped, not kept
        # Writes grow c's index beyond the budget: the least recently used goes.
        more = _tenant_records(rng, 1500)
        for svc in (budget, exact):
            put_records(svc, [{**x, "id": "m" + x["id"]} for x in more], "more", tenant="c")
        assert loaded() == {"b"}
        q = _vec(rng)
        assert search(budget, "c", q) == search(exact, "c", q)
        assert loaded() == {"c"}
    finally:
        for svc in (budget, exact):
            svc.store.close()


def test_hybrid_ranks_among_copies_of_one_embedding() -> None:
    """Records that share one embedding tie in the vector ranking and are
    ranked by sequence (operations.md section 9.3), through the index as
    when every record is compared."""
    records = [{"id": f"r{i}", "kind": "fact", "fact": {"text": "hello world" if i % 10 == 0 else "other words"},
                "embeddings": [{"model": "m", "dimensions": 4,
                                "values": [1.0, 2.0, 3.0, 4.0] if i % 3 else [4.0, 3.0, 2.0, 1.0]}]}
               for i in range(2500)]
    indexed = Service(Store(":memory:", vector_exact_threshold=0))
    exact = Service(Store(":memory:", vector_exact_threshold=10**9))
    try:
        for svc in (indexed, exact):
            put_records(svc, records, "copies")
        for fusion in ({}, {"method": "weighted"}, {"rrf_k": 1}):
            req = {"text": "hello", "vector": {"model": "m", "values": [1.0, 0.0, 0.5, 0.0]}, "limit": 300,
                   "fusion": fusion}
            a = _search(indexed, **req)
            assert a == _search(exact, **req)
            assert len(a) == 300
    finally:
        for svc in (indexed, exact):
            svc.store.close()


def test_the_server_warms_the_largest_indexes(tmp_path: Any) -> None:
    """As it starts, the server loads the search indexes of the groups too
    large to search without them, and logs it; with warm=False it does not,
    and a budget already full stops it."""
    import io
    import json

    from memorywire.service.server import MemoryServer

    path = str(tmp_path / "warm.sqlite3")
    rng = random.Random(9)
    svc = Service(Store(path))
    for tenant in ("big", "small"):
        put_records(svc, _tenant_records(rng, 60 if tenant == "big" else 5), tenant, tenant=tenant)
    svc.store.close()

    def start(warm: bool, limit: int | None = None) -> tuple[Store, str]:
        store = Store(path, vector_exact_threshold=20, text_index_threshold=20, index_memory_bytes=limit)
        log = io.StringIO()
        server = MemoryServer(store, "127.0.0.1:0", warm=warm, log=log)
        server.start()
        if server.warming is not None:
            server.warming.join(30)
        server.stop(grace=0.5)
        return store, log.getvalue()

    store, log = start(True)
    big, small = store.tenant_num("big") or 0, store.tenant_num("small") or 0
    assert ("vectors", big, "m", DIMS) in store.indexes and ("texts", big) in store.indexes
    assert ("vectors", small, "m", DIMS) not in store.indexes and ("texts", small) not in store.indexes
    warmed = [json.loads(line) for line in log.splitlines() if '"warmed"' in line]
    assert warmed and warmed[0]["vector_indexes"] == 1 and warmed[0]["text_indexes"] == 1
    store.close()
    store, log = start(False)
    assert store.indexes.total() == 0 and '"warmed"' not in log
    store.close()
    store, _ = start(True, limit=1)  # the first index fills the budget: nothing after it
    assert ("vectors", big, "m", DIMS) in store.indexes and ("texts", big) not in store.indexes
    store.close()


def test_a_schema_2_store_indexes_the_text_of_its_custom_records(tmp_path: Any) -> None:
    """Version 2 read no text in custom records; opening it with version 3
    and later indexes them, so they are found by text like those written since."""
    path = str(tmp_path / "v2.sqlite3")
    svc = Service(Store(path))
    put_records(svc, [{"id": "c", "kind": "custom", "custom": {"type": "langgraph.item",
                                                                "value": {"text": "prefers window seats"}}},
                      {"id": "f", "kind": "fact", "fact": {"text": "window"}}], "old")
    svc.store.close()
    downgrade_to_schema_3(path)
    conn = sqlite3.connect(path)
    with conn:
        rid = conn.execute("SELECT rid FROM records WHERE id = 'c'").fetchone()[0]
        conn.execute("DELETE FROM texts WHERE rowid = ?", (rid,))
        conn.execute("UPDATE records SET words = 0, terms = NULL WHERE rid = ?", (rid,))
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema'")
    conn.close()
    svc = Service(Store(path))
    try:
        assert sorted(i for i, _ in _search(svc, text="window")) == ["c", "f"]
        assert [i for i, _ in _search(svc, text="seats")] == ["c"]
        assert svc.store._writer.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()[0] == SCHEMA_VERSION
    finally:
        svc.store.close()
