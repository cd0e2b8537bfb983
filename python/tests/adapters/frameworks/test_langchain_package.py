"""LangChain messages built by the real package (langchain-core 1.8.3):
hypothesis builds message objects with LangChain's own constructors (every
class, chunks and their merge); the objects, their messages_to_dict and
their dumpd go to records, through every encoding and back, equal by
LangChain's equality and type-exactly. Runs in .venv-fw/langchain."""

from __future__ import annotations

import base64
import warnings
from collections.abc import Callable
from typing import Any

from harness import assert_exact, assert_round_trip, assert_service_round_trip, load, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core import messages as lc
from langchain_core.load import dumpd
from langchain_core.load import load as lc_load

from memorywire.adapters import FORMS

OBJECTS = FORMS["langchain.messages"]
TO_DICT = FORMS["langchain.messages_to_dict"]
DUMPD = FORMS["langchain.dumpd"]

texts = st.text(st.characters(codec="utf-8"), max_size=10)
maybe_texts = st.none() | texts
# Repeated ids are the rule in LangChain lists (chunks, RemoveMessage).
ids = st.none() | st.sampled_from(["m-1", "m-2", "run-1", "urn:uuid:x"]) | texts
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | texts,
    lambda x: st.lists(x, max_size=3) | st.dictionaries(texts, x, max_size=3), max_leaves=6)
maps = st.dictionaries(texts, json_values, max_size=2)
data_uris = st.binary(max_size=40).map(lambda b: "data:image/png;base64," + base64.b64encode(b).decode())
# Beyond the 8,192 code points of MediaPart.uri, as any real photo.
long_uris = st.binary(min_size=6200, max_size=6300).map(
    lambda b: "data:image/jpeg;base64," + base64.b64encode(b).decode())
urls = st.sampled_from(["https://example.com/a.png", "not a uri", "data:,x"]) | data_uris | long_uris
image_urls = st.one_of(
    st.builds(lambda u: {"type": "image_url", "image_url": u}, urls),
    st.builds(lambda u, d: {"type": "image_url", "image_url": {"url": u, **d}}, urls,
              st.fixed_dictionaries({}, optional={"detail": st.sampled_from(["low", "high", "auto", ""])})),
)
elements = st.one_of(
    texts,
    st.builds(lambda t: {"type": "text", "text": t}, texts),
    st.builds(lambda t, i: {"text": t, "type": "text", **i}, texts, st.fixed_dictionaries({}, optional={"id": texts})),
    st.builds(lambda t, i: {"type": "reasoning", "reasoning": t, **i}, texts,
              st.fixed_dictionaries({}, optional={"id": texts})),
    image_urls,
    # The standard media blocks of langchain-core 1.x.
    st.builds(lambda t, src, extra: {"type": t, **src, **extra}, st.sampled_from(["image", "audio", "video", "file"]),
              st.one_of(st.builds(lambda u: {"url": u}, urls),
                        st.builds(lambda b: {"base64": base64.b64encode(b).decode()}, st.binary(max_size=20)),
                        st.builds(lambda f: {"file_id": f}, texts)),
              st.fixed_dictionaries({}, optional={"mime_type": st.sampled_from(["image/png", "x", ""]),
                                                  "id": texts, "extras": maps})),
    st.builds(lambda v: {"type": "custom_block", "value": v}, json_values),
)
contents = texts | st.lists(elements, max_size=4)
tool_calls = st.lists(st.builds(lambda n, a, i: {"name": n, "args": a, "id": i}, texts, maps, maybe_texts),
                      max_size=2)
invalid_calls = st.lists(st.builds(lambda n, a, i, e: {"name": n, "args": a, "id": i, "error": e, "type":
                                                       "invalid_tool_call"},
                                   maybe_texts, maybe_texts, maybe_texts, maybe_texts), max_size=2)
usage = st.none() | st.builds(lambda i, o: {"input_tokens": i, "output_tokens": o, "total_tokens": i + o},
                              st.integers(0, 10**6), st.integers(0, 10**6))
chunks = st.lists(st.builds(lambda n, a, i, k: {"name": n, "args": a, "id": i, "index": k, "type": "tool_call_chunk"},
                            maybe_texts, maybe_texts, maybe_texts, st.none() | st.integers(0, 3)), max_size=2)


def common(**more: Any) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({"content": contents, **more},
                                 optional={"additional_kwargs": maps, "response_metadata": maps, "name": maybe_texts,
                                           "id": ids})


messages = st.one_of(
    common().map(lambda k: lc.HumanMessage(**k)),
    common().map(lambda k: lc.SystemMessage(**k)),
    common(tool_calls=tool_calls, invalid_tool_calls=invalid_calls, usage_metadata=usage)
    .map(lambda k: lc.AIMessage(**k)),
    common(tool_call_id=texts, artifact=json_values, status=st.sampled_from(["success", "error"]))
    .map(lambda k: lc.ToolMessage(**k)),
    common(role=texts).map(lambda k: lc.ChatMessage(**k)),
    common().map(lambda k: lc.FunctionMessage(**{**k, "name": k.get("name") or "fn"})),
    texts.map(lambda i: lc.RemoveMessage(id=i)),
    common().map(lambda k: lc.HumanMessageChunk(**k)),
    common(tool_call_chunks=chunks, chunk_position=st.none() | st.just("last"), usage_metadata=usage)
    .map(lambda k: lc.AIMessageChunk(**k)),
    common(tool_call_id=texts).map(lambda k: lc.ToolMessageChunk(**k)),
    common(role=texts).map(lambda k: lc.ChatMessageChunk(**k)),
)


@st.composite
def conversations(draw: st.DrawFn) -> list[Any]:
    out = draw(st.lists(messages, max_size=5))
    if draw(st.booleans()):
        # A stream: two chunks of one id and their merge, all in the list.
        first: Any = draw(chunks)
        second: Any = draw(chunks)
        a = lc.AIMessageChunk(content=draw(texts), id="run-1", tool_call_chunks=first)
        b = lc.AIMessageChunk(content=draw(texts), id="run-1", tool_call_chunks=second, chunk_position="last")
        out += [a, b, a + b]
    return out


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(conversations())
def test_message_objects(msgs: list[Any]) -> None:
    records = OBJECTS.to_records(msgs, session="s-1")
    for decoded in through_encodings(records).values():
        back = OBJECTS.from_records(decoded)
        assert back == msgs  # LangChain's own equality
        assert [type(m) for m in back] == [type(m) for m in msgs]
        assert_exact(lc.messages_to_dict(back), lc.messages_to_dict(msgs))


@SETTINGS
@given(conversations())
def test_messages_to_dict(msgs: list[Any]) -> None:
    dicts = lc.messages_to_dict(msgs)
    assert_round_trip(TO_DICT, dicts)
    back = TO_DICT.from_records(TO_DICT.to_records(dicts))
    assert lc.messages_from_dict(back) == msgs
    for a, b in zip(back, dicts, strict=True):
        assert list(a["data"]) == list(b["data"])


@SETTINGS
@given(conversations())
def test_dumpd(msgs: list[Any]) -> None:
    dumped = [dumpd(m) for m in msgs]
    assert_round_trip(DUMPD, dumped)
    back = DUMPD.from_records(DUMPD.to_records(dumped))
    for a, b in zip(back, dumped, strict=True):
        assert list(a["kwargs"]) == list(b["kwargs"])  # the order dumpd wrote
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # load() is marked beta
            assert lc_load(a) == lc_load(b)


def test_captured_conversation_as_objects(service: Callable[[], Any]) -> None:
    msgs = lc.messages_from_dict(load("langchain.messages", "conversation.json")["items"])
    assert_round_trip(OBJECTS, msgs)
    assert_service_round_trip(service(), OBJECTS, msgs, session="chat-7")
