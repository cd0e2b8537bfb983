"""Hypothesis strategies of Responses items and Chat Completions messages
of every shape the OpenAI forms know, whatever the values of their members:
empty, null, of another type, of any size."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6)
strings = st.sampled_from(["", "x", "call_1", "https://example.org/a", "data:image/png;base64,AAAA",
                           "data:text/plain;base64,A", "SGVsbG8=", "completed", "searching", " ", "a\n",
                           "data:image/png;base64,AAAA\n"]) | st.text(max_size=8)
v = strings | values


def shaped(kind: str, members: dict[str, Any]) -> Any:
    """A dict of that ``type`` with any subset of the members."""
    return st.fixed_dictionaries({"type": st.just(kind)} if kind else {}, optional=members)


def some(**members: Any) -> Any:
    return st.fixed_dictionaries({}, optional=members) | v


url_citations = st.lists(shaped("url_citation", {"url": v, "title": v, "start_index": v, "end_index": v}), max_size=2)
parts = st.one_of(
    shaped("input_text", {"text": v}),
    shaped("output_text", {"text": v, "annotations": url_citations | v, "logprobs": v}),
    shaped("refusal", {"refusal": v}),
    shaped("input_image", {"image_url": v, "file_id": v, "detail": v, "extra": v}),
    shaped("input_file", {"file_data": v, "file_id": v, "file_url": v, "filename": v}),
    v)
items = st.one_of(
    st.fixed_dictionaries({"role": st.sampled_from(["user", "assistant", "system", "developer"]),
                           "content": strings | st.lists(parts, max_size=3)},
                          optional={"type": st.just("message"), "id": v, "status": v, "phase": v, "other": v}),
    shaped("function_call", {"arguments": v, "call_id": v, "name": v, "id": v, "status": v}),
    shaped("function_call_output", {"call_id": v, "output": v | st.lists(parts, max_size=2), "id": v}),
    shaped("reasoning", {"id": v, "summary": st.lists(shaped("summary_text", {"text": v}), max_size=2) | v,
                         "content": st.lists(shaped("reasoning_text", {"text": v}), max_size=2) | v,
                         "encrypted_content": v, "status": v}),
    shaped("file_search_call", {"id": v, "queries": st.lists(strings, max_size=2) | v, "status": v, "results": v}),
    shaped("item_reference", {"id": v}),
)

chat_parts = st.one_of(
    shaped("text", {"text": v}),
    shaped("refusal", {"refusal": v}),
    shaped("image_url", {"image_url": some(url=v, detail=v)}),
    shaped("file", {"file": some(file_data=v, file_id=v, filename=v)}),
    v)
chat_calls = st.fixed_dictionaries({}, optional={"id": v, "type": v, "function": some(name=v, arguments=v)})
chat = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "developer", "tool", "function"])},
    optional={"content": strings | st.none() | st.lists(chat_parts, max_size=3), "refusal": v,
              "tool_calls": st.lists(chat_calls, max_size=2) | v, "tool_call_id": v, "name": v, "audio": v})
