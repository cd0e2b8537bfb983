"""The Agency Swarm form: the flat thread list of save_threads_callback."""

from __future__ import annotations

import copy
from typing import Any

import openai_strategies as strategies
import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, exact, load, through_encodings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS, AdapterError, is_generated

THREAD = FORMS["agency_swarm.thread_message"]


def thread() -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = load("agency_swarm.thread_message", "agency_run.json")["items"]
    return items


def test_captured_round_trip() -> None:
    assert_round_trip(THREAD, thread(), ordered=True, session="chat-1")
    assert_round_trip(THREAD, thread(), ordered=True)


def test_captured_through_the_service(service: Any) -> None:
    assert_service_round_trip(service(), THREAD, thread(), ordered=True, session="chat-1")


def test_routing_runs_and_times() -> None:
    records = THREAD.to_records(thread(), session="chat-1")
    user, sub = records[0], records[1]
    assert user["routing"] == {"agent": "CEO", "trace_id": "trace_6b9f15c40b684c1c9c74e45eff1e5bef"}
    assert user["scope"] == {"session": "chat-1", "run": "agent_run_bedc25e6f3eb4f12b3d06f863fffc830"}
    assert user["created_at"] == "2026-05-04T12:30:15.124456Z"
    assert user["extensions"] == {"agency-swarm.history_protocol": "responses"}
    # parent_run_id is the send_message call id, kept as Agency Swarm wrote it.
    assert sub["routing"]["caller_agent"] == "CEO" and sub["routing"]["parent_run"] == "call_send_1"
    assert records[3]["id"] == "fc_ceo_1" and records[3]["kind"] == "tool_call"
    assert is_generated(records[0]["id"]) and records[2]["id"] == "msg_dev_1"


def test_storage_order_is_kept_over_timestamp_order() -> None:
    items = thread()
    stamps = [m["timestamp"] for m in items]
    assert stamps != sorted(stamps)
    back = THREAD.from_records(THREAD.to_records(items))
    assert [m["timestamp"] for m in back] == stamps


def test_file_search_call_and_preservation_message() -> None:
    records = THREAD.to_records(thread())
    fs = records[5]
    assert fs["tool_call"] == {"call_id": "fs_ceo_1", "name": "file_search",
                               "arguments": "{\"queries\":[\"login policy\"]}",
                               "tool_type": "file_search", "status": "completed"}
    assert fs["native"]["record"] == {"results": [{"file_id": "file-pol", "filename": "policy.md", "score": 0.87,
                                                   "text": "Use SSO."}]}
    preserved = records[7]
    assert preserved["extensions"]["agency-swarm.message_origin"] == "file_search_preservation"
    assert "run" not in preserved.get("scope", {}) and "trace_id" not in preserved["routing"]


def test_citations() -> None:
    record = THREAD.to_records(thread())[6]
    assert record["message"]["citations"] == [{"type": "file_citation", "file_id": "file-pol", "filename": "policy.md",
                                               "index": 33}]
    assert record["native"]["record"]["citations"] == [{"method": "direct_file"}]


def test_sentinel_trace_id_is_no_trace() -> None:
    items = [{"content": "sub task", "role": "user", "agent": "Dev", "callerAgent": "CEO", "agent_run_id": "r2",
              "parent_run_id": "call_1", "run_trace_id": "no-op", "history_protocol": "responses",
              "timestamp": 1777897815125456, "type": "message"},
             {"content": "x", "role": "user", "agent": "Dev", "callerAgent": "CEO", "run_trace_id": "",
              "timestamp": 0, "type": "message"}]
    records = assert_round_trip(THREAD, items, ordered=True)
    assert "trace_id" not in records[0]["routing"]
    assert records[0]["native"]["record"]["run_trace_id"] == "no-op"
    assert records[1]["created_at"] == "1970-01-01T00:00:00Z"


def test_unusual_members_survive() -> None:
    items: list[Any] = [
        {"content": "a", "role": "user", "agent": None, "callerAgent": "", "timestamp": -5, "type": "message"},
        {"content": "c", "role": "user", "agent": "A", "callerAgent": None, "timestamp": 2**63, "type": "message"},
        {"content": "b", "role": "user", "agent": "A", "callerAgent": None, "timestamp": 2**70,
         "message_origin": {"k": [1, 2.0]}, "type": "message"},
        {"arguments": "{}", "call_id": "c", "name": "f", "type": "function_call", "citations": [],
         "agent": "A", "callerAgent": None, "timestamp": 1},
    ]
    assert_round_trip(THREAD, items)


@pytest.mark.parametrize("mutate", [
    lambda r: r[1]["routing"].update(caller_agent="Dev"),
    lambda r: r[2]["scope"].update(run="agent_run_other"),
    lambda r: r[7].update(created_at="2026-05-04T12:30:15.127457Z"),
    lambda r: r[6]["native"]["record"]["citations"][0].update(method="vector"),
    lambda r: r[7]["extensions"].pop("agency-swarm.message_origin"),
    lambda r: r.insert(0, r.pop(7)),
])
def test_mutations_are_caught(mutate: Any) -> None:
    items = thread()
    decoded = through_encodings(THREAD.to_records(items))["protobuf"]
    assert exact(THREAD.from_records(decoded), items) is None
    mutate(decoded)
    assert exact(THREAD.from_records(decoded), items) is not None


@pytest.mark.parametrize("items,scope,pointer,reason", [
    ([{"content": "a", "role": "user", "callerAgent": None, "timestamp": 1, "type": "message"}], {}, "/0/agent",
     "MISSING_MEMBER"),
    ([{"content": "a", "role": "user", "agent": "A", "timestamp": 1, "type": "message"}], {}, "/0/callerAgent",
     "MISSING_MEMBER"),
    ([{"content": "a", "role": "user", "agent": "A", "callerAgent": None, "type": "message"}], {}, "/0/timestamp",
     "MISSING_MEMBER"),
    ([{"content": "a", "role": "user", "agent": "A", "callerAgent": None, "timestamp": 1}], {}, "/0/type",
     "MISSING_MEMBER"),
    ([{"content": "a", "role": "critic", "agent": "A", "callerAgent": None, "timestamp": 1, "type": "message"}], {},
     "/0/role", "UNSUPPORTED_ITEM"),
    ([], {"run": "r"}, "/scope/run", "UNSUPPORTED_ITEM"),
])
def test_errors(items: list[Any], scope: dict[str, Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        THREAD.to_records(items, **scope)
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == (pointer, reason)


def test_reads_records_of_another_producer() -> None:
    neutral = [
        {"specversion": "1.0", "id": "m-2", "kind": "message", "sequence": 8, "created_at": "2026-05-04T12:30:16Z",
         "message": {"role": "assistant", "content": [{"text": {"text": "Done."}}]},
         "routing": {"agent": "Analyst", "caller_agent": "Manager"}},
        {"specversion": "1.0", "id": "urn:uuid:7d1b5c59-5f2a-5c3e-9d0e-0b3f3d6f1a11", "kind": "message",
         "sequence": 7, "created_at": "2026-05-04T12:30:15.5Z", "scope": {"run": "run-1"},
         "message": {"role": "user", "content": [{"text": {"text": "Do it."}}]}, "routing": {"agent": "Analyst"}},
    ]
    assert_exact(THREAD.from_records(copy.deepcopy(neutral)), [
        {"content": "Do it.", "role": "user", "agent": "Analyst", "callerAgent": None, "agent_run_id": "run-1",
         "timestamp": 1777897815500000, "type": "message"},
        {"id": "m-2", "content": "Done.", "role": "assistant", "agent": "Analyst", "callerAgent": "Manager",
         "timestamp": 1777897816000000},
    ])


def test_a_thread_read_as_openai_agents_session_items() -> None:
    # The same conversation, as records, read by another Responses-based form.
    session = FORMS["openai_agents.session_item"].from_records(THREAD.to_records(thread()))
    assert session[3] == {"arguments": thread()[3]["arguments"], "call_id": "call_send_1", "name": "send_message",
                          "type": "function_call", "id": "fc_ceo_1", "status": "completed"}
    assert session[5]["type"] == "file_search_call" and session[5]["queries"] == ["login policy"]


def test_a_message_with_tool_calls_of_another_producer_gives_several_items() -> None:
    # A LangChain-style assistant message: text, then a tool call, in one record.
    record = {"specversion": "1.0", "id": "ai-7", "kind": "message", "created_at": "2026-05-04T12:30:16Z",
              "message": {"role": "assistant", "content": [
                  {"text": {"text": "Let me look."}},
                  {"tool_call": {"call_id": "call_3", "name": "lookup", "arguments": "{}"}}]},
              "routing": {"agent": "CEO"}}
    meta = {"agent": "CEO", "callerAgent": None, "timestamp": 1777897816000000}
    assert_exact(THREAD.from_records([record]), [
        {"id": "ai-7", "content": "Let me look.", "role": "assistant", **meta},
        {"arguments": "{}", "call_id": "call_3", "name": "lookup", "type": "function_call", **meta},
    ])


# -- Any thread message of these shapes, whatever its values ------------------------------------

_meta = st.fixed_dictionaries(
    {"agent": strategies.v, "callerAgent": st.none() | strategies.v, "timestamp": st.integers() | strategies.v},
    optional={"agent_run_id": strategies.v, "parent_run_id": strategies.v,
              "run_trace_id": st.sampled_from(["no-op", "", "trace_1"]) | strategies.v,
              "history_protocol": strategies.v, "message_origin": strategies.v,
              "citations": st.lists(strategies.shaped("file_citation", {"file_id": strategies.v, "index": strategies.v,
                                                                        "method": strategies.v}), max_size=2)
              | strategies.v})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(strategies.items, _meta).map(lambda p: {**p[0], **p[1]}), max_size=4))
def test_any_thread_message_of_these_shapes_round_trips(items: list[Any]) -> None:
    try:
        records = THREAD.to_records(items)
    except AdapterError:
        return
    for decoded in through_encodings(records).values():
        assert_exact(THREAD.from_records(decoded), items)
