"""agentscope.msg against the real agentscope 1.x package: messages built with
its own constructors, dumped by ``to_dict()`` and kept by ``InMemoryMemory``,
round trip exactly."""

from __future__ import annotations

import asyncio
import base64
from datetime import datetime
from typing import Any

import agentscope  # noqa: E402  (its environment has it: envs.toml)
from harness import assert_exact, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS

# Run in the environment of the other major version, the test fails, never skips.
assert agentscope.__version__.startswith("1."), f"needs agentscope 1.x, not {agentscope.__version__}"

from agentscope.memory import InMemoryMemory  # noqa: E402
from agentscope.message import (  # noqa: E402
    AudioBlock,
    Base64Source,
    ImageBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    URLSource,
    VideoBlock,
)

FORM = FORMS["agentscope.msg"]

texts = st.text(max_size=12) | st.sampled_from(["", "naïve café ☕ 🦀 \u200b", "a\n\t\"\\"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8)
json_maps = st.dictionaries(st.text(max_size=5), json_values, max_size=4)
# What 1.x writes (local time, milliseconds), and other text a caller may give.
timestamps = st.datetimes().map(lambda d: d.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]) \
    | st.datetimes().map(datetime.isoformat) | texts
sources = st.builds(Base64Source, type=st.just("base64"),
                    media_type=st.sampled_from(["image/png", "audio/wav", "x y"]),
                    data=st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode())) \
    | st.builds(URLSource, type=st.just("url"),
                url=st.sampled_from(["https://example.org/a.wav", "file:///tmp/c.mp4", "relative/path.png", "",
                                     "data:image/png;base64,AAEC"]))
media = st.one_of(*(st.builds(cls, type=st.just(name), source=sources)
                    for cls, name in ((ImageBlock, "image"), (AudioBlock, "audio"), (VideoBlock, "video"))))
text_blocks = st.builds(TextBlock, type=st.just("text"), text=texts)
tool_use = st.builds(ToolUseBlock, type=st.just("tool_use"), id=texts, name=texts, input=json_maps) \
    | st.builds(ToolUseBlock, type=st.just("tool_use"), id=texts, name=texts, input=json_maps, raw_input=texts)
blocks = st.one_of(
    text_blocks,
    st.builds(ThinkingBlock, type=st.just("thinking"), thinking=texts),
    media,
    tool_use,
    st.builds(ToolResultBlock, type=st.just("tool_result"), id=texts, name=texts,
              output=texts | st.lists(text_blocks | media, max_size=3)),
)


@st.composite
def messages(draw: st.DrawFn) -> Any:
    msg = Msg(draw(texts), draw(texts | st.lists(blocks, max_size=4)),
              draw(st.sampled_from(["user", "assistant", "system"])),
              metadata=draw(st.none() | json_maps), timestamp=draw(timestamps))
    msg.id = draw(st.just(msg.id) | texts)
    return msg


def _trip(items: list[Any]) -> list[Any]:
    records = FORM.to_records(items, session="s")
    for decoded in through_encodings(records).values():
        assert_exact(FORM.from_records(decoded), items)
    return FORM.from_records(records)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages(), max_size=4))
def test_messages_round_trip(msgs: list[Any]) -> None:
    dumped = [m.to_dict() for m in msgs]
    back = _trip(dumped)
    # 1.x Msg has no equality of its own: compare what its own from_dict/to_dict give.
    assert_exact([Msg.from_dict(d).to_dict() for d in back], dumped)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(messages(), min_size=1, max_size=3), st.lists(texts, max_size=3)), max_size=3),
       st.none() | texts)
def test_memory_state_round_trips(adds: list[tuple[list[Any], list[str]]], summary: str | None) -> None:
    memory = InMemoryMemory()

    async def fill() -> None:
        for msgs, marks in adds:
            await memory.add(msgs, marks=marks or None)
        if summary is not None:
            await memory.update_compressed_summary(summary)

    asyncio.run(fill())
    state = memory.state_dict()
    (back,) = _trip([state])
    _trip(list(state["content"]))
    again = InMemoryMemory()
    again.load_state_dict(back)
    assert_exact(again.state_dict(), state)


def test_the_backend_names_the_release_it_needs() -> None:
    """The long-term memory backend is a 2.x middleware: with 1.x installed,
    importing it says so rather than asking for an install that is there."""
    import pytest

    with pytest.raises(ImportError, match=f"needs AgentScope 2.x.*; {agentscope.__version__} is installed"):
        import memorywire.integrations.agentscope  # noqa: F401
