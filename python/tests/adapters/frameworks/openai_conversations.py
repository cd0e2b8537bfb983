"""Conversations built from the openai-agents SDK's own objects, as its
Runner feeds them back as input: the hypothesis strategy of the OpenAI and
openai-agents package tests."""

from __future__ import annotations

from typing import Any

from agents import Agent
from agents.items import ItemHelpers, MessageOutputItem, ReasoningItem, ToolCallItem, ToolCallOutputItem
from agents.tool import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
    ResponseReasoningItem,
)
from openai.types.responses.response_output_text import AnnotationFileCitation, AnnotationURLCitation
from openai.types.responses.response_reasoning_item import Content, Summary

AGENT = Agent(name="A")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

texts = st.text(max_size=20)
words = st.text(min_size=1, max_size=12).filter(lambda s: s.strip() == s and "\x00" not in s)
ids = st.from_regex(r"[a-z]{2,4}_[A-Za-z0-9]{1,8}", fullmatch=True)
indexes = st.integers(min_value=0, max_value=2**40)
png = ("data:image/png;base64,"
       "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR42mNwUWgCAAGSAOdbIfFtAAAAAElFTkSuQmCC")

annotations = st.one_of(
    st.builds(AnnotationURLCitation, end_index=indexes, start_index=indexes, title=texts,
              type=st.just("url_citation"), url=st.sampled_from(["https://example.org/a", "https://x.test/?q=1"])),
    st.builds(AnnotationFileCitation, file_id=ids, filename=texts, index=indexes, type=st.just("file_citation")),
)
output_parts = st.one_of(
    st.builds(ResponseOutputText, annotations=st.lists(annotations, max_size=2), text=texts,
              type=st.just("output_text"), logprobs=st.sampled_from([None, []])),
    st.builds(ResponseOutputRefusal, refusal=texts, type=st.just("refusal")),
)
messages = st.builds(ResponseOutputMessage, id=ids, content=st.lists(output_parts, max_size=3),
                     role=st.just("assistant"), type=st.just("message"),
                     status=st.sampled_from(["in_progress", "completed", "incomplete"]))
calls = st.builds(ResponseFunctionToolCall, arguments=texts, call_id=ids, name=words, type=st.just("function_call"),
                  id=st.none() | ids, status=st.none() | st.sampled_from(["in_progress", "completed", "incomplete"]))
reasonings = st.builds(
    ResponseReasoningItem, id=ids, type=st.just("reasoning"),
    summary=st.lists(st.builds(Summary, text=texts, type=st.just("summary_text")), max_size=2),
    content=st.none() | st.lists(st.builds(Content, text=texts, type=st.just("reasoning_text")), max_size=2),
    encrypted_content=st.none() | texts)
tool_outputs = st.one_of(
    texts, st.dictionaries(words, st.integers() | texts, max_size=2),
    st.lists(st.one_of(st.builds(ToolOutputText, text=texts),
                       st.builds(ToolOutputImage, image_url=st.just(png), detail=st.sampled_from(["low", "high"])),
                       st.builds(ToolOutputFileContent, file_data=st.just("JVBERi0xLjQK"), filename=words)),
             min_size=1, max_size=3))


@st.composite
def conversations(draw: Any) -> tuple[list[Any], list[Any]]:
    """Input items as the Runner feeds them back, and the SDK objects they came from."""
    items: list[Any] = []
    objects: list[Any] = []
    for _ in range(draw(st.integers(min_value=1, max_value=6))):
        choice = draw(st.integers(min_value=0, max_value=4))
        if choice == 0:
            items += ItemHelpers.input_to_new_input_list(draw(texts))
            objects.append(None)
        elif choice == 1:
            raw = draw(messages)
            items.append(MessageOutputItem(agent=AGENT, raw_item=raw).to_input_item())
            objects.append(raw)
        elif choice == 2:
            raw = draw(reasonings)
            items.append(ReasoningItem(agent=AGENT, raw_item=raw).to_input_item())
            objects.append(raw)
        elif choice == 3:
            call = draw(calls)
            items.append(ToolCallItem(agent=AGENT, raw_item=call).to_input_item())
            objects.append(call)
            output = draw(tool_outputs)
            items.append(ToolCallOutputItem(agent=AGENT, raw_item=ItemHelpers.tool_call_output_item(call, output),
                                            output=output).to_input_item())
            objects.append(None)
        else:
            items.append({"role": draw(st.sampled_from(["user", "system", "developer"])), "content": [
                {"type": "input_text", "text": draw(texts)},
                {"type": "input_image", "image_url": png, "detail": "auto"}]})
            objects.append(None)
    return items, objects
