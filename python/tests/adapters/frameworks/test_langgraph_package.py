"""LangGraph stores built by the real package (langgraph 1.2.24,
langgraph-checkpoint-sqlite 3.1.2): items and store rows that the stores
themselves return, from values hypothesis generates, go to records, through
every encoding and back, exactly. Runs in .venv-fw/langgraph."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from harness import assert_exact, assert_round_trip, assert_service_round_trip
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langgraph.store.base import Item
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore

from memorywire.adapters import FORMS

ITEM = FORMS["langgraph.item"]
ROW = FORMS["langgraph.sqlite_store_row"]

labels = st.text(st.characters(codec="utf-8", exclude_characters=".\x00"), min_size=1, max_size=8)
namespaces = st.lists(labels, min_size=1, max_size=3).map(tuple)
keys = st.text(st.characters(codec="utf-8"), max_size=8)
texts = st.text(st.characters(codec="utf-8"), max_size=12)


def values(big: bool) -> st.SearchStrategy[dict[str, Any]]:
    ints = st.integers() if big else st.integers(min_value=-(2**63), max_value=2**64 - 1)
    leaves = st.none() | st.booleans() | ints | st.floats(allow_nan=False, allow_infinity=False) | texts
    inner = st.recursive(leaves, lambda x: st.lists(x, max_size=3) | st.dictionaries(texts, x, max_size=3),
                         max_leaves=8)
    return st.dictionaries(texts, inner, max_size=4)


def puts(big: bool) -> st.SearchStrategy[list[tuple[tuple[str, ...], str, dict[str, Any], float | None]]]:
    ttl = st.none() | st.floats(min_value=0.01, max_value=10**6) | st.integers(1, 10**6).map(float)
    return st.lists(st.tuples(namespaces, keys, values(big), ttl), min_size=1, max_size=5)


def _same_item(a: dict[str, Any], b: dict[str, Any]) -> None:
    """LangGraph's own equality of the items, and type-exact dicts."""
    assert Item(**{k: v for k, v in a.items() if k != "score"}) == Item(
        **{k: v for k, v in b.items() if k != "score"})
    assert_exact(a, b)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(puts(big=True))
def test_in_memory_store_items(ops: list[Any]) -> None:
    store = InMemoryStore()
    for namespace, key, value, _ in ops:
        store.put(namespace, key, value)
    items = [store.get(ns, k).dict() for ns, k, _, _ in ops]  # type: ignore[union-attr]
    items += [i.dict() for i in store.search((), limit=100)]
    back = ITEM.from_records(assert_round_trip(ITEM, items))
    for a, b in zip(back, items, strict=True):
        _same_item(a, b)


@contextmanager
def sqlite_store() -> Iterator[tuple[SqliteStore, sqlite3.Connection]]:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    store = SqliteStore(conn, ttl={"default_ttl": None, "refresh_on_read": True})
    store.setup()
    try:
        yield store, conn
    finally:
        conn.close()


def rows(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    cur = conn.execute("SELECT * FROM store ORDER BY rowid")
    names = [d[0] for d in cur.description]
    return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(puts(big=False), st.booleans())
def test_sqlite_store_items_and_rows(ops: list[Any], refresh: bool) -> None:
    with sqlite_store() as (store, conn):
        for namespace, key, value, ttl in ops:
            store.put(namespace, key, value, ttl=ttl)
        if refresh:
            # A refreshing read rewrites expires_at with SQLite's DATETIME().
            conn.execute("UPDATE store SET expires_at = DATETIME('now', '+' || ttl_minutes || ' minutes') "
                         "WHERE ttl_minutes IS NOT NULL")
        items = [i.dict() for i in store.search((), limit=100, refresh_ttl=False)]
        items += [store.get(ns, k, refresh_ttl=False).dict() for ns, k, _, _ in ops]  # type: ignore[union-attr]
        table = rows(conn)
    back = ITEM.from_records(assert_round_trip(ITEM, items))
    for a, b in zip(back, items, strict=True):
        _same_item(a, b)
    assert_round_trip(ROW, table, ordered=True)
    for row in table:
        assert type(row["value"]) is bytes


def test_store_rows_through_the_service(service: Callable[[], Any]) -> None:
    with sqlite_store() as (store, conn):
        store.put(("a", "b"), "k", {"z": 1, "a": [1.0, -0.0, 2**63 + 1]}, ttl=5)
        store.put(("a",), "k", {"x": None})
        store.put(("a", "b"), "k", {"y": "again"})
        table = rows(conn)
        items = [i.dict() for i in store.search((), limit=10)]
    assert_service_round_trip(service(), ROW, table, ordered=True)
    assert_service_round_trip(service(), ITEM, items)
