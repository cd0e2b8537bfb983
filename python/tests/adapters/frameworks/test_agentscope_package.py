"""agentscope.msg against the real agentscope 2.x package: messages built with
its own constructors, dumped by its own serializers, round trip exactly."""

from __future__ import annotations

import base64
from typing import Any

import agentscope  # noqa: E402  (its environment has it: envs.toml)
from harness import assert_exact, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS

# Run in the environment of the other major version, the test fails, never skips.
assert agentscope.__version__.startswith("2."), f"needs agentscope 2.x, not {agentscope.__version__}"

from agentscope.message import (  # noqa: E402
    Base64Source,
    DataBlock,
    HintBlock,
    Msg,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    URLSource,
    Usage,
)
from agentscope.state import AgentState  # noqa: E402
from agentscope.types._reply import ErrorInfo, ErrorType  # noqa: E402

FORM = FORMS["agentscope.msg"]

texts = st.text(max_size=12) | st.sampled_from(["", "naïve café ☕ 🦀 \u200b", "a\n\t\"\\"])
ids = st.text(max_size=8) | st.uuids().map(lambda u: u.hex) | st.integers(257, 300).map(lambda n: "x" * n)
times = st.datetimes().map(lambda d: d.isoformat()) | st.sampled_from(["", "2026-05-04T12:30:15.000000", "later"])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8)
json_maps = st.dictionaries(st.text(max_size=5), json_values, max_size=4)
media_types = st.sampled_from(["image/png", "audio/wav", "video/mp4", "application/pdf", "text/plain; charset=utf-8",
                               "not a type"])
urls = st.sampled_from(["https://example.org/a.wav", "file:///tmp/clip.mp4", "data:image/png;base64,AAEC",
                        "data:image/png;base64,AAE", "data:image/png;base64,", "https://example.org"]) \
    | st.integers(9000, 9001).map(lambda n: "https://e.org/" + "p" * n) \
    | st.binary(min_size=6200, max_size=6300).map(lambda b: "data:image/png;base64," + base64.b64encode(b).decode())
sources = st.builds(Base64Source, data=st.binary(max_size=12).map(lambda b: base64.b64encode(b).decode()),
                    media_type=media_types) | st.builds(URLSource, url=urls, media_type=media_types)
text_blocks = st.builds(TextBlock, text=texts, id=ids, created_at=times, finished_at=st.none() | times)
data_blocks = st.builds(DataBlock, id=ids, source=sources, name=st.none() | texts, created_at=times,
                        finished_at=st.none() | times)
blocks = st.one_of(
    text_blocks,
    data_blocks,
    st.builds(ThinkingBlock, thinking=texts, id=ids, created_at=times, finished_at=st.none() | times),
    st.builds(HintBlock, hint=texts | st.lists(text_blocks | data_blocks, max_size=2), id=ids,
              source=st.none() | texts, created_at=times, finished_at=st.none() | times),
    st.builds(ToolCallBlock, id=ids, name=texts, input=texts | st.just('{"a": 1.0}'),
              state=st.sampled_from(["pending", "asking", "allowed", "submitted", "finished"]),
              suggested_rules=st.just([]), created_at=times, finished_at=st.none() | times),
    st.builds(ToolResultBlock, id=ids, name=texts, output=texts | st.lists(text_blocks | data_blocks, max_size=3),
              state=st.sampled_from(["success", "error", "interrupted", "denied", "running"]), metadata=json_maps,
              created_at=times, finished_at=st.none() | times),
)
def _messages(role: str, content: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.builds(
        Msg,
        name=texts,
        content=st.lists(content, max_size=5),
        role=st.just(role),
        id=ids,
        metadata=json_maps,
        created_at=times,
        usage=st.none() | st.builds(Usage, input_tokens=st.integers(0, 10**6), output_tokens=st.integers(0, 10**6)),
        finished_at=st.none() | times,
        finished_reason=st.none() | st.sampled_from(["completed", "interrupted", "exceed_max_iters", "error"]),
        structured_output=st.none() | json_maps,
        error=st.none() | st.builds(ErrorInfo, type=st.sampled_from(list(ErrorType)), message=texts),
    )


# AgentScope allows text in system messages, text and data in user messages, any block in assistant ones.
messages = _messages("system", text_blocks) | _messages("user", text_blocks | data_blocks) \
    | _messages("assistant", blocks)


def _trip(items: list[Any]) -> None:
    records = FORM.to_records(items, session="s")
    for decoded in through_encodings(records).values():
        assert_exact(FORM.from_records(decoded), items)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(messages, max_size=4))
def test_messages_round_trip(msgs: list[Any]) -> None:
    dumped = [m.model_dump(mode="json") for m in msgs]
    _trip(dumped)
    back = FORM.from_records(FORM.to_records(dumped))
    assert [Msg.model_validate(d) for d in back] == msgs  # AgentScope's own equality


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=8), texts | st.lists(text_blocks, max_size=2), st.lists(messages, max_size=3))
def test_agent_state_text_round_trips(session: str, summary: Any, msgs: list[Any]) -> None:
    state = AgentState(session_id=session, summary=summary, context=msgs)
    text = state.model_dump_json()
    _trip([text, text])
    (back,) = FORM.from_records(FORM.to_records([text]))
    assert back == text
    assert AgentState.model_validate_json(back) == state


def test_records_of_other_producers_are_valid_messages() -> None:
    """A conversation that another framework wrote, read from its neutral
    fields alone, gives messages that AgentScope itself accepts."""
    records = [
        {"specversion": "1.0", "id": "d", "kind": "message",
         "message": {"role": "developer", "content": [{"text": {"text": "Be brief."}}]}},
        {"specversion": "1.0", "id": "u", "kind": "message",
         "message": {"role": "user", "name": "ana", "content": [
             {"text": {"text": "And this?"}}, {"image": {"data": "AAE=", "media_type": "image/png"}},
             {"file": {"uri": "https://example.org/r.pdf", "filename": "r.pdf"}}]}},
        {"specversion": "1.0", "id": "a", "kind": "message", "created_at": "2026-05-04T12:30:15.5Z",
         "message": {"role": "assistant", "content": [
             {"reasoning": {"text": "Look it up."}}, {"text": {"text": "One moment."}},
             {"tool_call": {"call_id": "c1", "name": "lookup", "arguments": "{}", "status": "completed"}}]}},
        {"specversion": "1.0", "id": "t", "kind": "message",
         "message": {"role": "tool", "content": [{"tool_result": {"call_id": "c1", "output": "found",
                                                                   "status": "success"}}]}},
        {"specversion": "1.0", "id": "r", "kind": "tool_result",
         "tool_result": {"call_id": "c2", "name": "lookup",
                         "output_parts": [{"text": {"text": "a"}}, {"image": {"uri": "https://e.org/i.png"}}]}},
        {"specversion": "1.0", "id": "f", "kind": "fact", "fact": {"text": "Likes tea."}},
    ]
    msgs = [Msg.model_validate(d) for d in FORM.from_records(records)]
    assert [m.role for m in msgs] == ["system", "user", "assistant", "assistant", "assistant", "system"]
