"""pam.memory_store against PAM's own SDK (portable-ai-memory 1.0.0): its
deep validator and `pam validate` (schemas, content hashes, the integrity
checksum, cross references, conversation DAGs) accept what memorywire
writes, and exports of ChatGPT and Claude go through its own converters
(`pam convert`) into memorywire and back."""

from __future__ import annotations

import io
import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness import DATA, assert_exact  # noqa: E402

import memorywire.json  # noqa: E402
from memorywire.adapters import FORMS  # noqa: E402
from memorywire.adapters import pam as pam_module  # noqa: E402
from memorywire.cli import run  # noqa: E402
from memorywire.errors import MemorywireError  # noqa: E402

try:
    from portable_ai_memory import load_dict
    from portable_ai_memory.core.validator import validate
except ImportError as e:  # the test extra and the pam environment have it (envs.toml): fail, never skip
    raise ImportError("the PAM package tests need portable-ai-memory 1.0 (the pam extra)") from e

PAM = FORMS["pam.memory_store"]
ROOT = Path(__file__).resolve().parents[4]
PAM_COMMAND = str(Path(sys.executable).parent / "pam")


def _pam(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PAM_COMMAND, *argv], capture_output=True, text=True, timeout=120,
                          env={"COLUMNS": "200", "PATH": "/usr/bin:/bin", "NO_COLOR": "1"})


def _validated(docs: list[dict[str, Any]], where: Path) -> None:
    """Each document valid to PAM's deep validator in process, and the
    bundle and each file valid to `pam validate`."""
    for doc in docs:
        result = validate(load_dict(json.loads(json.dumps(doc))))
        assert result.is_valid, f"{doc['schema']}: {result}"
    shutil.rmtree(where, ignore_errors=True)
    pam_module.write_bundle(docs, where)
    done = _pam("validate", str(where))
    assert done.returncode == 0 and " 0 invalid" in done.stdout, done.stdout + done.stderr
    for path in sorted(where.rglob("*.json")):
        done = _pam("validate", str(path))
        assert done.returncode == 0 and "✗" not in done.stdout, f"{path}: {done.stdout}"


def _example_records() -> list[dict[str, Any]]:
    paths = sorted((ROOT / "examples" / "v1" / "records").glob("*.json"))
    return [memorywire.json.decode(p.read_bytes()) for p in paths]


def _vector_records() -> list[list[dict[str, Any]]]:
    """The valid records of the codec vectors, once each, in lists whose
    ids are unique."""
    seen: set[bytes] = set()
    lists: list[list[dict[str, Any]]] = []
    for path in sorted((ROOT / "conformance" / "vectors" / "v1").glob("*.json")):
        for case in json.loads(path.read_text("utf-8")).get("cases", ()):
            expected = case.get("expected")
            canonical = expected.get("canonical") if isinstance(expected, dict) else None
            text = canonical.get("json") if isinstance(canonical, dict) else None
            if not isinstance(text, str):
                continue
            try:
                record = memorywire.json.decode(text.encode("utf-8"))
            except MemorywireError:
                continue  # the canonical form of a message that is not a record
            key = memorywire.json.encode(record)
            if key in seen:
                continue
            seen.add(key)
            for listed in lists:
                if record["id"] not in {r["id"] for r in listed}:
                    listed.append(record)
                    break
            else:
                lists.append([record])
    return lists


def test_memorywire_examples_are_valid_pam(tmp_path: Path) -> None:
    docs = PAM.from_records(_example_records())
    _validated(docs, tmp_path / "bundle")


def test_the_codec_vectors_valid_records_are_valid_pam_and_come_back(tmp_path: Path) -> None:
    lists = _vector_records()
    assert sum(len(x) for x in lists) > 150
    for k, records in enumerate(lists):
        docs = PAM.from_records(records)
        for doc in docs:
            result = validate(load_dict(json.loads(json.dumps(doc))))
            assert result.is_valid, f"list {k}, {doc['schema']}: {result}"
        back = PAM.to_records(json.loads(json.dumps(docs)))
        assert sorted(map(memorywire.json.encode, back)) == sorted(map(memorywire.json.encode, records)), k
    # `pam validate` itself on the largest list.
    _validated(PAM.from_records(max(lists, key=len)), tmp_path / "largest")


def test_the_published_examples_keep_what_pam_says_of_them(tmp_path: Path) -> None:
    """PAM's examples come back exactly, so PAM's validator says the same of
    them (their declared checksum is not their memories')."""
    published = DATA / "published" / "portable-ai-memory"
    for name in ("example-memory-store", "example-conversation", "example-embeddings"):
        doc = json.loads((published / f"{name}.json").read_text("utf-8"))
        back = PAM.from_records(PAM.to_records([doc]))
        assert_exact(back, [doc], ordered=True)
        assert str(validate(load_dict(back[0]))) == str(validate(load_dict(doc)))


def test_an_edited_store_is_valid_again() -> None:
    doc = json.loads((DATA / "published" / "portable-ai-memory" / "example-memory-store.json").read_text("utf-8"))
    assert not validate(load_dict(doc)).is_valid  # the published checksum is stale
    doc["integrity"]["checksum"] = pam_module.integrity_checksum(doc["memories"])
    assert validate(load_dict(doc)).is_valid  # memorywire computes PAM's own checksum
    records = PAM.to_records([doc])
    records[2]["fact"]["text"] = "User runs 20 Scrapy projects."
    back = PAM.from_records(records)[0]
    assert back["memories"][1]["content"] == "User runs 20 Scrapy projects."
    assert validate(load_dict(back)).is_valid


# -- Provider exports, through PAM's converters ----------------------------------------------

def _chatgpt_export() -> list[dict[str, Any]]:
    """A ChatGPT conversations.json in the shape ChatGPT's data export
    writes: a tree of nodes; the assistant's answer regenerated (a branch)."""
    def node(nid: str, role: str, text: str, parent: str, children: list[str], t: float) -> dict[str, Any]:
        return {"id": nid, "message": {
            "id": nid, "author": {"role": role, "name": None, "metadata": {}}, "create_time": t, "update_time": None,
            "content": {"content_type": "text", "parts": [text]}, "status": "finished_successfully",
            "end_turn": role == "assistant" or None, "weight": 1.0,
            "metadata": {"model_slug": "gpt-4o"} if role == "assistant" else {}, "recipient": "all"},
            "parent": parent, "children": children}
    mapping = {
        "client-created-root": {"id": "client-created-root", "message": None, "parent": None, "children": ["u1"]},
        "u1": node("u1", "user", "Book me an aisle seat to Lisbon on Friday.", "client-created-root",
                   ["a1", "a2"], 1717236000.25),
        "a1": node("a1", "assistant", "Done: seat 12C on TP 1949.", "u1", [], 1717236004.5),
        "a2": node("a2", "assistant", "Booked 14D, an aisle seat on TP 1949.", "u1", ["u2"], 1717236030.0),
        "u2": node("u2", "user", "Thanks! I prefer the front half next time.", "a2", [], 1717236090.75),
    }
    return [{"title": "Lisbon trip", "create_time": 1717236000.0, "update_time": 1717236090.75, "mapping": mapping,
             "moderation_results": [], "current_node": "u2", "plugin_ids": None,
             "conversation_id": "66a1f0e2-8c4d-4b7e-9f2a-1d3c5b7a9e01", "conversation_template_id": None,
             "gizmo_id": None, "is_archived": False, "safe_urls": [], "default_model_slug": "gpt-4o",
             "id": "66a1f0e2-8c4d-4b7e-9f2a-1d3c5b7a9e01"}]


def _claude_export() -> list[dict[str, Any]]:
    """A Claude conversations.json in the shape Claude's data export writes."""
    def message(uid: str, sender: str, text: str, at: str) -> dict[str, Any]:
        return {"uuid": uid, "text": text, "content": [{"type": "text", "text": text}], "sender": sender,
                "created_at": at, "updated_at": at, "attachments": [], "files": []}
    return [{"uuid": "28d595a3-5db0-492d-a49a-af74f13de505", "name": "Seat preferences", "summary": "",
             "created_at": "2024-06-01T10:00:00.000000Z", "updated_at": "2024-06-01T10:02:00.000000Z",
             "account": {"uuid": "acc-0b6c"},
             "chat_messages": [
                 message("9a1e0c7e-0001-4c4e-8d0e-4b1f0f9d0a01", "human", "I always want an aisle seat.",
                         "2024-06-01T10:00:00.000000Z"),
                 message("9a1e0c7e-0002-4c4e-8d0e-4b1f0f9d0a02", "assistant", "Noted: aisle seats from now on.",
                         "2024-06-01T10:01:00.000000Z")]}]


@pytest.mark.parametrize(("provider", "export", "texts"), [
    ("chatgpt", _chatgpt_export, ["Book me an aisle seat to Lisbon on Friday.", "Done: seat 12C on TP 1949.",
                                  "Booked 14D, an aisle seat on TP 1949.",
                                  "Thanks! I prefer the front half next time."]),
    ("claude", _claude_export, ["I always want an aisle seat.", "Noted: aisle seats from now on."]),
])
def test_a_provider_export_through_pams_converter_into_memorywire(tmp_path: Path, provider: str, export: Any,
                                                                 texts: list[str]) -> None:
    source = tmp_path / f"{provider}-export"
    source.mkdir()
    (source / "conversations.json").write_text(json.dumps(export()), "utf-8")
    bundle = tmp_path / "bundle"
    done = _pam("convert", str(source), "-o", str(bundle), "--provider", provider, "--owner-id", "u-4821")
    assert done.returncode == 0, done.stdout + done.stderr
    out, err = io.BytesIO(), io.StringIO()
    records_path = tmp_path / "records.jsonl"
    assert run(["adapt", "--from", "pam.memory_store", str(bundle), "-o", str(records_path)],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    records = [memorywire.json.decode(line) for line in records_path.read_bytes().splitlines()]
    messages = [r for r in records if r["kind"] == "message"]
    assert sorted(m["message"]["content"][0]["text"]["text"] for m in messages) == sorted(texts)
    assert all(r["scope"]["user"] == "u-4821" for r in records)  # the owner, for search and erasure
    if provider == "chatgpt":
        # The regenerated answer is a branch: both answers respond to the question.
        by_text = {m["message"]["content"][0]["text"]["text"]: m for m in messages}
        question = by_text[texts[0]]["id"]
        assert by_text[texts[1]]["links"] == by_text[texts[2]]["links"] == \
            [{"type": "responds_to", "target": question}]
    # Back to a bundle: the converter's files exactly, and valid.
    back = tmp_path / "back"
    assert run(["adapt", str(records_path), "--to-form", "pam.memory_store", "-o", f"{back}/"],
               stdin=io.BytesIO(), stdout=out, stderr=err) == 0, err.getvalue()
    for path in sorted(bundle.rglob("*.json")):
        assert_exact(json.loads((back / path.relative_to(bundle)).read_text("utf-8")),
                     json.loads(path.read_text("utf-8")), ordered=True)
    _validated(pam_module.read_bundle(back), tmp_path / "again")
