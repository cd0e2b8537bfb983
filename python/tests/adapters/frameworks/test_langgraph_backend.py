"""MemorywireStore, LangGraph's BaseStore on a live ``memorywire serve``:
the behaviours of LangGraph's own store tests (libs/checkpoint/tests/
test_store.py), run side by side against InMemoryStore (and SqliteStore for
TTL) so that a difference fails; a graph that keeps its memory in the
store across two turns and a restart of the service; the records as other
frameworks read them; errors and retries."""

from __future__ import annotations

import asyncio
import math
import random
import subprocess
import sys
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, GetOp, InvalidNamespaceError, Item, ListNamespacesOp, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore
from langgraph.store.sqlite import SqliteStore
from live import Serve
from lost_response import losing_proxy

from memorywire.adapters import FORMS
from memorywire.client import Client
from memorywire.integrations.langgraph import MemorywireStore, MemorywireStoreError, record_id

pytestmark = pytest.mark.timeout(180)


class CharacterEmbeddings(Embeddings):
    """LangGraph's test embedder (libs/checkpoint/tests/embed_test_utils.py):
    character frequencies through random projections, normalised."""

    def __init__(self, dims: int = 50, seed: int = 42) -> None:
        self._rng = random.Random(seed)
        self.dims = dims
        self._lock = threading.Lock()
        self._char_projections: defaultdict[str, list[float]] = defaultdict(
            lambda: [self._rng.gauss(0, 1 / math.sqrt(self.dims)) for _ in range(self.dims)])

    def _embed_one(self, text: str) -> list[float]:
        counts = Counter(text)
        total = sum(counts.values())
        if total == 0:
            return [0.0] * self.dims
        embedding = [0.0] * self.dims
        with self._lock:
            for char, count in counts.items():
                for i, proj in enumerate(self._char_projections[char]):
                    embedding[i] += count / total * proj
        norm = math.sqrt(sum(x * x for x in embedding))
        return [x / norm for x in embedding] if norm > 0 else embedding

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self._embed_one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed_one(text)


@pytest.fixture
def make(serve: Serve) -> Iterator[Callable[..., BaseStore]]:
    """make(kind, **config): a fresh store, "memory" (InMemoryStore),
    "sqlite" (SqliteStore in memory) or "memorywire" (on its own tenant)."""
    with ExitStack() as stack:
        def make(kind: str, **config: Any) -> BaseStore:
            if kind == "memory":
                return InMemoryStore(**config)
            if kind == "sqlite":
                sqlite = stack.enter_context(SqliteStore.from_conn_string(":memory:", **config))
                sqlite.setup()
                return sqlite
            store = MemorywireStore(serve.target, tenant=serve.tenant(), **config)
            stack.callback(store.close)
            return store
        yield make


KINDS = ["memory", "memorywire"]


def seen(items: list[Any]) -> list[tuple[Any, ...]]:
    """What a read gives, without the times (which differ by store)."""
    return [(i.namespace, i.key, i.value, round(i.score, 4) if getattr(i, "score", None) is not None
             else getattr(i, "score", "-")) for i in items]


def side_by_side(make: Callable[..., BaseStore], scenario: Callable[[BaseStore], list[Any]],
                 **config: Any) -> list[Any]:
    """Run a scenario on InMemoryStore and MemorywireStore; equal observations."""
    expected = scenario(make("memory", **config))
    got = scenario(make("memorywire", **config))
    assert got == expected
    return got


# -- namespaces (test_list_namespaces_*) ---------------------------------------------------------

NAMESPACES = [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f"), ("a", "c", "f"),
              ("b", "a", "f"), ("users", "123"), ("users", "456", "settings"), ("admin", "users", "789")]


def test_list_namespaces_side_by_side(make: Callable[..., BaseStore]) -> None:
    def scenario(store: BaseStore) -> list[Any]:
        assert store.list_namespaces() == []
        for i, ns in enumerate(NAMESPACES):
            store.put(namespace=ns, key=f"id_{i}", value={"data": f"value_{i:02d}"})
        for i in range(20):
            store.put(("namespace", f"sub_{i:02d}"), f"id_{i:02d}", {"data": i})
        calls: list[dict[str, Any]] = [
            {}, {"prefix": ("a", "b")}, {"suffix": ("f",)}, {"prefix": ("a",), "suffix": ("f",)},
            {"prefix": ("a", "b"), "max_depth": 3}, {"prefix": ("a", "b"), "limit": 2},
            {"prefix": ("a", "b"), "offset": 2}, {"prefix": ("a", "*", "f")}, {"suffix": ("*", "f")},
            {"prefix": ("nonexistent",)}, {"prefix": ("users", "123")}, {"prefix": ("users", "*")},
            {"suffix": ("*", "settings")}, {"prefix": ("*", "users"), "suffix": ("*", "settings")},
            {"max_depth": 2}, {"max_depth": 1, "limit": 3, "offset": 1},
            {"prefix": ("namespace",), "limit": 5, "offset": 15}, {"prefix": ("a", "b", "c", "d")},
        ]
        return [store.list_namespaces(**c) for c in calls]

    out = side_by_side(make, scenario)
    # langgraph's own expectations, as a check that the scenario checks something
    assert out[1] == [("a", "b", "c"), ("a", "b", "d", "e"), ("a", "b", "d", "i"), ("a", "b", "f")]
    assert out[4] == [("a", "b", "c"), ("a", "b", "d"), ("a", "b", "f")]
    assert out[5] == [("a", "b", "c"), ("a", "b", "d", "e")]
    assert out[13] == [] and out[9] == []
    assert out[16] == [("namespace", f"sub_{i:02d}") for i in range(15, 20)]


@pytest.mark.parametrize("kind", KINDS)
def test_namespace_rules(make: Callable[..., BaseStore], kind: str) -> None:
    """test_cannot_put_empty_namespace: the public API refuses bad
    namespaces, a batch of ops does not, and an item reads back."""
    store = make(kind)
    doc = {"foo": "bar"}
    for bad in [(), ("the", "thing.about"), ("some", "fun", ""), ("langgraph", "foo")]:
        with pytest.raises(InvalidNamespaceError):
            store.put(bad, "foo", doc)
        with pytest.raises(InvalidNamespaceError):
            asyncio.run(store.aput(bad, "foo", doc))
    asyncio.run(store.aput(("foo", "langgraph", "foo"), "bar", doc))
    assert asyncio.run(store.aget(("foo", "langgraph", "foo"), "bar")).value == doc  # type: ignore[union-attr]
    assert store.search(("foo", "langgraph", "foo"), query="bar")[0].value == doc
    store.delete(("foo", "langgraph", "foo"), "bar")
    assert store.get(("foo", "langgraph", "foo"), "bar") is None
    store.batch([PutOp(("langgraph", "foo"), "bar", doc)])
    assert store.get(("langgraph", "foo"), "bar").value == doc  # type: ignore[union-attr]
    assert store.search(("langgraph", "foo"))[0].value == doc
    asyncio.run(store.adelete(("langgraph", "foo"), "bar"))
    assert store.get(("langgraph", "foo"), "bar") is None


def test_namespaces_beyond_the_record_limits_are_invalid(make: Callable[..., BaseStore]) -> None:
    store = make("memorywire")
    with pytest.raises(InvalidNamespaceError, match="NOT_REPRESENTABLE"):
        store.put(("x" * 257,), "k", {"v": 1})
    with pytest.raises(InvalidNamespaceError, match="NOT_REPRESENTABLE"):
        store.put(tuple(f"l{i}" for i in range(33)), "k", {"v": 1})


# -- get, put, delete, batches ------------------------------------------------------------------

def test_batches_side_by_side(make: Callable[..., BaseStore]) -> None:
    """Reads of a batch see the store before it; the last write of a key
    wins; a None value deletes; times are the write's."""
    def scenario(store: BaseStore) -> list[Any]:
        ns = ("users", "u-1")
        out: list[Any] = []
        out.append(store.batch([ListNamespacesOp(), PutOp(ns, "a", {"n": 1}), GetOp(ns, "a"),
                                PutOp(ns, "a", {"n": 2}), PutOp(ns, "b", {"n": 3}), SearchOp(ns)]))
        out.append(store.batch([GetOp(ns, "a"), GetOp(ns, "b"), GetOp(ns, "nope"), GetOp(("other",), "a")]))
        out.append(store.batch([PutOp(ns, "a", None), GetOp(ns, "a"), PutOp(ns, "c", {"n": 4})]))
        out.append(store.batch([GetOp(ns, "a"), SearchOp(ns), SearchOp(("users",), limit=1, offset=1)]))
        store.put(ns, "a", {"n": 5})
        out.append(store.search(ns))  # a deleted key put again comes last
        store.put(ns, "b", {"n": 6})
        out.append(store.search(ns))  # a replaced one keeps its place
        out.append(asyncio.run(store.abatch([GetOp(ns, "b"), PutOp(ns, "b", {"n": 7}), SearchOp(ns, limit=2)])))
        item = store.get(ns, "b")
        assert isinstance(item, Item) and 0 <= (item.updated_at - item.created_at).total_seconds() < 0.01
        assert item.created_at.tzinfo is not None and abs(item.created_at.timestamp() - time.time()) < 60
        return [[seen(r) if isinstance(r, list) and r and isinstance(r[0], Item)
                 else seen([r])[0] if isinstance(r, Item) else r for r in batch]
                if isinstance(batch, list) else batch for batch in out]

    out = side_by_side(make, scenario)
    assert out[0] == [[], None, None, None, None, []]
    assert out[1][0][2] == {"n": 2} and out[1][2:] == [None, None]
    assert [x[1] for x in out[4]] == ["b", "c", "a"]


def test_values_round_trip(make: Callable[..., BaseStore]) -> None:
    def scenario(store: BaseStore) -> list[Any]:
        values: list[dict[str, Any]] = [
            {"name": "naïve café ☕ 🦀 \u200b", "age": 41, "big": 2**63 + 1, "neg_zero": -0.0, "one": 1.0,
             "flag": True, "none": None, "nested": {"z": [1, {"y": []}, "s"], "a": {}}},
            {}, {"text": "line1\nline2\ttab \"quoted\""}]
        for i, v in enumerate(values):
            store.put(("v",), f"k{i}", v)
        got = [store.get(("v",), f"k{i}") for i in range(len(values))]
        out = [x.value for x in got if x is not None]
        assert out == values
        assert {k: type(x) for k, x in out[0].items()} == {k: type(x) for k, x in values[0].items()}  # 1.0: float
        assert math.copysign(1, out[0]["neg_zero"]) == -1
        return out

    side_by_side(make, scenario)


# -- search: filters, order, paging -------------------------------------------------------------

FILTERS: list[dict[str, Any]] = [
    {"color": "red"}, {"color": {"$eq": "red"}}, {"color": {"$ne": "red"}}, {"score": {"$gt": 3.2}},
    {"score": {"$gte": 4.0}, "color": "green"}, {"score": {"$lt": 4}}, {"score": {"$lte": 3.5}},
    {"score": {"$gt": 3, "$lt": 4.5}}, {"n": 1}, {"n": True}, {"n": 1.0}, {"flag": 1}, {"missing": None},
    {"maybe": None}, {"meta": {"size": "L"}}, {"meta": {"size": "L", "tags": ["a", "b"]}}, {"tags": ["a"]},
    {"tags": ["a", "b"]}, {"meta": {"deep": {"x": 1}}}, {"color": "RED"},
    {"color": "red", "score": {"$ne": 3.0}},
]
DOCS: list[tuple[str, dict[str, Any]]] = [
    ("doc1", {"text": "red apple", "color": "red", "score": 4.5, "n": 1, "tags": ["a", "b"],
              "meta": {"size": "L", "tags": ["a", "b"], "deep": {"x": 1}}}),
    ("doc2", {"text": "red car", "color": "red", "score": 3.0, "n": True, "flag": True, "maybe": None}),
    ("doc3", {"text": "green apple", "color": "green", "score": 4.0, "n": 1.0, "tags": ["a"], "index": 2}),
    ("doc4", {"text": "blue car", "color": "blue", "score": 3.5, "n": 2, "meta": {"size": "S"}, "maybe": 0}),
]


def test_search_filters_side_by_side(make: Callable[..., BaseStore]) -> None:
    def scenario(store: BaseStore) -> list[Any]:
        for key, value in DOCS:
            store.put(("test",), key, value)
        store.put(("elsewhere",), "doc9", {"color": "red"})
        return [[x[1] for x in seen(store.search(("test",), filter=f))] for f in FILTERS]

    out = side_by_side(make, scenario)
    assert out[0] == ["doc1", "doc2"] and out[3] == ["doc1", "doc3", "doc4"] and out[4] == ["doc3"]
    assert out[9] == ["doc1", "doc2", "doc3"]  # Python: True == 1 == 1.0
    assert out[12] == ["doc1", "doc2", "doc3", "doc4"] and out[13] == ["doc1", "doc2", "doc3"]


def test_namespaces_and_filter_values_are_literal_side_by_side(make: Callable[..., BaseStore]) -> None:
    """SqliteStore's tests of prefixes, labels and filter values (segment
    boundaries, LIKE and GLOB characters, case, newlines, quotes, NaN,
    infinities, integers beyond 64 bits), against InMemoryStore."""
    def scenario(store: BaseStore) -> list[Any]:
        for ns in [("foo",), ("foo", "child", "deep"), ("foobar", "baz"), ("foo2",), ("user_1",), ("userX1",),
                   ("a%b",), ("axxb",), ("star*",), ("starX",), ("Foo",), ("users", "alice"), ("users", "alice\n"),
                   ("uid", "users", "malice"), ("uid", "a", "b", "alice")]:
            store.put(ns, "k", {"v": 1})
        out: list[Any] = [sorted(i.namespace for i in store.search(prefix, limit=100))
                          for prefix in [("foo",), ("fo",), ("user_1",), ("a%b",), ("star*",), ("Foo",), ()]]
        out += [store.list_namespaces(**c) for c in [
            {"prefix": ("foo",)}, {"suffix": ("alice",)}, {"prefix": ("uid", "*", "alice")},
            {"prefix": ("users", "alice")}, {"suffix": ("alice\n",)}]]
        store.put(("docs",), "d1", {"access": "public", "title": "O'Brien's Document", "price": 10})
        store.put(("docs",), "d2", {"access": "private", "price": 20, "active": False})
        store.put(("docs",), "d3", {"access": "public", "price": -10, "active": True})
        for flt in [{"access": "public' OR '1'='1"}, {"access": "public\x00"}, {"title": "O'Brien's Document"},
                    {"price": {"$lt": float("inf")}}, {"price": {"$gt": float("-inf")}},
                    {"price": {"$eq": float("nan")}}, {"price": {"$lt": 10**100}}, {"price": {"$lt": 0}},
                    {"active": True}, {"active": False}, {"access-level": "x"}, {"123abc": "ok"}]:
            out.append([i.key for i in store.search(("docs",), filter=flt)])
        return out

    out = side_by_side(make, scenario)
    assert out[0] == [("foo",), ("foo", "child", "deep")] and out[1] == [] and out[5] == [("Foo",)]
    assert out[7] == [("foo",), ("foo", "child", "deep")] and out[11] == [("users", "alice\n")]


@pytest.mark.parametrize("kind", KINDS)
def test_unsupported_operator(make: Callable[..., BaseStore], kind: str) -> None:
    store = make(kind)
    store.put(("test",), "a", {"n": 1})
    with pytest.raises(ValueError, match="Unsupported operator"):
        store.search(("test",), filter={"n": {"$in": [1]}})


def test_an_order_on_a_missing_field_does_not_match(make: Callable[..., BaseStore]) -> None:
    """InMemoryStore raises TypeError (float(None)) for an item without the
    field of a $gt; MemorywireStore leaves the item out."""
    for key, value in DOCS:
        make("memory").put(("test",), key, value)
    memory, store = make("memory"), make("memorywire")
    for s in (memory, store):
        for key, value in DOCS:
            s.put(("test",), key, value)
    with pytest.raises(TypeError):
        memory.search(("test",), filter={"index": {"$gt": 1}})
    assert [i.key for i in store.search(("test",), filter={"index": {"$gt": 1}})] == ["doc3"]


def test_search_order_and_paging_side_by_side(make: Callable[..., BaseStore]) -> None:
    def scenario(store: BaseStore) -> list[Any]:
        for i in range(25):
            store.put(("docs", "all"), f"k{i:02d}", {"i": i, "even": i % 2 == 0})
        store.put(("docs", "all"), "k03", {"i": 103, "even": False})
        store.delete(("docs", "all"), "k04")
        store.put(("docs", "all"), "k04", {"i": 104, "even": True})
        pages = [store.search(("docs",), limit=limit, offset=offset)
                 for limit, offset in [(10, 0), (10, 10), (10, 20), (5, 23), (100, 0), (0, 0), (3, 30)]]
        pages.append(store.search(("docs",), filter={"even": True}, limit=4, offset=3))
        pages.append(store.search(("docs", "all"), limit=1000))
        pages.append(store.search(("doc",)))  # a prefix is whole labels
        return [seen(p) for p in pages]

    out = side_by_side(make, scenario)
    assert [x[1] for x in out[4]][-1] == "k04" and len(out[4]) == 25 and out[5] == [] and out[6] == []


# -- the vector index (test_vector_*, test_embed_with_path, test_non_ascii) ------------------------

def index_config(embeddings: Embeddings, **more: Any) -> dict[str, Any]:
    return {"index": {"dims": 500, "embed": embeddings, **more}}


def ranked(items: list[Any]) -> list[tuple[Any, ...]]:
    """Results with their scores; the order of equal scores (to 1e-4) is
    left open, since vectors are kept as binary32 by the service."""
    rows = seen(items)
    return sorted(rows, key=lambda r: (-(r[3] if isinstance(r[3], float) else -9), r[1]))


@pytest.fixture(scope="module")
def embeddings() -> CharacterEmbeddings:
    return CharacterEmbeddings(dims=500)


def test_vector_search_side_by_side(make: Callable[..., BaseStore], embeddings: CharacterEmbeddings) -> None:
    def scenario(store: BaseStore) -> list[Any]:
        out: list[Any] = []
        docs = [("doc1", {"text": "short text"}), ("doc2", {"text": "longer text document"}),
                ("doc3", {"text": "longest text document here"}), ("doc4", {"description": "text in description"}),
                ("doc5", {"content": "text in content field"}), ("doc6", {"body": "text in body field"})]
        for key, value in docs:
            store.put(("test",), key, value)
        out.append(ranked(store.search(("test",), query="long text")))
        store.put(("upd",), "doc1", {"text": "zany zebra Xerxes"})
        store.put(("upd",), "doc2", {"text": "something about dogs"})
        store.put(("upd",), "doc3", {"text": "text about birds"})
        first = store.search(("upd",), query="Zany Xerxes")
        assert first[0].key == "doc1"
        store.put(("upd",), "doc1", {"text": "new text about dogs"})
        after = store.search(("upd",), query="Zany Xerxes")
        assert next(r.score for r in after if r.key == "doc1") < first[0].score  # type: ignore[operator]
        store.put(("upd",), "doc4", {"text": "new text about dogs"}, index=False)
        out += [ranked(first), ranked(after), ranked(store.search(("upd",), query="new text about dogs", limit=3))]
        assert not any(r.key == "doc4" for r in store.search(("upd",), query="new text about dogs", limit=3))
        for key, value in DOCS:
            store.put(("filtered",), key, value)
        queries: list[tuple[str, dict[str, Any]]] = [
                   ("apple", {"color": "red"}), ("car", {"color": "red"}), ("bbbbluuu", {"score": {"$gt": 3.2}}),
                   ("apple", {"score": {"$gte": 4.0}, "color": "green"})]
        for query, flt in queries:
            out.append(ranked(store.search(("filtered",), query=query, filter=flt)))
        for i in range(5):
            store.put(("page",), f"doc{i}", {"text": f"test document number {i}"})
        whole = store.search(("page",), query="test", limit=10)
        pages = store.search(("page",), query="test", limit=2) + store.search(("page",), query="test", limit=2,
                                                                               offset=2)
        assert len(whole) == 5 and {p.key for p in pages} == {w.key for w in whole[:4]}
        out.append(ranked(whole))
        langs = ["这是中文", "これは日本語です", "이건 한국어야", "Это русский", "यह रूसी है"]
        for i, text in enumerate(langs):
            store.put(("user_123", "memories"), str(i + 1), {"text": text})
        out.append([store.search(("user_123", "memories"), query=t)[0].key for t in langs])
        return out

    out = side_by_side(make, scenario, **index_config(embeddings))
    assert out[-1] == ["1", "2", "3", "4", "5"]
    assert {r[1] for r in out[0]} >= {"doc2", "doc3"}
    assert [len(x) for x in out[4:8]] == [2, 2, 3, 1]  # (the order depends on the embedder's state)


def test_embed_with_path_side_by_side(make: Callable[..., BaseStore], embeddings: CharacterEmbeddings) -> None:
    def scenario(store: BaseStore) -> list[Any]:
        store.put(("test",), "doc1", {"key1": "xxx", "key2": "yyy", "key3": "zzz"})
        store.put(("test",), "doc2", {"key0": "uuu", "key1": "vvv", "key2": "www", "key3": "xxx"})
        out = [ranked(store.search(("test",), query=q)) for q in ["xxx", "uuu", "www"]]
        store.put(("ops",), "doc3", {"key0": "aaa", "key1": "bbb", "key2": "ccc", "key3": "ddd"},
                  index=["key0", "key1"])
        store.put(("ops",), "doc4", {"key0": "eee", "key1": "bbb", "key2": "fff", "key3": "ggg"},
                  index=["key1", "key3"])
        store.put(("ops",), "doc5", {"key0": "hhh", "key1": "iii"}, index=False)
        store.put(("ops",), "doc6", {"list": [{"t": "aaa"}, {"t": "jjj"}], "pick": {"a": "kkk", "b": "lll"}},
                  index=["list[*].t", "{pick.a,pick.b}", "list[-1]"])
        out += [ranked(store.search(("ops",), query=q)) for q in ["aaa", "ggg", "bbb", "ccc", "hhh", "jjj", "kkk"]]
        out.append(ranked(store.search(("ops",), query="aaa", limit=1, offset=3)))  # the scoreless fill
        return out

    out = side_by_side(make, scenario, **index_config(embeddings, fields=["key0", "key1", "key3"]))
    assert out[0][0][3] == pytest.approx(out[0][1][3], abs=1e-4)
    assert out[1][0][1] == "doc2" and out[1][0][3] > out[1][1][3]
    scoreless = [r for r in out[7] if r[1] == "doc5"]
    assert scoreless == [(("ops",), "doc5", {"key0": "hhh", "key1": "iii"}, None)]


def test_embeddings_in_the_records(make: Callable[..., BaseStore], serve: Serve,
                                   embeddings: CharacterEmbeddings) -> None:
    """One embedding per text the index names, with the pointer of its field."""
    store = make("memorywire", **index_config(embeddings, fields=["text", "tags[*]", "$"]))
    assert isinstance(store, MemorywireStore)
    value = {"text": "red apple", "tags": ["fruit", "red"]}
    store.put(("docs",), "a", value)
    with Client(serve.target, tenant=store._connections.sync().tenant) as mw:
        rec = mw.get(record_id(("docs",), "a"))["records"][0]
    assert [(e.get("field"), e["model"], e["dimensions"]) for e in rec["embeddings"]] == [
        ("/custom/value/text", "langgraph.index", 500), ("/custom/value/tags/0", "langgraph.index", 500),
        ("/custom/value/tags/1", "langgraph.index", 500), (None, "langgraph.index", 500)]
    want = embeddings.embed_documents(["red apple", "fruit", "red"])
    for e, w in zip(rec["embeddings"], want, strict=False):
        assert e["values"] == pytest.approx(w, abs=1e-7)


def test_async_vector_search_side_by_side(make: Callable[..., BaseStore], embeddings: CharacterEmbeddings) -> None:
    """The async path (abatch, aembed_*) gives what InMemoryStore's does,
    also with many concurrent calls."""
    def scenario(store: BaseStore) -> list[Any]:
        async def run() -> list[Any]:
            docs = [(f"doc{i}", {"text": f"{c} {t}", "color": c, "score": s, "index": i})
                    for i, (c, t, s) in enumerate(zip(["red", "blue", "green", "yellow", "purple"] * 4,
                                                      ["apple", "car", "house", "book", "phone"] * 4,
                                                      [3.0, 3.5, 4.0, 4.5, 5.0] * 4, strict=True))]
            await asyncio.gather(*[store.aput(("test",), k, v) for k, v in docs])
            await asyncio.gather(*[store.adelete(("test",), k) for k, _ in docs[::3]])
            queries: list[tuple[str, dict[str, Any]]] = [
                       ("apple", {"color": "red"}), ("phone", {"score": {"$gt": 4.99}}),
                       ("house", {"index": {"$gt": 5}}), ("book", {"score": {"$lte": 3.5}})]
            found = await asyncio.gather(*[store.asearch(("test",), query=q, filter=f) for q, f in queries])
            return [sorted(r[1] for r in seen(x)) for x in found] + [
                ranked(await store.asearch(("test",), query="green house", limit=3))]
        return asyncio.run(run())

    out = side_by_side(make, scenario, **index_config(embeddings))
    assert all(out[:4]) and "doc0" not in out[0]


# -- full text without an index (MemorywireStore's own) -----------------------------------------

def test_a_query_without_an_index_is_a_text_search(make: Callable[..., BaseStore]) -> None:
    """InMemoryStore without an index ignores a query; MemorywireStore
    searches it in the strings of the values, best first."""
    store = make("memorywire")
    store.put(("m",), "a", {"text": "The user likes pizza and pasta."})
    store.put(("m",), "b", {"content": "Pizza, pizza, pizza on Fridays."})
    store.put(("m",), "c", {"notes": [{"body": "sushi"}], "food": "pizza"})
    store.put(("m",), "d", {"text": "The user is vegetarian.", "pizza": 1})
    store.put(("n",), "e", {"text": "pizza elsewhere"})
    hits = store.search(("m",), query="pizza")
    assert [h.key for h in hits][0] == "b" and {h.key for h in hits} == {"a", "b", "c"}
    assert all(h.score and h.score > 0 for h in hits)
    assert [h.key for h in store.search(("m",), query="sushi")] == ["c"]
    assert [h.key for h in store.search(("m",), query="pizza", filter={"text": {"$ne": None}})] == ["a"]
    assert store.search(("m",), query="zebra") == []
    assert len(make("memory").search(("m",), query="pizza")) == 0  # (empty: no items there)


# -- TTL (SqliteStore side by side: InMemoryStore has none) ---------------------------------------

def test_ttl_side_by_side_with_sqlite(make: Callable[..., BaseStore], serve: Serve) -> None:
    ttl = {"refresh_on_read": True, "default_ttl": 0.1}  # 6 s
    stores = [make("sqlite", ttl=ttl), make("memorywire", ttl=ttl)]
    for s in stores:
        s.put(("t",), "read", {"v": 1})
        s.put(("t",), "unread", {"v": 2})
        s.put(("t",), "not-refreshed", {"v": 3})
        s.put(("t",), "forever", {"v": 4}, ttl=None)
    mw = stores[1]
    assert isinstance(mw, MemorywireStore)
    with Client(serve.target, tenant=mw._connections.sync().tenant) as client:
        rec = client.get(record_id(("t",), "read"))["records"][0]
        forever = client.get(record_id(("t",), "forever"))["records"][0]
    assert rec["native"]["record"]["ttl_minutes"] == 0.1 and "lifecycle" not in forever
    first_expiry = rec["lifecycle"]["expires_at"]
    time.sleep(3)
    for s in stores:
        assert s.get(("t",), "read") is not None  # refreshes: now + 6 s
        assert s.get(("t",), "not-refreshed", refresh_ttl=False) is not None
    with Client(serve.target, tenant=mw._connections.sync().tenant) as client:
        rec2 = client.get(record_id(("t",), "read"))["records"][0]
    assert rec2["lifecycle"]["expires_at"] > first_expiry and rec2["updated_at"] == rec["updated_at"]
    time.sleep(4.2)  # 7.2 s after the puts, 4.2 s after the refresh
    swept = [s.sweep_ttl() for s in stores]  # type: ignore[attr-defined]
    assert swept == [2, 2]
    # (a search refreshes too: not these)
    assert [{x[1] for x in seen(s.search(("t",), refresh_ttl=False))} for s in stores] == [{"read", "forever"}] * 2
    time.sleep(3)
    assert [s.sweep_ttl() for s in stores] == [1, 1]  # type: ignore[attr-defined]
    assert [[x[1] for x in seen(s.search(("t",)))] for s in stores] == [["forever"], ["forever"]]
    assert asyncio.run(mw.asweep_ttl()) == 0


def test_ttl_without_refresh_and_omit_expired(make: Callable[..., BaseStore]) -> None:
    store = make("memorywire", ttl={"refresh_on_read": False, "omit_expired": True})
    store.put(("t",), "short", {"v": 1}, ttl=0.02)  # 1.2 s
    store.put(("t",), "long", {"v": 2}, ttl=10)
    assert [x[1] for x in seen(store.search(("t",)))] == ["short", "long"]
    time.sleep(1.5)
    assert store.get(("t",), "short") is None  # expired: omitted before any sweep
    assert [x[1] for x in seen(store.search(("t",)))] == ["long"]
    store.put(("u",), "short", {"v": 1}, ttl=0.01)
    time.sleep(1)
    assert store.list_namespaces() == [("t",)]
    with pytest.raises(NotImplementedError):
        InMemoryStore().put(("t",), "k", {"v": 1}, ttl=1)


def test_ttl_sweeper_thread(make: Callable[..., BaseStore]) -> None:
    store = make("memorywire", ttl={"sweep_interval_minutes": 1})
    assert isinstance(store, MemorywireStore)
    store.put(("t",), "k", {"v": 1}, ttl=0.001)
    done = store.start_ttl_sweeper(sweep_interval_minutes=0.02)  # type: ignore[arg-type]
    time.sleep(2.5)
    assert store.stop_ttl_sweeper(timeout=10) and done.done()
    assert store.get(("t",), "k") is None


# -- a graph over two turns, and a restart --------------------------------------------------------

class State(TypedDict):
    user: str
    message: str
    reply: str
    prompt: str


def build_graph(store: BaseStore, model: FakeListChatModel) -> Any:
    def respond(state: State, *, store: BaseStore) -> dict[str, str]:
        namespace = ("memories", state["user"])
        memories = [m.value["text"] for m in store.search(namespace, limit=100)]
        prompt = f"Memories: {memories}\nUser: {state['message']}"
        reply = model.invoke(prompt).content
        store.put(namespace, f"turn-{len(memories)}", {"text": state["message"], "reply": reply})
        return {"reply": str(reply), "prompt": prompt}

    builder = StateGraph(State)
    builder.add_node("respond", respond)
    builder.add_edge(START, "respond")
    builder.add_edge("respond", END)
    return builder.compile(store=store)


def test_a_graph_remembers_across_turns_and_restarts(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    model = FakeListChatModel(responses=["Nice to meet you, Ada.", "You are Ada and you like tea."])
    store = MemorywireStore(memorywire_serve.target, tenant=tenant)
    graph = build_graph(store, model)
    first = graph.invoke({"user": "u-1", "message": "My name is Ada and I like tea.", "reply": "", "prompt": ""})
    assert first["prompt"].startswith("Memories: []")
    second = graph.invoke({"user": "u-1", "message": "What do you know about me?", "reply": "", "prompt": ""})
    assert "My name is Ada and I like tea." in second["prompt"]
    assert second["reply"] == "You are Ada and you like tea."
    store.close()

    memorywire_serve.restart()
    again = MemorywireStore(memorywire_serve.target, tenant=tenant)
    items = again.search(("memories", "u-1"))
    assert [(i.key, i.value) for i in items] == [
        ("turn-0", {"text": "My name is Ada and I like tea.", "reply": "Nice to meet you, Ada."}),
        ("turn-1", {"text": "What do you know about me?", "reply": "You are Ada and you like tea."})]
    assert again.list_namespaces() == [("memories", "u-1")]
    third = asyncio.run(build_graph(again, FakeListChatModel(responses=["Tea, Ada."])).ainvoke(
        {"user": "u-1", "message": "Again?", "reply": "", "prompt": ""}))
    assert "What do you know about me?" in third["prompt"]
    assert {i.key for i in again.search(("memories", "u-1"), query="tea")} == {"turn-0", "turn-1", "turn-2"}
    assert [i.key for i in again.search(("memories", "u-1"), query="know")] == ["turn-1"]
    again.close()


# -- what other frameworks read -------------------------------------------------------------------

def test_other_frameworks_find_the_items_by_text(make: Callable[..., BaseStore], serve: Serve) -> None:
    """A fact put through the store is found by a plain text Search, as
    AutoGen's Memory.query does, and reads as an AutoGen MemoryContent and
    by its neutral fields."""
    store = make("memorywire")
    assert isinstance(store, MemorywireStore)
    store.put(("memories", "u-1"), "food", {"text": "The user likes pizza."})
    store.put(("memories", "u-1"), "drink", {"content": "The user drinks green tea."})
    store.put(("memories", "u-1"), "misc", {"meta": {"note": "Allergic to peanuts"}, "count": 3})
    with Client(serve.target, tenant=store._connections.sync().tenant) as mw:
        hits = {q: mw.search(q)["hits"] for q in ["pizza", "green tea", "peanuts"]}
    records = [h[0]["record"] for h in hits.values()]
    assert [r["key"] for r in records] == ["food", "drink", "misc"]
    assert all(r["kind"] == "custom" and r["custom"]["type"] == "langgraph.item" for r in records)
    assert [r["scope"]["namespace"] for r in records] == [["memories", "u-1"]] * 3
    contents = FORMS["autogen.memory_content"].from_records(records)
    assert [c["content"] for c in contents] == [{"text": "The user likes pizza."},
                                                {"content": "The user drinks green tea."},
                                                {"count": 3, "meta": {"note": "Allergic to peanuts"}}]
    assert [c["mime_type"] for c in contents] == ["application/json"] * 3
    items = FORMS["langgraph.item"].from_records(records)
    assert items[0]["value"] == {"text": "The user likes pizza."} and items[0]["namespace"] == ["memories", "u-1"]


def test_items_of_other_writers_are_read_by_key(make: Callable[..., BaseStore], serve: Serve) -> None:
    """An item whose record another writer made (the adapter with a scope
    of its own, hence another id) is found by namespace and key, replaced
    by a put and deleted."""
    store = make("memorywire")
    assert isinstance(store, MemorywireStore)
    item = {"namespace": ["shared"], "key": "k", "value": {"v": 1}, "created_at": "2026-05-04T12:30:15+00:00",
            "updated_at": "2026-05-04T12:30:15+00:00"}
    with Client(serve.target, tenant=store._connections.sync().tenant) as mw:
        mw.put(FORMS["langgraph.item"].to_records([item], user="u-9"))
        assert store.get(("shared",), "k").value == {"v": 1}  # type: ignore[union-attr]
        store.put(("shared",), "k", {"v": 2})
        assert store.get(("shared",), "k").value == {"v": 2}  # type: ignore[union-attr]
        assert len(mw.search()["hits"]) == 1
        store.delete(("shared",), "k")
        assert store.get(("shared",), "k") is None and mw.search()["hits"] == []


# -- errors and retries ---------------------------------------------------------------------------

def test_a_stopped_service_raises_within_the_deadline(memorywire_serve: Serve) -> None:
    store = MemorywireStore(memorywire_serve.target, tenant=memorywire_serve.tenant(), timeout=2.0)
    store.put(("a",), "k", {"v": 1})
    memorywire_serve.stop()
    for call in [lambda: store.get(("a",), "k"), lambda: store.put(("a",), "k", {"v": 2}),
                 lambda: store.search(("a",)), lambda: store.list_namespaces(),
                 lambda: asyncio.run(store.aget(("a",), "k"))]:
        start = time.monotonic()
        with pytest.raises(MemorywireStoreError, match="UNAVAILABLE") as caught:
            call()
        assert time.monotonic() - start < 2.0 + 3.0
        assert "memorywire service" in str(caught.value)
    store.close()


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_a_service_error_names_its_reason(serve: Serve, kind: str) -> None:
    store = MemorywireStore(serve.target, tenant="x" * 300)
    with pytest.raises(MemorywireStoreError, match="TENANT_REQUIRED") as caught:
        if kind == "sync":
            store.put(("a",), "k", {"v": 1})
        else:
            asyncio.run(store.aput(("a",), "k", {"v": 1}))
    assert "UNAUTHENTICATED" in str(caught.value)
    store.close()


def test_a_retried_put_is_done_once(serve: Serve) -> None:
    tenant = serve.tenant()
    with losing_proxy(serve.target) as proxy:
        store = MemorywireStore(proxy.front, tenant=tenant)
        store.put(("a",), "k", {"v": 1})
        assert proxy.lost == 1
        assert store.get(("a",), "k").value == {"v": 1}  # type: ignore[union-attr]
        store.close()
    with Client(serve.target, tenant=tenant) as mw:
        records = mw.history()["records"]
    assert [(r["key"], r["revision"]) for r in records] == [("k", 1)]


def test_clients_given_and_their_ownership(serve: Serve, tmp_path: Path) -> None:
    tenant = serve.tenant()
    with Client(serve.target, tenant=tenant) as mw:
        store = MemorywireStore(mw)
        store.put(("a",), "k", {"v": 1})
        store.close()  # the client given stays open
        assert mw.get(record_id(("a",), "k"))["records"][0]["key"] == "k"
        assert [i.key for i in asyncio.run(store.asearch(("a",)))] == ["k"]  # off the loop, in a thread

    async def run() -> list[str]:
        from memorywire.client import AsyncClient
        async with AsyncClient(serve.target, tenant=tenant) as amw:
            astore = MemorywireStore(amw)
            await astore.aput(("a",), "k2", {"v": 2})
            with pytest.raises(TypeError):
                astore.get(("a",), "k")
            return [i.key for i in await astore.asearch(("a",))]

    assert asyncio.run(run()) == ["k", "k2"]
    with pytest.raises(TypeError):
        MemorywireStore(42)  # type: ignore[arg-type]


def test_without_langgraph_the_import_names_the_extra() -> None:
    code = ("import sys; sys.modules['langgraph'] = None\n"
            "try:\n    import memorywire.integrations.langgraph\n"
            "except ImportError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "pip install 'memorywire[langgraph]'" in done.stdout
