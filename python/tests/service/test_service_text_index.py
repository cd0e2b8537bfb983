"""The in-memory postings (texts.py) give hybrid search the same complete
text ranking as SQLite, to the last bit of every score (operations.md
sections 9.1 and 9.3), and stay in step with writes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from service_helpers import put_records, search_hits

from memorywire.service import Service, Store
from memorywire.service.operations import Call

DIMS = 8
WORDS = ["window", "seat", "aisle", "vegetarian", "flight", "lisbon", "e-mail", "hotel", "quiet", "room"]


def _vec(rng: random.Random) -> list[float]:
    return [rng.gauss(0.0, 1.0) for _ in range(DIMS)]


@pytest.fixture(scope="module")
def pair() -> Any:
    rng = random.Random(11)
    records = []
    for i in range(1200):
        text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 12)))
        if i % 5 == 0:
            text += " the user"  # words that many records hold
        record: dict[str, Any] = {"id": f"r{i}", "kind": "fact", "fact": {"text": f"the user {text}"},
                                  "scope": {"user": f"u{i % 3}"}}
        if i % 4:
            record["embeddings"] = [{"model": "m", "dimensions": DIMS, "values": _vec(rng)}]
        if i % 13 == 0:
            record["lifecycle"] = {"status": "archived"}
        records.append(record)
    memory = Service(Store(":memory:", text_index_threshold=0))
    sql = Service(Store(":memory:", text_index_threshold=10**9))
    for svc in (memory, sql):
        put_records(svc, records, "load")
    yield memory, sql, rng
    for svc in (memory, sql):
        svc.store.close()


REQUESTS: list[dict[str, Any]] = [
    {"text": "window seat", "limit": 200},
    {"text": "the user quiet", "limit": 1000},
    {"text": "e-mail hotel", "limit": 100},
    {"text": "lisbon", "fusion": {"method": "weighted", "text_weight": 0.7}, "limit": 300},
    {"text": "aisle room", "fusion": {"rrf_k": 5}, "include_archived": True, "limit": 100},
    {"text": "vegetarian flight", "scope": {"user": "u1"}, "limit": 100},
    {"text": "seat", "filter": {"compare": {"field": "/scope/user", "operator": "eq", "value": "u2"}},
     "limit": 100},
    {"text": "nothing matches this", "limit": 10},
]


@pytest.mark.parametrize("req", REQUESTS)
def test_hybrid_rankings_equal(pair: Any, req: dict[str, Any]) -> None:
    memory, sql, rng = pair
    for _ in range(3):
        q = {"model": "m", "values": _vec(rng)}
        a = search_hits(memory, vector=q, **req)
        assert a == search_hits(sql, vector=q, **req)
        assert a
    assert memory.store.texts.loaded(memory.store.tenant_num("t")) is not None
    assert sql.store.texts.loaded(sql.store.tenant_num("t")) is None


def test_postings_follow_writes(pair: Any) -> None:
    memory, sql, rng = pair
    for svc in (memory, sql):
        put_records(svc, [{"id": "r1", "kind": "fact", "fact": {"text": "window window window seat"}},
                   {"id": "new", "kind": "fact", "fact": {"text": "a quiet window"}}], "change")
        svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "del", "ids": ["r2", "r3"],
                               "mode": "hard"})
        svc.delete(Call("t"), {"specversion": "1.0", "operation_id": "soft", "ids": ["r5"]})
        svc.update(Call("t"), {"specversion": "1.0", "operation_id": "arch", "id": "r6",
                               "patch": {"lifecycle": {"status": "archived"}}})
        svc.update(Call("t"), {"specversion": "1.0", "operation_id": "text", "id": "r7",
                               "patch": {"fact": {"text": "an aisle seat by the window"}}})
    q = {"model": "m", "values": _vec(rng)}
    for req in REQUESTS[:5]:
        a = search_hits(memory, vector=q, **req)
        assert a == search_hits(sql, vector=q, **req)
    ids = [x[0] for x in search_hits(memory, vector=q, text="window", limit=1000)]
    assert "new" in ids and "r2" not in ids and "r5" not in ids and "r6" not in ids


def test_a_word_of_one_term_twice_is_a_phrase_on_both_paths() -> None:
    """A word the tokenizer reads as the same term twice ("ab" U+20DD "ab")
    matches as the phrase "ab ab", on the postings as in SQLite, and does
    not hide the plain word "ab" of the same query."""
    records = [{"id": f"r{i}", "kind": "fact",
                "fact": {"text": "ab ab good" if i % 5 == 0 else ("ab good" if i % 2 else "bad thing")},
                "embeddings": [{"model": "m", "dimensions": 2, "values": [1.0, float(i)]}]} for i in range(30)]
    memory = Service(Store(":memory:", text_index_threshold=0))
    sql = Service(Store(":memory:", text_index_threshold=10**9))
    try:
        for svc in (memory, sql):
            put_records(svc, records, "load")
        q = {"model": "m", "values": [1.0, 0.5]}
        phrase = "ab\u20ddab"
        for text in (phrase, phrase + " ab", "ab " + phrase):
            a = search_hits(memory, text=text, vector=q, limit=100)
            assert a == search_hits(sql, text=text, vector=q, limit=100)
        matched = {x[0] for x in search_hits(memory, text=phrase, vector=q, limit=100) if x[2] is not None}
        assert matched == {f"r{i}" for i in range(0, 30, 5)}
        both = {x[0] for x in search_hits(memory, text=phrase + " ab", vector=q, limit=100) if x[2] is not None}
        assert both == {f"r{i}" for i in range(30) if i % 5 == 0 or i % 2}
    finally:
        for svc in (memory, sql):
            svc.store.close()


def _pages(svc: Any, **req: Any) -> list[list[tuple[str, float, float | None]]]:
    """Every page of a text search, each as (id, score, text_score) hits."""
    import memorywire.protobuf

    pages = []
    cursor = None
    while True:
        page = {"cursor": cursor} if cursor else {}
        data = svc.search(Call("t"), {"specversion": "1.0", "operation_id": "s", **req, **page})
        out = memorywire.protobuf.decode(data, type="memorywire.v1.SearchResponse")
        pages.append([(h["record"]["id"], h["score"], h.get("text_score")) for h in out.get("hits", [])])
        cursor = out.get("next_cursor")
        if not cursor:
            return pages


TEXT_REQUESTS: list[dict[str, Any]] = [
    {"text": "window seat", "limit": 37},
    {"text": "the user quiet", "limit": 250},
    {"text": "the user", "limit": 100},  # words that every record holds: ties on ties
    {"text": "lisbon hotel room flight", "limit": 1},
    {"text": "aisle room", "include_archived": True, "limit": 90},
    {"text": "vegetarian flight", "scope": {"user": "u1"}, "limit": 60},
    {"text": "seat", "filter": {"compare": {"field": "/scope/user", "operator": "eq", "value": "u2"}},
     "limit": 80},
    {"text": "e-mail window", "min_score": 1.5, "limit": 40},
    {"text": "nothing matches this", "limit": 10},
]


@pytest.mark.parametrize("req", TEXT_REQUESTS)
def test_text_searches_equal_on_postings_and_store(pair: Any, req: dict[str, Any]) -> None:
    """A text search of a large tenant ranks on the in-memory postings; every
    page of it has the hits and scores of the store's matches to the bit."""
    memory, sql, _ = pair
    a = _pages(memory, **req)
    assert a == _pages(sql, **req)
    assert any(a) == (req["text"] != "nothing matches this")
    assert memory.store.texts.loaded(memory.store.tenant_num("t")) is not None
    assert sql.store.texts.loaded(sql.store.tenant_num("t")) is None


def test_text_search_without_room_ranks_the_store_matches() -> None:
    """A text search loads the postings of a large tenant only while the
    index budget has room: it drops no other index, and ranks the store's
    matches instead, with the same hits."""
    rng = random.Random(5)
    records = [{"id": f"r{i}", "kind": "fact",
                "fact": {"text": " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 9)))}}
               for i in range(300)]
    tight = Service(Store(":memory:", text_index_threshold=0, index_memory_bytes=1))
    sql = Service(Store(":memory:", text_index_threshold=10**9))
    try:
        for svc in (tight, sql):
            for tenant in ("a", "b"):
                put_records(svc, records, "load", tenant)
        for tenant in ("a", "b"):
            for text in ("window seat", "quiet room hotel"):
                hits = search_hits(tight, tenant, text=text, limit=25)
                assert hits and hits == search_hits(sql, tenant, text=text, limit=25)
        texts = tight.store.texts
        assert texts.loaded(tight.store.tenant_num("a")) is not None
        assert texts.loaded(tight.store.tenant_num("b")) is None
    finally:
        for svc in (tight, sql):
            svc.store.close()
