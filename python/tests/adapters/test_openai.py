"""The OpenAI forms: Responses input items and Chat Completions messages."""

from __future__ import annotations

import base64
import copy
from typing import Any

import openai_strategies as strategies
import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, exact, load, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS, AdapterError, is_generated

RESPONSES = FORMS["openai.responses_item"]
CHAT = FORMS["openai.chat_message"]

BIG_URI = "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 26).decode("ascii")


def responses_items() -> list[Any]:
    items: list[Any] = load("openai.responses_item", "conversation.json")["items"]
    return items


def chat_items() -> list[Any]:
    items: list[Any] = load("openai.chat_message", "conversation.json")["items"]
    return items


# -- The captured real output ---------------------------------------------------------------------

@pytest.mark.parametrize("form,items", [(RESPONSES, responses_items()), (CHAT, chat_items())],
                         ids=["responses_item", "chat_message"])
def test_captured_round_trip(form: Any, items: list[Any]) -> None:
    assert_round_trip(form, items, session="conv-42")
    assert_round_trip(form, items)


def test_captured_chat_keeps_member_order() -> None:
    assert_round_trip(CHAT, chat_items(), ordered=True, session="conv-42")


def test_captured_responses_member_order_of_runner_items() -> None:
    # The items the Runner writes come back in its member order.
    items = responses_items()
    back = RESPONSES.from_records(RESPONSES.to_records(items))
    for i in (0, 1, 2, 3, 4, 6, 8, 9, 10):
        assert list(back[i]) == list(items[i]), i
    assert list(back[2]) == ["arguments", "call_id", "name", "type", "id", "status"]
    assert list(back[4]) == ["arguments", "call_id", "name", "type", "id"]


@pytest.mark.parametrize("form,items", [(RESPONSES, responses_items()), (CHAT, chat_items())],
                         ids=["responses_item", "chat_message"])
def test_captured_through_the_service(service: Any, form: Any, items: list[Any]) -> None:
    assert_service_round_trip(service(), form, items, session="conv-42")


# -- Decisions ------------------------------------------------------------------------------------

def test_item_ids_are_record_ids_and_others_are_generated() -> None:
    records = RESPONSES.to_records(responses_items(), session="conv-42")
    assert [r["id"] for r in records][1:3] == ["rs_001", "fc_001"]
    assert records[6]["id"] == "msg_001"
    assert is_generated(records[0]["id"]) and is_generated(records[3]["id"])
    # The item_reference names msg_001: that is a link, not its own id.
    assert is_generated(records[12]["id"])
    assert records[12]["links"] == [{"type": "references", "target": "msg_001"}]
    assert records[12]["custom"] == {"type": "openai.responses.item_reference", "value": {"id": "msg_001"}}


def test_repeated_item_id_gets_a_generated_record_id() -> None:
    items = [{"id": "msg_1", "content": [{"type": "output_text", "text": "a", "annotations": []}],
              "role": "assistant", "status": "completed", "type": "message"}] * 2
    records = assert_round_trip(RESPONSES, copy.deepcopy(items))
    assert records[0]["id"] == "msg_1" and is_generated(records[1]["id"])
    assert records[1]["native"]["record"]["id"] == "msg_1"


def test_function_call_and_its_output() -> None:
    records = RESPONSES.to_records(responses_items())
    assert records[2]["tool_call"] == {"call_id": "call_Wx1", "name": "get_weather",
                                       "arguments": "{\"city\":\"Paris\",\"units\":\"c\"}", "status": "completed"}
    assert "native" not in records[2]
    assert records[3]["tool_result"] == {"call_id": "call_Wx1", "output": "{'temp': 18, 'sky': 'cloudy'}"}
    parts = records[5]["tool_result"]["output_parts"]
    assert [next(iter(p)) for p in parts] == ["text", "image", "file"]
    assert parts[2]["file"] == {"data": "JVBERi0xLjQK", "filename": "chart.pdf"}


def test_empty_call_id_becomes_a_custom_record() -> None:
    (record,) = RESPONSES.to_records([{"type": "function_call_output", "call_id": "", "output": ""}])
    assert record["kind"] == "custom"
    assert record["custom"] == {"type": "openai.responses.function_call_output", "value": {"call_id": "", "output": ""}}


def test_empty_text_is_kept_unmapped_in_place() -> None:
    records = RESPONSES.to_records(responses_items())
    user = records[7]
    assert len(user["message"]["content"]) == 6
    assert user["native"]["record"]["content"][6] == {"$unmapped": {"type": "input_text", "text": ""}}


def test_reasoning_item() -> None:
    record = RESPONSES.to_records(responses_items())[1]
    assert record["message"] == {"role": "assistant", "content": [
        {"reasoning": {"summary": ["Need the weather tool."], "encrypted_content": "gAAAAB-opaque=="}}]}
    items = [{"id": "rs_2", "summary": [], "type": "reasoning", "content": [
        {"text": "step 1", "type": "reasoning_text"}, {"text": "", "type": "reasoning_text"}],
        "encrypted_content": None, "status": "in_progress"}]
    assert_round_trip(RESPONSES, items, ordered=True)


def test_large_inline_image_is_data_and_media_type() -> None:
    assert len(BIG_URI) > 8192
    items = [{"role": "user", "content": [{"type": "input_image", "image_url": BIG_URI, "detail": "auto"}]}]
    records = assert_round_trip(RESPONSES, items)
    image = records[0]["message"]["content"][0]["image"]
    assert image["media_type"] == "image/png" and "uri" not in image
    chat = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": BIG_URI, "detail": "low"}}]}]
    records = assert_round_trip(CHAT, chat, ordered=True)
    assert "data" in records[0]["message"]["content"][0]["image"]


def test_unrepresentable_uri_is_kept_and_the_element_unmapped() -> None:
    long_url = "https://example.org/" + "a" * 9000
    items = [{"role": "user", "content": [
        {"type": "input_image", "image_url": long_url, "detail": "auto"},
        {"type": "input_image", "image_url": long_url, "file_id": "file-1", "detail": "auto"},
        {"type": "input_image", "image_url": "not a uri", "detail": "low"},
        {"type": "input_file", "file_data": "not base64!", "filename": "x.txt"}]}]
    records = assert_round_trip(RESPONSES, items, ordered=True)
    content = records[0]["message"]["content"]
    assert content == [{"image": {"file_id": "file-1", "detail": "auto"}}]
    assert records[0]["native"]["record"]["content"][1]["image_url"] == long_url


def test_values_beyond_the_value_model_in_the_residue() -> None:
    items = [{"arguments": "{}", "call_id": "c1", "name": "f", "type": "function_call",
              "x_big": 2**70, "x_bytes": b"\x00\xff", "$ref": "#"}]
    records = assert_round_trip(RESPONSES, items)
    assert records[0]["native"]["record"] == {"x_big": {"$bigint": str(2**70)}, "x_bytes": {"$bytes": "AP8="},
                                              "$ref": "#"}
    # A residue that is one member starting with "$" is not read as a tag.
    only = [{"arguments": "{}", "call_id": "c1", "name": "f", "type": "function_call", "$ref": "#"}]
    records = assert_round_trip(RESPONSES, only)
    assert records[0]["native"]["record"] == {"$map": {"$ref": "#"}}


def test_empty_and_null_members_survive() -> None:
    items: list[Any] = [
        {"content": "", "role": "user"},
        {"role": "user", "content": [], "type": "message"},
        {"id": "m1", "content": [{"annotations": [], "text": "t", "type": "output_text"}], "role": "assistant",
         "status": "completed", "type": "message", "phase": None},
        {"arguments": "", "call_id": "c", "name": "n", "type": "function_call"},
        {"call_id": "c", "output": [], "type": "function_call_output"},
        {"call_id": "c", "output": "", "type": "function_call_output"},
    ]
    assert_round_trip(RESPONSES, items, ordered=True)
    chat: list[Any] = [
        {"role": "user", "content": ""},
        {"role": "assistant", "content": None, "tool_calls": []},
        {"role": "assistant"},
        {"role": "assistant", "refusal": None, "content": "x", "name": "bot"},
        {"role": "assistant", "refusal": "no",
         "content": [{"type": "text", "text": "a"}, {"type": "refusal", "refusal": "no"}]},
        {"role": "tool", "tool_call_id": "c1", "content": ""},
        {"role": "function", "content": "1", "name": "f"},
        {"role": "system", "content": [{"type": "input_audio", "input_audio": {"data": "AA==", "format": "wav"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}},
            {"id": "", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
    ]
    assert_round_trip(CHAT, chat, ordered=True)


def test_unknown_item_types_are_custom_records() -> None:
    items = [{"id": "ws_1", "status": "completed", "type": "web_search_call", "action": {"type": "search"}}]
    records = assert_round_trip(RESPONSES, items)
    assert records[0]["id"] == "ws_1"
    assert records[0]["custom"]["type"] == "openai.responses.web_search_call"


@pytest.mark.parametrize("items,pointer,reason", [
    ([{"role": "critic", "content": "x"}], "/0/role", "UNSUPPORTED_ITEM"),
    ([{"content": "x"}], "/0/type", "MISSING_MEMBER"),
    ([{"type": "message", "content": "x"}], "/0/role", "MISSING_MEMBER"),
    ([{"content": "a", "role": "user"}, {"role": "user", "content": 3}], "/1/content", "TYPE_MISMATCH"),
    (["text"], "/0", "TYPE_MISMATCH"),
    ([{"type": "Web Search"}], "/0/type", "UNSUPPORTED_ITEM"),
    ([{"role": "user", "content": [{"type": "input_text", "text": "x", "extra": {1, 2}}]}],
     "/0/content/0/extra", "NOT_REPRESENTABLE"),
])
def test_errors_point_into_the_items(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        RESPONSES.to_records(items)
    assert e.value.violations[0].pointer == pointer
    assert e.value.violations[0].reason == reason


@pytest.mark.parametrize("items,pointer", [
    ([{"role": "wizard", "content": "x"}], "/0/role"),
    ([{"content": "x"}], "/0/role"),
    ([{"role": "user", "content": 1}], "/0/content"),
])
def test_chat_errors_point_into_the_items(items: list[Any], pointer: str) -> None:
    with pytest.raises(AdapterError) as e:
        CHAT.to_records(items)
    assert e.value.violations[0].pointer == pointer


# -- Records of other producers ---------------------------------------------------------------

NEUTRAL = [
    {"specversion": "1.0", "id": "hum-1", "kind": "message", "sequence": 3,
     "message": {"role": "user", "content": [{"text": {"text": "Weather in Oslo?"}}]},
     "native": {"framework": "langchain", "format": "langchain.messages_to_dict", "record": {"type": "human"}}},
    {"specversion": "1.0", "id": "ai-1", "kind": "message", "sequence": 4,
     "message": {"role": "assistant", "content": [
         {"tool_call": {"call_id": "call_9", "name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]}},
    {"specversion": "1.0", "id": "urn:uuid:00000000-0000-5000-8000-000000000000", "kind": "tool_result",
     "sequence": 5, "tool_result": {"call_id": "call_9", "output": "3 C"}},
    {"specversion": "1.0", "id": "ai-2", "kind": "message", "sequence": 6,
     "message": {"role": "assistant", "content": [{"text": {"text": "3 C in Oslo."}}]}},
]


def test_chat_reads_records_of_another_producer() -> None:
    shuffled = [NEUTRAL[2], NEUTRAL[0], NEUTRAL[3], NEUTRAL[1]]
    assert_exact(CHAT.from_records(shuffled), [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "weather", "arguments": "{\"city\":\"Oslo\"}"}}]},
        {"role": "tool", "tool_call_id": "call_9", "content": "3 C"},
        {"role": "assistant", "content": "3 C in Oslo."},
    ])


def test_chat_gathers_tool_call_records_into_one_assistant_message() -> None:
    # Responses keeps each call as an item of its own; Chat Completions keeps
    # the calls made together in the assistant message that made them.
    calls = [{"specversion": "1.0", "id": f"fc_{n}", "kind": "tool_call", "sequence": 2 + n,
              "tool_call": {"call_id": f"call_{n}", "name": "weather", "arguments": f"{{\"n\":{n}}}"}}
             for n in (1, 2)]
    back = CHAT.from_records([NEUTRAL[0], *calls, NEUTRAL[3]])
    assert_exact(back, [
        {"role": "user", "content": "Weather in Oslo?"},
        {"role": "assistant", "tool_calls": [
            {"id": f"call_{n}", "type": "function", "function": {"name": "weather", "arguments": f"{{\"n\":{n}}}"}}
            for n in (1, 2)]},
        {"role": "assistant", "content": "3 C in Oslo."},
    ])
    assert len(CHAT.from_records(calls)) == 1


def test_responses_reads_records_of_another_producer() -> None:
    tool_call = {"specversion": "1.0", "id": "fc_9", "kind": "tool_call", "sequence": 5,
                 "tool_call": {"call_id": "call_9", "name": "weather", "arguments": "{}"}}
    back = RESPONSES.from_records([NEUTRAL[0], tool_call, NEUTRAL[2], NEUTRAL[3]])
    assert_exact(back, [
        {"id": "hum-1", "content": "Weather in Oslo?", "role": "user"},
        {"arguments": "{}", "call_id": "call_9", "name": "weather", "type": "function_call", "id": "fc_9"},
        {"call_id": "call_9", "output": "3 C", "type": "function_call_output"},
        {"id": "ai-2", "content": "3 C in Oslo.", "role": "assistant"},
    ])


def test_chat_records_read_as_responses_items_and_back() -> None:
    # A conversation moves between the two OpenAI forms through the neutral fields.
    records = CHAT.to_records(chat_items()[:3])
    items = RESPONSES.from_records(records[:1] + records[2:])
    assert items[0] == {"content": "What's the weather in Paris?", "role": "user"}
    assert items[1]["type"] == "function_call_output"


# -- The comparison can fail ------------------------------------------------------------------

@pytest.mark.parametrize("mutate", [
    lambda r: r[0]["message"]["content"][0]["text"].update(text="What's the weather in Pari?"),
    lambda r: r[2]["tool_call"].update(arguments="{\"city\": \"Paris\",\"units\":\"c\"}"),
    lambda r: r[6]["native"]["record"]["content"][0].update(logprobs=None),
    lambda r: r[7]["native"]["record"]["content"].pop(),
    lambda r: r[1]["message"]["content"][0]["reasoning"].update(encrypted_content="gAAAAB-opaque="),
    lambda r: r[8].update(id="urn:uuid:" + "0" * 8 + "-0000-5000-8000-" + "0" * 12),
    lambda r: r.reverse(),
])
def test_mutations_are_caught(mutate: Any) -> None:
    items = responses_items()
    records = RESPONSES.to_records(items)
    decoded = through_encodings(records)["json"]
    assert exact(RESPONSES.from_records(decoded), items) is None
    mutate(decoded)
    assert exact(RESPONSES.from_records(decoded), items) is not None


def test_a_message_of_another_producer_with_tool_parts_gives_several_items() -> None:
    # AgentScope-style: the call and its result are blocks of messages.
    records = [
        {"specversion": "1.0", "id": "m-1", "kind": "message", "message": {"role": "assistant", "content": [
            {"reasoning": {"text": "Need the tool."}}, {"text": {"text": "Checking."}},
            {"tool_call": {"call_id": "c-1", "name": "clock", "arguments": "{}"}}]}},
        {"specversion": "1.0", "id": "m-2", "kind": "message", "message": {"role": "user", "content": [
            {"tool_result": {"call_id": "c-1", "output": "12:00"}}, {"text": {"text": "Thanks."}}]}},
    ]
    assert_exact(RESPONSES.from_records(records), [
        {"id": "m-1", "summary": [], "type": "reasoning",
         "content": [{"text": "Need the tool.", "type": "reasoning_text"}]},
        {"content": "Checking.", "role": "assistant"},
        {"arguments": "{}", "call_id": "c-1", "name": "clock", "type": "function_call"},
        {"id": "m-2", "call_id": "c-1", "output": "12:00", "type": "function_call_output"},
        {"content": "Thanks.", "role": "user"},
    ])
    assert_exact(CHAT.from_records(records[1:]), [
        {"role": "tool", "tool_call_id": "c-1", "content": "12:00"},
        {"role": "user", "content": "Thanks."},
    ])


# -- Any item of these shapes, whatever its values ----------------------------------------------

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(strategies.items, max_size=4))
def test_any_item_of_these_shapes_round_trips(items: list[Any]) -> None:
    try:
        records = RESPONSES.to_records(items)
    except AdapterError:
        return  # refused with a pointer: nothing was lost silently
    for decoded in through_encodings(records).values():
        assert_exact(RESPONSES.from_records(decoded), items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(strategies.chat, max_size=4))
def test_any_chat_message_of_these_shapes_round_trips(items: list[Any]) -> None:
    try:
        records = CHAT.to_records(items)
    except AdapterError:
        return
    for decoded in through_encodings(records).values():
        assert_exact(CHAT.from_records(decoded), items)
