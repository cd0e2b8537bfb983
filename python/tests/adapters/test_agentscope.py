"""agentscope.msg: AgentScope 1.x and 2.x messages (spec/v1/adapters/agentscope.md)."""

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
    captured,
    exact,
    load,
    through_encodings,
)

from memorywire.adapters import FORMS, AdapterError, is_generated, is_unmapped

FORM = FORMS["agentscope.msg"]


def _items(filename: str) -> list[Any]:
    items = load("agentscope.msg", filename)["items"]
    # A state_dict() and an AgentState text are one item each.
    return [items] if filename.startswith(("v1_memory_state", "v2_agent_state")) else list(items)


def _v1() -> list[dict[str, Any]]:
    return _items("v1_messages.json")


def _v2() -> list[dict[str, Any]]:
    return _items("v2_messages.json")


def _residue(record: dict[str, Any]) -> Any:
    return record["native"]["record"]


@pytest.mark.parametrize("filename", captured("agentscope.msg"))
def test_captured_output_round_trips(filename: str) -> None:
    assert_round_trip(FORM, _items(filename), user="u-1")


def test_state_dict_pairs_round_trip() -> None:
    state = _items("v1_memory_state.json")[0]
    records = assert_round_trip(FORM, state["content"])
    assert [r.get("tags") for r in records] == [None, None, None, ["tool", "hint"], ["tool", "hint"]]


@pytest.mark.parametrize("filename", captured("agentscope.msg"))
def test_captured_output_through_the_service(service: Callable[[], Any], filename: str) -> None:
    assert_service_round_trip(service(), FORM, _items(filename), session="s-1")


def test_versions_are_told_apart_and_kept() -> None:
    v1 = FORM.to_records(_v1())
    v2 = FORM.to_records(_v2())
    # A 1.x record always keeps its timestamp text; a 2.x record never has one.
    assert all("timestamp" in _residue(r) for r in v1)
    assert all("timestamp" not in r.get("native", {}).get("record", {}) for r in v2)
    assert v1[0]["created_at"] == "2026-05-04T12:30:15.123Z"
    assert v2[0]["created_at"] == "2026-05-04T12:30:15.124456Z"
    assert "created_at" not in _residue(v2[0])  # isoformat() of the instant gives it back
    both = dict(_v2()[0], timestamp="2026-05-04 12:30:15.123")
    with pytest.raises(AdapterError) as e:
        FORM.to_records([_v2()[0], both])
    assert e.value.violations[0].pointer == "/1"


def test_ids_and_repeated_ids() -> None:
    items = _v1()[:2] + [copy.deepcopy(_v1()[0])]
    records = assert_round_trip(FORM, items)
    assert records[0]["id"] == "M4K8DXgdhQ8AmWFVu9Bmng"
    assert "id" not in _residue(records[0])
    assert is_generated(records[2]["id"])
    assert _residue(records[2])["id"] == "M4K8DXgdhQ8AmWFVu9Bmng"
    assert FORM.to_records(items) == records  # the same list gives the same ids


def test_v2_blocks_map_to_parts() -> None:
    records = FORM.to_records(_v2())
    user = records[1]["message"]["content"]
    assert user[1] == {"id": "53d23c0bdf434fb299fcfc64e7aa8576",
                       "image": {"data": _v2()[1]["content"][1]["source"]["data"],
                                 "media_type": "image/png", "filename": "photo.png"}}
    assert user[2] == {"id": "06e82a012b5c4cd1a7ca430e92ac3d42",
                       "audio": {"uri": "https://example.org/a.wav", "media_type": "audio/wav"}}
    # The empty text block yields no part and stays in the residue at its place.
    assert len(user) == 3 and _residue(records[1])["content"][3] == {"$unmapped": _v2()[1]["content"][3]}
    reply = records[2]
    parts = reply["message"]["content"]
    kinds = [next(k for k in p if k != "id") for p in parts]
    assert kinds == ["reasoning", "tool_call", "tool_result", "tool_call", "tool_result", "text"]
    entries = _residue(reply)["content"]
    assert [is_unmapped(e) for e in entries] == [False, True, True, False, False, False, False, False]
    assert parts[1]["tool_call"] == {"call_id": "call_1", "name": "describe_image",
                                     "arguments": '{"detail": "high"}', "status": "completed"}
    assert parts[3]["tool_call"]["arguments"] == "{partial"  # invalid JSON, kept as given
    assert parts[3]["tool_call"]["status"] == "pending"
    assert parts[2]["tool_result"]["call_id"] == parts[1]["tool_call"]["call_id"] == "call_1"
    assert parts[2]["tool_result"]["status"] == "success"
    assert parts[4]["tool_result"] == {"call_id": "call_2", "name": "transcribe", "output": "denied by user",
                                       "status": "denied"}
    assert reply["extensions"] == {
        "agentscope.usage": {"input_tokens": 120, "output_tokens": 30, "cache_input_tokens": 0,
                             "cache_creation_input_tokens": 0},
        "agentscope.finished_reason": "completed",
        "agentscope.structured_output": {"animal": "cat", "count": 1, "score": 0.5},
    }
    assert records[3]["extensions"]["agentscope.error"] == {"type": "rate_limit", "message": "429 Too Many Requests"}
    assert records[1]["metadata"] == {"channel": "web", "big": {"$bigint": "9223372036854775809"}}


def test_v1_blocks_map_to_parts() -> None:
    records = FORM.to_records(_v1())
    assert records[0]["message"] == {"role": "system", "name": "system",
                                     "content": [{"text": {"text": "You are Friday."}}]}
    assert "content" not in _residue(records[0])  # a string content
    call = records[2]["message"]["content"][1]["tool_call"]
    assert call == {"call_id": "call_1", "name": "describe", "arguments": '{"detail": "high", "n": 1.0}'}
    assert _residue(records[2])["content"][1] == {"input": {"detail": "high", "n": 1.0}}
    result = records[3]["message"]["content"][0]["tool_result"]
    assert result["output_parts"] == [{"text": {"text": "A cat."}}, {"image": {"uri": "https://example.org/c.png"}}]
    assert records[1]["message"]["content"][3] == {"video": {"uri": "file:///tmp/clip.mp4"}}


def test_v1_tool_use_without_raw_input() -> None:
    msg = copy.deepcopy(_v1()[2])
    del msg["content"][1]["raw_input"]
    records = assert_round_trip(FORM, [msg])
    part = records[0]["message"]["content"][1]["tool_call"]
    assert part["arguments"] == '{"detail":"high","n":1.0}'  # canonical JSON of input
    assert _residue(records[0])["content"][1]["raw_input"] is None


def test_large_and_odd_media() -> None:
    with open(__file__.rsplit("/", 1)[0] + "/data/langchain.messages_to_dict/conversation.json", encoding="utf-8") as f:
        big = next(u for u in _urls(json.load(f)) if len(u) > 8192)
    msg = copy.deepcopy(_v2()[1])
    msg["content"][2]["source"]["url"] = big
    msg["content"].append(dict(msg["content"][2], id="x", source={"type": "url", "url": "https://e.org/" + "a" * 9000,
                                                                  "media_type": "image/png"}))
    msg["content"].append(dict(msg["content"][1], id="", source={"type": "base64", "data": "AAE",
                                                                 "media_type": "image/png"}))
    records = assert_round_trip(FORM, [msg])
    parts = records[0]["message"]["content"]
    assert parts[2]["image"]["data"] == big.split(",", 1)[1] and parts[2]["image"]["media_type"] == "image/png"
    assert _residue(records[0])["content"][2]["source"] == {"type": "url", "media_type": "audio/wav"}
    assert [is_unmapped(e) for e in _residue(records[0])["content"]][-2:] == [True, True]


def _urls(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [u for v in node.values() for u in _urls(v)]
    if isinstance(node, list):
        return [u for v in node for u in _urls(v)]
    return [node] if isinstance(node, str) and node.startswith("data:") else []


def test_marks_that_are_not_tags_stay_in_the_residue() -> None:
    msg = _v1()[0]
    pairs = [[msg, ["a", "a"]], [copy.deepcopy(msg), [""]], [copy.deepcopy(msg), []]]
    records = assert_round_trip(FORM, pairs)
    assert [_residue(r)[1] for r in records] == [["a", "a"], [""], None]
    assert all("tags" not in r for r in records)


def test_agent_state_text() -> None:
    text = _items("v2_agent_state_json.json")[0]
    records = FORM.to_records([text], user="u-1")
    head = records[0]
    assert head["kind"] == "summary" and head["summary"] == {"text": "Earlier: greetings."}
    assert head["scope"] == {"user": "u-1", "session": "session-1"}
    assert _residue(head)["context"] == 2 and len(records) == 3
    assert [r["id"] for r in records[1:]] == ["26b563b1e7944e14a1454c40c439f34a", "7972a36d51b34a6ca0050ed31a6e72b9"]
    # metadata member order is not carried by a Value map: the text is kept.
    assert _residue(head)["model_dump_json"] == text
    # A neutral field changed since: the text is written again from the neutral fields.
    changed = copy.deepcopy(records)
    changed[0]["summary"]["text"] = "Later: farewells."
    again = FORM.from_records(changed)[0]
    assert json.loads(again)["summary"] == "Later: farewells."
    assert json.loads(again)["context"] == json.loads(text)["context"]


def test_agent_state_text_rebuilt_exactly_keeps_no_text() -> None:
    state = json.loads(_items("v2_agent_state_json.json")[0])
    state["context"][1]["metadata"] = {"big": 9223372036854775809, "channel": "web"}
    text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
    records = assert_round_trip(FORM, [text])
    assert "model_dump_json" not in _residue(records[0])


def test_empty_summary_and_state_dict() -> None:
    state = _items("v1_memory_state.json")[0]
    state["_compressed_summary"] = ""
    records = assert_round_trip(FORM, [state, _v2()[0]])
    assert records[0]["kind"] == "custom" and records[0]["custom"] == {"type": "agentscope.memory_state",
                                                                        "value": None}
    assert len(records) == 7


def test_updated_content_wins_over_the_residue() -> None:
    records = FORM.to_records(_v2()[:2])
    records[1]["message"]["content"] = [{"text": {"text": "Replaced."}}]
    msg = FORM.from_records(records)[1]
    assert [b["type"] for b in msg["content"]] == ["text"]
    assert msg["content"][0]["text"] == "Replaced."
    assert msg["metadata"] == {"channel": "web", "big": 9223372036854775809}


def test_records_of_other_producers() -> None:
    records = [
        {"specversion": "1.0", "id": "m1", "kind": "message", "created_at": "2026-05-04T12:30:15Z",
         "message": {"role": "user", "name": "ana", "content": [{"text": {"text": "Weather in Oslo?"}}]},
         "native": {"framework": "langchain", "format": "langchain.messages_to_dict", "record": {"type": "human"}}},
        {"specversion": "1.0", "id": "c1", "kind": "tool_call",
         "tool_call": {"call_id": "call_9", "name": "weather", "arguments": "{\"city\":\"Oslo\"}"}},
        {"specversion": "1.0", "id": "r1", "kind": "tool_result",
         "tool_result": {"call_id": "call_9", "output": "4 C", "status": "success"}},
        {"specversion": "1.0", "id": "m2", "kind": "message",
         "message": {"role": "developer", "content": [{"reasoning": {"text": "short"}},
                                                      {"image": {"uri": "https://e.org/i.png"}}]}},
    ]
    msgs = FORM.from_records(records)
    assert msgs[0] == {"name": "ana", "content": [{"type": "text", "text": "Weather in Oslo?", "id": "",
                                                   "created_at": "", "finished_at": None}],
                       "role": "user", "id": "m1", "metadata": {}, "created_at": "2026-05-04T12:30:15",
                       "usage": None, "finished_at": None, "finished_reason": None, "structured_output": None,
                       "error": None}
    assert msgs[1]["role"] == "assistant"
    assert msgs[1]["content"] == [{"type": "tool_call", "id": "call_9", "name": "weather",
                                   "input": "{\"city\":\"Oslo\"}", "state": "pending", "suggested_rules": [],
                                   "created_at": "", "finished_at": None}]
    assert msgs[2]["content"][0]["output"] == "4 C" and msgs[2]["content"][0]["state"] == "success"
    assert msgs[3]["role"] == "system"
    assert [b["type"] for b in msgs[3]["content"]] == ["thinking", "data"]
    assert msgs[3]["content"][1]["source"] == {"type": "url", "url": "https://e.org/i.png",
                                               "media_type": "application/octet-stream"}
    # A memory of another kind is a system message with its text.
    memories = FORM.from_records([
        {"specversion": "1.0", "id": "f", "kind": "fact", "fact": {"text": "Likes tea."}},
        {"specversion": "1.0", "id": "c", "kind": "custom", "custom": {"type": "t", "value": {"n": 1}}},
    ])
    assert [(m["role"], [b["text"] for b in m["content"]]) for m in memories] == \
        [("system", ["Likes tea."]), ("system", ['{"n":1}'])]
    with pytest.raises(AdapterError) as e:
        FORM.from_records([records[0], {"specversion": "1.0", "id": "f", "kind": "fact",
                                        "encrypted": {"algorithm": "A256GCM", "ciphertext": "AAE="}}])
    assert (e.value.violations[0].pointer, e.value.reason) == ("/1/fact", "NOT_REPRESENTABLE")


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    ([{"id": "a", "name": "n", "role": "tool", "content": "x", "metadata": {}, "timestamp": "2026-05-04 12:30:15.123"}],
     "/0/role", "UNSUPPORTED_ITEM"),
    ([{"id": "a", "name": "n", "role": "user", "content": 3, "metadata": {}, "timestamp": "2026-05-04 12:30:15.123"}],
     "/0/content", "TYPE_MISMATCH"),
    ([{"id": "a", "name": "n", "role": "user", "metadata": {}, "timestamp": "2026-05-04 12:30:15.123"}],
     "/0/content", "MISSING_MEMBER"),
    (["{not json"], "/0", "TYPE_MISMATCH"),
    ([{"_compressed_summary": "", "content": [{"id": "x"}]}], "/0/content/0", "TYPE_MISMATCH"),
    ([{"id": "a", "name": "n", "role": "user", "content": [], "metadata": {"t": {1, 2}},
       "timestamp": "2026-05-04 12:30:15.123"}], "/0/metadata/t", "NOT_REPRESENTABLE"),
    ([7], "/0", "TYPE_MISMATCH"),
    ([dict(_v2()[0], content="a string")], "/0/content", "TYPE_MISMATCH"),
])
def test_errors_name_the_member(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        FORM.to_records(items)
    assert (e.value.violations[0].pointer, e.value.reason) == (pointer, reason)


def test_a_state_without_its_messages_is_an_error() -> None:
    records = FORM.to_records(_items("v1_memory_state.json"))
    with pytest.raises(AdapterError) as e:
        FORM.from_records(records[:3])
    assert e.value.violations[0].pointer == "/0/native/record"


def test_the_comparison_catches_losses() -> None:
    """Each mutation of a record changes what comes back, and exact() sees it."""
    items = _v1() + _v2()

    def mutated(change: Callable[[list[dict[str, Any]]], None]) -> str | None:
        records = copy.deepcopy(FORM.to_records(items))
        change(records)
        return exact(FORM.from_records(records), items)

    assert mutated(lambda r: None) is None
    assert mutated(lambda r: _residue(r[2])["content"][1]["input"].update(n=1)) is not None  # 1.0 -> 1
    assert mutated(lambda r: _residue(r[7])["content"].pop(1)) is not None  # a hint block lost
    assert mutated(lambda r: r[1]["metadata"].update(big=1)) is not None
    assert mutated(lambda r: r[6]["message"]["content"][0].update(text={"text": "What's in this?"})) \
        is not None
    text = _items("v2_agent_state_json.json")[0]
    assert exact(text.replace("\"cur_iter\":0", "\"cur_iter\":0.0"), text) is not None
    records = through_encodings(FORM.to_records([text]))["json"]
    _residue(records[0]).pop("model_dump_json")
    assert exact(FORM.from_records(records), [text]) is not None  # the metadata order needs the kept text
    assert_exact(FORM.from_records(FORM.to_records([text])), [text])
