"""LangGraph store items and SqliteStore rows (spec/v1/adapters/langgraph.md),
on the captured real output of langgraph 1.2.24 and checkpoint-sqlite 3.1.2."""

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

ITEM = FORMS["langgraph.item"]
ROW = FORMS["langgraph.sqlite_store_row"]


def _lists(form: str, filename: str) -> list[list[Any]]:
    items = load(form, filename)["items"]
    return list(items.values()) if isinstance(items, dict) else [items]


CAPTURED = [("langgraph.item", "in_memory_store.json"), ("langgraph.item", "sqlite_store.json"),
            ("langgraph.sqlite_store_row", "store_table.json")]


@pytest.mark.parametrize(("form", "filename"), CAPTURED)
def test_captured_output_round_trips(form: str, filename: str) -> None:
    for items in _lists(form, filename):
        # Rows are compared with their member order; their value is bytes.
        assert_round_trip(FORMS[form], items, ordered=form == ROW.name, user="u-1")


@pytest.mark.parametrize(("form", "filename"), CAPTURED)
def test_captured_output_round_trips_through_the_service(service: Callable[[], Any], form: str,
                                                         filename: str) -> None:
    for items in _lists(form, filename):
        assert_service_round_trip(service(), FORMS[form], items, ordered=form == ROW.name)


def test_item_fields() -> None:
    item = _lists("langgraph.item", "in_memory_store.json")[0][2]
    (rec,) = ITEM.to_records([item], session="s-1")
    assert rec["kind"] == "custom" and rec["custom"]["type"] == "langgraph.item"
    assert rec["key"] == "profile"
    assert rec["scope"] == {"session": "s-1", "namespace": ["users", "u-1", "memories"]}
    assert rec["created_at"] == "2026-05-04T12:30:15.125456Z"
    assert rec["updated_at"] == "2026-05-04T12:30:15.126456Z"
    value = rec["custom"]["value"]
    assert value["big"] == {"$bigint": "9223372036854775809"}
    assert value["huge"] == {"$bigint": "1000000000000000000000000000000"}
    assert_exact(value["neg_zero"], -0.0)
    assert_exact(value["one"], 1.0)
    # A SearchItem's score is kept, null included; InMemoryStore times are isoformat().
    assert rec["native"]["record"] == {"score": None}
    assert is_generated(rec["id"])


def test_the_id_is_the_namespace_and_key() -> None:
    item = {"namespace": ["a", "b"], "key": "k", "value": {}, "created_at": "2026-01-01T00:00:00+00:00",
            "updated_at": "2026-01-01T00:00:00+00:00"}
    other = {**item, "key": "other"}
    first = ITEM.to_records([item])[0]["id"]
    assert ITEM.to_records([other, item])[1]["id"] == first
    assert ITEM.to_records([item], namespace=["other"])[0]["id"] == first
    assert ITEM.to_records([item], user="x")[0]["id"] != first
    # The same item as a store row is the same record.
    row = {"prefix": "a.b", "key": "k", "value": b"{}", "created_at": "2026-01-01 00:00:00",
           "updated_at": "2026-01-01 00:00:00", "expires_at": None, "ttl_minutes": None}
    assert ROW.to_records([row])[0]["id"] == first


def test_a_repeated_item_keeps_its_key_in_the_residue() -> None:
    items = _lists("langgraph.item", "in_memory_store.json")[0]
    records = ITEM.to_records(items)
    prefs = [r for r in records if r.get("key") == "prefs"
             or r.get("native", {}).get("record", {}).get("key") == "prefs"]
    assert len(prefs) == 4
    assert [("key" in r) for r in prefs] == [True, False, False, False]
    assert len({r["id"] for r in records}) == len(records)


def test_naive_and_sqlite_times_are_kept() -> None:
    item = _lists("langgraph.item", "sqlite_store.json")[0][0]
    (rec,) = ITEM.to_records([item])
    assert rec["created_at"] == "2026-05-04T12:30:15Z"
    assert rec["native"]["record"]["created_at"] == "2026-05-04T12:30:15"
    rows = _lists("langgraph.sqlite_store_row", "store_table.json")
    put, refreshed = (ROW.to_records(r) for r in rows)
    # Written by put as str(datetime): rebuilt, not kept.
    assert put[1]["lifecycle"] == {"expires_at": "2026-05-04T12:30:45.125456Z"}
    assert "expires_at" not in put[1]["native"]["record"]
    # Rewritten by a refreshing get with DATETIME(): kept.
    assert refreshed[1]["lifecycle"] == {"expires_at": "2026-05-04T12:30:45Z"}
    assert refreshed[1]["native"]["record"]["expires_at"] == "2026-05-04 12:30:45"
    assert_exact(put[0]["native"]["record"]["ttl_minutes"], 90.0)
    # CURRENT_TIMESTAMP text is SQLite's own form: nothing kept.
    assert "created_at" not in put[0]["native"]["record"]


def test_row_value_bytes_are_kept_only_when_needed() -> None:
    row = {"prefix": "p", "key": "k", "value": b'{"a":1,"b":[1.0,-0.0]}', "created_at": "2026-01-01 00:00:00",
           "updated_at": "2026-01-01 00:00:00", "expires_at": None, "ttl_minutes": None}
    (rec,) = ROW.to_records([row])
    assert "native" not in rec
    assert_exact(rec["custom"]["value"], {"a": 1, "b": [1.0, -0.0]})
    unordered = {**row, "value": b'{"b":[1.0,-0.0],"a":1}'}
    (rec,) = ROW.to_records([unordered])
    assert rec["native"]["record"]["value"] == '{"b":[1.0,-0.0],"a":1}'
    assert_round_trip(ROW, [row, unordered], ordered=True)
    # A value column read as text comes back as text.
    assert_round_trip(ROW, [{**row, "value": '{"z":"\u00e9"}'}], ordered=True)


def test_kept_text_that_no_longer_holds_the_value_is_not_used() -> None:
    row = {"prefix": "p", "key": "k", "value": b'{"b":2,"a":1}', "created_at": "2026-01-01 00:00:00",
           "updated_at": "2026-01-01 00:00:00", "expires_at": None, "ttl_minutes": None}
    (rec,) = ROW.to_records([row])
    rec["custom"]["value"] = {"a": 1, "b": 3}
    (back,) = ROW.from_records([rec])
    assert back["value"] == b'{"a":1,"b":3}'


def test_reads_records_of_other_producers() -> None:
    fact: dict[str, Any] = {"specversion": "1.0", "id": "f-1", "kind": "fact", "key": "diet",
            "scope": {"user": "u", "namespace": ["memories", "u"]},
            "created_at": "2026-03-14T09:30:00Z", "fact": {"text": "The user is vegetarian."}}
    custom = {"specversion": "1.0", "id": "c-1", "kind": "custom", "scope": {"namespace": ["n"]},
              "created_at": "2026-03-14T09:30:00.5Z", "updated_at": "2026-03-15T00:00:00Z",
              "lifecycle": {"expires_at": "2026-04-01T00:00:00Z"}, "sequence": 7, "revision": 2,
              "custom": {"type": "other.thing", "value": {"food": "pizza", "n": {"$bigint": "18446744073709551616"}}}}
    assert_exact(ITEM.from_records([fact, custom]), [
        {"namespace": ["memories", "u"], "key": "diet", "value": {"fact": {"text": "The user is vegetarian."}},
         "created_at": "2026-03-14T09:30:00+00:00", "updated_at": "2026-03-14T09:30:00+00:00"},
        {"namespace": ["n"], "key": "c-1", "value": {"food": "pizza", "n": 2**64},
         "created_at": "2026-03-14T09:30:00.500000+00:00", "updated_at": "2026-03-15T00:00:00+00:00"},
    ])
    with pytest.raises(AdapterError) as e:
        ROW.from_records([custom])
    assert e.value.pointer == "/0/custom/value" and e.value.reason == "NOT_REPRESENTABLE"
    fact["scope"]["namespace"] = ["memories", "u"]
    (row,) = ROW.from_records([fact])
    assert row == {"prefix": "memories.u", "key": "diet", "value": b'{"fact":{"text":"The user is vegetarian."}}',
                   "created_at": "2026-03-14 09:30:00", "updated_at": "2026-03-14 09:30:00",
                   "expires_at": None, "ttl_minutes": None}


def test_an_item_read_back_as_a_row() -> None:
    items = _lists("langgraph.item", "sqlite_store.json")[0]
    rows = ROW.from_records(ITEM.to_records(items[:1]))
    assert rows[0]["prefix"] == "users.u-1.memories"
    assert rows[0]["created_at"] == "2026-05-04 12:30:15"


@pytest.mark.parametrize(("form", "item", "pointer", "reason"), [
    (ITEM, {"namespace": ["a"], "key": "k", "value": {}, "created_at": "x", "updated_at": "x"},
     "/0/created_at", "TYPE_MISMATCH"),
    (ITEM, {"namespace": ["a"], "key": "k", "value": [], "created_at": "2026-01-01", "updated_at": "x"},
     "/0/value", "TYPE_MISMATCH"),
    (ITEM, {"namespace": ["a", ""], "key": "k", "value": {}}, "/0/created_at", "MISSING_MEMBER"),
    (ITEM, {"namespace": ["a", ""], "key": "k", "value": {}, "created_at": "2026-01-01T00:00:00",
            "updated_at": "2026-01-01T00:00:00"}, "/0/namespace/1", "NOT_REPRESENTABLE"),
    (ITEM, {"namespace": ["a"], "key": "k", "value": {"d": object()}, "created_at": "2026-01-01T00:00:00",
            "updated_at": "2026-01-01T00:00:00"}, "/0/value/d", "NOT_REPRESENTABLE"),
    (ITEM, {"namespace": ["a"], "key": "k", "value": {}, "created_at": "2026-01-01T00:00:00",
            "updated_at": "2026-01-01T00:00:00", "extra": 1}, "/0/extra", "UNSUPPORTED_ITEM"),
    (ROW, {"prefix": "a", "key": "k", "value": b"\xff", "created_at": "2026-01-01 00:00:00",
           "updated_at": "2026-01-01 00:00:00", "expires_at": None, "ttl_minutes": None}, "/0/value", "TYPE_MISMATCH"),
    (ROW, {"prefix": "a", "key": "k", "value": b"{}", "created_at": "2026-01-01 00:00:00",
           "updated_at": "2026-01-01 00:00:00", "expires_at": None, "ttl_minutes": "9"}, "/0/ttl_minutes",
     "TYPE_MISMATCH"),
    (ROW, {"prefix": "a", "key": "k", "value": b"{}", "created_at": "2026-01-01 00:00:00",
           "updated_at": "2026-01-01 00:00:00", "expires_at": None}, "/0/ttl_minutes", "MISSING_MEMBER"),
])
def test_errors_point_into_the_items(form: Any, item: dict[str, Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        form.to_records([item])
    assert (e.value.pointer, e.value.reason) == (pointer, reason)


def test_mutations_are_detected() -> None:
    """The comparison can fail: every change of a captured item is seen."""
    rows = _lists("langgraph.sqlite_store_row", "store_table.json")[1]
    back = ROW.from_records(through_encodings(ROW.to_records(rows))["protobuf"])
    assert exact(back, rows, ordered=True) is None
    mutations: list[Callable[[list[Any]], None]] = [
        lambda r: r[0].__setitem__("ttl_minutes", 90),
        lambda r: r[0].__setitem__("value", r[0]["value"].replace(b'"age":41', b'"age":41.0')),
        lambda r: r[1].__setitem__("expires_at", "2026-05-04 12:30:45+00:00"),
        lambda r: r.__setitem__(0, dict(reversed(list(r[0].items())))),
        lambda r: r.reverse(),
    ]
    for mutate in mutations:
        changed = copy.deepcopy(back)
        mutate(changed)
        assert exact(changed, rows, ordered=True) is not None
    items = _lists("langgraph.item", "in_memory_store.json")[0]
    back = ITEM.from_records(ITEM.to_records(items))
    changed = copy.deepcopy(back)
    changed[2]["value"]["neg_zero"] = 0.0
    assert exact(changed, items) is not None


def _examples(document: str) -> list[str]:
    text = (Path(__file__).resolve().parents[3] / "spec" / "v1" / "adapters" / document).read_text("utf-8")
    return re.findall(r"```json\n(.*?)\n```", text, re.S)


def test_document_examples_are_real_output() -> None:
    """Every item of langgraph.md is captured output, and its record is what
    the adapter writes for it."""
    items: list[Any] = []
    records: set[str] = set()
    for form, filename in CAPTURED:
        for listed in _lists(form, filename):
            items += listed
            records.update(memorywire.json.encode(r).decode() for r in FORMS[form].to_records(listed))
    examples = _examples("langgraph.md")
    assert len(examples) == 10
    for item_text, record in zip(examples[::2], examples[1::2], strict=True):
        item = json.loads(item_text)
        if "prefix" in item:
            item["value"] = item["value"].encode("utf-8")
        assert any(exact(item, x, ordered=True) is None for x in items), item
        assert record in records, record  # canonical JSON, as written
