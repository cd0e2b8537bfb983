"""One memory, several frameworks in one process, one live service: what
each framework's backend writes, the others read through their own
backends (environment ``crossframework``)."""

from __future__ import annotations

import asyncio
from typing import Any

from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ScriptedModel, assistant_message
from agentscope.message import Msg
from langchain_core import messages as lc
from live import Serve

import memorywire
from memorywire.adapters import FORMS
from memorywire.integrations.autogen import MemorywireMemory
from memorywire.integrations.langchain import MemorywireChatMessageHistory
from memorywire.integrations.langgraph import MemorywireStore
from memorywire.integrations.openai_agents import MemorywireSession

TURNS = [("I fly to Lisbon on Friday and like a window seat.", "Noted: Lisbon on Friday, by the window."),
         ("Where am I flying, and where do I sit?", "You fly to Lisbon on Friday, by the window.")]


def scripted(*answers: str) -> ScriptedModel:
    """The SDK's scripted model, answering in turn and keeping what it was shown."""
    return ScriptedModel([[assistant_message(a, item_id=f"msg_{n}")] for n, a in enumerate(answers, 1)])


async def converse(session: Any) -> ScriptedModel:
    set_tracing_disabled(True)
    model = scripted(*(a for _, a in TURNS))
    agent = Agent(name="Travel agent", instructions="Answer briefly.", model=model)
    for question, answer in TURNS:
        assert (await Runner.run(agent, question, session=session)).final_output == answer
    return model


def test_an_openai_agents_conversation_reads_in_langchain_and_agentscope(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    session = MemorywireSession("trip-42", memorywire_serve.target, tenant=tenant)
    model = asyncio.run(converse(session))
    shown = model.calls[1].input
    assert [shown[0]["content"], [part["text"] for part in shown[1]["content"]]] == [TURNS[0][0], [TURNS[0][1]]]
    memorywire_serve.restart()

    history = MemorywireChatMessageHistory("trip-42", memorywire_serve.target, tenant=tenant)
    expected = [m for q, a in TURNS for m in (lc.HumanMessage(q), lc.AIMessage(a))]
    assert [(type(m), m.content) for m in history.messages] == [(type(m), m.content) for m in expected]

    with memorywire.Client(memorywire_serve.target, tenant=tenant) as mw:
        records = mw.history(scope={"session": "trip-42"})["records"]
    msgs = [Msg.model_validate(d) for d in FORMS["agentscope.msg"].from_records(records)]
    assert [(m.role, m.get_text_content()) for m in msgs] == [
        (role, text) for q, a in TURNS for role, text in (("user", q), ("assistant", a))]
    history.clear()
    assert asyncio.run(session.get_items()) == []


def test_a_langchain_history_continues_as_an_openai_agents_session(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    history = MemorywireChatMessageHistory("chat-7", memorywire_serve.target, tenant=tenant)
    history.add_messages([lc.HumanMessage("My name is Ada."), lc.AIMessage("Hello, Ada.")])
    session = MemorywireSession("chat-7", memorywire_serve.target, tenant=tenant)
    items = asyncio.run(session.get_items())
    assert [(x["role"], x["content"]) for x in items] == [("user", "My name is Ada."), ("assistant", "Hello, Ada.")]
    model = scripted("You are Ada.")
    agent = Agent(name="Greeter", instructions="Answer briefly.", model=model)
    set_tracing_disabled(True)
    asyncio.run(Runner.run(agent, "What is my name?", session=session))
    assert [x.get("content") for x in model.calls[0].input][:2] == ["My name is Ada.", "Hello, Ada."]
    assert [m.content for m in history.messages][-2:] == ["What is my name?", "You are Ada."]


def test_facts_of_the_langgraph_store_are_found_by_autogen_memory(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    store = MemorywireStore(memorywire_serve.target, tenant=tenant)
    store.put(("memories", "u-42"), "seat", {"text": "The user prefers window seats."})
    store.put(("memories", "u-42"), "diet", {"text": "The user is vegetarian."})
    store.put(("memories", "u-7"), "seat", {"text": "This user prefers aisle seats."})

    async def query(namespace: list[str], text: str) -> list[Any]:
        memory = MemorywireMemory(memorywire_serve.target, tenant=tenant, namespace=namespace)
        try:
            return [r.content for r in (await memory.query(text)).results]
        finally:
            await memory.close()

    assert asyncio.run(query(["memories", "u-42"], "window seat")) == [{"text": "The user prefers window seats."}]
    assert asyncio.run(query(["memories", "u-42"], "vegetarian")) == [{"text": "The user is vegetarian."}]
    assert asyncio.run(query(["memories", "u-42"], "aisle")) == []
    assert asyncio.run(query(["memories", "u-7"], "seats")) == [{"text": "This user prefers aisle seats."}]
    store.delete(("memories", "u-42"), "seat")
    assert asyncio.run(query(["memories", "u-42"], "window seat")) == []
    store.close()
