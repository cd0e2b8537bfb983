"""mem0 forms against the real mem0ai 2.2.1, offline: telemetry off, a
local Qdrant and the SQLite history in a scratch directory, a fake
embedder through mem0's own langchain provider, and ``infer=False`` (no
LLM is ever called)."""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

os.environ["MEM0_TELEMETRY"] = "False"
os.environ["MEM0_DIR"] = tempfile.mkdtemp(prefix="mem0-dir-")  # not ~/.mem0
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-never-used")

import pytest  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness import assert_round_trip, assert_service_round_trip  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402

mem0 = pytest.importorskip("mem0")
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from mem0.configs.base import MemoryItem  # noqa: E402

ITEM, HISTORY, ADD = FORMS["mem0.memory_item"], FORMS["mem0.history_row"], FORMS["mem0.add_result"]


@pytest.fixture(scope="module")
def memory() -> Iterator[Any]:
    with tempfile.TemporaryDirectory() as tmp:
        m = mem0.Memory.from_config({
            "vector_store": {"provider": "qdrant", "config": {"path": os.path.join(tmp, "qdrant"),
                                                              "embedding_model_dims": 8}},
            "embedder": {"provider": "langchain", "config": {"model": DeterministicFakeEmbedding(size=8)}},
            "history_db_path": os.path.join(tmp, "history.db"),
        })
        m.test_history_path = os.path.join(tmp, "history.db")
        yield m
        m.close()


_text = st.text(st.characters(codec="utf-8"), max_size=20)
_leaf = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
         | st.floats(allow_nan=False, allow_infinity=False) | _text)
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3)
                     | st.dictionaries(st.text(st.characters(codec="utf-8"), min_size=1, max_size=6), inner,
                                       max_size=3), max_leaves=6)
# mem0 keeps its own keys beside the metadata in one payload: leave them out.
_RESERVED = {"data", "hash", "created_at", "updated_at", "id", "text_lemmatized", "attributed_to", "user_id",
             "agent_id", "run_id", "actor_id", "role", "expiration_date"}
_metadata = st.none() | st.dictionaries(
    st.text(st.characters(codec="utf-8"), min_size=1, max_size=6).filter(lambda k: k not in _RESERVED), _json,
    max_size=3)
_message = st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant"]), "content": _text},
                                 optional={"name": st.text(st.characters(codec="utf-8"), min_size=1, max_size=8)})


def _rows(path: str, ids: set[str]) -> list[dict[str, Any]]:
    conn = sqlite3.connect(path)
    try:
        cur = conn.execute("SELECT * FROM history ORDER BY rowid")
        names = [d[0] for d in cur.description]
        return [r for r in (dict(zip(names, row, strict=True)) for row in cur) if r["memory_id"] in ids]
    finally:
        conn.close()


def _same_items(back: list[dict[str, Any]], items: list[dict[str, Any]]) -> None:
    # mem0's own model of an item, and its equality.
    for a, b in zip(back, items, strict=True):
        assert MemoryItem(**{k: a[k] for k in MemoryItem.model_fields if k in a}) == MemoryItem(
            **{k: b[k] for k in MemoryItem.model_fields if k in b})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(_message, min_size=1, max_size=3), metadata=_metadata,
       scope=st.sampled_from([{"agent_id": "bot"}, {"run_id": "r-1", "agent_id": "bot"}, {}]),
       expiration=st.none() | st.dates().map(str), edit=_text,
       query=_text.filter(lambda q: q.strip() != ""))
def test_memories_made_by_mem0_come_back(memory: Any, messages: list[dict[str, Any]], metadata: Any,
                                         scope: dict[str, str], expiration: str | None, edit: str,
                                         query: str) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    added = memory.add(messages, user_id=user, metadata=metadata, infer=False, expiration_date=expiration,
                       **scope)
    results = added["results"]
    ids = [r["id"] for r in results]
    memory.update(ids[0], edit)
    if len(ids) > 1:
        memory.delete(ids[-1])
    items = [memory.get(i) for i in ids if memory.get(i) is not None]
    listed_call = memory.get_all(filters={"user_id": user}, show_expired=True)
    found_call = memory.search(query, filters={"user_id": user}, threshold=0.0)
    listed, found = listed_call["results"], found_call["results"]
    # What the calls return, unchanged: {"results": [...]} (an empty one has no record).
    assert_round_trip(ADD, [added])
    assert_round_trip(ITEM, [w for w in (listed_call, found_call) if w["results"]] + items)
    for batch in (items, listed, found):
        back = ITEM.from_records(ITEM.to_records(batch))
        _same_items(back, batch)
        assert_round_trip(ITEM, batch)
        assert_round_trip(ITEM, batch, user="another", session="s")
    assert_round_trip(ADD, results)
    history = [entry for i in ids for entry in memory.history(i)]
    assert_round_trip(HISTORY, history, ordered=True)
    assert_round_trip(HISTORY, _rows(memory.test_history_path, set(ids)), ordered=True)


def test_through_the_service(memory: Any, service: Any) -> None:
    user = f"u-{uuid.uuid4().hex[:8]}"
    added = memory.add([{"role": "user", "content": "", "name": "ann"},
                        {"role": "assistant", "content": "naïve café ☕ 🦀"}],
                       user_id=user, metadata={"big": 2**63 + 1, "f": 1.0}, infer=False)
    ids = [r["id"] for r in added["results"]]
    memory.update(ids[1], "changed")
    listed = memory.get_all(filters={"user_id": user})["results"]
    assert_service_round_trip(service(), ITEM, listed)
    assert_service_round_trip(service(), ADD, added["results"])
    assert_service_round_trip(service(), HISTORY, [e for i in ids for e in memory.history(i)])
    assert_service_round_trip(service(), HISTORY, _rows(memory.test_history_path, set(ids)))
