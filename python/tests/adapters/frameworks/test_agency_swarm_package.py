"""agency_swarm.thread_message against the real agency-swarm package: thread
messages made by its own MessageFormatter (metadata, citations, the
file_search preservation message) from SDK run items, through memorywire
and back."""

from __future__ import annotations

import os
import sys
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))

from agency_swarm.messages.message_formatter import MessageFormatter  # noqa: E402
from agency_swarm.utils.citation_extractor import extract_direct_file_annotations  # noqa: E402
from agents import Agent  # noqa: E402
from agents.items import ItemHelpers, MessageOutputItem, ToolCallItem, ToolCallOutputItem  # noqa: E402
from harness import assert_exact, assert_round_trip  # noqa: E402
from openai.types.responses import (  # noqa: E402
    ResponseFileSearchToolCall,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_file_search_tool_call import Result  # noqa: E402
from openai.types.responses.response_output_text import AnnotationFileCitation  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402

THREAD = FORMS["agency_swarm.thread_message"]
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.text(max_size=20)
names = st.sampled_from(["CEO", "Dev", "QA"])
ids = st.from_regex(r"[a-z]{2,4}_[A-Za-z0-9]{1,8}", fullmatch=True)
run_ids = st.from_regex(r"agent_run_[0-9a-f]{8}", fullmatch=True)
traces = st.none() | st.just("no-op") | st.from_regex(r"trace_[0-9a-f]{8}", fullmatch=True)
micros = st.integers(min_value=1, max_value=4102444800 * 1_000_000)


class Named:
    """What MessageFormatter asks of an agent: a name and a model."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.model = "gpt-4o"


@st.composite
def threads(draw: Any) -> list[Any]:
    """One flat thread, as save_threads_callback receives it."""
    thread: list[Any] = []
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        agent = draw(names)
        sdk_agent = Agent(name=agent)
        caller = draw(st.none() | names)
        meta = {"agent": agent, "caller_agent": caller, "agent_run_id": draw(st.none() | run_ids),
                "parent_run_id": draw(st.none() | ids), "run_trace_id": draw(traces),
                "timestamp": draw(micros)}
        run_items: list[Any] = []
        choice = draw(st.integers(min_value=0, max_value=3))
        if choice == 0:
            items = ItemHelpers.input_to_new_input_list(draw(texts))
        elif choice == 1:
            call = ResponseFunctionToolCall(arguments=draw(texts), call_id=draw(ids), name="send_message",
                                            type="function_call", id=draw(st.none() | ids), status="completed")
            items = [ToolCallItem(agent=sdk_agent, raw_item=call).to_input_item(),
                     ToolCallOutputItem(agent=sdk_agent, raw_item=ItemHelpers.tool_call_output_item(call, draw(texts)),
                                        output=None).to_input_item()]
        elif choice == 2:
            cite = [AnnotationFileCitation(file_id=draw(ids), filename=draw(texts), index=draw(st.integers(0, 99)),
                                           type="file_citation")] if draw(st.booleans()) else []
            raw = ResponseOutputMessage(id=draw(ids), role="assistant", status="completed", type="message",
                                        content=[ResponseOutputText(annotations=cite, text=draw(texts),
                                                                    type="output_text")])
            item = MessageOutputItem(agent=sdk_agent, raw_item=raw)
            run_items.append(item)
            d = item.to_input_item()
            MessageFormatter.add_citations_to_message(item, d, extract_direct_file_annotations([item]))
            items = [d]
        else:
            search = ResponseFileSearchToolCall(
                id=draw(ids), queries=draw(st.lists(texts, max_size=2)), status="completed", type="file_search_call",
                results=[Result(file_id=draw(ids), filename=draw(texts), score=draw(st.floats(0, 1)),
                                text=draw(texts))])
            run_items.append(ToolCallItem(agent=sdk_agent, raw_item=search))
            items = [ToolCallItem(agent=sdk_agent, raw_item=search).to_input_item()]
        for item in items:
            thread.append(MessageFormatter.add_agency_metadata(item, history_protocol="responses", **meta))
        thread += MessageFormatter.extract_hosted_tool_results(Named(agent), run_items, caller_agent=caller,  # type: ignore[arg-type]
                                                               timestamps_by_tool_id=None)
    return thread


@SETTINGS
@given(threads())
def test_thread_through_memorywire(thread: list[Any]) -> None:
    assert_round_trip(THREAD, thread, ordered=True, session="chat-1")


@SETTINGS
@given(threads())
def test_threads_between_agents_select_the_same_messages(thread: list[Any]) -> None:
    # Agency Swarm's own thread selection, on the items given back.
    back = THREAD.from_records(THREAD.to_records(thread))
    assert_exact(back, thread)
    user = [m for m in back if m.get("callerAgent") is None]
    assert user == [m for m in thread if m.get("callerAgent") is None]
