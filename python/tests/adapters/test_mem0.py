"""mem0 forms (spec/v1/adapters/mem0.md): the captured output of mem0ai
2.2.1, each decision, and errors with pointers."""

from __future__ import annotations

import copy
import hashlib
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
from hypothesis import given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS, AdapterError
from memorywire.validation import iter_errors

ITEM = FORMS["mem0.memory_item"]
HISTORY = FORMS["mem0.history_row"]
ADD = FORMS["mem0.add_result"]


def _items() -> dict[str, list[dict[str, Any]]]:
    d = load("mem0.memory_item", "items.json")["items"]
    return {"get": [d["get"]], "get_all": d["get_all"]["results"], "search": d["search"]["results"]}


def _history() -> dict[str, list[dict[str, Any]]]:
    d = load("mem0.history_row", "history.json")["items"]
    out = {f"history_{i}": h for i, h in enumerate(d["history"])}
    out["rows"] = d["rows"]
    return out


def _adds() -> list[list[dict[str, Any]]]:
    return [a["results"] for a in load("mem0.add_result", "adds.json")["items"]]


def _valid(records: list[dict[str, Any]]) -> None:
    for r in records:
        found = list(iter_errors(r))
        assert not found, found


def _wrapped() -> dict[str, list[Any]]:
    """What add(), get_all() and search() return: {"results": [...]}."""
    d = load("mem0.memory_item", "items.json")["items"]
    return {"adds": load("mem0.add_result", "adds.json")["items"],
            "get_get_all_search": [d["get"], d["get_all"], d["search"]]}


CAPTURED = ([(ITEM, k, v) for k, v in _items().items()] + [(HISTORY, k, v) for k, v in _history().items()]
            + [(ADD, f"add_{i}", v) for i, v in enumerate(_adds())]
            + [(ADD, "add_returns", _wrapped()["adds"]), (ITEM, "wrapped", _wrapped()["get_get_all_search"])])


@pytest.mark.parametrize(("form", "name", "items"), CAPTURED, ids=[f"{f.name}-{n}" for f, n, _ in CAPTURED])
def test_captured_output_comes_back_exactly(form: Any, name: str, items: list[Any]) -> None:
    records = assert_round_trip(form, items)
    _valid(records)
    assert_round_trip(form, items, user="someone-else", session="s-1")
    # The members come back in mem0's own order too.
    assert [list(x) for x in form.from_records(records)] == [list(x) for x in items]


@pytest.mark.parametrize(("form", "name", "items"), CAPTURED, ids=[f"{f.name}-{n}" for f, n, _ in CAPTURED])
def test_captured_output_through_the_service(service: Any, form: Any, name: str, items: list[Any]) -> None:
    assert_service_round_trip(service(), form, items, agent="travel-bot")


def test_memory_item_fields() -> None:
    item = _items()["get_all"][0]
    (record,) = ITEM.to_records([item])
    assert record["id"] == item["id"]
    assert record["kind"] == "fact" and record["fact"] == {"text": "Ann moved to Paris."}
    assert record["scope"] == {"user": "alice", "agent": "travel-bot", "run": "run-7"}
    assert record["provenance"] == {"actor": "alice", "origin": "user"}
    assert record["extensions"] == {"mem0.hash": item["hash"]}
    assert record["metadata"]["big"] == {"$bigint": "9223372036854775809"}
    assert record["metadata"]["score_hint"] == 1.0
    # +00:00 with microseconds is what isoformat() writes: nothing kept.
    assert record["created_at"] == "2026-05-04T12:30:15.124456Z"
    assert "native" not in record


def test_score_null_and_absent_and_float() -> None:
    get, search = _items()["get"][0], _items()["search"][0]
    assert ITEM.to_records([get])[0]["native"]["record"] == {"metadata": None, "score": None}
    assert ITEM.to_records([search])[0]["native"]["record"]["score"] == 0.4856063044960014
    no_score = {k: v for k, v in get.items() if k != "score"}
    assert "score" not in ITEM.to_records([no_score])[0]["native"]["record"]
    assert_round_trip(ITEM, [get, no_score, search])


@pytest.mark.parametrize("metadata", [None, {}, {"a": None}, {"$bigint": "1"}, {"$": 1, "b": -0.0},
                                      {"n": 10**30, "t": (1, 2), "b": b"\x00\xff"},
                                      {str(n): n for n in range(1001)}])
def test_metadata(metadata: Any) -> None:
    item = dict(_items()["get"][0], metadata=metadata)
    _valid(assert_round_trip(ITEM, [item]))


@pytest.mark.parametrize(("text", "kept"), [
    ("2026-05-04T12:30:15.123456+00:00", False),
    ("2026-05-04T12:30:15+00:00", False),
    ("2026-05-04T05:30:15.123456-07:00", True),   # another zone: the original kept
    ("2026-05-04T12:30:15.123456", True),          # naive
    ("2026-05-04T12:30:15.12+00:00", True),        # not what isoformat() writes
    ("yesterday", True),                           # not a time at all: kept, no created_at
])
def test_times(text: str, kept: bool) -> None:
    item = dict(_items()["get"][0], created_at=text)
    (record,) = assert_round_trip(ITEM, [item])
    assert ("created_at" in record["native"]["record"]) is kept
    assert ("created_at" in record) is (text != "yesterday")


def test_times_null_and_absent_survive_a_store_that_sets_them(service: Any) -> None:
    base = _items()["get"][0]
    items = [dict(base, created_at=None, id="a"), {k: v for k, v in base.items() if k != "updated_at"}]
    assert_service_round_trip(service(), ITEM, items)


def test_a_changed_time_wins_over_the_kept_text() -> None:
    item = dict(_items()["get"][0], created_at="2026-05-04T05:30:15.123456-07:00")
    (record,) = ITEM.to_records([item])
    record["created_at"] = "2027-01-01T00:00:00Z"
    assert ITEM.from_records([record])[0]["created_at"] == "2027-01-01T00:00:00+00:00"


def test_scope_of_the_call_and_of_the_item() -> None:
    item = _items()["get"][0]  # user_id only
    (record,) = ITEM.to_records([item], user="bob", agent="a-1", session="s")
    assert record["scope"] == {"user": "alice", "agent": "a-1", "session": "s"}
    assert record["native"]["record"]["$absent"] == ["agent_id"]
    assert_round_trip(ITEM, [item], user="bob", agent="a-1", run="r")


def test_ids_repeated_invalid_and_absent() -> None:
    item = _items()["get"][0]
    items = [item, item, dict(item, id=""), {k: v for k, v in item.items() if k != "id"},
             dict(item, id="urn:uuid:00000000-0000-5000-8000-000000000000"), dict(item, id="m-1\n")]
    records = assert_round_trip(ITEM, items)
    ids = [r["id"] for r in records]
    assert ids[0] == item["id"] and len(set(ids)) == len(ids)
    assert records[1]["native"]["record"]["id"] == item["id"]
    assert records[2]["native"]["record"]["id"] == ""
    assert "id" not in records[3]["native"]["record"]
    assert records[4]["native"]["record"]["id"] == items[4]["id"]
    assert records[5]["native"]["record"]["id"] == "m-1\n"  # a control character, even last, is no id
    _valid(records)


def test_roles_and_actor() -> None:
    item = _items()["get"][0]
    items = [dict(item, role="assistant"), dict(item, role="system"), dict(item, role=None),
             dict(item, actor_id=""), dict(item, actor_id=None), dict(item, user_id="")]
    records = assert_round_trip(ITEM, items)
    assert records[0]["provenance"] == {"origin": "agent"}
    assert records[1]["native"]["record"]["role"] == "system"
    assert records[3]["native"]["record"]["actor_id"] == ""
    records[1]["provenance"] = {"origin": "agent", "actor": "bot"}  # set since: wins over the kept role
    assert [ITEM.from_records([records[1]])[0][k] for k in ("role", "actor_id")] == ["assistant", "bot"]


def test_empty_memory_is_a_custom_record() -> None:
    item = dict(_items()["get"][0], memory="")
    (record,) = assert_round_trip(ITEM, [item])
    assert record["kind"] == "custom" and record["custom"] == {"type": "mem0.memory", "value": ""}


def test_expiration_date() -> None:
    item = _items()["get"][0]
    items = [dict(item, expiration_date="2026-06-30"), dict(item, expiration_date=None),
             dict(item, expiration_date="2026-6-30"), dict(item, expiration_date="9999-12-31")]
    records = assert_round_trip(ITEM, items)
    assert records[0]["lifecycle"] == {"expires_at": "2026-07-01T00:00:00Z"}
    assert "lifecycle" not in records[1] and "lifecycle" not in records[2]
    first = {"id": "x", "kind": "fact", "fact": {"text": "t"}, "lifecycle": {"expires_at": "0001-01-01T00:00:00Z"}}
    assert "expiration_date" not in ITEM.from_records([first])[0]
    noon = dict(first, lifecycle={"expires_at": "2026-07-01T12:00:00Z"})
    assert ITEM.from_records([noon])[0]["expiration_date"] == "2026-07-01"


def test_history_entry_and_row_differ_only_in_is_deleted() -> None:
    h = _history()
    entry = h["history_2"][1]
    row = next(r for r in h["rows"] if r["id"] == entry["id"])
    assert {k: v for k, v in entry.items() if k != "is_deleted"} == {k: v for k, v in row.items() if k != "is_deleted"}
    assert entry["is_deleted"] is True and row["is_deleted"] == 1 and type(row["is_deleted"]) is int
    (a,) = HISTORY.to_records([entry])
    (b,) = HISTORY.to_records([row])
    assert a["native"]["record"]["is_deleted"] is True and b["native"]["record"]["is_deleted"] == 1
    assert {k: v for k, v in a.items() if k != "native"} == {k: v for k, v in b.items() if k != "native"}
    # A deletion: its text is the old memory, new_memory null is kept.
    assert a["fact"] == {"text": entry["old_memory"]} and a["native"]["record"]["new_memory"] is None
    assert a["links"] == [{"type": "references", "target": entry["memory_id"]}]
    assert a["extensions"] == {"mem0.event": "DELETE"}


def test_history_texts() -> None:
    row = _history()["rows"][4]  # an UPDATE
    items = [row, dict(row, new_memory=""), dict(row, new_memory=None, old_memory=None),
             {k: v for k, v in row.items() if k != "new_memory"}, dict(row, memory_id=None), dict(row, event=3)]
    records = assert_round_trip(HISTORY, items, ordered=True)
    assert records[0]["fact"]["text"] == row["new_memory"]
    assert records[0]["native"]["record"] == {"old_memory": row["old_memory"], "is_deleted": 0, "actor_id": None}
    assert records[1]["fact"]["text"] == row["old_memory"]
    assert records[2]["custom"] == {"type": "mem0.memory", "value": None}


def test_add_result() -> None:
    (first,), (second, third) = _adds()[0], _adds()[1]
    a, b, c = ADD.to_records([first, second, third])
    assert a["native"]["record"] == {"actor_id": None}
    assert b["provenance"] == {"actor": "alice", "origin": "user"} and "native" not in b
    assert c["provenance"] == {"origin": "agent"}
    assert a["extensions"] == {"mem0.event": "ADD"}
    update = {"id": "m-1", "memory": "new", "event": "UPDATE", "previous_memory": "old"}
    assert_round_trip(ADD, [update])


def test_results_wrappers() -> None:
    """add(), get_all() and search() return {"results": [...]}: one record
    per entry, the first carrying the count of its wrapper."""
    adds = _wrapped()["adds"]
    records = assert_round_trip(ADD, adds)
    assert len(records) == 4
    assert records[0]["native"]["record"] == {"$results": 1, "actor_id": None}
    assert records[1]["native"]["record"] == {"$map": {"$results": 2}}  # a lone marker: a $map tag
    assert records[2]["native"]["record"] == {"actor_id": None}  # no marker on the wrapper's second entry
    mixed = [adds[1]["results"][0], adds[1], adds[0]["results"][0]]
    assert_round_trip(ADD, mixed)


def test_records_of_another_producer() -> None:
    """A fact written by another framework, from its neutral fields alone."""
    record = {"specversion": "1.0", "id": "mem-9", "kind": "fact", "fact": {"text": "Likes tea."},
              "scope": {"user": "u-1", "agent": "a-1", "session": "s-1"}, "created_at": "2026-01-02T03:04:05Z",
              "provenance": {"origin": "user", "actor": "ann"}, "metadata": {"k": [1, 2.5]},
              "native": {"framework": "autogen", "format": "autogen.memory_content", "record": {"mime_type": "x"}}}
    (item,) = ITEM.from_records([record])
    # mem0's own hash of a memory is the MD5 of its text.
    assert_exact(item, {"id": "mem-9", "memory": "Likes tea.", "hash": hashlib.md5(b"Likes tea.").hexdigest(),
                        "metadata": {"k": [1, 2.5]}, "created_at": "2026-01-02T03:04:05+00:00",
                        "updated_at": None, "user_id": "u-1", "agent_id": "a-1", "actor_id": "ann",
                        "role": "user"}, ordered=True)
    (entry,) = HISTORY.from_records([record])
    assert entry == {"id": "mem-9", "memory_id": None, "old_memory": None, "new_memory": "Likes tea.",
                     "event": "ADD", "created_at": "2026-01-02T03:04:05+00:00", "updated_at": None,
                     "is_deleted": False, "actor_id": "ann", "role": "user"}
    (added,) = ADD.from_records([record])
    assert list(added.items()) == [("id", "mem-9"), ("memory", "Likes tea."), ("event", "ADD"),
                                   ("actor_id", "ann"), ("role", "user")]


def test_autogen_memories_read_as_mem0_memories() -> None:
    """The text memories of another adapter's real output, as mem0 items."""
    name = "autogen.memory_content"
    found = load(name, captured(name)[0])["items"]
    records = [r for r in FORMS[name].to_records(found) if r["kind"] == "fact"]
    assert records
    items = ITEM.from_records(records)
    assert [i["memory"] for i in items] == [r["fact"]["text"] for r in records]
    assert [i["metadata"] for i in items] == [r.get("metadata") for r in records]
    assert_round_trip(ITEM, items)


@pytest.mark.parametrize(("form", "items", "pointer", "reason"), [
    (ITEM, ["text"], "/0", "TYPE_MISMATCH"),
    (ITEM, [{"id": "a", "memory": "m"}, {"id": "b"}], "/1/memory", "MISSING_MEMBER"),
    (ITEM, [{"id": "a", "memory": "m", "$absent": []}], "/0", "UNSUPPORTED_ITEM"),
    (ITEM, [{"id": "a", "memory": "m", "metadata": {"when": object()}}], "/0/metadata/when", "NOT_REPRESENTABLE"),
    (ITEM, [{"id": "a", "memory": "m", "score": {1, 2}}], "/0/score", "NOT_REPRESENTABLE"),
    (HISTORY, [{"id": "h", "old_memory": None}], "/0/new_memory", "MISSING_MEMBER"),
    (ADD, [{"results": [{"id": "a", "memory": "m"}]}, {"results": []}], "/1/results", "NOT_REPRESENTABLE"),
    (ADD, [{"results": [], "relations": []}], "/0/relations", "UNSUPPORTED_ITEM"),
    (ITEM, [{"results": [{"id": "a"}]}], "/0/results/0/memory", "MISSING_MEMBER"),
    (ITEM, [{"results": {}}], "/0/results", "TYPE_MISMATCH"),
])
def test_errors_point_into_the_items(form: Any, items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        form.to_records(items)
    assert e.value.violations[0].pointer == pointer
    assert e.value.violations[0].reason == reason


def test_records_of_another_kind_are_refused() -> None:
    record = {"id": "m", "kind": "message", "message": {"role": "user"}}
    with pytest.raises(AdapterError) as e:
        ITEM.from_records([{"id": "x", "kind": "fact", "fact": {"text": "t"}}, record])
    assert e.value.violations[0].pointer == "/1/kind"


def test_the_comparison_can_fail() -> None:
    rows = _history()["rows"]
    back = HISTORY.from_records(HISTORY.to_records(rows))
    assert exact(back, rows) is None
    wrong = copy.deepcopy(back)
    wrong[0]["is_deleted"] = False  # bool for the INTEGER 0
    assert exact(wrong, rows) is not None
    item = _items()["get_all"][0]
    (record,) = ITEM.to_records([item])
    record["metadata"]["score_hint"] = 1  # int for the float 1.0
    assert exact(ITEM.from_records([record])[0], item) is not None
    record = through_encodings(ITEM.to_records([item]))["protobuf"][0]
    record["native"] = {"framework": "mem0", "format": "mem0.memory_item", "record": {"$map": {"$absent": ["user_id"]}}}
    assert exact(ITEM.from_records([record])[0], item) is not None


_text = st.text(max_size=12)
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=8)
_time = st.datetimes(timezones=st.none()).map(lambda d: d.isoformat() + "+00:00") | _text | st.none()
_mem0_items = st.fixed_dictionaries(
    {"id": _text, "memory": _text, "hash": _text | st.none(), "metadata": st.none() | st.dictionaries(_text, _json),
     "created_at": _time, "updated_at": _time},
    optional={"score": st.none() | st.floats(allow_nan=False), "user_id": _text, "agent_id": _text,
              "run_id": _text, "actor_id": _text | st.none(), "role": st.sampled_from(["user", "assistant", "x"]),
              "expiration_date": st.dates().map(str) | st.none()})


@settings(max_examples=60, deadline=None)
@given(st.lists(_mem0_items, max_size=4), st.sampled_from([{}, {"user": "u"}, {"agent": "a", "run": "r"}]))
def test_any_memory_item_comes_back(items: list[dict[str, Any]], scope: dict[str, Any]) -> None:
    assert_round_trip(ITEM, items, **scope)
