"""autogen.* against the real autogen-core package: LLM messages, memory
contents and ListMemory components built with its own constructors and dumped
by its own serializers round trip exactly."""

from __future__ import annotations

import asyncio
import base64
import io
from typing import Any

import pytest
from harness import assert_exact, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS

pytest.importorskip("autogen_core")

import PIL.Image  # noqa: E402
from autogen_core import FunctionCall, Image  # noqa: E402
from autogen_core.memory import ListMemory, MemoryContent  # noqa: E402
from autogen_core.models import (  # noqa: E402
    AssistantMessage,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    SystemMessage,
    UserMessage,
)
from pydantic import TypeAdapter  # noqa: E402

LLM = FORMS["autogen.llm_message"]
CONTENT = FORMS["autogen.memory_content"]
COMPONENT = FORMS["autogen.list_memory_component"]
MESSAGE = TypeAdapter(LLMMessage)

texts = st.text(max_size=12) | st.sampled_from(["", "naïve café ☕ 🦀 \u200b", "a\n\t\"\\", "x" * 300])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**100), max_value=2**100)
    | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8)
json_maps = st.dictionaries(st.text(max_size=5), json_values, max_size=4)


def _png(size: int, colour: int) -> Image:
    buf = io.BytesIO()
    PIL.Image.new("RGB", (size, size), (colour, 0, 255 - colour)).save(buf, "PNG")
    return Image.from_base64(base64.b64encode(buf.getvalue()).decode("ascii"))


def _png_bytes() -> bytes:
    buf = io.BytesIO()
    PIL.Image.new("RGB", (2, 2), (7, 0, 248)).save(buf, "PNG")
    return buf.getvalue()


images = st.builds(_png, st.integers(1, 4), st.integers(0, 255))
calls = st.builds(FunctionCall, id=texts, arguments=texts | st.just('{"a": 1.0}'), name=texts)
results = st.builds(FunctionExecutionResult, content=texts, name=texts, call_id=texts,
                    is_error=st.none() | st.booleans())
messages = st.one_of(
    st.builds(SystemMessage, content=texts),
    st.builds(UserMessage, content=texts | st.lists(texts | images, max_size=4), source=texts),
    st.builds(AssistantMessage, content=texts | st.lists(calls, max_size=3), thought=st.none() | texts,
              source=texts),
    st.builds(FunctionExecutionResultMessage, content=st.lists(results, max_size=3)),
)
contents = st.builds(
    MemoryContent,
    content=texts | json_maps | st.binary(max_size=8) | images,
    mime_type=st.sampled_from(["text/plain", "text/markdown", "application/json", "application/octet-stream",
                               "image/*", "x/custom"]),
    metadata=st.none() | json_maps,
)


def _trip(form: Any, items: list[Any]) -> list[Any]:
    records = form.to_records(items, user="u")
    for decoded in through_encodings(records).values():
        assert_exact(form.from_records(decoded), items)
    back: list[Any] = form.from_records(records)
    return back


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, max_size=5))
def test_llm_messages_round_trip(msgs: list[Any]) -> None:
    dumped = [m.model_dump() for m in msgs]
    back = _trip(LLM, dumped)
    again = [MESSAGE.validate_python(d) for d in back]
    assert_exact([m.model_dump() for m in again], dumped)
    # AutoGen's own equality, where it has one (an Image compares by identity).
    for m, original in zip(again, msgs, strict=True):
        if not (isinstance(m, UserMessage) and isinstance(m.content, list)
                and any(isinstance(x, Image) for x in m.content)):
            assert m == original


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(contents, max_size=5))
def test_memory_contents_round_trip(items: list[Any]) -> None:
    dumped = [c.model_dump() for c in items]
    back = _trip(CONTENT, dumped)
    for d, original in zip(back, items, strict=True):
        again = MemoryContent.model_validate(d)
        assert_exact(again.model_dump(), original.model_dump())
        if not isinstance(original.content, Image):
            assert again == original


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=8), st.lists(contents, max_size=4))
def test_list_memory_component_round_trips(name: str, items: list[Any]) -> None:
    memory = ListMemory(name=name)

    async def fill() -> None:
        for content in items:
            if not isinstance(content.content, bytes) or content.content.isascii():
                await memory.add(content)

    asyncio.run(fill())
    component = memory.dump_component()
    dumped, text = component.model_dump(), component.model_dump_json()
    back = _trip(COMPONENT, [dumped, text, dumped])
    assert back[1] == text
    # Loading what came back gives what loading the original gives (AutoGen itself
    # reads ASCII bytes content back as str, from the dict and from the text alike).
    model = type(component)
    for item, original in ((back[0], model.model_validate(dumped)), (back[1], model.model_validate_json(text))):
        parsed = model.model_validate_json(item) if isinstance(item, str) else model.model_validate(item)
        assert_exact(ListMemory.load_component(parsed).dump_component().model_dump(),
                     ListMemory.load_component(original).dump_component().model_dump())


def test_records_of_other_producers_are_valid_messages() -> None:
    """A conversation and memories that another framework wrote, read from
    their neutral fields alone, give what AutoGen itself accepts."""
    png = base64.b64encode(_png_bytes()).decode("ascii")
    records = [
        {"specversion": "1.0", "id": "d", "kind": "message",
         "message": {"role": "developer", "content": [{"text": {"text": "Be brief."}}]}},
        {"specversion": "1.0", "id": "u", "kind": "message",
         "message": {"role": "user", "name": "ana",
                     "content": [{"text": {"text": "And this?"}},
                                 {"image": {"data": png, "media_type": "image/png"}}]}},
        {"specversion": "1.0", "id": "a", "kind": "message",
         "message": {"role": "assistant", "content": [
             {"reasoning": {"text": "Look it up."}}, {"text": {"text": "One moment."}},
             {"tool_call": {"call_id": "c1", "name": "lookup", "arguments": "{}"}}]}},
        {"specversion": "1.0", "id": "r", "kind": "tool_result",
         "tool_result": {"call_id": "c1", "name": "lookup", "output": "found", "status": "success"}},
        {"specversion": "1.0", "id": "f", "kind": "fact", "fact": {"text": "Likes tea."}},
    ]
    msgs = [MESSAGE.validate_python(d) for d in LLM.from_records(records)]
    assert [type(m).__name__ for m in msgs] == ["SystemMessage", "UserMessage", "AssistantMessage",
                                                "FunctionExecutionResultMessage", "SystemMessage"]
    contents = [MemoryContent.model_validate(d) for d in CONTENT.from_records(records)]
    assert [c.content for c in contents] == ["Be brief.", "And this?", "One moment.", "found", "Likes tea."]
