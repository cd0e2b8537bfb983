"""memorywire.integrations.mem0 against mem0ai 2.2.1 and a live ``memorywire
serve``: the vector store side by side with mem0's Qdrant store in memory
(its default), mem0's Memory with a local scripted LLM and embedder over two
adds, a search and a restart, the memories read back by other frameworks,
errors and retries."""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ["MEM0_TELEMETRY"] = "False"

import pytest  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_core.language_models.chat_models import BaseChatModel  # noqa: E402
from langchain_core.messages import AIMessage  # noqa: E402
from langchain_core.outputs import ChatGeneration, ChatResult  # noqa: E402
from live import Serve  # noqa: E402
from lost_response import losing_proxy  # noqa: E402
from mem0 import AsyncMemory, Memory  # noqa: E402
from mem0.exceptions import VectorStoreError  # noqa: E402
from mem0.vector_stores.qdrant import Qdrant  # noqa: E402
from qdrant_client import QdrantClient  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402
from memorywire.integrations.mem0 import MemorywireVectorStore  # noqa: E402
from memorywire.service.errors import ServiceError  # noqa: E402

DIMS = 4
TIMEOUT = 2.0
IDS = [str(uuid.UUID(int=n + 1)) for n in range(8)]


@pytest.fixture(params=["memorywire", "qdrant"])
def store(request: pytest.FixtureRequest, memorywire_serve: Serve) -> Iterator[Any]:
    if request.param == "qdrant":
        yield Qdrant(collection_name="mem0", embedding_model_dims=DIMS, client=QdrantClient(":memory:"))
        return
    made = MemorywireVectorStore(collection_name="mem0", embedding_model_dims=DIMS, service=memorywire_serve.target,
                                 tenant=memorywire_serve.tenant(), timeout=TIMEOUT)
    yield made
    made.close()


def payload(n: int, **extra: Any) -> dict[str, Any]:
    return {"data": f"Memory number {n}", "hash": f"h{n}", "created_at": "2026-05-04T12:30:15.124456+00:00",
            "updated_at": "2026-05-04T12:30:15.124456+00:00", "user_id": "alice" if n % 2 else "bob",
            "text_lemmatized": f"memory number {n}", "priority": n, **extra}


VECTORS = [[1.0, 0.0, 0.0, 0.0], [0.9, 0.1, 0.0, 0.0], [0.7, 0.7, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0],
           [0.0, 0.8, 0.6, 0.0], [0.0, 0.0, 1.0, 0.0], [0.1, 0.0, 0.0, 1.0], [0.5, 0.5, 0.5, 0.5]]


def filled(store: Any) -> Any:
    store.insert(vectors=VECTORS, payloads=[payload(n, tags=["t", str(n)]) for n in range(8)], ids=IDS)
    return store


def ids_of(results: Any) -> list[str]:
    return [str(r.id) for r in results]


def rows(listed: Any) -> list[Any]:
    """What mem0 makes of list(): the rows, whatever the store's shape."""
    first = listed[0] if listed else []
    return list(first) if isinstance(first, (list, tuple)) else list(listed)


# -- the store, side by side ------------------------------------------------------------------------

def test_a_payload_comes_back_exactly(store: Any) -> None:
    odd = {"data": "Ann moved to Paris.", "nested": {"a": [1, 2.5, None, True]}, "big": 9007199254740993,
           "role": "user", "actor_id": "alice", "attributed_to": "user", "expiration_date": "2030-01-01",
           "agent_id": "travel-bot", "run_id": "run-7", "user_id": "alice", "empty": "", "memory": "a member"}
    store.insert(vectors=VECTORS[:3], payloads=[odd, {"user_id": "x", "type": "user_identity"}, payload(2)],
                 ids=IDS[:3])
    assert store.get(IDS[0]).payload == odd
    assert store.get(IDS[1]).payload == {"user_id": "x", "type": "user_identity"}  # mem0's telemetry row
    assert store.get(IDS[2]).payload == payload(2)
    assert str(store.get(IDS[2]).id) == IDS[2]
    assert store.get(IDS[5]) is None


def test_search_ranks_by_cosine_similarity(store: Any) -> None:
    filled(store)
    hits = store.search(query="", vectors=[1.0, 0.05, 0.0, 0.0], top_k=3)
    assert ids_of(hits) == [IDS[0], IDS[1], IDS[2]]
    q = [1.0, 0.05, 0.0, 0.0]
    cosines = [sum(a * b for a, b in zip(q, v, strict=True)) / math.hypot(*q) / math.hypot(*v) for v in VECTORS[:3]]
    assert [h.score for h in hits] == pytest.approx(cosines, abs=1e-6)
    assert hits[0].payload == payload(0, tags=["t", "0"])


FILTERS: list[dict[str, Any]] = [
    {"user_id": "alice"},
    {"user_id": "alice", "priority": 3},
    {"priority": {"gte": 2, "lt": 6}},
    {"priority": {"in": [1, 4, 7]}},
    {"priority": {"nin": [1, 4, 7]}},
    {"priority": {"ne": 4}},
    {"user_id": "bob", "priority": "*"},
    {"$or": [{"priority": 1}, {"priority": 6}]},
    {"$not": [{"user_id": "bob"}]},
    {"AND": [{"user_id": "alice"}, {"priority": {"gt": 2}}]},
    {"data": {"contains": "number 5"}},
    {"data": {"icontains": "MEMORY NUMBER 6"}, "user_id": "bob"},
    {"priority": [2, 3]},
    {"$or": [{"priority": 1}, {"data": {"contains": "number 5"}}]},
    {"NOT": [{"data": {"contains": "number 5"}}], "user_id": "alice"},
]


@pytest.mark.parametrize("filters", FILTERS, ids=[json.dumps(f) for f in FILTERS])
def test_filters_select_the_same_vectors(store: Any, filters: dict[str, Any]) -> None:
    filled(store)
    expected = {
        0: [1, 3, 5, 7], 1: [3], 2: [2, 3, 4, 5], 3: [1, 4, 7], 4: [0, 2, 3, 5, 6], 5: [0, 1, 2, 3, 5, 6, 7],
        6: [0, 2, 4, 6], 7: [1, 6], 8: [1, 3, 5, 7], 9: [3, 5, 7], 10: [5], 11: [6], 12: [2, 3],
        13: [1, 5], 14: [1, 3, 7],
    }[FILTERS.index(filters)]
    listed = rows(store.list(filters=filters, top_k=100))
    assert sorted(str(r.id) for r in listed) == [IDS[n] for n in expected]
    found = store.search(query="", vectors=[0.5, 0.5, 0.5, 0.5], top_k=100, filters=filters)
    assert sorted(ids_of(found)) == [IDS[n] for n in expected]


def test_list_honours_top_k(store: Any) -> None:
    filled(store)
    assert len(rows(store.list(top_k=3))) == 3
    assert len(rows(store.list(filters={"user_id": "alice"}, top_k=100))) == 4


def test_update_replaces_merges_or_keeps(store: Any) -> None:
    filled(store)
    store.update(IDS[0], vector=[0.0, 0.0, 0.0, 1.0], payload={"data": "Moved.", "user_id": "alice"})
    assert store.get(IDS[0]).payload == {"data": "Moved.", "user_id": "alice"}
    assert ids_of(store.search(query="", vectors=[0.0, 0.0, 0.0, 1.0], top_k=1)) == [IDS[0]]
    store.update(IDS[1], payload={"data": "Renamed.", "extra": 1})  # a payload alone is merged
    assert store.get(IDS[1]).payload == {**payload(1, tags=["t", "1"]), "data": "Renamed.", "extra": 1}
    store.update(IDS[2], vector=[0.0, 0.0, 0.0, 1.0])  # a vector alone keeps the payload
    assert store.get(IDS[2]).payload == payload(2, tags=["t", "2"])
    assert set(ids_of(store.search(query="", vectors=[0.0, 0.0, 0.0, 1.0], top_k=2))) == {IDS[0], IDS[2]}
    store.update(IDS[3])
    assert store.get(IDS[3]).payload == payload(3, tags=["t", "3"])


def test_delete_and_reset(store: Any) -> None:
    filled(store)
    store.delete(IDS[0])
    store.delete(IDS[0])  # again: nothing to delete, no error
    assert store.get(IDS[0]) is None
    assert IDS[0] not in ids_of(store.search(query="", vectors=VECTORS[0], top_k=8))
    store.reset()
    assert rows(store.list(top_k=100)) == []
    store.insert(vectors=VECTORS[:1], payloads=[payload(0)], ids=IDS[:1])
    assert store.get(IDS[0]).payload == payload(0)


# -- what memorywire adds ---------------------------------------------------------------------------

def test_collections_are_namespaces_and_records_are_facts(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    main = MemorywireVectorStore(service=memorywire_serve.target, tenant=tenant, embedding_model_dims=DIMS,
                                 model="bow-4")
    other = MemorywireVectorStore(collection_name="mem0_entities", service=memorywire_serve.target, tenant=tenant,
                                  embedding_model_dims=DIMS)
    main.insert(vectors=VECTORS[:2], payloads=[payload(0), payload(1)], ids=IDS[:2])
    other.insert(vectors=VECTORS[2:3], payloads=[{"data": "Paris", "entity_type": "GPE"}], ids=IDS[2:3])
    assert ids_of(rows(main.list())) == IDS[:2] and ids_of(rows(other.list())) == IDS[2:3]
    assert other.get(IDS[0]) is None
    records = main.client.history(scope={"namespace": ["mem0"]})["records"]
    assert [(r["id"], r["kind"], r["fact"]["text"], r["scope"]["user"]) for r in records] == [
        (IDS[0], "fact", "Memory number 0", "bob"), (IDS[1], "fact", "Memory number 1", "alice")]
    assert records[0]["embeddings"][0]["model"] == "bow-4"
    assert main.col_info()["count"] == 2
    main.close()
    other.close()


def test_a_retried_insert_after_a_lost_response_is_not_duplicated(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    with losing_proxy(memorywire_serve.target) as proxy:
        s = MemorywireVectorStore(service=proxy.front, tenant=tenant, embedding_model_dims=DIMS)
        s.insert(vectors=VECTORS[:2], payloads=[payload(0), payload(1)], ids=IDS[:2])
        assert proxy.lost == 1
        s.close()
    s = MemorywireVectorStore(service=memorywire_serve.target, tenant=tenant, embedding_model_dims=DIMS)
    assert [r["revision"] for r in s.client.history(scope=s.scope)["records"]] == [1, 1]
    s.close()


# -- the runtime: Memory with a scripted LLM and a local embedder ----------------------------------

class Words(Embeddings):
    """A bag-of-words embedder: texts that share words are similar."""

    VOCAB = ("alice", "vegetarian", "paris", "lives", "food", "eat", "where", "fish", "does")

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        words = re.findall(r"[a-z]+", text.lower())
        return [float(words.count(w)) + 0.01 for w in self.VOCAB]


class Scripted(BaseChatModel):
    """A local chat model: each call extracts the next scripted facts, and keeps the prompt it was given."""

    facts: list[list[str]]
    prompts: list[str] = []

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.prompts.append("\n".join(str(m.content) for m in messages))
        facts = self.facts.pop(0)
        text = json.dumps({"memory": [{"text": f, "attributed_to": "user"} for f in facts]})
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def memory(target: str, tenant: str, history: Path, llm: Scripted) -> Memory:
    return Memory.from_config({
        "vector_store": {"provider": "memorywire", "config": {"service": target, "tenant": tenant,
                                                               "embedding_model_dims": len(Words.VOCAB),
                                                               "model": "words", "timeout": TIMEOUT}},
        "llm": {"provider": "langchain", "config": {"model": llm}},
        "embedder": {"provider": "langchain", "config": {"model": Words()}},
        "history_db_path": str(history),
    })


def test_memory_remembers_across_adds_and_a_restart(memorywire_serve: Serve, tmp_path: Path) -> None:
    tenant = memorywire_serve.tenant()
    llm = Scripted(facts=[["Alice is vegetarian."], ["Alice lives in Paris."]], prompts=[])
    m = memory(memorywire_serve.target, tenant, tmp_path / "history.db", llm)
    first = m.add("I am vegetarian, I never eat fish.", user_id="alice")
    assert [r["memory"] for r in first["results"]] == ["Alice is vegetarian."]
    m.add("I live in Paris now.", user_id="alice")
    assert "Alice is vegetarian." in llm.prompts[1]  # the second add sees the first memory
    found = m.search("What food does Alice eat?", filters={"user_id": "alice"})["results"]
    assert found[0]["memory"] == "Alice is vegetarian."
    assert {r["memory"] for r in m.get_all(filters={"user_id": "alice"})["results"]} == {
        "Alice is vegetarian.", "Alice lives in Paris."}

    memorywire_serve.restart()

    again = memory(memorywire_serve.target, tenant, tmp_path / "history-2.db", Scripted(facts=[], prompts=[]))
    found = again.search("Where in Paris Alice lives?", filters={"user_id": "alice"})["results"]
    assert found[0]["memory"] == "Alice lives in Paris."
    got = again.get(found[0]["id"])
    assert got["memory"] == "Alice lives in Paris." and got["user_id"] == "alice"
    assert got["attributed_to"] == "user"
    assert len(again.get_all(filters={"user_id": "alice"})["results"]) == 2
    assert again.get_all(filters={"user_id": "bob"})["results"] == []
    # update, delete and reset go through the same store
    again.update(got["id"], "Alice lives in Lyon.")
    assert again.get(got["id"])["memory"] == "Alice lives in Lyon."
    again.delete(got["id"])
    assert again.get(got["id"]) is None
    assert [r["memory"] for r in again.get_all(filters={"user_id": "alice"})["results"]] == ["Alice is vegetarian."]
    again.reset()
    assert again.get_all(filters={"user_id": "alice"})["results"] == []


def test_async_memory_uses_the_same_store(memorywire_serve: Serve, tmp_path: Path) -> None:
    """AsyncMemory calls the store in worker threads (asyncio.to_thread): the blocking client serves them."""
    tenant = memorywire_serve.tenant()
    llm = Scripted(facts=[["Alice is vegetarian."], ["Alice lives in Paris."]], prompts=[])
    config = memory(memorywire_serve.target, tenant, tmp_path / "history.db", llm).config

    async def run() -> list[str]:
        m = AsyncMemory(config)
        await m.add("I am vegetarian.", user_id="alice")
        await m.add("I live in Paris.", user_id="alice")
        found = await m.search("Where in Paris Alice lives?", filters={"user_id": "alice"})
        return [r["memory"] for r in found["results"]]

    found = asyncio.run(run())
    assert found[0] == "Alice lives in Paris." and "Alice is vegetarian." in found
    assert "Alice is vegetarian." in llm.prompts[1]


def test_other_frameworks_read_the_memories(memorywire_serve: Serve, tmp_path: Path) -> None:
    tenant = memorywire_serve.tenant()
    llm = Scripted(facts=[["Alice is vegetarian."]], prompts=[])
    m = memory(memorywire_serve.target, tenant, tmp_path / "history.db", llm)
    m.add("I am vegetarian.", user_id="alice", agent_id="chef")
    client = m.vector_store.client
    # Neutral fields: fact text and scope, found by a text search of the user's facts.
    hits = client.search("vegetarian", scope={"user": "alice"})["hits"]
    assert [(h["record"]["kind"], h["record"]["fact"]["text"], h["record"]["scope"]["agent"]) for h in hits] == [
        ("fact", "Alice is vegetarian.", "chef")]
    # LangGraph's Item form: the fact as a value of the store.
    (item,) = FORMS["langgraph.item"].from_records([hits[0]["record"]])
    assert "Alice is vegetarian." in json.dumps(item["value"])


# -- errors -----------------------------------------------------------------------------------------

def test_a_stopped_service_fails_within_the_deadline(memorywire_serve: Serve, tmp_path: Path) -> None:
    tenant = memorywire_serve.tenant()
    m = memory(memorywire_serve.target, tenant, tmp_path / "history.db", Scripted(facts=[["x"]], prompts=[]))
    memorywire_serve.stop()
    for call in (lambda: m.search("food", filters={"user_id": "alice"}),
                 lambda: m.add("I like fish.", user_id="alice"),
                 lambda: m.get(IDS[0])):
        start = time.monotonic()
        with pytest.raises(VectorStoreError, match="memorywire service: UNAVAILABLE") as e:
            call()
        assert time.monotonic() - start < 4 * TIMEOUT + 1.0
        assert isinstance(e.value.__cause__, ServiceError)


def test_a_refused_request_names_the_reason(memorywire_serve: Serve) -> None:
    s = MemorywireVectorStore(service=memorywire_serve.target, tenant="t" * 300, embedding_model_dims=DIMS)
    with pytest.raises(VectorStoreError, match="memorywire service: UNAUTHENTICATED TENANT_REQUIRED"):
        s.insert(vectors=VECTORS[:1], payloads=[payload(0)], ids=IDS[:1])
    with pytest.raises(VectorStoreError, match="TENANT_REQUIRED"):
        s.search(query="", vectors=VECTORS[0])
    s.close()
