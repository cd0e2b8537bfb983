"""memorywire.integrations.autogen.MemorywireMemory against autogen-core and
a live ``memorywire serve``: ListMemory's own behaviours (autogen-core's
tests/test_memory.py) run side by side on both memories; where a search
differs from a list it is stated and tested; an AssistantAgent runs two
turns on it and a restarted service loses nothing; what it writes is read
by another framework's form; errors carry the memorywire reason."""

from __future__ import annotations

import asyncio
import base64
import io
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from live import Serve
from lost_response import losing_proxy

from memorywire.adapters import FORMS
from memorywire.client import AsyncClient, Client
from memorywire.service.errors import ServiceError

pytest.importorskip("autogen_core")

import PIL.Image  # noqa: E402
from autogen_core import CancellationToken, ComponentModel, Image  # noqa: E402
from autogen_core.memory import ListMemory, Memory, MemoryContent, MemoryMimeType  # noqa: E402
from autogen_core.model_context import BufferedChatCompletionContext, UnboundedChatCompletionContext  # noqa: E402
from autogen_core.models import SystemMessage, UserMessage  # noqa: E402

from memorywire.integrations.autogen import MemorywireMemory  # noqa: E402

T = TypeVar("T")
CONTENT = FORMS["autogen.memory_content"]
MSG = FORMS["agentscope.msg"]


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


@pytest.fixture(params=["ListMemory", "MemorywireMemory"])
def make(request: pytest.FixtureRequest, serve: Serve) -> Callable[[], Memory]:
    """A fresh, empty memory of each kind (a tenant of its own)."""
    if request.param == "ListMemory":
        return lambda: ListMemory()
    return lambda: MemorywireMemory(serve.target, tenant=serve.tenant(), user="u-1", timeout=10)


def mw(serve: Serve, **kwargs: Any) -> MemorywireMemory:
    kwargs.setdefault("user", "u-1")
    return MemorywireMemory(serve.target, tenant=kwargs.pop("tenant", None) or serve.tenant(), timeout=10, **kwargs)


def png() -> Image:
    buf = io.BytesIO()
    PIL.Image.new("RGB", (2, 2), (7, 0, 248)).save(buf, "PNG")
    return Image.from_base64(base64.b64encode(buf.getvalue()).decode("ascii"))


def dumps(contents: list[MemoryContent]) -> list[dict[str, Any]]:
    return [c.model_dump() for c in contents]


# -- ListMemory's behaviours, on both memories ------------------------------------------------------

def test_empty(make: Callable[[], Memory]) -> None:
    async def go() -> None:
        memory = make()
        context = BufferedChatCompletionContext(buffer_size=3)
        results = await memory.update_context(context)
        assert len(results.memories.results) == 0
        assert len(await context.get_messages()) == 0
        assert len((await memory.query(MemoryContent(content="test", mime_type=MemoryMimeType.TEXT))).results) == 0
        assert len((await memory.query("")).results) == 0
        await memory.close()
    run(go())


def test_add_and_query_everything_in_order(make: Callable[[], Memory]) -> None:
    # ListMemory ignores the query; the memorywire memory gives every memory,
    # in the order added, for an empty query.
    async def go() -> None:
        memory = make()
        await memory.add(MemoryContent(content="test1", mime_type=MemoryMimeType.TEXT))
        await memory.add(MemoryContent(content={"key": "value"}, mime_type=MemoryMimeType.JSON))
        results = (await memory.query("")).results
        assert len(results) == 2
        assert results[0].content == "test1"
        assert results[1].content == {"key": "value"}
        await memory.close()
    run(go())


def test_many_memories(make: Callable[[], Memory]) -> None:
    async def go() -> None:
        memory = make()
        for i in range(5):
            await memory.add(MemoryContent(content=f"test{i}", mime_type=MemoryMimeType.TEXT))
        assert [r.content for r in (await memory.query("")).results] == [f"test{i}" for i in range(5)]
        await memory.close()
    run(go())


def test_update_context_of_an_empty_context_adds_every_memory(make: Callable[[], Memory]) -> None:
    async def go() -> None:
        memory = make()
        context = BufferedChatCompletionContext(buffer_size=3)
        await memory.add(MemoryContent(content="test1", mime_type=MemoryMimeType.TEXT))
        await memory.add(MemoryContent(content="test2", mime_type=MemoryMimeType.TEXT))
        results = await memory.update_context(context)
        assert len(results.memories.results) == 2
        assert await context.get_messages() == [SystemMessage(
            content="\nRelevant memory content (in chronological order):\n1. test1\n2. test2\n")]
        await memory.close()
    run(go())


def test_clear(make: Callable[[], Memory]) -> None:
    async def go() -> None:
        memory = make()
        await memory.add(MemoryContent(content="test", mime_type=MemoryMimeType.TEXT))
        await memory.clear()
        assert len((await memory.query("")).results) == 0
        assert len((await memory.query("test")).results) == 0
        await memory.add(MemoryContent(content="again", mime_type=MemoryMimeType.TEXT))
        assert [r.content for r in (await memory.query("")).results] == ["again"]
        await memory.close()
    run(go())


def test_content_types_mime_types_and_metadata(make: Callable[[], Memory]) -> None:
    async def go() -> None:
        memory = make()
        added = [
            MemoryContent(content="text", mime_type=MemoryMimeType.TEXT),
            MemoryContent(content={"key": "value", "big": 2**70}, mime_type=MemoryMimeType.JSON,
                          metadata={"category": "profile", "priority": 2}),
            MemoryContent(content=b"binary\x00\xff", mime_type=MemoryMimeType.BINARY),
            MemoryContent(content="# Notes\n- tea", mime_type=MemoryMimeType.MARKDOWN, metadata={}),
            MemoryContent(content=png(), mime_type=MemoryMimeType.IMAGE),
            MemoryContent(content="", mime_type="text/x-custom"),
        ]
        for content in added:
            await memory.add(content)
        results = (await memory.query("")).results
        assert isinstance(results[0].content, str)
        assert isinstance(results[1].content, dict)
        assert isinstance(results[2].content, bytes)
        assert isinstance(results[4].content, Image)
        assert dumps(results) == dumps(added)
        await memory.close()
    run(go())


def test_component_config(make: Callable[[], Memory]) -> None:
    async def go() -> None:
        memory = make()
        await memory.add(MemoryContent(content="test", mime_type=MemoryMimeType.TEXT))
        config = memory.dump_component()
        assert isinstance(config, ComponentModel)
        assert config.component_type == "memory"
        assert config.provider == type(memory).component_provider_override
        again = Memory.load_component(ComponentModel.model_validate_json(config.model_dump_json()))
        assert type(again) is type(memory)
        assert again.name == memory.name  # type: ignore[attr-defined]
        # Both read the same memories: ListMemory's are in its config, the
        # memorywire memory's in the service its config names.
        assert dumps((await again.query("")).results) == dumps((await memory.query("")).results)
        assert len((await again.query("")).results) == 1
        await memory.close()
        await again.close()
    run(go())


# -- Where a search-backed memory differs from ListMemory ---------------------------------------------

def test_a_query_returns_the_matches_best_first_where_list_memory_returns_everything(serve: Serve) -> None:
    async def go() -> None:
        listed, searched = ListMemory(), mw(serve, k=2)
        for text in ["The user prefers tea.", "The user lives in Lyon.", "Tea and green tea, always tea.",
                     "The user's cat is called Miso."]:
            for memory in (listed, searched):
                await memory.add(MemoryContent(content=text, mime_type=MemoryMimeType.TEXT))
        assert len((await listed.query("tea")).results) == 4
        found = [r.content for r in (await searched.query("tea")).results]
        assert found == ["Tea and green tea, always tea.", "The user prefers tea."]  # k=2, best first
        assert (await searched.query("opera")).results == []
        assert len((await listed.query("opera")).results) == 4
        await searched.close()
    run(go())


def test_update_context_adds_the_matches_in_the_order_added(serve: Serve) -> None:
    async def go() -> None:
        listed, searched = ListMemory(), mw(serve)
        for text in ["The user prefers tea.", "The user lives in Lyon.", "Green tea, always tea."]:
            for memory in (listed, searched):
                await memory.add(MemoryContent(content=text, mime_type=MemoryMimeType.TEXT))
        contexts = {}
        for name, memory in (("list", listed), ("search", searched)):
            context = UnboundedChatCompletionContext()
            await context.add_message(UserMessage(content="Which tea should I buy?", source="user"))
            result = await memory.update_context(context)
            contexts[name] = (await context.get_messages())[1:], [r.content for r in result.memories.results]
        assert contexts["list"][0] == [SystemMessage(content="\nRelevant memory content (in chronological order):\n"
                                                             "1. The user prefers tea.\n2. The user lives in Lyon.\n"
                                                             "3. Green tea, always tea.\n")]
        # The matches only, in the order they were added (not best first).
        assert contexts["search"] == (
            [SystemMessage(content="\nRelevant memory content (in chronological order):\n"
                                   "1. The user prefers tea.\n2. Green tea, always tea.\n")],
            ["The user prefers tea.", "Green tea, always tea."])
        # Nothing matches: ListMemory adds everything, the search nothing.
        context = UnboundedChatCompletionContext()
        await context.add_message(UserMessage(content="Book an opera", source="user"))
        assert (await searched.update_context(context)).memories.results == []
        assert len(await context.get_messages()) == 1
        await searched.close()
    run(go())


def test_the_scope_keeps_memories_apart(serve: Serve) -> None:
    async def go() -> None:
        tenant = serve.tenant()
        alice, bob = mw(serve, tenant=tenant, user="alice"), mw(serve, tenant=tenant, user="bob")
        ns = mw(serve, tenant=tenant, user="alice", namespace=["travel"])
        await alice.add(MemoryContent(content="Alice likes tea", mime_type=MemoryMimeType.TEXT))
        await bob.add(MemoryContent(content="Bob likes tea", mime_type=MemoryMimeType.TEXT))
        await ns.add(MemoryContent(content="Alice flies to Lyon for tea", mime_type=MemoryMimeType.TEXT))
        assert [r.content for r in (await bob.query("tea")).results] == ["Bob likes tea"]
        assert [r.content for r in (await ns.query("")).results] == ["Alice flies to Lyon for tea"]
        # The user's memory holds its namespaces' too (a scope is a prefix).
        assert len((await alice.query("")).results) == 2
        await ns.clear()
        assert [r.content for r in (await alice.query("")).results] == ["Alice likes tea"]
        assert [r.content for r in (await bob.query("")).results] == ["Bob likes tea"]
        for m in (alice, bob, ns):
            await m.close()
    run(go())


def test_vector_search_with_an_embedding_function(serve: Serve) -> None:
    def embed(text: str) -> list[float]:
        words = text.lower()
        return [float("tea" in words), float("lyon" in words), float("cat" in words), 0.1]

    async def aembed(text: str) -> list[float]:
        return embed(text)

    async def go() -> None:
        tenant = serve.tenant()
        memory = mw(serve, tenant=tenant, embedding_function=embed, embedding_model="toy", k=1)
        for text in ["The user prefers tea.", "The user lives in Lyon.", "The user's cat is Miso."]:
            await memory.add(MemoryContent(content=text, mime_type=MemoryMimeType.TEXT))
        asynced = mw(serve, tenant=tenant, embedding_function=aembed, embedding_model="toy", score_threshold=0.9)
        assert [r.content for r in (await memory.query("a cat")).results] == ["The user's cat is Miso."]
        assert [r.content for r in (await asynced.query("Lyon")).results] == ["The user lives in Lyon."]
        with Client(serve.target, tenant=tenant) as c:
            records = c.history(scope={"user": "u-1"})["records"]
        assert [r["embeddings"][0]["model"] for r in records] == ["toy"] * 3
        await memory.close()
        await asynced.close()
    run(go())


def test_a_cancelled_token_cancels_the_call(serve: Serve) -> None:
    async def go() -> None:
        memory = mw(serve)
        token = CancellationToken()
        token.cancel()
        with pytest.raises(asyncio.CancelledError):
            await memory.add(MemoryContent(content="x", mime_type=MemoryMimeType.TEXT), cancellation_token=token)
        await memory.close()
    run(go())


# -- The AutoGen runtime: an AssistantAgent, two turns, a restart ---------------------------------------

def test_an_assistant_agent_remembers_across_turns_and_a_restart(memorywire_serve: Serve) -> None:
    from autogen_agentchat.agents import AssistantAgent
    from autogen_core import FunctionCall
    from autogen_core.models import CreateResult, ModelFamily, ModelInfo, RequestUsage
    from autogen_ext.models.replay import ReplayChatCompletionClient

    tenant = memorywire_serve.tenant()
    usage = RequestUsage(prompt_tokens=0, completion_tokens=0)

    def agent(memory: MemorywireMemory, replies: list[str | CreateResult]) -> tuple[Any, Any]:
        async def remember(fact: str) -> str:
            """Remember a fact about the user."""
            await memory.add(MemoryContent(content=fact, mime_type=MemoryMimeType.TEXT))
            return "remembered"

        model = ReplayChatCompletionClient(replies, model_info=ModelInfo(
            vision=False, function_calling=True, json_output=False, family=ModelFamily.UNKNOWN,
            structured_output=False))
        return AssistantAgent("assistant", model_client=model, memory=[memory], tools=[remember]), model

    def memories_seen(model: Any) -> list[str]:
        return [m.content for m in model.create_calls[-1]["messages"]
                if isinstance(m, SystemMessage) and m.content.startswith("\nRelevant memory")]

    async def first() -> None:
        memory = MemorywireMemory(memorywire_serve.target, tenant=tenant, user="u-7")
        call = CreateResult(finish_reason="function_calls", usage=usage, cached=False, content=[
            FunctionCall(id="call_1", name="remember", arguments='{"fact": "The user\'s favourite colour is teal."}')])
        assistant, model = agent(memory, [call])
        result = await assistant.run(task="Please remember that my favourite colour is teal.")
        assert result.messages[-1].content == "remembered"
        assert memories_seen(model) == []  # nothing to remember yet
        assistant2, model2 = agent(memory, ["Your favourite colour is teal."])
        result = await assistant2.run(task="What is my favourite colour?")
        assert memories_seen(model2) == ["\nRelevant memory content (in chronological order):\n"
                                         "1. The user's favourite colour is teal.\n"]
        assert result.messages[-1].content == "Your favourite colour is teal."
        await memory.close()

    run(first())
    memorywire_serve.restart()

    async def after_restart() -> None:
        memory = MemorywireMemory(memorywire_serve.target, tenant=tenant, user="u-7")
        assistant, model = agent(memory, ["Teal."])
        await assistant.run(task="Remind me of my colour")
        assert memories_seen(model) == ["\nRelevant memory content (in chronological order):\n"
                                        "1. The user's favourite colour is teal.\n"]
        await memory.close()

    run(after_restart())


# -- Across frameworks ---------------------------------------------------------------------------------

def test_what_it_writes_is_read_by_neutral_fields_and_agentscope(serve: Serve) -> None:
    tenant = serve.tenant()

    async def go() -> None:
        memory = mw(serve, tenant=tenant, user="u-9", agent="planner")
        await memory.add(MemoryContent(content="The user is vegetarian.", mime_type=MemoryMimeType.TEXT,
                                       metadata={"source": "chat"}))
        await memory.add(MemoryContent(content={"seat": "window"}, mime_type=MemoryMimeType.JSON))
        await memory.close()

    run(go())
    with Client(serve.target, tenant=tenant) as c:
        records = c.history(scope={"user": "u-9"})["records"]
        hits = c.search("vegetarian", scope={"user": "u-9"})["hits"]
    assert [(r["kind"], r["scope"]["user"], r["scope"]["agent"]) for r in records] == \
        [("fact", "u-9", "planner"), ("custom", "u-9", "planner")]
    assert records[0]["fact"]["text"] == "The user is vegetarian."
    assert records[0]["metadata"] == {"source": "chat"}
    assert [h["record"]["id"] for h in hits] == [records[0]["id"]]
    # AgentScope reads memories as system messages with their text.
    msgs = MSG.from_records(records)
    assert [(m["role"], m["content"][0]["text"]) for m in msgs] == \
        [("system", "The user is vegetarian."), ("system", '{"seat":"window"}')]


def test_it_reads_what_agentscope_writes(serve: Serve) -> None:
    # The records of memorywire.integrations.agentscope: the exchange as
    # agentscope.msg messages, the add_memory tool's facts as plain facts.
    tenant = serve.tenant()
    exchange = [{"name": "user", "content": [{"type": "text", "text": "I am allergic to peanuts.", "id": "b1",
                                              "created_at": "2026-05-04T12:30:15.125456", "finished_at": None}],
                 "role": "user", "id": "m1", "metadata": {}, "created_at": "2026-05-04T12:30:15.129456",
                 "usage": None, "finished_at": None, "finished_reason": None, "structured_output": None,
                 "error": None}]
    with Client(serve.target, tenant=tenant) as c:
        c.put(MSG.to_records(exchange, user="u-3", session="s-1"))
        c.put({"id": "f-1", "kind": "fact", "fact": {"text": "The user is allergic to peanuts."},
               "provenance": {"origin": "agent"}}, scope={"user": "u-3"})

    async def go() -> None:
        memory = mw(serve, tenant=tenant, user="u-3")
        found = (await memory.query("peanuts")).results
        # The memory reads memories, not the conversation kept beside them.
        assert dumps(found) == [{"content": "The user is allergic to peanuts.", "mime_type": "text/plain",
                                 "metadata": None}]
        await memory.close()

    run(go())


# -- Errors --------------------------------------------------------------------------------------------

def test_a_stopped_service_raises_within_the_deadline(memorywire_serve: Serve) -> None:
    memory = MemorywireMemory(memorywire_serve.target, tenant=memorywire_serve.tenant(), user="u", timeout=2)
    memorywire_serve.stop()
    for call in (lambda: memory.add(MemoryContent(content="x", mime_type=MemoryMimeType.TEXT)),
                 lambda: memory.query("x"), lambda: memory.clear()):
        started = time.monotonic()
        with pytest.raises(RuntimeError, match="memorywire service: UNAVAILABLE") as caught:
            run(call())
        # add and clear retry (3 attempts, each within the deadline).
        assert time.monotonic() - started < 3 * 2 + 2
        assert isinstance(caught.value.__cause__, ServiceError)


def test_a_service_error_carries_its_reason(serve: Serve) -> None:
    memory = MemorywireMemory(serve.target, user="u")  # no tenant
    for call in (lambda: memory.add(MemoryContent(content="x", mime_type=MemoryMimeType.TEXT)),
                 lambda: memory.query("x")):
        with pytest.raises(RuntimeError, match="memorywire service: UNAUTHENTICATED TENANT_REQUIRED") as caught:
            run(call())
        assert isinstance(caught.value.__cause__, ServiceError)


def test_a_request_refused_before_it_is_sent_is_the_same_error(serve: Serve) -> None:
    memory = mw(serve)
    with pytest.raises(RuntimeError, match="memorywire client: .*NOT_REPRESENTABLE"):
        run(memory.add(MemoryContent(content={"tags": {"a", "b"}}, mime_type=MemoryMimeType.JSON)))


def test_a_query_longer_than_the_service_takes_is_cut(serve: Serve) -> None:
    async def go() -> None:
        memory = mw(serve)
        await memory.add(MemoryContent(content="The user collects stamps.", mime_type=MemoryMimeType.TEXT))
        long = "stamps " + "x" * 20_000
        assert [r.content for r in (await memory.query(long)).results] == ["The user collects stamps."]
        context = UnboundedChatCompletionContext()
        await context.add_message(UserMessage(content=long, source="user"))
        assert len((await memory.update_context(context)).memories.results) == 1
        await memory.close()
    run(go())


def test_a_scope_the_service_would_refuse_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="/user: 300 characters"):
        MemorywireMemory("127.0.0.1:1", user="u" * 300)
    with pytest.raises(ValueError, match="/namespace/0"):
        MemorywireMemory("127.0.0.1:1", namespace=[""])


def test_a_write_retried_after_a_lost_response_is_not_duplicated(serve: Serve) -> None:
    tenant = serve.tenant()
    with losing_proxy(serve.target) as proxy:
        async def go() -> None:
            memory = MemorywireMemory(proxy.front, tenant=tenant, user="u-1")
            await memory.add(MemoryContent(content="once", mime_type=MemoryMimeType.TEXT))
            await memory.close()

        run(go())
        assert proxy.lost == 1

    async def read() -> list[Any]:
        memory = MemorywireMemory(serve.target, tenant=tenant, user="u-1")
        found = [r.content for r in (await memory.query("")).results]
        await memory.close()
        return found

    assert run(read()) == ["once"]


def test_a_memory_made_from_a_client_has_no_config(serve: Serve, tmp_path: Path) -> None:
    async def go() -> None:
        async with AsyncClient(serve.target, tenant="t") as client:
            with pytest.raises(ValueError, match="target"):
                MemorywireMemory(client).dump_component()

    run(go())
