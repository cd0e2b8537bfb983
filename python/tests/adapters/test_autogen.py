"""autogen.*: AutoGen LLM messages, memory contents and ListMemory components
(spec/v1/adapters/autogen.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from harness import (
    assert_exact,
    assert_round_trip,
    assert_service_round_trip,
    exact,
    load,
    through_encodings,
)

from memorywire.adapters import FORMS, AdapterError, is_generated, is_unmapped

LLM = FORMS["autogen.llm_message"]
CONTENT = FORMS["autogen.memory_content"]
COMPONENT = FORMS["autogen.list_memory_component"]


def _messages() -> list[dict[str, Any]]:
    return list(load("autogen.llm_message", "conversation.json")["items"])


def _contents() -> list[dict[str, Any]]:
    return list(load("autogen.memory_content", "contents.json")["items"])


def _components() -> list[Any]:
    both = load("autogen.list_memory_component", "component.json")["items"]
    return [both["model_dump"], both["model_dump_json"]]


CASES = {"llm": (LLM, _messages), "content": (CONTENT, _contents), "component": (COMPONENT, _components)}


@pytest.mark.parametrize("case", sorted(CASES))
def test_captured_output_round_trips(case: str) -> None:
    form, items = CASES[case]
    records = assert_round_trip(form, items(), user="u-1")
    assert all(is_generated(r["id"]) for r in records)  # AutoGen has no ids
    assert not any("created_at" in r for r in records)  # nor times


@pytest.mark.parametrize("case", sorted(CASES))
def test_captured_output_through_the_service(service: Callable[[], Any], case: str) -> None:
    form, items = CASES[case]
    assert_service_round_trip(service(), form, items(), session="s-1")


def _residue(record: dict[str, Any]) -> Any:
    return record["native"]["record"]


def test_llm_messages_map_to_messages() -> None:
    records = LLM.to_records(_messages())
    assert [r["message"]["role"] for r in records] == ["system", "user", "user", "assistant", "tool", "assistant",
                                                      "assistant"]
    assert records[1]["message"]["name"] == "user"
    image = records[2]["message"]["content"][1]["image"]
    assert image["media_type"] == "image/png" and image["data"] == _messages()[2]["content"][1]["data"]
    assert _residue(records[2])["content"] == [{}, {}, {"$unmapped": ""}]  # the empty string has no part
    call = records[3]["message"]["content"]
    assert call[0] == {"reasoning": {"text": "I need the weather first."}}  # the thought
    assert call[1] == {"tool_call": {"call_id": "call_1", "name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}
    assert "native" not in records[3]  # the parts alone say "a list of calls"
    results = records[4]["message"]["content"]
    assert [r["tool_result"].get("status") for r in results] == ["success", "error"]
    assert is_unmapped(_residue(records[4])["content"][2])  # call_id "" cannot be a tool_result part
    assert records[6]["message"] == {"role": "assistant"}  # content "", thought null, source ""


def test_llm_thought_states() -> None:
    base = _messages()[5]
    items = [dict(base, thought=None), dict(base, thought=""), dict(base, thought="why"),
             dict(base, content=[], thought=""), dict(base, content="")]
    records = assert_round_trip(LLM, items)
    assert records[1]["message"]["content"][0] == {"reasoning": {}}
    assert _residue(records[3])["content"] == []


def test_memory_content_kinds() -> None:
    records = CONTENT.to_records(_contents())
    assert [r["kind"] for r in records] == ["fact", "fact", "custom", "custom", "custom", "custom", "custom"]
    assert records[0]["fact"] == {"text": "User prefers metric units."}
    assert _residue(records[0]) == {"mime_type": "text/plain"}
    assert records[1]["metadata"] == {"src": "chat"}
    value = records[2]["custom"]["value"]
    assert value["big"] == {"$bigint": "9223372036854775809"}
    assert value["huge"] == {"$bigint": "1000000000000000000000000000000"}
    assert records[3]["custom"] == {"type": "autogen.memory_content", "value": {"$bytes": "AAFiaW5hcnn/"}}
    assert _residue(records[5])["metadata"] == {}  # {} is not null
    assert records[6]["custom"]["value"] == ""  # an empty string cannot be a fact


def test_component_records() -> None:
    dumped, text = _components()
    records = COMPONENT.to_records([dumped, text])
    assert len(records) == 12
    head = records[0]
    assert head["custom"]["type"] == "autogen.list_memory"
    assert head["custom"]["value"]["config"] == {"name": "user_prefs"}
    assert _residue(head) == {"memory_contents": 5}
    # Inside the component a null metadata is left out, and stays left out.
    assert "metadata" not in _residue(records[1])
    assert COMPONENT.from_records(records)[0]["config"]["memory_contents"][0] == dumped["config"]["memory_contents"][0]
    # The text: kept, since the content dict's member order is not carried by a Value map.
    assert _residue(records[6])["model_dump_json"] == text


def test_component_text_rebuilt_exactly_keeps_no_text() -> None:
    dumped = _components()[0]
    dumped["config"]["memory_contents"][2]["content"] = {"a": 1, "b": [-0.0, 1.0]}
    text = json.dumps(dumped, ensure_ascii=False, separators=(",", ":"))
    records = assert_round_trip(COMPONENT, [text])
    assert _residue(records[0])["model_dump_json"] is None


def test_records_of_other_producers() -> None:
    records = [
        {"specversion": "1.0", "id": "s", "kind": "message",
         "message": {"role": "developer", "content": [{"text": {"text": "Be brief."}}]}},
        {"specversion": "1.0", "id": "u", "kind": "message",
         "message": {"role": "user", "name": "ana",
                     "content": [{"text": {"text": "Hi"}}, {"image": {"data": "AAE=", "media_type": "image/png"}}]}},
        {"specversion": "1.0", "id": "a", "kind": "message",
         "message": {"role": "assistant",
                     "content": [{"text": {"text": "Let me look."}},
                                 {"tool_call": {"call_id": "c1", "name": "f", "arguments": "{}"}}]},
         "native": {"framework": "openai", "format": "openai.chat_message", "record": {"content": None}}},
        {"specversion": "1.0", "id": "r", "kind": "tool_result",
         "tool_result": {"call_id": "c1", "name": "f", "output_parts": [{"text": {"text": "done"}}]}},
    ]
    assert LLM.from_records(records) == [
        {"content": "Be brief.", "type": "SystemMessage"},
        {"content": ["Hi", {"data": "AAE="}], "source": "ana", "type": "UserMessage"},
        {"content": [{"id": "c1", "arguments": "{}", "name": "f"}], "thought": "Let me look.", "source": "",
         "type": "AssistantMessage"},
        {"content": [{"content": "done", "name": "f", "call_id": "c1", "is_error": None}],
         "type": "FunctionExecutionResultMessage"},
    ]
    facts = [{"specversion": "1.0", "id": "m", "kind": "fact", "fact": {"text": "Likes tea."},
              "metadata": {"src": "mem0"}, "native": {"framework": "mem0", "format": "mem0.memory_item",
                                                      "record": {"hash": "x"}}}]
    assert CONTENT.from_records(facts) == [{"content": "Likes tea.", "mime_type": "text/plain",
                                            "metadata": {"src": "mem0"}}]
    summary = {"specversion": "1.0", "id": "s", "kind": "summary", "summary": {"text": "Earlier: greetings."}}
    assert LLM.from_records([summary]) == [{"content": "Earlier: greetings.", "type": "SystemMessage"}]
    assert CONTENT.from_records([summary, records[3]]) == [
        {"content": "Earlier: greetings.", "mime_type": "text/plain", "metadata": None},
        {"content": "done", "mime_type": "text/plain", "metadata": None}]
    with pytest.raises(AdapterError) as e:
        LLM.from_records([{"specversion": "1.0", "id": "x", "kind": "message",
                           "message": {"role": "system", "content": [{"image": {"uri": "https://e.org/i.png"}}]}}])
    assert e.value.violations[0].pointer == "/0/message/content/0"


@pytest.mark.parametrize(("form", "items", "pointer", "reason"), [
    (LLM, [{"content": "x", "type": "HumanMessage"}], "/0/type", "UNSUPPORTED_ITEM"),
    (LLM, [{"content": "x", "type": "UserMessage"}], "/0/source", "MISSING_MEMBER"),
    (LLM, [{"content": 3, "type": "SystemMessage"}], "/0/content", "TYPE_MISMATCH"),
    (LLM, [{"content": "x", "thought": 1, "source": "a", "type": "AssistantMessage"}], "/0/thought", "TYPE_MISMATCH"),
    (LLM, ["text"], "/0", "TYPE_MISMATCH"),
    (CONTENT, [{"mime_type": "text/plain", "metadata": None}], "/0/content", "MISSING_MEMBER"),
    (CONTENT, [{"content": "x", "mime_type": "text/plain"}], "/0/metadata", "MISSING_MEMBER"),
    (CONTENT, [{"content": {"when": object()}, "mime_type": "x", "metadata": None}], "/0/content/when",
     "NOT_REPRESENTABLE"),
    (COMPONENT, [{"provider": "p", "config": {}}], "/0/config/memory_contents", "MISSING_MEMBER"),
    (COMPONENT, ["{oops"], "/0", "TYPE_MISMATCH"),
])
def test_errors_name_the_member(form: Any, items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        form.to_records(items)
    assert (e.value.violations[0].pointer, e.value.reason) == (pointer, reason)


def test_a_component_without_its_contents_is_an_error() -> None:
    records = COMPONENT.to_records(_components()[:1])
    with pytest.raises(AdapterError) as e:
        COMPONENT.from_records(records[:3])
    assert e.value.violations[0].pointer == "/0/native/record/memory_contents"
    with pytest.raises(AdapterError):
        COMPONENT.from_records(records[1:])


def test_the_comparison_catches_losses() -> None:
    def mutated(form: Any, items: list[Any], change: Callable[[list[dict[str, Any]]], None]) -> str | None:
        records = copy.deepcopy(form.to_records(items))
        change(records)
        return exact(form.from_records(records), items)

    messages, contents, components = _messages(), _contents(), _components()
    assert mutated(LLM, messages, lambda r: None) is None
    assert mutated(LLM, messages, lambda r: _residue(r[4])["content"].pop()) is not None  # the unmapped result
    assert mutated(LLM, messages, lambda r: r[4]["message"]["content"][1]["tool_result"].pop("status")) is not None
    assert mutated(CONTENT, contents, lambda r: r[2]["custom"]["value"].update(neg_zero=0.0)) is not None
    assert mutated(CONTENT, contents, lambda r: r[2]["custom"]["value"].update(f=1)) is not None
    assert mutated(CONTENT, contents, lambda r: _residue(r[5]).pop("metadata")) is not None
    assert mutated(COMPONENT, components, lambda r: None) is None
    records = through_encodings(COMPONENT.to_records(components))["msgpack"]
    _residue(records[6]).update(model_dump_json=None)
    assert exact(COMPONENT.from_records(records), components) is not None  # the text needs what was kept
    assert_exact(COMPONENT.from_records(COMPONENT.to_records(components)), components)
