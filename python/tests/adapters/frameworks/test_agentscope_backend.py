"""memorywire.integrations.agentscope.MemorywireLongTermMemory against
AgentScope 2.0.11 and a live ``memorywire serve``: the behaviours of
AgentScope's own long-term memory middleware (its tests of Mem0Middleware)
run side by side on Mem0Middleware over an in-process mem0 stand-in and on
the memorywire memory; an Agent with a scripted model remembers across two
turns and a restart; what it records is read by other forms, and it reads
what AutoGen's memory writes; errors carry the memorywire reason."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
from live import Serve
from lost_response import losing_proxy

from memorywire.adapters import FORMS
from memorywire.client import Client
from memorywire.service.errors import ServiceError

pytest.importorskip("agentscope")

from agentscope.agent import Agent  # noqa: E402
from agentscope.credential import CredentialBase  # noqa: E402
from agentscope.exception import DeveloperOrientedException  # noqa: E402
from agentscope.formatter import OpenAIChatFormatter  # noqa: E402
from agentscope.message import HintBlock, Msg, TextBlock, ToolCallBlock, ToolResultState, UserMsg  # noqa: E402
from agentscope.middleware import Mem0Middleware, MiddlewareBase  # noqa: E402
from agentscope.model import ChatModelBase, ChatResponse  # noqa: E402
from agentscope.permission import PermissionBehavior  # noqa: E402
from agentscope.tool import Toolkit  # noqa: E402
from pydantic import BaseModel  # noqa: E402

from memorywire.integrations.agentscope import MemorywireLongTermMemory  # noqa: E402

T = TypeVar("T")
MSG = FORMS["agentscope.msg"]
CONTENT = FORMS["autogen.memory_content"]
LLM = FORMS["autogen.llm_message"]


def run(coro: Awaitable[T]) -> T:
    return asyncio.run(coro)  # type: ignore[arg-type]


# -- a scripted local model ------------------------------------------------------------------------------

class _Credential(CredentialBase):
    @classmethod
    def get_chat_model_class(cls) -> type[ChatModelBase]:
        return ScriptedModel


class ScriptedModel(ChatModelBase):
    """A chat model that returns prepared responses and keeps the messages
    of every call."""

    class Parameters(BaseModel):
        pass

    def __init__(self, *replies: str | ChatResponse) -> None:
        super().__init__(credential=_Credential(), model="scripted", parameters=ScriptedModel.Parameters(),
                         stream=False, context_size=100_000)
        self.formatter = OpenAIChatFormatter()
        self.replies = [r if isinstance(r, ChatResponse) else ChatResponse(
            content=[TextBlock(type="text", text=r)], is_last=True) for r in replies]
        self.calls: list[list[Msg]] = []

    async def _call_api(self, *args: Any, **kwargs: Any) -> ChatResponse:
        self.calls.append(list(kwargs["messages"] if "messages" in kwargs else args[1]))
        return self.replies.pop(0)


def tool_call(name: str, arguments: str) -> ChatResponse:
    return ChatResponse(content=[ToolCallBlock(id=f"call-{uuid.uuid4().hex[:6]}", name=name, input=arguments)],
                        is_last=True)


def memory_notes(messages: list[Msg]) -> list[str]:
    return [b.hint for m in messages if m.name == "memory" for b in m.get_content_blocks("hint")]


async def make_agent(memory: MiddlewareBase, model: ScriptedModel, name: str = "Friday") -> Agent:
    return Agent(name=name, system_prompt="base system prompt", model=model,
                 toolkit=Toolkit(tools=await memory.list_tools()), middlewares=[memory])


# -- Mem0Middleware over an in-process mem0 stand-in ------------------------------------------------------

class FakeMem0:
    """What mem0's AsyncMemory does without its extraction model
    (``infer=False``): each message's text is a memory of the user and
    agent given; a search finds the memories sharing a word with the query."""

    def __init__(self) -> None:
        self.memories: list[dict[str, Any]] = []
        self.failing = False

    async def search(self, query: str, *, filters: dict[str, Any], top_k: int = 5, **kwargs: Any) -> Any:
        if self.failing:
            raise RuntimeError("mem0 down")
        words = set(re.findall(r"\w+", query.lower()))
        found = [m for m in self.memories if all(m.get(k) == v for k, v in filters.items())
                 and words & set(re.findall(r"\w+", m["memory"].lower()))]
        return {"results": found[:top_k]}

    async def add(self, messages: list[dict[str, Any]], *, user_id: str, agent_id: str | None = None,
                  **kwargs: Any) -> Any:
        added = [{"memory": m["content"], "user_id": user_id, "agent_id": agent_id} for m in messages]
        self.memories.extend(added)
        return {"results": added}


Make = Callable[..., MiddlewareBase]


@pytest.fixture(params=["Mem0Middleware", "MemorywireLongTermMemory"])
def make(request: pytest.FixtureRequest, serve: Serve) -> Make:
    """A long-term memory of each kind, empty; the memories of one
    ``make`` share their store (one fake mem0, one tenant)."""
    if request.param == "Mem0Middleware":
        client = FakeMem0()
        return lambda **kw: Mem0Middleware(client=client, **kw)
    tenant = serve.tenant()
    return lambda **kw: MemorywireLongTermMemory(serve.target, tenant=tenant, **kw)


def text_of(chunk: Any) -> str:
    return str(chunk.content[0].text)


# -- AgentScope's behaviours of a long-term memory, on both ------------------------------------------------

def test_constructor_validation(make: Make) -> None:
    for user_id in ("", "   "):
        with pytest.raises(ValueError, match="user_id"):
            make(user_id=user_id)
    with pytest.raises(ValueError, match="mode"):
        make(user_id="alice", mode="garbage")


def test_static_control_retrieves_injects_and_writes(make: Make) -> None:
    async def go() -> None:
        memory = make(user_id="alice", agent_id="Friday", mode="static_control")
        first = ScriptedModel("Coffee it is.")
        agent = await make_agent(memory, first)
        reply = await agent.reply(UserMsg("user", "I love coffee in the morning"))
        assert reply.get_text_content() == "Coffee it is."
        assert memory_notes(first.calls[-1]) == []  # nothing yet
        assert first.calls[-1][0].get_text_content() == "base system prompt"  # no tool instructions
        assert await memory.list_tools() == []

        second = ScriptedModel("You like coffee.")
        agent = await make_agent(memory, second)
        await agent.reply(UserMsg("user", "What do I drink in the morning?"))
        notes = memory_notes(second.calls[-1])
        assert len(notes) == 1
        assert notes[0].startswith("## Relevant memories from past conversations\n")
        assert "- I love coffee in the morning" in notes[0].splitlines()
        # The note follows the new user message in the agent's context.
        roles = [(m.role, m.name) for m in agent.state.context]
        assert roles.index(("assistant", "memory")) > roles.index(("user", "user"))
        hints = [b for m in agent.state.context if m.name == "memory" for b in m.get_content_blocks("hint")]
        assert all(isinstance(h, HintBlock) for h in hints)
        await _close(memory)
    run(go())


def test_no_memories_no_injection(make: Make) -> None:
    async def go() -> None:
        memory = make(user_id="alice", mode="static_control")
        model = ScriptedModel("ok")
        await (await make_agent(memory, model)).reply(UserMsg("user", "hi"))
        assert all(m.name != "memory" for m in model.calls[-1])
        await _close(memory)
    run(go())


def test_agent_control_lists_tools_and_does_nothing_by_itself(make: Make) -> None:
    async def go() -> None:
        memory = make(user_id="alice", mode="agent_control")
        assert [t.name for t in await memory.list_tools()] == ["search_memory", "add_memory"]
        model = ScriptedModel("ok", "ok")
        agent = await make_agent(memory, model)
        await agent.reply(UserMsg("user", "hello there, remember tulips"))
        await agent.reply(UserMsg("user", "tulips?"))
        prompt = model.calls[-1][0].get_text_content() or ""
        assert prompt.startswith("base system prompt\n\n## Long-term memory")
        assert "search_memory" in prompt and "add_memory" in prompt
        assert memory_notes(model.calls[-1]) == []
        search = (await memory.list_tools())[0]
        assert text_of(await search(keywords=["tulips"])) == "(no relevant memories found)"  # nothing written
        await _close(memory)
    run(go())


def test_the_middleware_does_not_register_its_tools(make: Make) -> None:
    async def go() -> None:
        memory = make(user_id="alice", mode="agent_control")
        toolkit = Toolkit()
        agent = Agent(name="a", system_prompt="p", model=ScriptedModel("ok"), toolkit=toolkit, middlewares=[memory])
        await agent.reply(UserMsg("user", "hello"))
        names = [t.name for g in toolkit.tool_groups for t in g.tools]
        assert "search_memory" not in names and "add_memory" not in names
        await _close(memory)
    run(go())


def test_the_tools_add_and_search(make: Make) -> None:
    async def go() -> None:
        memory = make(user_id="alice", agent_id="a", mode="both")
        search, add = await memory.list_tools()
        assert (search.is_read_only, add.is_read_only) == (True, False)
        assert (await add.check_permissions()).behavior == PermissionBehavior.ALLOW
        done = await add(thinking="durable", content=["Alice's sister is called Jo."])
        assert text_of(done).startswith("Successfully recorded to memory (rationale: durable) → ")
        await add(thinking="", content=["Alice lives in Lyon."])
        found = await search(keywords=["sister", "Lyon", "Jo"], limit=3)
        assert text_of(found).splitlines() == ["- Alice's sister is called Jo.", "- Alice lives in Lyon."]
        empty = await add(thinking="x", content=[])
        assert (text_of(empty), empty.state) == ("`content` is empty — nothing to record.", ToolResultState.ERROR)
        assert text_of(await search(keywords=[])) == "(no keywords supplied — nothing to search)"
        await _close(memory)
    run(go())


def test_search_scope_by_agent(make: Make) -> None:
    async def go() -> None:
        writer = make(user_id="alice", agent_id="planner", mode="both")
        await (await writer.list_tools())[1](thinking="", content=["Alice flies on Fridays."])
        scoped = make(user_id="alice", agent_id="booker", mode="both")
        shared = make(user_id="alice", agent_id="booker", mode="both", scope_search_by_agent=False)
        other = make(user_id="bob", mode="both", scope_search_by_agent=False)
        assert text_of(await (await scoped.list_tools())[0](keywords=["Fridays"])) == "(no relevant memories found)"
        assert text_of(await (await shared.list_tools())[0](keywords=["Fridays"])) == "- Alice flies on Fridays."
        assert text_of(await (await other.list_tools())[0](keywords=["Fridays"])) == "(no relevant memories found)"
        for m in (writer, scoped, shared, other):
            await _close(m)
    run(go())


async def _close(memory: MiddlewareBase) -> None:
    if isinstance(memory, MemorywireLongTermMemory):
        await memory.close()


# -- The developer's methods (1.x LongTermMemoryBase) ------------------------------------------------------

def test_record_and_retrieve(serve: Serve) -> None:
    tenant = serve.tenant()

    async def go() -> None:
        memory = MemorywireLongTermMemory(serve.target, tenant=tenant, user_id="alice", agent_id="Friday")
        said = UserMsg("user", "My passport expires in March.")
        answered = Msg(name="Friday", role="assistant", content=[TextBlock(type="text", text="I will remind you.")])
        assert await memory.record([said, None, answered], session_id="s-1") == [said.id, answered.id]
        assert await memory.record([said], session_id="s-1") == [said.id]  # again: unchanged
        assert await memory.record([]) == []
        assert await memory.retrieve(UserMsg("user", "When does my passport expire?")) == \
            "My passport expires in March."
        assert await memory.retrieve([UserMsg("user", "remind"), UserMsg("user", "passport")], limit=1) in \
            ("I will remind you.", "My passport expires in March.")
        assert await memory.retrieve(None) == ""
        assert await memory.retrieve(UserMsg("user", "opera")) == ""
        await memory.close()

    run(go())
    with Client(serve.target, tenant=tenant) as c:
        records = c.history(scope={"user": "alice"})["records"]
    assert [(r["id"], r["kind"], r["scope"].get("session")) for r in records] == \
        [(records[0]["id"], "message", "s-1"), (records[1]["id"], "message", "s-1")]
    assert [r["revision"] for r in records] == [1, 1]


# -- The AgentScope runtime: an agent, two turns, a restart ------------------------------------------------

def test_an_agent_remembers_across_turns_and_a_restart(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()

    async def first() -> None:
        memory = MemorywireLongTermMemory(memorywire_serve.target, tenant=tenant, user_id="alice",
                                          agent_id="Friday", mode="both")
        model = ScriptedModel(
            tool_call("add_memory", '{"thinking": "durable", "content": ["Alice is allergic to peanuts."]}'),
            "Noted.", "No peanuts for you.")
        agent = await make_agent(memory, model)
        assert (await agent.reply(UserMsg("user", "Remember that I am allergic to peanuts"))).get_text_content() \
            == "Noted."
        await agent.reply(UserMsg("user", "Can I eat peanuts?"))
        notes = memory_notes(model.calls[-1])
        assert len(notes) == 1
        assert {"- Alice is allergic to peanuts.", "- Remember that I am allergic to peanuts"} <= \
            set(notes[0].splitlines())
        await memory.close()

    run(first())
    memorywire_serve.restart()

    async def after_restart() -> None:
        memory = MemorywireLongTermMemory(memorywire_serve.target, tenant=tenant, user_id="alice",
                                          agent_id="Friday", mode="static_control")
        model = ScriptedModel("Still no peanuts.")
        await (await make_agent(memory, model)).reply(UserMsg("user", "Any peanuts in the satay?"))
        notes = memory_notes(model.calls[-1])
        assert len(notes) == 1 and "- Alice is allergic to peanuts." in notes[0].splitlines()
        assert await memory.retrieve(UserMsg("user", "satay")) == "Any peanuts in the satay?"
        await memory.close()

    run(after_restart())


def test_a_background_write_is_done_by_close(serve: Serve) -> None:
    tenant = serve.tenant()

    async def go() -> None:
        memory = MemorywireLongTermMemory(serve.target, tenant=tenant, user_id="u", mode="static_control",
                                          await_write=False)
        await (await make_agent(memory, ScriptedModel("Hello."))).reply(UserMsg("user", "Hi, I am Ana"))
        await memory.close()

    run(go())
    with Client(serve.target, tenant=tenant) as c:
        assert [r["message"]["role"] for r in c.history()["records"]] == ["user", "assistant"]


# -- Across frameworks ----------------------------------------------------------------------------------

def test_what_it_records_is_read_by_other_forms(serve: Serve) -> None:
    tenant = serve.tenant()
    said = UserMsg("user", "Book the window seat.")
    answered = Msg(name="Friday", role="assistant", content=[TextBlock(type="text", text="Window seat booked.")])

    async def go() -> None:
        memory = MemorywireLongTermMemory(serve.target, tenant=tenant, user_id="u-5", mode="both")
        await memory.record([said, answered], session_id="s-9")
        await (await memory.list_tools())[1](thinking="", content=["The user prefers window seats."])
        await memory.close()

    run(go())
    with Client(serve.target, tenant=tenant) as c:
        conversation = c.history(scope={"session": "s-9"})["records"]
        facts = c.search("window", scope={"user": "u-5"},
                         filter={"compare": {"field": "/kind", "operator": "eq", "value": "fact"}})["hits"]
    # AgentScope reads its own Msgs back exactly.
    assert MSG.from_records(conversation) == [said.model_dump(mode="json"), answered.model_dump(mode="json")]
    # AutoGen reads the conversation as LLM messages, and the fact as a memory.
    assert [(m["type"], m["content"]) for m in LLM.from_records(conversation)] == \
        [("UserMessage", "Book the window seat."), ("AssistantMessage", "Window seat booked.")]
    assert CONTENT.from_records([h["record"] for h in facts]) == \
        [{"content": "The user prefers window seats.", "mime_type": "text/plain", "metadata": None}]
    # Neutral fields: role and text, the user's scope.
    assert [(r["message"]["role"], r["message"]["content"][0]["text"]["text"], r["scope"]["user"])
            for r in conversation] == [("user", "Book the window seat.", "u-5"),
                                       ("assistant", "Window seat booked.", "u-5")]


def test_it_retrieves_what_autogen_records(serve: Serve) -> None:
    # Records exactly as memorywire.integrations.autogen.MemorywireMemory.add
    # writes them: the autogen.memory_content form, a fresh id each.
    tenant = serve.tenant()
    dumps = [{"content": "The user is vegetarian.", "mime_type": "text/plain", "metadata": None},
             {"content": {"diet": "vegetarian"}, "mime_type": "application/json", "metadata": None}]
    records = CONTENT.to_records(dumps, user="alice")
    for r in records:
        r["id"] = f"urn:uuid:{uuid.uuid4()}"
    with Client(serve.target, tenant=tenant) as c:
        c.put(records, scope={"user": "alice"})

    async def go() -> None:
        memory = MemorywireLongTermMemory(serve.target, tenant=tenant, user_id="alice", mode="both")
        assert await memory.retrieve(UserMsg("user", "Any vegetarian options?")) == "The user is vegetarian."
        found = await (await memory.list_tools())[0](keywords=["vegetarian"])
        assert text_of(found) == "- The user is vegetarian."
        model = ScriptedModel("Try the falafel.")
        await (await make_agent(memory, model)).reply(UserMsg("user", "Suggest a vegetarian dinner"))
        assert "- The user is vegetarian." in memory_notes(model.calls[-1])[0].splitlines()
        await memory.close()

    run(go())


# -- Errors ----------------------------------------------------------------------------------------------

class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def test_a_stopped_service_raises_within_the_deadline(memorywire_serve: Serve) -> None:
    memory = MemorywireLongTermMemory(memorywire_serve.target, tenant=memorywire_serve.tenant(), user_id="u",
                                      timeout=2, mode="both")
    memorywire_serve.stop()
    limit = 3 * 2 + 2  # a write is tried three times, each within the deadline

    async def go() -> None:
        for call in (lambda: memory.record([UserMsg("user", "x")]), lambda: memory.retrieve(UserMsg("user", "x"))):
            started = time.monotonic()
            with pytest.raises(DeveloperOrientedException, match="memorywire service: UNAVAILABLE") as caught:
                await call()
            assert time.monotonic() - started < limit
            assert isinstance(caught.value.__cause__, ServiceError)
        search, add = await memory.list_tools()
        for chunk in (await search(keywords=["x"]), await add(thinking="", content=["x"])):
            assert chunk.state == ToolResultState.ERROR
            assert "memorywire service: UNAVAILABLE" in text_of(chunk)
        # A reply goes on without its memory, as with Mem0Middleware, and says why in the log.
        log = logging.getLogger("as")
        handler = Warnings()
        log.addHandler(handler)
        try:
            started = time.monotonic()
            reply = await (await make_agent(memory, ScriptedModel("still works"))).reply(UserMsg("user", "ping"))
            assert time.monotonic() - started < 2 * limit
        finally:
            log.removeHandler(handler)
        assert reply.get_text_content() == "still works"
        assert [line.split(": ", 1)[0] for line in handler.lines] == \
            ["memorywire search failed for user_id=u", "memorywire write failed for user_id=u"]
        assert all("UNAVAILABLE" in line for line in handler.lines)
        await memory.close()

    run(go())


def test_a_service_error_carries_its_reason(serve: Serve) -> None:
    memory = MemorywireLongTermMemory(serve.target, user_id="u")  # no tenant
    with pytest.raises(DeveloperOrientedException, match="UNAUTHENTICATED TENANT_REQUIRED") as caught:
        run(memory.record([UserMsg("user", "x")]))
    assert isinstance(caught.value.__cause__, ServiceError)


def test_a_request_refused_before_it_is_sent_is_the_same_error(serve: Serve) -> None:
    memory = MemorywireLongTermMemory(serve.target, tenant=serve.tenant(), user_id="u")
    with pytest.raises(DeveloperOrientedException, match="memorywire client: .*/scope/session"):
        run(memory.record([UserMsg("user", "x")], session_id="s" * 300))


def test_a_long_input_is_searched_by_its_beginning(serve: Serve) -> None:
    async def go() -> None:
        memory = MemorywireLongTermMemory(serve.target, tenant=serve.tenant(), user_id="u", mode="static_control")
        await memory.record([UserMsg("user", "I collect stamps.")])
        model = ScriptedModel("Nice.")
        await (await make_agent(memory, model)).reply(UserMsg("user", "stamps " + "x" * 20_000))
        assert "- I collect stamps." in memory_notes(model.calls[-1])[0].splitlines()
        await memory.close()
    run(go())


def test_a_write_retried_after_a_lost_response_is_not_duplicated(serve: Serve) -> None:
    tenant = serve.tenant()
    with losing_proxy(serve.target) as proxy:
        async def go() -> None:
            memory = MemorywireLongTermMemory(proxy.front, tenant=tenant, user_id="u", mode="both")
            chunk = await (await memory.list_tools())[1](thinking="", content=["Only once."])
            assert chunk.state != ToolResultState.ERROR
            await memory.close()

        run(go())
        assert proxy.lost == 1
    with Client(serve.target, tenant=tenant) as mw:
        assert [r["fact"]["text"] for r in mw.history()["records"]] == ["Only once."]
