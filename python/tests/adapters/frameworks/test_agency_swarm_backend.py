"""memorywire.integrations.agency_swarm against agency-swarm 1.11.0 and a live
``memorywire serve``: the persistence callbacks side by side with a list kept
in memory (the callbacks of Agency Swarm's own tests, which keep what they
are given), an Agency of two agents with scripted local models over two
turns and a restart, the threads read back by other frameworks, errors and
retries."""

from __future__ import annotations

import asyncio
import copy
import json
import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from agency_swarm import Agency, Agent
from agency_swarm.utils.thread import ThreadManager
from agents import set_trace_processors
from agents.items import ModelResponse
from agents.models.interface import Model
from agents.usage import Usage
from live import Serve
from lost_response import losing_proxy
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from memorywire.adapters import FORMS
from memorywire.client import Client
from memorywire.integrations._kit import Retry
from memorywire.integrations.agency_swarm import MemorywireThreads, ThreadPersistenceError
from memorywire.service.errors import ServiceError

DATA = Path(__file__).resolve().parents[1] / "data" / "agency_swarm.thread_message" / "agency_run.json"
THREAD: list[dict[str, Any]] = json.loads(DATA.read_text())["items"]
TIMEOUT = 2.0

set_trace_processors([])
os.environ.setdefault("OPENAI_API_KEY", "sk-offline-never-used")


class ListThreads:
    """The baseline: what Agency Swarm's own tests do with a file, in memory."""

    store: dict[str, list[dict[str, Any]]] = {}

    def __init__(self, chat_id: str) -> None:
        self.chat_id = chat_id

    def load(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.store.get(self.chat_id, []))

    def save(self, messages: list[dict[str, Any]]) -> None:
        self.store[self.chat_id] = copy.deepcopy(messages)


Factory = Callable[[str], Any]


@pytest.fixture(params=["memorywire", "list"])
def threads(request: pytest.FixtureRequest, memorywire_serve: Serve) -> Iterator[Factory]:
    """A factory of the callbacks of a chat: each call is a new object (a new process, as it were)."""
    made: list[MemorywireThreads] = []
    if request.param == "list":
        ListThreads.store = {}
        yield ListThreads
        return
    tenant = memorywire_serve.tenant()

    def make(chat_id: str) -> MemorywireThreads:
        made.append(MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id=chat_id, timeout=TIMEOUT))
        return made[-1]

    yield make
    for t in made:
        t.close()


# -- the callbacks, side by side ------------------------------------------------------------------

def test_an_unknown_chat_loads_empty(threads: Factory) -> None:
    assert threads("nobody").load() == []


def test_a_saved_thread_loads_exactly_in_order(threads: Factory) -> None:
    threads("c1").save(THREAD)
    back = threads("c1").load()
    assert back == THREAD
    assert [list(m) for m in back] == [list(m) for m in THREAD]  # member order too


@pytest.mark.parametrize("change", ["append", "remove_middle", "move_to_end", "edit_in_place", "reverse", "clear",
                                    "duplicate"])
def test_each_save_is_the_whole_list(threads: Factory, change: str) -> None:
    t = threads("c1")
    t.save(THREAD[:4])
    edited = copy.deepcopy(THREAD[2])
    edited["content"][0]["text"] = "Edited."
    new = {"append": THREAD,
           "remove_middle": THREAD[:1] + THREAD[2:],
           "move_to_end": THREAD[:1] + THREAD[2:] + THREAD[1:2],
           "edit_in_place": THREAD[:2] + [edited] + THREAD[3:],
           "reverse": THREAD[::-1],
           "clear": [],
           "duplicate": THREAD + THREAD[:2]}[change]
    t.save(new)
    assert threads("c1").load() == new
    t.save(THREAD)  # and back, with the same object
    assert threads("c1").load() == THREAD


def test_chats_are_apart(threads: Factory) -> None:
    threads("c1").save(THREAD[:3])
    threads("c2").save(THREAD[3:])
    assert threads("c1").load() == THREAD[:3]
    assert threads("c2").load() == THREAD[3:]


def test_the_thread_manager_reads_its_threads_back(threads: Factory) -> None:
    first = threads("c1")
    manager = ThreadManager(load_threads_callback=first.load, save_threads_callback=first.save)
    for message in THREAD:  # Agency Swarm saves after each message
        manager.add_message(copy.deepcopy(message))
    second = threads("c1")
    again = ThreadManager(load_threads_callback=second.load, save_threads_callback=second.save)
    assert again.get_all_messages() == THREAD
    assert again.get_conversation_history("CEO", None) == [m for m in THREAD if m["callerAgent"] is None]
    assert again.get_conversation_history("Dev", "CEO") == manager.get_conversation_history("Dev", "CEO")
    assert again.get_conversation_history("Dev", "CEO")
    again.clear()
    assert threads("c1").load() == []


# -- what memorywire adds: incremental, idempotent writes ---------------------------------------------

class Counting:
    """Counts the records that a client's Put and Delete calls carry."""

    def __init__(self, client: Client) -> None:
        self.puts: list[int] = []
        self.deletes: list[int] = []
        put, delete = client.put, client.delete

        def counted_put(*a: Any, **k: Any) -> Any:
            self.puts.append(len(k["records"]))
            return put(*a, **k)

        def counted_delete(*a: Any, **k: Any) -> Any:
            self.deletes.append(len(k["ids"]))
            return delete(*a, **k)

        client.put = counted_put  # type: ignore[method-assign]
        client.delete = counted_delete  # type: ignore[method-assign]


def test_only_what_changed_is_written(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="c1") as t:
        n = Counting(t.client)
        for k in range(1, len(THREAD) + 1):
            t.save(THREAD[:k])
        assert n.puts == [1] * len(THREAD) and n.deletes == []
        t.save(THREAD)
        assert n.puts == [1] * len(THREAD)  # the same list: nothing written
        t.save(THREAD[:2] + THREAD[3:])
        assert n.deletes == [1] and len(n.puts) == len(THREAD)  # a removal: one delete, no put
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="c1") as fresh:
        n = Counting(fresh.client)
        fresh.save(THREAD[:2] + THREAD[3:])  # a new process: reads, finds all, writes nothing
        assert (n.puts, n.deletes) == ([], [])


def test_record_ids_are_the_same_for_the_same_list(memorywire_serve: Serve) -> None:
    ids = []
    for tenant in (memorywire_serve.tenant(), memorywire_serve.tenant()):
        with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="c1") as t:
            t.save(THREAD)
            ids.append([r["id"] for r in t.client.history(scope=t.scope)["records"]])
    assert ids[0] == ids[1] and len(set(ids[0])) == len(THREAD)


def test_a_retried_write_after_a_lost_response_is_not_duplicated(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    with losing_proxy(memorywire_serve.target) as proxy:
        with MemorywireThreads(proxy.front, tenant=tenant, chat_id="c1", retry=Retry(attempts=3, backoff=0.01)) as t:
            t.save(THREAD)
            assert proxy.lost == 1
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="c1") as again:
        records = again.client.history(scope=again.scope)["records"]
        assert len(records) == len(THREAD)
        assert [r["revision"] for r in records] == [1] * len(THREAD)
        assert again.load() == THREAD


# -- the runtime: an Agency of two agents, two turns, a restart -------------------------------------

class Scripted(Model):
    """A local model: each call answers with the next prepared output and keeps the input it was given."""

    def __init__(self, turns: list[list[Any]]) -> None:
        self.turns = turns
        self.inputs: list[Any] = []

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        self.inputs.append(kwargs.get("input", args[1] if len(args) > 1 else None))
        return ModelResponse(output=self.turns.pop(0), usage=Usage(), response_id=None)

    async def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        self.inputs.append(kwargs.get("input", args[1] if len(args) > 1 else None))
        response = Response(id="resp_scripted", created_at=0, model="scripted", object="response",
                            output=self.turns.pop(0), parallel_tool_calls=False, tool_choice="auto", tools=[])
        yield ResponseCompletedEvent(response=response, sequence_number=0, type="response.completed")


def say(mid: str, text: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(id=mid, role="assistant", status="completed", type="message",
                                 content=[ResponseOutputText(annotations=[], text=text, type="output_text")])


def send(call_id: str, text: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        arguments=json.dumps({"recipient_agent": "Dev", "message": text, "additional_instructions": ""}),
        call_id=call_id, name="send_message", type="function_call", id=f"fc_{call_id}", status="completed")


def agency(threads: Any, ceo_turns: list[list[Any]], dev_turns: list[list[Any]]) -> tuple[Agency, Scripted, Scripted]:
    ceo_model, dev_model = Scripted(ceo_turns), Scripted(dev_turns)
    ceo = Agent(name="CEO", instructions="Lead.", model=ceo_model)
    dev = Agent(name="Dev", instructions="Code.", model=dev_model)
    made = Agency(ceo, communication_flows=[(ceo, dev)],
                  load_threads_callback=threads.load, save_threads_callback=threads.save)
    return made, ceo_model, dev_model


def text_of(items: Any) -> str:
    return json.dumps(items, default=str)


def test_an_agency_remembers_both_threads_across_a_restart(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    threads = MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-1", timeout=TIMEOUT)
    first, ceo1, dev1 = agency(
        threads,
        [[send("call_1", "Fix the login bug")], [say("msg_ceo_1", "Dev fixed the login bug.")],
         [send("call_2", "Also add a test")], [say("msg_ceo_2", "A test was added.")]],
        [[say("msg_dev_1", "Fixed: the cookie was not renewed.")], [say("msg_dev_2", "Test added.")]])
    first.get_response_sync("Please get the login bug fixed.")
    first.get_response_sync("And make sure it stays fixed.")
    # The second turn's model input holds the first turn, on both threads.
    assert "Please get the login bug fixed." in text_of(ceo1.inputs[2])
    assert "Dev fixed the login bug." in text_of(ceo1.inputs[2])
    assert "Fixed: the cookie was not renewed." in text_of(dev1.inputs[1])
    assert "Please get the login bug fixed." not in text_of(dev1.inputs[1])  # Dev sees its own thread only
    saved = first.thread_manager.get_all_messages()
    threads.close()

    memorywire_serve.restart()

    again = MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-1", timeout=TIMEOUT)
    second, ceo2, _ = agency(again, [[say("msg_ceo_3", "Both are done.")]], [])
    assert second.thread_manager.get_all_messages() == saved
    second.get_response_sync("What did we do?")
    assert "Please get the login bug fixed." in text_of(ceo2.inputs[0])
    assert "A test was added." in text_of(ceo2.inputs[0])
    again.close()
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-1") as third:
        assert third.load() == second.thread_manager.get_all_messages()


def test_a_streamed_run_is_stored_after_every_save(memorywire_serve: Serve) -> None:
    """Streaming saves after every event and then rebuilds the run's tail: each save is what loads."""
    tenant = memorywire_serve.tenant()
    checks = []

    class Checked(MemorywireThreads):
        def save(self, messages: list[dict[str, Any]]) -> None:
            super().save(messages)
            with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-s") as fresh:
                checks.append(fresh.load() == messages)

    threads = Checked(memorywire_serve.target, tenant=tenant, chat_id="chat-s", timeout=TIMEOUT)
    made, ceo, _ = agency(threads, [[send("call_1", "Fix it")], [say("msg_c1", "Done.")], [say("msg_c2", "Yes.")]],
                          [[say("msg_d1", "Fixed.")]])

    async def run(text: str) -> None:
        async for _ in made.get_response_stream(text):
            pass

    asyncio.run(run("Please fix the bug."))
    asyncio.run(run("Is it done?"))
    assert "Please fix the bug." in text_of(ceo.inputs[2])
    assert len(checks) > 6 and all(checks)
    saved = made.thread_manager.get_all_messages()
    threads.close()
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-s") as again:
        assert again.load() == saved


# -- read by other frameworks -----------------------------------------------------------------------

def test_the_user_thread_and_the_agent_thread_stay_apart_elsewhere(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-1") as t:
        t.save(THREAD)
        mw = t.client
        user = mw.history(scope={"session": "chat-1"}, thread="user")["records"]
        between = mw.history(scope={"session": "chat-1"}, thread="between", agents=["CEO", "Dev"])["records"]
    assert {r["id"] for r in user}.isdisjoint(r["id"] for r in between)
    assert len(user) + len(between) == len(THREAD)
    # Neutral fields: role and text.
    def texts(records: list[dict[str, Any]]) -> list[tuple[str, str]]:
        return [(r["message"]["role"], r["message"]["content"][0]["text"]["text"])
                for r in records if r["kind"] == "message" and r["message"].get("content")]
    assert ("user", "Please get the login bug fixed.") in texts(user)
    assert ("user", "Fix the login bug") in texts(between)
    assert ("user", "Fix the login bug") not in texts(user)
    # The openai-agents session form: the same items Agency Swarm keeps, without its members.
    session = FORMS["openai_agents.session_item"].from_records(user)
    assert [i.get("content") for i in session if i.get("role") == "user"] == ["Please get the login bug fixed."]
    assert all("callerAgent" not in i for i in session)
    sub = FORMS["openai_agents.session_item"].from_records(between)
    assert [i.get("content") for i in sub if i.get("role") == "user"] == ["Fix the login bug"]
    # LangChain messages as dicts.
    lc = FORMS["langchain.messages_to_dict"].from_records([r for r in between if r["kind"] == "message"])
    assert [m["type"] for m in lc] == ["human", "ai"]
    assert lc[0]["data"]["content"] == "Fix the login bug"


def test_a_conversation_of_another_framework_is_loaded_and_kept(memorywire_serve: Serve) -> None:
    tenant = memorywire_serve.tenant()
    items = [{"role": "user", "content": "Hello from the Agents SDK."},
             {"id": "msg_x", "type": "message", "role": "assistant", "status": "completed",
              "content": [{"type": "output_text", "text": "Hi.", "annotations": []}]}]
    foreign = FORMS["openai_agents.session_item"].to_records(items, session="chat-1")
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-1") as t:
        t.client.put(foreign, scope={"session": "chat-1"})
        t.client.put({"id": "fact-1", "kind": "fact", "fact": {"text": "The user likes tea."}},
                     scope={"session": "chat-1"})  # no thread message: not loaded, not deleted
        loaded = t.load()
        assert len(loaded) == 2
        assert [m.get("content") for m in loaded][0] == "Hello from the Agents SDK."
        assert all(m["callerAgent"] is None for m in loaded)  # the user thread of the agency
        t.save(loaded + THREAD)
        records = t.client.history(scope=t.scope)["records"]
    assert [r["id"] for r in records[:2]] == [r["id"] for r in foreign]  # kept as they were written
    assert [r["revision"] for r in records[:2]] == [1, 1]
    assert [r["id"] for r in records if r["kind"] == "fact"] == ["fact-1"]
    with MemorywireThreads(memorywire_serve.target, tenant=tenant, chat_id="chat-1") as again:
        assert again.load() == loaded + THREAD


# -- errors -----------------------------------------------------------------------------------------

def test_a_stopped_service_fails_within_the_deadline(memorywire_serve: Serve) -> None:
    t = MemorywireThreads(memorywire_serve.target, tenant=memorywire_serve.tenant(), chat_id="c1", timeout=TIMEOUT,
                          retry=Retry(attempts=2, backoff=0.05))
    t.save(THREAD[:2])
    memorywire_serve.stop()
    for call in (t.load, lambda: t.save(THREAD)):
        start = time.monotonic()
        with pytest.raises(ThreadPersistenceError, match="memorywire service: UNAVAILABLE") as e:
            call()
        assert time.monotonic() - start < 2 * TIMEOUT + 1.0
        assert isinstance(e.value.__cause__, ServiceError)
    # Agency Swarm's ThreadManager logs the error and goes on, as for a file.
    manager = ThreadManager(load_threads_callback=t.load, save_threads_callback=t.save)
    manager.add_message(copy.deepcopy(THREAD[0]))
    assert manager.get_all_messages() == THREAD[:1]
    t.close()


def test_a_refused_request_names_the_reason(memorywire_serve: Serve) -> None:
    with MemorywireThreads(memorywire_serve.target, tenant="t" * 300, chat_id="c1", timeout=TIMEOUT) as t:
        for call in (t.load, lambda: t.save(THREAD)):
            with pytest.raises(ThreadPersistenceError, match="memorywire service: UNAUTHENTICATED TENANT_REQUIRED"):
                call()
