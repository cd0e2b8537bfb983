"""letta.agent_file: every Agent File that letta-ai/agent-file publishes goes
to memorywire and back exactly, and any records make an Agent File
(spec/v1/adapters/letta.md §7). Letta's own AgentFileSchema checks them in
frameworks/test_letta_package.py."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any

import pytest
from harness import DATA, assert_round_trip, assert_service_round_trip, exact, load, through_encodings

import memorywire.json
from memorywire.adapters import FORMS, AdapterError
from memorywire.adapters import letta_agent_file as af
from memorywire.cli import run

AF = FORMS["letta.agent_file"]
ROOT = Path(__file__).resolve().parents[3]
PUBLISHED = sorted((DATA / "published" / "letta-agent-file").glob("*.af.gz"))


def _published(path: Path) -> Any:
    return json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))


def example_records() -> list[dict[str, Any]]:
    paths = sorted((ROOT / "examples" / "v1" / "records").glob("*.json"))
    return [memorywire.json.decode(p.read_bytes()) for p in paths]


def test_every_published_file_is_here() -> None:
    assert len(PUBLISHED) == 12


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.name)
def test_a_published_agent_file_comes_back_exactly(path: Path) -> None:
    item = _published(path)
    records = assert_round_trip(AF, [item], ordered=True)
    doc = json.loads(item) if isinstance(item, str) else item
    messages = [m for a in doc["agents"] for m in a.get("messages") or ()]
    assert [r["kind"] for r in records] == ["custom"] + ["message"] * len(messages) + ["block"] * len(doc["blocks"])
    blocks = [r for r in records if r["kind"] == "block"]
    assert [b["block"]["label"] for b in blocks] == [b["label"] for b in doc["blocks"]]
    assert [b["block"].get("value", "") for b in blocks] == [b["value"] for b in doc["blocks"]]


def test_published_agent_files_through_the_service(service: Any) -> None:
    items = load("letta.agent_file", "published_agent_files.json")["items"]
    assert_service_round_trip(service(), AF, items, ordered=True)


def test_the_neutral_fields() -> None:
    doc = load("letta.agent_file", "published_agent_files.json")["items"][0]
    records = AF.to_records([doc], user="u-1")
    header, rest = records[0], records[1:]
    assert header["custom"]["type"] == af.HEADER and "messages" not in header["custom"]["value"]["agents"][0]
    message = rest[0]
    assert message["kind"] == "message" and message["message"]["role"] == "system"
    assert message["message"]["content"][0]["text"]["text"].startswith("<base_instructions>")
    assert message["scope"] == {"user": "u-1", "agent": "memgpt_agent"}
    assert message["created_at"] == "2025-10-31T22:56:56.459100Z"
    human = next(r for r in rest if r["kind"] == "block" and r["block"]["label"] == "human")
    assert human["block"]["limit"] == doc["blocks"][0]["limit"] or human["block"]["limit"] == doc["blocks"][1]["limit"]


def test_the_text_form_comes_back_as_the_same_text(tmp_path: Path) -> None:
    text = load("letta.agent_file", "published_agent_files.json")["items"][1]
    assert isinstance(text, str)
    back = AF.from_records(AF.to_records([text]))
    assert back == [text]
    src = tmp_path / "outreach.af"
    src.write_text(json.dumps(text), "utf-8")
    out, err = io.BytesIO(), io.StringIO()
    assert run(["adapt", "--from", "letta.agent_file", str(src), "-o", str(tmp_path / "r.jsonl")],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    assert run(["adapt", str(tmp_path / "r.jsonl"), "--to-form", "letta.agent_file", "-o", str(tmp_path / "b.af")],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    assert (tmp_path / "b.af").read_bytes() == gzip.decompress(
        (DATA / "published" / "letta-agent-file" / "outreach_workflow_agent.af.gz").read_bytes())


def test_memorywire_examples_make_an_agent_file_and_come_back() -> None:
    records = example_records()
    files, report = AF.from_records_reporting(records)
    assert len(files) == 1
    doc = files[0]
    assert set(doc) == {"agents", "groups", "blocks", "files", "sources", "tools", "mcp_servers", "metadata"}
    kinds = [r["kind"] for r in records]
    assert len(doc["agents"][0]["messages"]) == kinds.count("message")
    assert len(doc["blocks"]) == kinds.count("block")
    # Every other record is kept in the file's metadata, as JSON text (a str).
    kept = json.loads(doc["metadata"][af.EXTENSION])
    assert len(kept["records"]) == len(records) - kinds.count("message") - kinds.count("block")
    assert not report.lost and report.entries
    for entry in report.entries:
        assert entry.kept is not None and entry.kept.startswith("/0/")
    assert sorted(map(memorywire.json.encode, AF.to_records(files))) == sorted(map(memorywire.json.encode, records))
    back = AF.to_records(files)
    for name, decoded in through_encodings(back).items():
        found = exact(AF.from_records(decoded), files, ordered=True)
        assert found is None, f"{name}: {found}"


@pytest.mark.parametrize(("items", "pointer", "reason"), [
    ([[]], "/0", "TYPE_MISMATCH"),
    (["not json"], "/0", "INVALID_JSON"),
    ([{"agents": {}}], "/0", "TYPE_MISMATCH"),
    ([{"agents": [{"messages": [1]}]}], "/0/agents/0/messages/0", "TYPE_MISMATCH"),
    ([{"agents": [], "blocks": ["x"]}], "/0/blocks/0", "TYPE_MISMATCH"),
])
def test_errors_point_into_the_items(items: list[Any], pointer: str, reason: str) -> None:
    with pytest.raises(AdapterError) as e:
        AF.to_records(items)
    assert e.value.violations[0].pointer == pointer and e.value.violations[0].reason == reason


def test_the_comparison_can_fail() -> None:
    doc = load("letta.agent_file", "published_agent_files.json")["items"][0]
    records = AF.to_records([doc])
    records[1]["message"]["content"][0]["text"]["text"] = "changed"
    assert exact(AF.from_records(records), [doc]) is not None
