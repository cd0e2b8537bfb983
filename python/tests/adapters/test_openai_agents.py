"""The openai-agents forms: session items and SQLiteSession rows."""

from __future__ import annotations

import json
from typing import Any

import openai_strategies as strategies
import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, exact, load, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS, AdapterError

ITEMS = FORMS["openai_agents.session_item"]
ROWS = FORMS["openai_agents.sqlite_session_row"]


def session_items() -> dict[str, Any]:
    items: dict[str, Any] = load("openai_agents.session_item", "conversation.json")["items"]
    return items


def tables() -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = load("openai_agents.sqlite_session_row", "session_tables.json")["items"]
    return found


def all_rows() -> list[dict[str, Any]]:
    t = tables()
    return t["agent_sessions"] + t["agent_messages"]


# -- The captured real output ---------------------------------------------------------------------

def test_captured_session_items() -> None:
    captured = session_items()
    assert_round_trip(ITEMS, captured["get_items"], session="conv-42")
    assert_round_trip(ITEMS, [captured["pop_item"]], session="conv-42")


def test_captured_rows_byte_for_byte() -> None:
    rows = all_rows()
    assert_round_trip(ROWS, rows, ordered=True)
    back = ROWS.from_records(through_encodings(ROWS.to_records(rows))["protobuf"])
    assert [r.get("message_data") for r in back] == [r.get("message_data") for r in rows]


def test_captured_through_the_service(service: Any) -> None:
    assert_service_round_trip(service(), ITEMS, session_items()["get_items"], session="conv-42")
    assert_service_round_trip(service(), ROWS, all_rows(), ordered=True)


# -- Decisions ------------------------------------------------------------------------------------

def test_session_items_and_rows_give_the_same_payloads() -> None:
    items = session_items()["get_items"]
    by_item = ITEMS.to_records(items, session="conv-42")
    by_row = ROWS.to_records(tables()["agent_messages"])
    for a, b in zip(by_item, by_row, strict=True):
        assert a["kind"] == b["kind"] and a[a["kind"]] == b[b["kind"]]
        assert b["scope"] == {"session": "conv-42"}
        assert b["created_at"] == "2026-05-04T12:30:15Z"
    assert [json.loads(r["message_data"]) for r in tables()["agent_messages"]] == items


def test_row_residue_keeps_the_row_id_and_only_unusual_text() -> None:
    records = ROWS.to_records(tables()["agent_messages"])
    assert records[0]["native"]["record"] == {"id": 1}
    # json.dumps of the item the neutral fields give is the row's text: nothing kept.
    assert records[2]["native"]["record"] == {"id": 3}
    assert records[6]["native"]["record"]["message_data"] == {
        "type": "message", "content": [{"type": "output_text", "logprobs": [], "annotations": [{}]}]}
    # An application wrote {"type", "call_id", "output"}: the text itself is kept.
    assert records[11]["native"]["record"]["message_data"] == tables()["agent_messages"][11]["message_data"]


def test_kept_text_is_dropped_when_the_content_changed() -> None:
    rows = tables()["agent_messages"]
    records = through_encodings(ROWS.to_records(rows))["json"]
    records[10]["message"]["content"][0]["text"]["text"] = "Be very brief."
    back = ROWS.from_records(records)
    assert json.loads(back[10]["message_data"]) == {"role": "developer", "content": "Be very brief.", "type": "message"}
    assert back[10]["message_data"] == json.dumps(json.loads(back[10]["message_data"]))


def test_session_row() -> None:
    (record,) = ROWS.to_records(tables()["agent_sessions"])
    assert record["kind"] == "custom" and record["custom"] == {"type": "openai-agents.session", "value": {}}
    assert record["scope"] == {"session": "conv-42"}
    assert (record["created_at"], record["updated_at"]) == ("2026-05-04T12:30:15Z", "2026-05-04T12:30:15Z")
    assert "native" not in record


def test_times_in_another_form_are_kept() -> None:
    rows = [{"id": 7, "session_id": "s", "message_data": "{\"content\": \"hi\", \"role\": \"user\"}",
             "created_at": "2026-05-04T12:30:15.5+02:00"},
            {"session_id": "s", "created_at": "2026-05-04 12:30:15", "updated_at": "yesterday"}]
    records = assert_round_trip(ROWS, rows, ordered=True)
    assert records[0]["created_at"] == "2026-05-04T10:30:15.500Z"
    assert records[0]["native"]["record"]["created_at"] == "2026-05-04T12:30:15.5+02:00"
    assert "updated_at" not in records[1] and records[1]["native"]["record"] == {"updated_at": "yesterday"}


def test_ascii_escapes_and_unusual_json_text() -> None:
    rows = [{"id": 1, "session_id": "s", "message_data": json.dumps({"content": "naïve ☕ 🦀", "role": "user"}),
             "created_at": "2026-05-04 12:30:15"},
            {"id": 2, "session_id": "s", "message_data": '{"content":"naïve","role":"user"}',
             "created_at": "2026-05-04 12:30:15"},
            {"id": 3, "session_id": "s", "message_data": '{"content": "big", "role": "user", "n": 1e400}',
             "created_at": "2026-05-04 12:30:15"}]
    records = assert_round_trip(ROWS, rows, ordered=True)
    assert "message_data" not in records[0]["native"]["record"]
    assert records[1]["native"]["record"]["message_data"] == rows[1]["message_data"]


@pytest.mark.parametrize("rows,pointer,reason", [
    ([{"id": 1, "session_id": "s", "message_data": "{", "created_at": "x"}], "/0/message_data", "TYPE_MISMATCH"),
    ([{"id": 1, "session_id": "s", "message_data": "[]", "created_at": "x"}], "/0/message_data", "TYPE_MISMATCH"),
    ([{"id": 1, "session_id": "s", "message_data": b"{}", "created_at": "x"}], "/0/message_data", "TYPE_MISMATCH"),
    ([{"id": 1, "session_id": "s"}], "/0", "UNSUPPORTED_ITEM"),
    ([{"id": 1, "session_id": "s", "message_data": "{\"role\": \"critic\", \"content\": \"x\"}",
       "created_at": "x"}], "/0/message_data/role", "UNSUPPORTED_ITEM"),
    ([{"id": 1, "message_data": "{}", "created_at": "x"}], "/0/session_id", "MISSING_MEMBER"),
    ([{"id": 1, "session_id": "s", "message_data": "{}"}], "/0/created_at", "MISSING_MEMBER"),
])
def test_errors_point_into_the_rows(rows: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        ROWS.to_records(rows)
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == (pointer, reason)


def test_rows_read_records_of_another_producer() -> None:
    neutral = [{"specversion": "1.0", "id": "m-1", "kind": "message", "scope": {"session": "s-9"},
                "created_at": "2026-05-04T12:30:15.25Z",
                "message": {"role": "user", "content": [{"text": {"text": "hi"}}]}}]
    assert_exact(ROWS.from_records(neutral), [
        {"session_id": "s-9", "message_data": "{\"id\": \"m-1\", \"content\": \"hi\", \"role\": \"user\"}",
         "created_at": "2026-05-04 12:30:15"}])
    assert_exact(ITEMS.from_records(neutral), [{"id": "m-1", "content": "hi", "role": "user"}])


@pytest.mark.parametrize("mutate", [
    lambda r: r[1].update(created_at="2026-05-04T12:30:16Z"),
    lambda r: r[2]["native"]["record"].update(id=20),
    lambda r: r[9]["native"]["record"]["message_data"]["content"][0].update(type="output_text"),
    lambda r: r[12]["native"]["record"].update(message_data="{\"type\": \"function_call_output\"}"),
    lambda r: r[3]["scope"].update(session="conv-43"),
])
def test_mutations_are_caught(mutate: Any) -> None:
    rows = all_rows()
    decoded = through_encodings(ROWS.to_records(rows))["msgpack"]
    assert exact(ROWS.from_records(decoded), rows, ordered=True) is None
    mutate(decoded)
    assert exact(ROWS.from_records(decoded), rows, ordered=True) is not None


def test_a_message_with_a_tool_call_of_another_producer_gives_two_rows() -> None:
    record = {"specversion": "1.0", "id": "ai-1", "kind": "message", "scope": {"session": "s-9"},
              "message": {"role": "assistant", "content": [
                  {"text": {"text": "Checking."}}, {"tool_call": {"call_id": "c-1", "name": "clock"}}]}}
    assert_exact(ROWS.from_records([record]), [
        {"session_id": "s-9", "message_data": json.dumps({"id": "ai-1", "content": "Checking.", "role": "assistant"})},
        {"session_id": "s-9", "message_data": json.dumps(
            {"arguments": "", "call_id": "c-1", "name": "clock", "type": "function_call"})},
    ])


# -- Any row of these shapes, whatever its values -----------------------------------------------

_texts = st.one_of(
    strategies.items.map(json.dumps),
    strategies.items.map(lambda item: json.dumps(item, ensure_ascii=False, separators=(",", ":"))),
    strategies.items.map(lambda item: json.dumps(dict(reversed(list(item.items()))))),
    strategies.v)
_rows = st.one_of(
    st.fixed_dictionaries({"session_id": strategies.v, "message_data": _texts, "created_at": strategies.v},
                          optional={"id": strategies.v}),
    st.fixed_dictionaries({"session_id": strategies.v, "created_at": strategies.v, "updated_at": strategies.v},
                          optional={"extra": strategies.v}),
)
_times = st.sampled_from(["2026-05-04 12:30:15", "2026-05-04T12:30:15.5+02:00", "2026-05-04 12:30:15\n"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_rows, max_size=4), st.data())
def test_any_row_of_these_shapes_round_trips(rows: list[Any], data: Any) -> None:
    for row in rows:
        if data.draw(st.booleans()):
            row["created_at"] = data.draw(_times)
    try:
        records = ROWS.to_records(rows)
    except AdapterError:
        return
    for decoded in through_encodings(records).values():
        # A row's columns are in SELECT * order; its JSON text is compared by code point.
        assert_exact(ROWS.from_records(decoded), rows)
