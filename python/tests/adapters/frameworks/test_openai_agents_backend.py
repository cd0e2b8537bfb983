"""MemorywireSession against a live ``memorywire serve``: the behaviours of
the SDK's own session tests (tests/memory/test_session.py and
test_session_limit.py of openai-agents-python) run against it and, side by
side, against SQLiteSession; the Runner over two turns with a scripted
model; a restart; another framework's reading; and the errors."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, os.path.dirname(__file__))

from agents import Agent, RunConfig, Runner, SessionSettings, SQLiteSession, set_tracing_disabled  # noqa: E402
from agents.items import ModelResponse, TResponseInputItem, TResponseStreamEvent  # noqa: E402
from agents.memory import Session  # noqa: E402
from agents.models.interface import Model  # noqa: E402
from agents.usage import Usage  # noqa: E402
from lost_response import losing_proxy  # noqa: E402
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText  # noqa: E402
from openai_conversations import SETTINGS, conversations  # noqa: E402

from memorywire.adapters import FORMS, AdapterError  # noqa: E402
from memorywire.client import Client, ServiceError  # noqa: E402
from memorywire.integrations.openai_agents import MemorywireSession  # noqa: E402

TIMEOUT = 3.0

set_tracing_disabled(True)  # no trace export: nothing leaves the machine


# -- the two backends --------------------------------------------------------------------------

Factory = Callable[..., Any]


@pytest.fixture(params=["sqlite", "memorywire"])
def make(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Factory]:
    """A factory of sessions of one backend, all in one store: SQLiteSession
    on a file, or MemorywireSession on the live service in a fresh tenant."""
    made: list[Any] = []
    if request.param == "sqlite":
        path = tmp_path / "sessions.db"

        def factory(session_id: str, **kwargs: Any) -> Any:
            s = SQLiteSession(session_id, path, **kwargs)
            made.append(s)
            return s
    else:
        serve = request.getfixturevalue("memorywire_serve")
        tenant = serve.tenant()

        def factory(session_id: str, **kwargs: Any) -> Any:
            s = MemorywireSession(session_id, serve.target, tenant=tenant, timeout=TIMEOUT, **kwargs)
            made.append(s)
            return s
    yield factory
    for s in made:
        s.close()


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def contents(items: list[Any]) -> list[Any]:
    return [item.get("content") for item in items]


# -- the SDK's own session tests, on both backends ----------------------------------------------

def test_is_a_session(make: Factory) -> None:
    assert isinstance(make("s"), Session)


def test_add_get_clear(make: Factory) -> None:
    session = make("direct_test")
    items: list[TResponseInputItem] = [{"role": "user", "content": "Hello"},
                                       {"role": "assistant", "content": "Hi there!"}]

    async def go() -> None:
        await session.add_items(items)
        assert await session.get_items() == items
        await session.clear_session()
        assert await session.get_items() == []
        await session.add_items(items[:1])  # a cleared session takes items again
        assert await session.get_items() == items[:1]

    run(go())


def test_a_missing_session_is_empty(make: Factory) -> None:
    session = make("never_written")

    async def go() -> None:
        assert await session.get_items() == []
        assert await session.get_items(limit=3) == []
        assert await session.pop_item() is None
        await session.clear_session()
        assert await session.get_items() == []

    run(go())


def test_pop_item(make: Factory) -> None:
    session = make("pop_test")
    items: list[TResponseInputItem] = [{"role": "user", "content": "Hello"},
                                       {"role": "assistant", "content": "Hi there!"},
                                       {"role": "user", "content": "How are you?"}]

    async def go() -> None:
        assert await session.pop_item() is None
        await session.add_items(items)
        assert len(await session.get_items()) == 3
        assert await session.pop_item() == items[2]
        assert contents(await session.get_items()) == ["Hello", "Hi there!"]
        assert await session.pop_item() == items[1]
        assert await session.pop_item() == items[0]
        assert await session.pop_item() is None
        assert await session.get_items() == []

    run(go())


def test_pop_different_sessions(make: Factory) -> None:
    one, two = make("session_1"), make("session_2")

    async def go() -> None:
        await one.add_items([{"role": "user", "content": "Session 1 message"}])
        await two.add_items([{"role": "user", "content": "Session 2 message 1"},
                             {"role": "user", "content": "Session 2 message 2"}])
        popped = await two.pop_item()
        assert popped is not None and popped.get("content") == "Session 2 message 2"
        assert contents(await one.get_items()) == ["Session 1 message"]
        assert contents(await two.get_items()) == ["Session 2 message 1"]
        await two.clear_session()
        assert contents(await one.get_items()) == ["Session 1 message"]

    run(go())


def test_concurrent_pops_return_each_item_once(make: Factory) -> None:
    session = make("pop_race")
    items = [{"role": "user", "content": f"m{i}"} for i in range(6)]

    async def go() -> list[Any]:
        await session.add_items(items)
        return list(await asyncio.gather(*(session.pop_item() for _ in range(8))))

    popped = run(go())
    assert sorted(contents([p for p in popped if p is not None])) == [f"m{i}" for i in range(6)]
    assert popped.count(None) == 2


def test_get_items_with_limit(make: Factory) -> None:
    session = make("count_test")
    items: list[TResponseInputItem] = [
        {"role": "user", "content": "Message 1"}, {"role": "assistant", "content": "Response 1"},
        {"role": "user", "content": "Message 2"}, {"role": "assistant", "content": "Response 2"},
        {"role": "user", "content": "Message 3"}, {"role": "assistant", "content": "Response 3"}]

    async def go() -> None:
        await session.add_items(items)
        assert await session.get_items() == items
        assert await session.get_items(limit=2) == items[-2:]
        assert await session.get_items(limit=4) == items[-4:]
        assert await session.get_items(limit=10) == items
        assert await session.get_items(limit=0) == []
        assert await session.get_items(limit=-1) == items  # SQLite's LIMIT -1: no limit

    run(go())


def test_limit_spanning_many_pages(make: Factory) -> None:
    session = make("long")
    items = [{"role": "user", "content": f"m{i}"} for i in range(1203)]

    async def go() -> None:
        await session.add_items(items[:700])
        await session.add_items(items[700:])
        assert await session.get_items() == items
        assert await session.get_items(limit=1100) == items[-1100:]

    run(go())


def test_limit_drops_the_call_before_its_output(make: Factory) -> None:
    session = make("limit_tool_pair")
    history: list[Any] = [
        {"role": "user", "content": "What is the weather?"},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "It is sunny.", "annotations": []}]},
    ]

    async def go() -> None:
        await session.add_items(history)
        assert await session.get_items(limit=2) == history[-2:]
        assert await session.get_items() == history

    run(go())


def test_session_settings(make: Factory) -> None:
    assert make("default_settings").session_settings == SessionSettings()
    assert make("constructor", session_settings=SessionSettings(limit=5)).session_settings.limit == 5
    normalized = make("dictionary", session_settings={"limit": 0})
    assert isinstance(normalized.session_settings, SessionSettings)
    assert normalized.session_settings.limit == 0
    with pytest.raises(TypeError, match="Unknown session settings: limitt"):
        make("invalid", session_settings={"limitt": 1})


def test_settings_limit_and_explicit_limit(make: Factory) -> None:
    session = make("settings_limit", session_settings=SessionSettings(limit=3))
    items = [{"role": "user", "content": f"Message {i}"} for i in range(5)]

    async def go() -> None:
        await session.add_items(items)
        assert await session.get_items() == items[-3:]
        assert await session.get_items(limit=2) == items[-2:]

    run(go())


def test_unicode_and_special_characters(make: Factory) -> None:
    session = make("special_chars_test")
    items: list[Any] = [{"role": "user", "content": "こんにちは"}, {"role": "assistant", "content": "😊👍"},
                        {"role": "user", "content": "O'Reilly"},
                        {"role": "assistant", "content": "Robert'); DROP TABLE students;--"},
                        {"role": "user", "content": "Météo \\u00e9 \"quoted\"\n"}]

    async def go() -> None:
        await session.add_items(items)
        assert await session.get_items() == items

    run(go())


def test_what_json_keeps(make: Factory) -> None:
    """A session keeps what json.dumps keeps: a tuple comes back a list, an
    integer key a string, and an item JSON cannot hold is a TypeError that
    writes nothing."""
    session = make("json")
    odd: Any = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}",
                "extra": (1, 2), "more": {1: "one"}}

    async def go() -> None:
        await session.add_items([odd])
        got = await session.get_items()
        assert got == [dict(odd, extra=[1, 2], more={"1": "one"})]
        with pytest.raises(TypeError):
            await session.add_items([{"role": "user", "content": "ok"},
                                     {"role": "user", "content": object()}])
        assert await session.get_items() == got

    run(go())


def test_closed_session(make: Factory) -> None:
    session = make("closed")
    session.close()
    with pytest.raises(RuntimeError, match="Session is closed"):
        run(session.add_items([]))
    with pytest.raises(RuntimeError, match="Session is closed"):
        run(session.get_items())


def test_a_cancelled_write_ends_first(make: Factory) -> None:
    """A caller cancelled during add_items, pop_item or clear_session gets
    its CancelledError after the write has ended, not in its middle."""
    session = make("cancelled")

    async def cancel(coro: Any) -> None:
        task = asyncio.ensure_future(coro)
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    async def go() -> None:
        await cancel(session.add_items([{"role": "user", "content": "kept"}, {"role": "user", "content": "too"}]))
        assert contents(await session.get_items()) == ["kept", "too"]
        await cancel(session.pop_item())
        assert contents(await session.get_items()) == ["kept"]
        await cancel(session.clear_session())
        assert await session.get_items() == []

    run(go())


def test_concurrent_writers_in_threads(make: Factory) -> None:
    """Writers in five threads, each with its own event loop."""
    session = make("concurrent_test")
    items = [{"role": "user", "content": f"Message {i}"} for i in range(10)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=5) as pool:
        list(pool.map(lambda item: asyncio.run(session.add_items([item])), items))
    assert sorted(contents(run(session.get_items()))) == sorted(f"Message {i}" for i in range(10))


@settings(SETTINGS, max_examples=25,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(conversations())
def test_generated_conversations_match_sqlite(memorywire_serve: Any, conversation: tuple[list[Any], list[Any]]) -> None:
    """Conversations the Runner would store (messages, calls, outputs,
    reasoning, references), through both backends: the same items back, the
    same latest items, the same pops."""
    items, _ = conversation
    sqlite = SQLiteSession("s")
    ours = MemorywireSession("s", memorywire_serve.target, tenant=memorywire_serve.tenant(), timeout=TIMEOUT)

    async def through(session: Any) -> tuple[Any, ...]:
        await session.add_items(items[:2])
        await session.add_items(items[2:])
        every = await session.get_items()
        latest = await session.get_items(limit=3)
        popped = await session.pop_item()
        return every, latest, popped, await session.get_items()

    try:
        expected = run(through(sqlite))
        assert expected[0] == items
        assert run(through(ours)) == expected
    finally:
        sqlite.close()
        ours.close()


# -- the Runner, two turns, then a restart --------------------------------------------------------

class ScriptedModel(Model):
    """A model that answers with prepared outputs, in turn, and records the
    input of every call."""

    def __init__(self, outputs: list[list[Any]]) -> None:
        self.outputs = list(outputs)
        self.inputs: list[list[Any]] = []

    async def get_response(self, system_instructions: str | None, input: str | list[TResponseInputItem],
                           *args: Any, **kwargs: Any) -> ModelResponse:
        self.inputs.append([input] if isinstance(input, str) else [dict(x) for x in input])
        return ModelResponse(output=self.outputs.pop(0), usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise NotImplementedError


def text(id_: str, said: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id=id_, type="message", role="assistant", status="completed",
                                 content=[ResponseOutputText(type="output_text", text=said, annotations=[])])


def script() -> list[list[Any]]:
    return [[text("msg_1", "Paris is in France.")],
            [ResponseFunctionToolCall(type="function_call", call_id="call_1", name="lookup",
                                      arguments='{"city": "Paris"}', id="fc_1", status="completed")],
            [text("msg_2", "You asked about Paris.")]]


def lookup(city: str) -> str:
    """Look a city up."""
    return f"{city}: 2.1 million people"


async def two_turns(session: Any) -> tuple[ScriptedModel, list[str]]:
    from agents import function_tool

    model = ScriptedModel(script())
    agent = Agent(name="Guide", instructions="Answer briefly.", model=model, tools=[function_tool(lookup)])
    first = await Runner.run(agent, "Where is Paris?", session=session)
    second = await Runner.run(agent, "What did I ask about?", session=session)
    return model, [first.final_output, second.final_output]


def test_runner_two_turns_and_a_restart(memorywire_serve: Any) -> None:
    tenant = memorywire_serve.tenant()
    session = MemorywireSession("trip-1", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    model, outputs = run(two_turns(session))
    baseline = SQLiteSession("trip-1")
    base_model, base_outputs = run(two_turns(baseline))
    assert outputs == base_outputs == ["Paris is in France.", "You asked about Paris."]
    # The second turn saw the first: its input starts with the first turn's items.
    first_turn = [{"content": "Where is Paris?", "role": "user"},
                  text("msg_1", "Paris is in France.").model_dump(exclude_unset=True)]
    assert model.inputs[1][:2] == first_turn
    assert model.inputs[1][2] == {"content": "What did I ask about?", "role": "user"}
    # Exactly what the model saw with SQLiteSession.
    assert model.inputs == base_model.inputs
    stored = run(session.get_items())
    assert stored == run(baseline.get_items())
    assert [x.get("type") for x in stored[3:]] == ["function_call", "function_call_output", "message"]
    session.close()
    baseline.close()

    memorywire_serve.restart()
    again = MemorywireSession("trip-1", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    assert run(again.get_items()) == stored
    # A third turn after the restart sees all of it.
    model = ScriptedModel([[text("msg_3", "Still Paris.")]])
    agent = Agent(name="Guide", model=model)
    loop = asyncio.new_event_loop()  # run_sync on a loop of its own, as the SDK's tests run it
    asyncio.set_event_loop(loop)
    try:
        result = Runner.run_sync(agent, "And now?", session=again)
    finally:
        asyncio.set_event_loop(None)
        loop.close()
    assert result.final_output == "Still Paris."
    assert model.inputs[0][:-1] == stored
    again.close()


async def run_agent(method: str, agent: Agent[Any], text_in: str, **kwargs: Any) -> Any:
    """One turn by each of the Runner's ways, as the SDK's own session tests run them."""
    if method == "run":
        return await Runner.run(agent, text_in, **kwargs)
    if method == "run_sync":
        def in_thread() -> Any:
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            try:
                return Runner.run_sync(agent, text_in, **kwargs)
            finally:
                loop.close()
        return await asyncio.to_thread(in_thread)
    result = Runner.run_streamed(agent, text_in, **kwargs)
    async for _ in result.stream_events():
        pass
    return result


@pytest.mark.parametrize("method", ["run", "run_sync", "run_streamed"])
def test_every_runner_method_remembers(make: Factory, method: str) -> None:
    """The SDK's parametrized session test: two sessions, each turn's model
    input holding that session's history and no other's, on both backends."""
    from agents.testing import ScriptedModel as SDKScriptedModel

    model = SDKScriptedModel()
    agent = Agent(name="test", model=model)
    cats, dogs = make("session_1"), make("session_2")

    async def go() -> None:
        model.enqueue([text("msg_a", "I like cats")])
        await run_agent(method, agent, "I like cats", session=cats)
        model.enqueue([text("msg_b", "I like dogs")])
        await run_agent(method, agent, "I like dogs", session=dogs)
        model.enqueue([text("msg_c", "Yes, you mentioned cats")])
        result = await run_agent(method, agent, "What did I say I like?", session=cats)
        assert result.final_output == "Yes, you mentioned cats"
        seen = model.calls[-1].input
        assert isinstance(seen, list)
        assert [x.get("content") if x.get("role") == "user" else x["content"][0]["text"] for x in seen] == [
            "I like cats", "I like cats", "What did I say I like?"]
        assert len(await cats.get_items()) == 4 and len(await dogs.get_items()) == 2

    run(go())


def test_runner_settings_limit(memorywire_serve: Any) -> None:
    session = MemorywireSession("limited", memorywire_serve.target, tenant=memorywire_serve.tenant(),
                                timeout=TIMEOUT)
    run(session.add_items([{"role": "user", "content": f"Turn {i}"} for i in range(10)]))
    model = ScriptedModel([[text("msg_1", "Got it")]])
    run(Runner.run(Agent(name="A", model=model), "New question", session=session,
                   run_config=RunConfig(session_settings=SessionSettings(limit=2))))
    assert contents(model.inputs[0]) == ["Turn 8", "Turn 9", "New question"]
    session.close()


# -- another framework reads the session ------------------------------------------------------------

def test_langchain_reads_the_conversation(memorywire_serve: Any) -> None:
    """What the Runner stored, read back with History and mapped by the
    LangChain form: a human message, the AI message, the AI tool call, the
    tool result, the answer, in order."""
    tenant = memorywire_serve.tenant()
    session = MemorywireSession("trip-2", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    run(two_turns(session))
    session.close()
    with Client(memorywire_serve.target, tenant=tenant, timeout=TIMEOUT) as client:
        records = client.history(scope={"session": "trip-2"})["records"]
    messages = FORMS["langchain.messages_to_dict"].from_records(records)
    summary = [(m["type"], m["data"]["content"], [c["name"] for c in m["data"].get("tool_calls", [])])
               for m in messages]
    assert summary == [
        ("human", "Where is Paris?", []),
        ("ai", "Paris is in France.", []),
        ("human", "What did I ask about?", []),
        ("ai", "", ["lookup"]),
        ("tool", "Paris: 2.1 million people", []),
        ("ai", "You asked about Paris.", []),
    ]
    assert messages[4]["data"]["tool_call_id"] == "call_1"
    assert {r["scope"]["session"] for r in records} == {"trip-2"}


def test_what_langchain_reading_refuses(memorywire_serve: Any) -> None:
    """Items the session keeps that LangChain's reading does not: a
    reasoning item reads without its summary, an item reference (a custom
    record) is refused with UNSUPPORTED_ITEM."""
    tenant = memorywire_serve.tenant()
    session = MemorywireSession("odd", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    items: list[Any] = [{"id": "rs_1", "summary": [{"text": "Think.", "type": "summary_text"}], "type": "reasoning"},
                        {"type": "item_reference", "id": "msg_0"}]
    run(session.add_items(items))
    assert run(session.get_items()) == items  # the session itself keeps both
    session.close()
    with Client(memorywire_serve.target, tenant=tenant, timeout=TIMEOUT) as client:
        reasoning, reference = client.history(scope={"session": "odd"})["records"]
    to_dict = FORMS["langchain.messages_to_dict"]
    assert to_dict.from_records([reasoning])[0]["data"]["content"] == [{"type": "reasoning"}]
    with pytest.raises(AdapterError) as refused:
        to_dict.from_records([reference])
    assert refused.value.reason == "UNSUPPORTED_ITEM"


def test_session_reads_langchain_messages(memorywire_serve: Any) -> None:
    """Messages another framework wrote in the session (the records of the
    LangChain form) come back as Responses items; an AI message with a tool
    call gives two items; a record with no Responses form is skipped."""
    tenant = memorywire_serve.tenant()
    lc = [{"type": "human", "data": {"content": "hi", "type": "human"}},
          {"type": "ai", "data": {"content": "calling", "type": "ai", "tool_calls": [
              {"name": "f", "args": {"x": 1}, "id": "call_9", "type": "tool_call"}]}},
          {"type": "tool", "data": {"content": "42", "type": "tool", "tool_call_id": "call_9"}},
          {"type": "remove", "data": {"content": "", "type": "remove", "id": "m-1"}}]
    records = FORMS["langchain.messages_to_dict"].to_records(lc, session="mixed")
    with Client(memorywire_serve.target, tenant=tenant, timeout=TIMEOUT) as client:
        client.put(records)
    session = MemorywireSession("mixed", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    items = run(session.get_items())
    assert [(x.get("type"), x.get("role")) for x in items] == [
        (None, "user"), (None, "assistant"), ("function_call", None), ("function_call_output", None)]
    assert items[2]["call_id"] == "call_9" and items[3]["output"] == "42"
    assert run(session.get_items(limit=2)) == items[-2:]
    session.close()


# -- errors ------------------------------------------------------------------------------------------

def test_a_stopped_service_fails_within_the_deadline(memorywire_serve: Any) -> None:
    session = MemorywireSession("down", memorywire_serve.target, tenant=memorywire_serve.tenant(), timeout=TIMEOUT)
    memorywire_serve.stop()
    for call in (lambda: session.get_items(), lambda: session.add_items([{"role": "user", "content": "x"}]),
                 lambda: session.pop_item(), lambda: session.clear_session()):
        started = time.monotonic()
        with pytest.raises(RuntimeError, match="UNAVAILABLE|DEADLINE_EXCEEDED") as caught:
            run(call())
        assert time.monotonic() - started < TIMEOUT  # refused at once, retried briefly
        assert isinstance(caught.value.__cause__, ServiceError)
    session.close()


def test_a_silent_service_fails_at_the_deadline() -> None:
    """A port that takes connections and never answers: every call ends at
    its deadline (a write after each of its three attempts), never hangs."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        session = MemorywireSession("silent", f"127.0.0.1:{silent.getsockname()[1]}", tenant="t", timeout=1.0)
        for call, attempts in ((lambda: session.get_items(), 1), (lambda: session.pop_item(), 1),
                               (lambda: session.add_items([{"role": "user", "content": "x"}]), 3)):
            started = time.monotonic()
            with pytest.raises(RuntimeError, match="DEADLINE_EXCEEDED"):
                run(call())
            assert 1.0 <= time.monotonic() - started < attempts * 1.0 + 2
        session.close()


def test_a_refusing_service_names_its_reason(memorywire_serve: Any) -> None:
    session = MemorywireSession("no-tenant", memorywire_serve.target, timeout=TIMEOUT)  # no tenant
    with pytest.raises(RuntimeError, match="TENANT_REQUIRED"):
        run(session.get_items())
    with pytest.raises(RuntimeError, match="TENANT_REQUIRED"):
        run(session.add_items([{"role": "user", "content": "x"}]))
    session.close()
    for bad in ("", "s" * 257):  # scope.session is 1 to 256 characters
        with pytest.raises(ValueError):
            MemorywireSession(bad, memorywire_serve.target)


def test_a_request_the_client_refuses(memorywire_serve: Any) -> None:
    """An item with a text over the 1 MiB of a record string, which
    SQLiteSession would keep: refused before it is sent, as RuntimeError
    with the reason and the field, and nothing of the call is written."""
    session = MemorywireSession("big", memorywire_serve.target, tenant=memorywire_serve.tenant(), timeout=TIMEOUT)
    with pytest.raises(RuntimeError, match="STRING_TOO_LONG") as caught:
        run(session.add_items([{"role": "user", "content": "small"}, {"role": "user", "content": "a" * (1 << 21)}]))
    assert "/items/1/record/message/content/0/text/text" in str(caught.value)
    assert run(session.get_items()) == []
    session.close()


def test_a_retried_write_is_not_duplicated(memorywire_serve: Any) -> None:
    tenant = memorywire_serve.tenant()
    items: list[Any] = [{"role": "user", "content": "once"}, {"role": "assistant", "content": "only once"}]
    with losing_proxy(memorywire_serve.target) as proxy:
        session = MemorywireSession("retry", proxy.front, tenant=tenant, timeout=TIMEOUT)
        run(session.add_items(items))
        assert proxy.lost == 1
    assert run(MemorywireSession("retry", memorywire_serve.target, tenant=tenant).get_items()) == items


def test_without_the_framework_the_import_names_the_extra() -> None:
    code = ("import sys\nsys.modules['agents'] = None  # as if it were not installed\n"
            "import memorywire.integrations\n"
            "try:\n    import memorywire.integrations.openai_agents\nexcept ImportError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.stdout.strip() == ("memorywire.integrations.openai_agents needs the 'openai-agents' extra: "
                                   "pip install 'memorywire[openai-agents]'")
