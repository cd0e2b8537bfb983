"""MemorywireChatMessageHistory against a live ``memorywire serve``: the
behaviours of langchain-core's own chat history tests
(tests/unit_tests/chat_history/test_chat_history.py, runnables/test_history.py)
run against it and, side by side, against InMemoryChatMessageHistory;
RunnableWithMessageHistory over a fake chat model for two turns and a
restart; a conversation of another framework read as LangChain messages,
and the other way; and the errors."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from harness import assert_exact  # noqa: E402
from langchain_core import messages as lc  # noqa: E402
from langchain_core.chat_history import InMemoryChatMessageHistory  # noqa: E402
from langchain_core.exceptions import LangChainException  # noqa: E402
from langchain_core.language_models import GenericFakeChatModel  # noqa: E402
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder  # noqa: E402
from langchain_core.runnables import Runnable, RunnableLambda  # noqa: E402
from langchain_core.runnables.history import RunnableWithMessageHistory  # noqa: E402
from lost_response import losing_proxy  # noqa: E402
from test_langchain_package import conversations  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402
from memorywire.client import Client, ServiceError  # noqa: E402
from memorywire.integrations.langchain import MemorywireChatMessageHistory  # noqa: E402

TIMEOUT = 3.0

# InMemoryChatMessageHistory and RunnableWithMessageHistory are deprecated
# since langchain-core 1.6.4 (and still the interface of every history).
pytestmark = pytest.mark.filterwarnings("ignore::langchain_core._api.deprecation.LangChainDeprecationWarning")

Factory = Callable[[str], Any]


@pytest.fixture(params=["in_memory", "memorywire"])
def make(request: pytest.FixtureRequest) -> Iterator[Factory]:
    """A factory of histories of one backend: InMemoryChatMessageHistory
    (one per session id, as a get_session_history keeps them) or
    MemorywireChatMessageHistory on the live service in a fresh tenant."""
    made: dict[str, Any] = {}
    if request.param == "in_memory":
        def factory(session_id: str) -> Any:
            return made.setdefault(session_id, InMemoryChatMessageHistory())
    else:
        serve = request.getfixturevalue("memorywire_serve")
        tenant = serve.tenant()

        def factory(session_id: str) -> Any:
            h = MemorywireChatMessageHistory(session_id, serve.target, tenant=tenant, timeout=TIMEOUT)
            made.setdefault(session_id, h)
            return h
    yield factory
    for h in made.values():
        if isinstance(h, MemorywireChatMessageHistory):
            h.close()


def test_add_message_and_the_convenience_methods(make: Factory) -> None:
    history = make("s")
    history.add_message(lc.SystemMessage(content="system"))
    history.add_user_message("human 1")
    history.add_ai_message("ai")
    history.add_message(lc.HumanMessage(content="human 2"))
    assert str(history) == "System: system\nHuman: human 1\nAI: ai\nHuman: human 2"
    history.add_messages([lc.HumanMessage(content="Hello"), lc.HumanMessage(content="World")])
    assert history.messages[-2:] == [lc.HumanMessage(content="Hello"), lc.HumanMessage(content="World")]
    assert len(history.messages) == 6


def test_async_interface(make: Factory) -> None:
    history = make("a")

    async def go() -> None:
        await history.aadd_messages([lc.HumanMessage(content="Hello"), lc.HumanMessage(content="World")])
        assert await history.aget_messages() == [lc.HumanMessage(content="Hello"), lc.HumanMessage(content="World")]
        await history.aadd_messages([lc.HumanMessage(content="!")])
        assert await history.aget_messages() == [lc.HumanMessage(content="Hello"), lc.HumanMessage(content="World"),
                                                 lc.HumanMessage(content="!")]
        await history.aclear()
        assert await history.aget_messages() == []

    asyncio.run(go())
    history.add_messages([lc.AIMessage(content="after")])  # sync and async on one history
    assert asyncio.run(history.aget_messages()) == history.messages == [lc.AIMessage(content="after")]


def test_clear_and_a_missing_session(make: Factory) -> None:
    history = make("c")
    assert history.messages == []
    history.clear()
    history.add_messages([lc.HumanMessage(content="x")])
    history.clear()
    assert history.messages == []
    history.add_messages([])
    assert history.messages == []


def test_sessions_are_apart(make: Factory) -> None:
    one, two = make("user1/1"), make("user2/1")
    same = lc.HumanMessage(content="hello", id="m-1")  # one message, one id, in two histories
    one.add_messages([same, lc.AIMessage(content="you said: hello")])
    two.add_messages([same])
    two.clear()
    assert one.messages == [same, lc.AIMessage(content="you said: hello")]
    assert two.messages == []


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(conversations())
def test_generated_messages_match_in_memory(memorywire_serve: Any, msgs: list[Any]) -> None:
    """Every message class, content blocks, tool calls, chunks, repeated
    ids: what the history gives back is what InMemoryChatMessageHistory
    gives, by LangChain's equality, class and every field."""
    ours = MemorywireChatMessageHistory("s", memorywire_serve.target, tenant=memorywire_serve.tenant(),
                                        timeout=TIMEOUT)
    base = InMemoryChatMessageHistory()
    for h in (base, ours):
        h.add_messages(msgs[:2])
        h.add_messages(msgs[2:])
    got = ours.messages
    assert got == base.messages
    assert [type(m) for m in got] == [type(m) for m in base.messages]
    assert_exact(lc.messages_to_dict(got), lc.messages_to_dict(base.messages))
    assert asyncio.run(ours.aget_messages()) == got
    ours.close()


# -- RunnableWithMessageHistory, two turns, then a restart --------------------------------------

def chain(seen: list[list[Any]], answers: list[str]) -> Runnable[Any, Any]:
    """A prompt, a recorder of what the model is given, and a fake model."""
    prompt = ChatPromptTemplate.from_messages([("system", "Answer briefly."), MessagesPlaceholder("history"),
                                               ("human", "{question}")])

    def record(value: Any) -> Any:
        seen.append(value.to_messages())
        return value

    model = GenericFakeChatModel(messages=iter([lc.AIMessage(content=a, id=f"run-{i}") for i, a in enumerate(answers)]))
    return prompt | RunnableLambda(record) | model


def test_runnable_with_history_two_turns_and_a_restart(memorywire_serve: Any) -> None:
    tenant = memorywire_serve.tenant()
    histories: dict[str, Any] = {}

    def get_session_history(session_id: str) -> Any:
        return histories.setdefault(session_id, MemorywireChatMessageHistory(
            session_id, memorywire_serve.target, tenant=tenant, timeout=TIMEOUT))

    seen: list[list[Any]] = []
    runnable = RunnableWithMessageHistory(chain(seen, ["Paris is in France.", "You asked about Paris."]),
                                          get_session_history, input_messages_key="question",
                                          history_messages_key="history")
    config: Any = {"configurable": {"session_id": "trip-1"}}
    first = runnable.invoke({"question": "Where is Paris?"}, config)
    second = runnable.invoke({"question": "What did I ask about?"}, config)
    assert (first.content, second.content) == ("Paris is in France.", "You asked about Paris.")
    assert seen[0][1:] == [lc.HumanMessage(content="Where is Paris?")]
    # The second turn saw the first.
    assert seen[1][1:3] == [lc.HumanMessage(content="Where is Paris?"), first]
    stored = histories["trip-1"].messages
    assert stored == [lc.HumanMessage(content="Where is Paris?"), first,
                      lc.HumanMessage(content="What did I ask about?"), second]
    assert stored[1].id == "run-0"
    histories["trip-1"].close()

    memorywire_serve.restart()
    histories.clear()
    assert get_session_history("trip-1").messages == stored
    # A third turn, asynchronous, after the restart, sees all of it.
    seen.clear()
    runnable = RunnableWithMessageHistory(chain(seen, ["Still Paris."]), get_session_history,
                                          input_messages_key="question", history_messages_key="history")
    third = asyncio.run(runnable.ainvoke({"question": "And now?"}, config))
    assert third.content == "Still Paris."
    assert seen[0][1:-1] == stored
    assert asyncio.run(histories["trip-1"].aget_messages()) == [*stored, lc.HumanMessage(content="And now?"), third]
    histories["trip-1"].close()


# -- another framework, either way -------------------------------------------------------------

def conversation_items() -> list[Any]:
    """Session items as the openai-agents Runner stores them."""
    return [
        {"content": "Where is Paris?", "role": "user"},
        {"id": "msg_1", "content": [{"annotations": [], "text": "Let me look.", "type": "output_text",
                                     "logprobs": []}], "role": "assistant", "status": "completed", "type": "message"},
        {"id": "rs_1", "summary": [{"text": "The user asks a city.", "type": "summary_text"}], "type": "reasoning"},
        {"arguments": '{"city": "Paris"}', "call_id": "call_1", "name": "lookup", "type": "function_call",
         "id": "fc_1", "status": "completed"},
        {"call_id": "call_1", "output": "Paris: 2.1 million people", "type": "function_call_output"},
        {"type": "item_reference", "id": "msg_0"},
        {"id": "msg_2", "content": [{"annotations": [], "text": "About 2.1 million.", "type": "output_text",
                                     "logprobs": []}], "role": "assistant", "status": "completed", "type": "message"},
    ]


def test_reads_an_openai_agents_conversation(memorywire_serve: Any) -> None:
    """The records of an openai-agents session (its session item form, as
    MemorywireSession writes them) read as LangChain messages; the item
    reference, which no LangChain message holds, is left out."""
    tenant = memorywire_serve.tenant()
    records = FORMS["openai_agents.session_item"].to_records(conversation_items(), session="trip-2")
    with Client(memorywire_serve.target, tenant=tenant, timeout=TIMEOUT) as client:
        client.put(records)
    history = MemorywireChatMessageHistory("trip-2", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    got = history.messages
    assert [type(m).__name__ for m in got] == ["HumanMessage", "AIMessage", "AIMessage", "AIMessage", "ToolMessage",
                                               "AIMessage"]
    # A reasoning item reads as a reasoning block without its text: LangChain's
    # reading has no place for a summary (spec/v1/adapters/langchain.md section 6).
    assert [m.content for m in got] == ["Where is Paris?", "Let me look.", [{"type": "reasoning"}], "",
                                        "Paris: 2.1 million people", "About 2.1 million."]
    assert isinstance(got[3], lc.AIMessage) and isinstance(got[4], lc.ToolMessage)
    assert got[3].tool_calls == [{"name": "lookup", "args": {"city": "Paris"}, "id": "call_1", "type": "tool_call"}]
    assert got[4].tool_call_id == "call_1"
    assert asyncio.run(history.aget_messages()) == got
    # What the LangChain form itself refuses, the history leaves out.
    reference = [r for r in records if r["kind"] == "custom"]
    with pytest.raises(Exception, match="UNSUPPORTED_ITEM|custom"):
        FORMS["langchain.messages"].from_records(reference)
    # A message added after them joins the same thread.
    history.add_messages([lc.HumanMessage(content="Thanks.")])
    with Client(memorywire_serve.target, tenant=tenant, timeout=TIMEOUT) as client:
        thread = client.history(scope={"session": "trip-2"})["records"]
    items = FORMS["openai_agents.session_item"].from_records(thread)
    assert items[:-1] == conversation_items()
    assert items[-1] == {"content": "Thanks.", "role": "user"}
    history.close()


def test_openai_agents_reads_the_history(memorywire_serve: Any) -> None:
    """What RunnableWithMessageHistory stored, read back with History and
    mapped by the openai-agents session item form: Responses items with the
    same roles and text, the tool call and its output paired."""
    tenant = memorywire_serve.tenant()
    history = MemorywireChatMessageHistory("chat-3", memorywire_serve.target, tenant=tenant, timeout=TIMEOUT)
    history.add_messages([
        lc.SystemMessage(content="Answer briefly."), lc.HumanMessage(content="Weather in Paris?"),
        lc.AIMessage(content="", tool_calls=[{"name": "weather", "args": {"city": "Paris"}, "id": "call_7"}]),
        lc.ToolMessage(content="sunny", tool_call_id="call_7"), lc.AIMessage(content="Sunny.", id="run-1")])
    with Client(memorywire_serve.target, tenant=tenant, timeout=TIMEOUT) as client:
        records = client.history(scope={"session": "chat-3"})["records"]
    items = FORMS["openai_agents.session_item"].from_records(records)
    assert [(x.get("type"), x.get("role"), x.get("content") or x.get("output")) for x in items] == [
        (None, "system", "Answer briefly."), (None, "user", "Weather in Paris?"), ("function_call", None, None),
        ("function_call_output", None, "sunny"), (None, "assistant", "Sunny.")]
    assert (items[2]["call_id"], items[2]["name"], items[2]["arguments"]) == ("call_7", "weather", '{"city":"Paris"}')
    assert items[3]["call_id"] == "call_7"
    history.close()


# -- errors ------------------------------------------------------------------------------------

def test_a_stopped_service_fails_within_the_deadline(memorywire_serve: Any) -> None:
    history = MemorywireChatMessageHistory("down", memorywire_serve.target, tenant=memorywire_serve.tenant(),
                                           timeout=TIMEOUT)
    memorywire_serve.stop()
    calls: list[Callable[[], Any]] = [
        lambda: history.messages, lambda: history.add_messages([lc.HumanMessage(content="x")]), history.clear,
        lambda: asyncio.run(history.aget_messages()),
        lambda: asyncio.run(history.aadd_messages([lc.HumanMessage(content="x")])),
        lambda: asyncio.run(history.aclear())]
    for call in calls:
        started = time.monotonic()
        with pytest.raises(LangChainException, match="UNAVAILABLE|DEADLINE_EXCEEDED") as caught:
            call()
        assert time.monotonic() - started < TIMEOUT  # refused at once, retried briefly
        assert isinstance(caught.value.__cause__, ServiceError)
    history.close()


def test_a_silent_service_fails_at_the_deadline() -> None:
    """A port that takes connections and never answers: every call ends at
    its deadline (a write after each of its three attempts), never hangs."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        history = MemorywireChatMessageHistory("silent", f"127.0.0.1:{silent.getsockname()[1]}", tenant="t",
                                               timeout=1.0)
        calls: list[tuple[Callable[[], Any], int]] = [
            (lambda: history.messages, 1), (lambda: asyncio.run(history.aget_messages()), 1),
            (lambda: history.add_messages([lc.HumanMessage(content="x")]), 3)]
        for call, attempts in calls:
            started = time.monotonic()
            with pytest.raises(LangChainException, match="DEADLINE_EXCEEDED"):
                call()
            assert 1.0 <= time.monotonic() - started < attempts * 1.0 + 2
        history.close()


def test_a_refusing_service_names_its_reason(memorywire_serve: Any) -> None:
    history = MemorywireChatMessageHistory("no-tenant", memorywire_serve.target, timeout=TIMEOUT)
    with pytest.raises(LangChainException, match="TENANT_REQUIRED"):
        history.messages  # noqa: B018
    with pytest.raises(LangChainException, match="TENANT_REQUIRED"):
        asyncio.run(history.aadd_messages([lc.HumanMessage(content="x")]))
    history.close()
    for bad in ("", "s" * 257):  # scope.session is 1 to 256 characters
        with pytest.raises(ValueError):
            MemorywireChatMessageHistory(bad, memorywire_serve.target)


def test_a_request_the_client_refuses(memorywire_serve: Any) -> None:
    """A message with a text over the 1 MiB of a record string, which
    InMemoryChatMessageHistory would keep: refused before it is sent, as
    LangChainException with the reason and the field; nothing of the call
    is written."""
    history = MemorywireChatMessageHistory("big", memorywire_serve.target, tenant=memorywire_serve.tenant(),
                                           timeout=TIMEOUT)
    msgs = [lc.HumanMessage(content="small"), lc.HumanMessage(content="a" * (1 << 21))]
    with pytest.raises(LangChainException, match="STRING_TOO_LONG") as caught:
        history.add_messages(msgs)
    assert "/items/1/record/message/content/0/text/text" in str(caught.value)
    with pytest.raises(LangChainException, match="STRING_TOO_LONG"):
        asyncio.run(history.aadd_messages(msgs))
    assert history.messages == []
    history.close()


def test_a_retried_write_is_not_duplicated(memorywire_serve: Any) -> None:
    with losing_proxy(memorywire_serve.target) as proxy:
        history = MemorywireChatMessageHistory("retry", proxy.front, tenant=memorywire_serve.tenant(), timeout=TIMEOUT)
        msgs = [lc.HumanMessage(content="once"), lc.AIMessage(content="only once")]
        history.add_messages(msgs)
        assert proxy.lost == 1
        assert history.messages == msgs
        history.close()


def test_without_the_framework_the_import_names_the_extra() -> None:
    code = ("import sys\nsys.modules['langchain_core'] = None  # as if it were not installed\n"
            "import memorywire.integrations\n"
            "try:\n    import memorywire.integrations.langchain\nexcept ImportError as e:\n    print(e)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.stdout.strip() == ("memorywire.integrations.langchain needs the 'langchain' extra: "
                                   "pip install 'memorywire[langchain]'")
