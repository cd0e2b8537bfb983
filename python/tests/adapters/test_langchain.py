"""LangChain messages (spec/v1/adapters/langchain.md), on the captured real
output of langchain-core 1.8.3. The form of message objects needs the
package and is tested in frameworks/test_langchain_package.py."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, exact, load, through_encodings

import memorywire.json
from memorywire.adapters import FORMS, AdapterError, is_generated

TO_DICT = FORMS["langchain.messages_to_dict"]
DUMPD = FORMS["langchain.dumpd"]


def _items(form: str) -> list[Any]:
    items: list[Any] = load(form, "conversation.json")["items"]
    return items


@pytest.mark.parametrize("form", ["langchain.messages_to_dict", "langchain.dumpd"])
def test_captured_output_round_trips(form: str) -> None:
    assert_round_trip(FORMS[form], _items(form), session="chat-7")


@pytest.mark.parametrize("form", ["langchain.messages_to_dict", "langchain.dumpd"])
def test_captured_output_round_trips_through_the_service(service: Callable[[], Any], form: str) -> None:
    assert_service_round_trip(service(), FORMS[form], _items(form), session="chat-7")


def test_dumpd_kwargs_keep_their_order() -> None:
    # dumpd writes the kwargs of a chunk in the order they were set.
    items = _items("langchain.dumpd")
    back = DUMPD.from_records(through_encodings(DUMPD.to_records(items))["json"])
    for a, b in zip(back, items, strict=True):
        assert list(a["kwargs"]) == list(b["kwargs"])
        assert list(a) == list(b)


def test_messages_to_dict_keeps_the_field_order() -> None:
    items = _items("langchain.messages_to_dict")
    back = TO_DICT.from_records(TO_DICT.to_records(items))
    for a, b in zip(back, items, strict=True):
        assert list(a["data"]) == list(b["data"])


def _by_id(records: list[dict[str, Any]], framework_id: str) -> list[dict[str, Any]]:
    return [r for r in records if r["id"] == framework_id
            or r.get("native", {}).get("record", {}).get("id") == framework_id]


def test_repeated_ids_give_distinct_records() -> None:
    records = TO_DICT.to_records(_items("langchain.messages_to_dict"))
    assert len({r["id"] for r in records}) == len(records)
    chunks = _by_id(records, "run-7f3a")
    assert [r["id"] for r in chunks][0] == "run-7f3a"
    assert all(is_generated(r["id"]) for r in chunks[1:]) and len(chunks) == 3
    # RemoveMessage names the message it removes; that is never its record id.
    (remove,) = [r for r in records if r["kind"] == "custom"]
    assert remove["custom"] == {"type": "langchain.remove_message", "value": {"id": "hum-1"}}
    assert is_generated(remove["id"])


def test_mapping_of_each_class() -> None:
    records = TO_DICT.to_records(_items("langchain.messages_to_dict"))
    by = {r["id"]: r for r in records}
    assert by["hum-1"]["message"] == {"role": "user", "name": "alice",
                                      "content": [{"text": {"text": "What's the weather in Paris?"}}]}
    assert "native" not in by["hum-1"]
    ai = by["ai-1"]
    assert ai["message"]["content"] == [
        {"tool_call": {"call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris","days":3}'}},
        {"tool_call": {"call_id": "call_2", "name": "get_time", "arguments": "{}"}},
        {"tool_call": {"call_id": "call_3", "name": "lookup"}},
    ]
    assert ai["metadata"] == {"refusal": None}
    assert ai["extensions"]["langchain.response_metadata"]["model_name"] == "gpt-x"
    assert ai["extensions"]["langchain.usage_metadata"]["total_tokens"] == 52
    # The invalid call without id and name has no part; its place is kept.
    assert ai["native"]["record"]["invalid_tool_calls"][0] == {"$unmapped": {
        "type": "invalid_tool_call", "id": None, "name": None, "args": "{not json", "error": "bad json"}}
    assert by["tool-1"]["tool_result"] == {"call_id": "call_1", "name": "get_weather", "output": "18°C, cloudy",
                                           "status": "success"}
    (errored,) = [r for r in records if r.get("tool_result", {}).get("call_id") == "call_2"]
    assert errored["tool_result"]["artifact"]["big"] == {"$bigint": "9223372036854775809"}
    assert errored["tool_result"]["status"] == "error"
    assert by["fn-1"]["message"]["role"] == "tool" and by["fn-1"]["message"]["name"] == "legacy_fn"
    assert by["chat-1"]["message"]["role"] == "assistant"
    assert by["chat-1"]["native"]["record"] == {"role": "critic", "type": "chat"}
    assert by["ai-2"]["message"]["content"][0] == {"reasoning": {"text": "User wants weather."}, "id": "rs_1"}


def test_content_lists_keep_every_element() -> None:
    records = TO_DICT.to_records(_items("langchain.messages_to_dict"))
    (pictures,) = [r for r in records if r["id"] == "hum-2"]
    parts = pictures["message"]["content"]
    assert [next(iter(p)) for p in parts] == ["text", "image", "image", "text"]
    # The 8,638-character data: URI is inline data, not a uri.
    assert parts[2]["image"]["media_type"] == "image/png" and "uri" not in parts[2]["image"]
    assert parts[1]["image"]["detail"] == "low"
    entries = pictures["native"]["record"]["content"]
    assert entries[3] == ""  # a bare string element
    assert entries[4] == {"$unmapped": {"type": "text", "text": ""}}


def test_empty_tool_call_id_is_a_tool_message() -> None:
    item = {"type": "tool", "data": {"content": "", "additional_kwargs": {}, "response_metadata": {}, "type": "tool",
                                     "name": None, "id": None, "tool_call_id": "", "artifact": None,
                                     "status": "success"}}
    (rec,) = assert_round_trip(TO_DICT, [item])
    assert rec["kind"] == "message" and rec["message"] == {"role": "tool"}
    assert rec["native"]["record"] == {"tool_call_id": "", "type": "tool"}


def test_a_framework_id_that_looks_generated_is_kept() -> None:
    item = {"type": "human", "data": {"content": "hi", "additional_kwargs": {}, "response_metadata": {},
                                      "type": "human", "name": None, "id": "urn:uuid:1", "x": {"$a": 2**70}}}
    (rec,) = assert_round_trip(TO_DICT, [item])
    assert rec["id"] == "urn:uuid:1" and rec["native"]["record"]["id"] == "urn:uuid:1"
    assert rec["native"]["record"]["extra"] == {"x": {"$map": {"$a": {"$bigint": str(2**70)}}}}


def _record(rec_id: str, kind: str, payload: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"specversion": "1.0", "id": rec_id, "kind": kind, kind: payload, **more}


def test_reads_a_conversation_of_another_producer() -> None:
    records = [
        _record("m1", "message", {"role": "developer", "content": [{"text": {"text": "Be brief."}}]}),
        _record("m2", "message", {"role": "user", "content": [
            {"text": {"text": "Look:"}}, {"image": {"uri": "https://example.com/a.png", "detail": "high"}}]},
            sequence=2, revision=1, created_at="2026-01-01T00:00:00Z", metadata={"k": 1}),
        _record("fc_1", "tool_call", {"call_id": "call_a", "name": "f", "arguments": '{"x": 1.0}'}),
        _record("fc_2", "tool_call", {"call_id": "call_b", "name": "g", "arguments": "{partial"}),
        _record("out", "tool_result", {"call_id": "call_a", "output": "ok"}),
        _record("m3", "message", {"role": "assistant", "content": [{"refusal": {"text": "No."}}]},
                native={"framework": "openai", "format": "openai.chat_message", "record": {"type": "x"}}),
    ]
    got = TO_DICT.from_records(records)
    base: dict[str, Any] = {"additional_kwargs": {}, "response_metadata": {}}
    assert_exact(got, [
        {"type": "chat", "data": {"content": "Be brief.", **base, "type": "chat", "name": None, "id": "m1",
                                  "role": "developer"}},
        {"type": "human", "data": {"content": [{"type": "text", "text": "Look:"},
                                               {"type": "image_url", "image_url": {"url": "https://example.com/a.png",
                                                                                   "detail": "high"}}],
                                   "additional_kwargs": {"k": 1}, "response_metadata": {}, "type": "human",
                                   "name": None, "id": "m2"}},
        {"type": "ai", "data": {"content": "", **base, "type": "ai", "name": None, "id": "fc_1",
                                "tool_calls": [{"name": "f", "args": {"x": 1.0}, "id": "call_a", "type": "tool_call"}],
                                "invalid_tool_calls": [], "usage_metadata": None}},
        {"type": "ai", "data": {"content": "", **base, "type": "ai", "name": None, "id": "fc_2", "tool_calls": [],
                                "invalid_tool_calls": [{"name": "g", "args": "{partial", "id": "call_b", "error": None,
                                                        "type": "invalid_tool_call"}],
                                "usage_metadata": None}},
        {"type": "tool", "data": {"content": "ok", **base, "type": "tool", "name": None, "id": "out",
                                  "tool_call_id": "call_a", "artifact": None, "status": "success"}},
        {"type": "ai", "data": {"content": [{"type": "non_standard", "value": {"refusal": {"text": "No."}}}], **base,
                                "type": "ai", "name": None, "id": "m3", "tool_calls": [], "invalid_tool_calls": [],
                                "usage_metadata": None}},
    ])
    # The same records as dumpd: only the fields that differ from their defaults.
    assert DUMPD.from_records(records[:1]) == [{"lc": 1, "type": "constructor",
                                                "id": ["langchain", "schema", "messages", "ChatMessage"],
                                                "kwargs": {"content": "Be brief.", "type": "chat", "id": "m1",
                                                           "role": "developer"}}]


def test_residue_of_another_form_is_not_used() -> None:
    items = _items("langchain.messages_to_dict")
    records = TO_DICT.to_records(items)
    (chat,) = DUMPD.from_records([r for r in records if r["id"] == "chat-1"])
    # Without its residue, a critic's ChatMessage is an assistant's AIMessage.
    assert chat["id"][-1] == "AIMessage"


def test_a_content_update_wins_over_the_residue() -> None:
    items = _items("langchain.messages_to_dict")
    records = TO_DICT.to_records(items)
    (rec,) = [r for r in records if r["id"] == "hum-2"]
    rec["message"]["content"] = [{"text": {"text": "edited"}}]
    (back,) = TO_DICT.from_records([rec])
    assert back["data"]["content"] == [{"type": "text", "text": "edited"}]


@pytest.mark.parametrize(("form", "item", "pointer", "reason"), [
    (TO_DICT, {"type": "robot", "data": {}}, "/0/type", "UNSUPPORTED_ITEM"),
    (TO_DICT, {"type": "human", "data": {"type": "ai", "content": ""}}, "/0/data/type", "TYPE_MISMATCH"),
    (TO_DICT, {"type": "human", "data": {"type": "human"}}, "/0/data/content", "MISSING_MEMBER"),
    (TO_DICT, {"type": "human", "data": {"type": "human", "content": 3}}, "/0/data/content", "TYPE_MISMATCH"),
    (TO_DICT, {"type": "tool", "data": {"type": "tool", "content": "x"}}, "/0/data/tool_call_id", "MISSING_MEMBER"),
    (TO_DICT, {"type": "human", "data": {"type": "human", "content": [{"type": "x", "v": {1: 2}}]}},
     "/0/data/content/0/v", "NOT_REPRESENTABLE"),
    (TO_DICT, {"type": "ai", "data": {"type": "ai", "content": "", "tool_calls": [7]}}, "/0/data/tool_calls/0",
     "TYPE_MISMATCH"),
    (TO_DICT, {"type": "human", "data": {"type": "human", "content": "", "name": 5}}, "/0/data/name",
     "TYPE_MISMATCH"),
    (DUMPD, {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "Robot"], "kwargs": {}},
     "/0/id", "UNSUPPORTED_ITEM"),
    (DUMPD, {"lc": 1, "type": "secret", "id": ["OPENAI_API_KEY"]}, "/0/type", "UNSUPPORTED_ITEM"),
    (DUMPD, {"lc": 1, "type": "constructor", "id": ["langchain", "schema", "messages", "ChatMessage"],
             "kwargs": {"content": "x", "type": "chat"}}, "/0/kwargs/role", "MISSING_MEMBER"),
])
def test_errors_point_into_the_items(form: Any, item: dict[str, Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        form.to_records([item])
    assert (e.value.pointer, e.value.reason) == (pointer, reason)


def test_other_record_kinds_are_refused() -> None:
    with pytest.raises(AdapterError) as e:
        TO_DICT.from_records([_record("f", "fact", {"text": "x"})])
    assert (e.value.pointer, e.value.reason) == ("/0/kind", "UNSUPPORTED_ITEM")


def test_mutations_are_detected() -> None:
    """The comparison can fail: every change of a captured item is seen."""
    items = _items("langchain.messages_to_dict")
    back = TO_DICT.from_records(through_encodings(TO_DICT.to_records(items))["msgpack"])
    assert exact(back, items) is None
    mutations: list[Callable[[list[Any]], None]] = [
        lambda m: m[11]["data"]["artifact"]["trace"].__setitem__(1, 2),
        lambda m: m[11]["data"]["artifact"]["trace"].__setitem__(2, 1),
        lambda m: m[3]["data"]["content"].__setitem__(3, {"type": "text", "text": "a bare string element"}),
        lambda m: m[6]["data"].__setitem__("id", None),
        lambda m: m[2]["data"].__setitem__("content", "What\u2019s the weather in Paris?"),
        lambda m: m.__setitem__(0, m.pop(1)),
    ]
    for mutate in mutations:
        changed = copy.deepcopy(back)
        mutate(changed)
        assert exact(changed, items) is not None


def test_document_examples_are_real_output() -> None:
    """Every item of langchain.md is captured output, and its record is the
    canonical JSON of what the adapter writes for it ("…" shortens long
    strings)."""
    path = Path(__file__).resolve().parents[3] / "spec" / "v1" / "adapters" / "langchain.md"
    examples = re.findall(r"```json\n(.*?)\n```", path.read_text("utf-8"), re.S)
    assert len(examples) == 16
    for item_text, record in zip(examples[::2], examples[1::2], strict=True):
        item = json.loads(item_text)
        form = DUMPD if "lc" in item else TO_DICT
        items = _items(form.name)
        records = [memorywire.json.encode(r).decode() for r in form.to_records(items)]
        if "…" in record:
            short = re.compile(r"(iVBORw0KGgoAAAANSUhEUgAAAC4AAAAuCAIA)[A-Za-z0-9+/=]{100,}")
            records = [short.sub("\\1…", r) for r in records]
            items = [json.loads(short.sub("\\1…", json.dumps(x))) for x in items]
        assert any(exact(item, x, ordered=True) is None for x in items), item
        assert record in records, record


def test_standard_media_blocks() -> None:
    blocks: list[Any] = [
        {"type": "image", "url": "https://example.com/a.png", "id": "b1"},
        {"type": "file", "base64": "JVBERi0=", "mime_type": "application/pdf", "extras": {"name": "a.pdf"}},
        {"type": "audio", "file_id": "file-1", "mime_type": "not a type"},
        {"type": "image", "url": "data:image/png;base64,AAAA"},
        {"type": "video", "base64": "not base64!"},
    ]
    item = {"type": "human", "data": {"content": blocks, "additional_kwargs": {}, "response_metadata": {},
                                      "type": "human", "name": None, "id": "h"}}
    (rec,) = assert_round_trip(TO_DICT, [item])
    assert rec["message"]["content"] == [
        {"image": {"uri": "https://example.com/a.png"}, "id": "b1"},
        {"file": {"data": "JVBERi0=", "media_type": "application/pdf"}},
        {"audio": {"file_id": "file-1"}},
    ]
    entries = rec["native"]["record"]["content"]
    assert entries[:3] == [{"type": "image"}, {"type": "file", "extras": {"name": "a.pdf"}},
                           {"type": "audio", "mime_type": "not a type"}]
    assert [e.get("$unmapped") for e in entries[3:]] == blocks[3:]


def test_an_output_update_wins_over_list_residue() -> None:
    (tool,) = [x for x in _items("langchain.messages_to_dict") if x["data"].get("tool_call_id") == "call_2"]
    (rec,) = TO_DICT.to_records([tool])
    del rec["tool_result"]["output_parts"]
    rec["tool_result"]["output"] = "fixed"
    (back,) = TO_DICT.from_records([rec])
    assert back["data"]["content"] == "fixed"
