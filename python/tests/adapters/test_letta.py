"""letta.block (spec/v1/adapters/letta.md): the captured output of letta
0.16.8 and letta-client 1.12.1, each decision, and errors with pointers."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from harness import assert_exact, assert_round_trip, assert_service_round_trip, exact, load
from hypothesis import given, settings
from hypothesis import strategies as st

from memorywire.adapters import FORMS, AdapterError
from memorywire.validation import iter_errors

BLOCK = FORMS["letta.block"]


def _captured() -> dict[str, list[dict[str, Any]]]:
    af = load("letta.block", "agent_file_blocks.json")["items"]
    client = load("letta.block", "client_block_response.json")["items"]
    return {"agent_file": af["blocks"], "agent_file_json": json.loads(af["agent_file_json"])["blocks"],
            "to_dict": client["to_dict"], "model_dump": client["model_dump"],
            "both": af["blocks"] + client["model_dump"]}


CAPTURED = list(_captured().items())


@pytest.mark.parametrize(("name", "items"), CAPTURED, ids=[n for n, _ in CAPTURED])
def test_captured_output_comes_back_exactly(name: str, items: list[dict[str, Any]]) -> None:
    records = assert_round_trip(BLOCK, items)
    for r in records:
        assert not list(iter_errors(r))
    assert_round_trip(BLOCK, items, agent="agent-7f3a", user="u-1")
    # Each variant's member order: BlockSchema's own, or id, value, then alphabetical.
    assert [list(x) for x in BLOCK.from_records(records)] == [list(x) for x in items]


@pytest.mark.parametrize(("name", "items"), CAPTURED, ids=[n for n, _ in CAPTURED])
def test_captured_output_through_the_service(service: Any, name: str, items: list[dict[str, Any]]) -> None:
    assert_service_round_trip(service(), BLOCK, items, agent="agent-7f3a")


def test_block_fields() -> None:
    c = _captured()
    family = c["model_dump"][2]
    (record,) = BLOCK.to_records([family])
    assert record["id"] == family["id"]
    assert record["block"] == {"label": "system/human/family", "value": "naïve café ☕ 🦀 \u200b",
                               "limit": 1099511627776}
    assert record["tags"] == ["family", "core"]
    assert record["metadata"] == {"big": {"$bigint": "9223372036854775809"}, "f": 1.0, "nested": {"z": [], "a": None}}
    assert record["native"]["record"]["hidden"] is False and record["native"]["record"]["is_template"] is True
    (human,) = BLOCK.to_records([c["agent_file"][0]])
    assert human["block"] == {"label": "human", "value": "Name: Alice\nLikes: tea", "limit": 5000,
                              "description": "The user."}
    assert human["native"]["record"]["tags"] is None  # the Agent File drops tags: null, not []


def test_file_local_ids_are_not_record_ids() -> None:
    blocks = _captured()["agent_file"]
    one = BLOCK.to_records(blocks, agent="agent-1")
    other = BLOCK.to_records(blocks, agent="agent-2")
    assert all(r["id"].startswith("urn:uuid:") for r in one)
    assert [r["native"]["record"]["id"] for r in one] == ["block-0", "block-1", "block-2", "block-3"]
    assert not {r["id"] for r in one} & {r["id"] for r in other}  # two files in one tenant do not collide
    server = _captured()["model_dump"]
    assert [r["id"] for r in BLOCK.to_records(server)] == [b["id"] for b in server]


def test_defaults_nulls_and_absent_members() -> None:
    base = _captured()["model_dump"][0]
    items = [dict(base, value="", read_only=False, metadata={}, tags=[]),
             dict(base, limit=None, read_only=None, description="", metadata=None, tags=None),
             dict(base, limit=2**53, tags=["", "a"]), dict(base, limit=True, value=None),
             {k: v for k, v in base.items() if k not in ("value", "read_only", "metadata", "tags", "id")},
             dict(base, tags=[str(n) for n in range(1001)], metadata={str(n): n for n in range(1001)})]
    records = assert_round_trip(BLOCK, items)
    assert records[0]["block"] == {"label": "human", "limit": 5000, "description": "The user."}
    assert "native" in records[0] and "tags" not in records[0] and "metadata" not in records[0]
    assert records[2]["native"]["record"]["limit"] == 2**53
    assert records[4]["native"]["record"]["$absent"] == ["value", "read_only", "metadata", "tags"]
    assert len(records[5]["native"]["record"]["tags"]) == 1001  # more than tags hold: kept whole
    for r in records:
        assert not list(iter_errors(r))


def test_records_of_another_producer() -> None:
    record = {"specversion": "1.0", "id": "blk-1", "kind": "block",
              "block": {"label": "persona", "value": "I am Sam.", "limit": 2000, "read_only": True},
              "tags": ["core"], "metadata": {"v": 1}, "scope": {"agent": "a"}}
    assert_exact(BLOCK.from_records([record]), [
        {"id": "blk-1", "value": "I am Sam.", "description": None, "label": "persona", "limit": 2000,
         "metadata": {"v": 1}, "read_only": True, "tags": ["core"]}], ordered=True)


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    ([["value"]], "/0", "TYPE_MISMATCH"),
    ([{"label": "a"}, {"value": "v"}], "/1/label", "MISSING_MEMBER"),
    ([{"label": ""}], "/0/label", "NOT_REPRESENTABLE"),
    ([{"label": "a", "metadata": {"x": {1}}}], "/0/metadata/x", "NOT_REPRESENTABLE"),
    ([{"label": "a", "$absent": []}], "/0", "UNSUPPORTED_ITEM"),
])
def test_errors_point_into_the_items(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        BLOCK.to_records(items)
    assert (e.value.violations[0].pointer, e.value.violations[0].reason) == (pointer, reason)


def test_records_of_another_kind_are_refused() -> None:
    with pytest.raises(AdapterError) as e:
        BLOCK.from_records([{"id": "b", "kind": "block", "block": {"label": "l"}},
                            {"id": "f", "kind": "fact", "fact": {"text": "t"}}])
    assert e.value.violations[0].pointer == "/1/kind"


def test_the_comparison_can_fail() -> None:
    items = _captured()["model_dump"]
    records = BLOCK.to_records(items)
    assert exact(BLOCK.from_records(records), items) is None
    wrong = copy.deepcopy(records)
    wrong[2]["tags"] = ["core", "family"]  # tag order matters
    assert exact(BLOCK.from_records(wrong), items) is not None
    wrong = copy.deepcopy(records)
    wrong[2]["metadata"]["f"] = 1  # 1 for 1.0
    assert exact(BLOCK.from_records(wrong), items) is not None
    wrong = copy.deepcopy(records)
    del wrong[0]["native"]  # the residue is what keeps created_by_id and the others
    assert exact(BLOCK.from_records(wrong), items) is not None


_text = st.text(max_size=10)
_json = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=8)
_blocks = st.fixed_dictionaries(
    {"label": st.text(min_size=1, max_size=20), "value": _text, "limit": st.none() | st.integers(min_value=-1),
     "read_only": st.booleans() | st.none(), "description": st.none() | _text,
     "metadata": st.none() | st.dictionaries(_text, _json, max_size=3), "hidden": st.none() | st.booleans(),
     "tags": st.none() | st.lists(_text, max_size=3)},
    optional={"id": st.sampled_from(["block-0", "block-1"]) | st.uuids().map(lambda u: f"block-{u}"),
              "project_id": st.none() | _text, "created_by_id": st.none() | _text})


@settings(max_examples=80, deadline=None)
@given(st.lists(_blocks, max_size=4))
def test_any_block_comes_back(items: list[dict[str, Any]]) -> None:
    assert_round_trip(BLOCK, items, agent="a")
