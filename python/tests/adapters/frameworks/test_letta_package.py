"""letta.block against the real letta 0.16.8 and letta-client 1.12.1: Blocks
made with letta's own model and converted by its Agent File exporter to
BlockSchema, and BlockResponse objects parsed by the client from server
block bodies; each serialized with its own model_dump() / to_dict() and
parsed back for its own equality."""

from __future__ import annotations

import json
import sys
import warnings
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from harness import assert_exact, assert_round_trip, assert_service_round_trip  # noqa: E402

from memorywire.adapters import FORMS  # noqa: E402

types = pytest.importorskip("letta_client.types")
BlockResponse = types.BlockResponse
BLOCK = FORMS["letta.block"]
try:
    with warnings.catch_warnings():
        # letta 0.16.8 uses APIs that its dependencies now deprecate
        # (SQLAlchemy's declarative_mixin, ...); the warnings are theirs.
        warnings.simplefilter("ignore")
        from letta.schemas.agent_file import AgentFileSchema, BlockSchema
        from letta.schemas.block import Block
        from letta.services.agent_serialization_manager import AgentSerializationManager
except ImportError as e:  # the letta environment has letta 0.16.8 (envs.toml): fail, never skip
    raise ImportError("the letta package tests need letta 0.16.8") from e

_text = st.text(st.characters(codec="utf-8"), max_size=16)
_leaf = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
         | st.floats(allow_nan=False, allow_infinity=False) | _text)
_json = st.recursive(_leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
                     max_leaves=6)
_optional_text = st.none() | _text
# A server block body as the REST API sends it; any optional member may be
# left out (to_dict() then leaves it out too).
_bodies = st.fixed_dictionaries(
    {"id": st.uuids().map(lambda u: f"block-{u}"), "value": _text,
     "label": st.sampled_from(["human", "persona", "system/human/family"]) | st.text(min_size=1, max_size=20)},
    optional={"limit": st.none() | st.sampled_from([100000, 5000, 2**40, 0]) | st.integers(min_value=0),
              "read_only": st.none() | st.booleans(), "description": _optional_text,
              "metadata": st.none() | st.dictionaries(_text, _json, max_size=3),
              "tags": st.none() | st.lists(_text, max_size=3), "hidden": st.none() | st.booleans(),
              "is_template": st.none() | st.booleans(), "preserve_on_migration": st.none() | st.booleans(),
              "template_name": _optional_text, "template_id": _optional_text, "base_template_id": _optional_text,
              "deployment_id": _optional_text, "entity_id": _optional_text, "project_id": _optional_text,
              "created_by_id": _optional_text, "last_updated_by_id": _optional_text})


@settings(max_examples=150, deadline=None)
@given(st.lists(_bodies, max_size=5), st.sampled_from([{}, {"agent": "agent-1"}, {"agent": "a", "user": "u"}]))
def test_blocks_parsed_by_the_client_come_back(bodies: list[dict[str, Any]], scope: dict[str, Any]) -> None:
    blocks = [BlockResponse.model_validate(b) for b in bodies]
    for dumped in ([b.to_dict() for b in blocks], [b.model_dump() for b in blocks]):
        assert_round_trip(BLOCK, dumped, **scope)
        back = BLOCK.from_records(BLOCK.to_records(dumped, **scope))
        # The client's own model and equality, and its member order.
        assert [BlockResponse.model_validate(b) for b in back] == blocks
        assert [list(b) for b in back] == [list(d) for d in dumped]


def test_through_the_service(service: Any) -> None:
    bodies = [{"id": "block-dd4053c7-f8ed-4598-9198-da733060458c", "value": "Name: Alice", "label": "human",
               "limit": 2**40, "metadata": {"big": 2**63 + 1, "f": 1.0}, "tags": ["family", "core"],
               "hidden": False, "read_only": True},
              {"id": "block-e4a78cf1-9a91-4f4e-bcf5-f11454340c5e", "value": "", "label": "scratch"}]
    blocks = [BlockResponse.model_validate(b) for b in bodies]
    for dumped in ([b.to_dict() for b in blocks], [b.model_dump() for b in blocks]):
        assert_service_round_trip(service(), BLOCK, dumped, agent="agent-1")
        assert_exact(BLOCK.from_records(BLOCK.to_records(dumped)), dumped, ordered=True)


def _export(blocks: list[Any]) -> list[Any]:
    """The Agent File exporter's own id remapping (block-0, block-1, ...)
    and conversion, on a manager without its database (only these two
    methods are used)."""
    exporter = object.__new__(AgentSerializationManager)
    exporter._db_to_file_ids = {}
    exporter._id_counters = {BlockSchema.__id_prefix__: 0}
    for block in blocks:
        exporter._map_db_to_file_id(block.id, BlockSchema.__id_prefix__)
    return [exporter._convert_block_to_schema(b) for b in blocks]


@st.composite
def _letta_blocks(draw: Any) -> Any:
    value = draw(_text)
    return Block(label=draw(st.sampled_from(["human", "persona", "system/human/family"])
                            | st.text(min_size=1, max_size=20)),
                 value=value, limit=draw(st.sampled_from([100000, 5000, 2**40]) | st.integers(len(value), 2**53)),
                 description=draw(_optional_text), read_only=draw(st.booleans()),
                 metadata=draw(st.dictionaries(_text, _json, max_size=3)), is_template=draw(st.booleans()),
                 template_name=draw(_optional_text), preserve_on_migration=draw(st.booleans()),
                 tags=draw(st.none() | st.lists(_text, max_size=3)), hidden=draw(st.none() | st.booleans()))


@settings(max_examples=100, deadline=None)
@given(st.lists(_letta_blocks(), max_size=5))
def test_agent_file_blocks_made_by_letta_come_back(blocks: list[Any]) -> None:
    schemas = _export(blocks)
    dumped = [s.model_dump() for s in schemas]
    assert_round_trip(BLOCK, dumped, agent="agent-1")
    back = BLOCK.from_records(BLOCK.to_records(dumped, agent="agent-1"))
    assert [BlockSchema.model_validate(b) for b in back] == schemas  # letta's own equality
    assert [list(b) for b in back] == [list(d) for d in dumped]  # BlockSchema's member order
    text = AgentFileSchema(agents=[], groups=[], blocks=schemas, files=[], sources=[], tools=[], mcp_servers=[],
                           created_at=datetime(2026, 5, 4, tzinfo=timezone.utc)).model_dump_json()
    assert_round_trip(BLOCK, json.loads(text)["blocks"])


def test_server_blocks_through_the_client(service: Any) -> None:
    """A server Block as the REST API sends it, parsed by the client."""
    blocks = [Block(label="human", value="Name: Alice", limit=2**40, metadata={"big": 2**63 + 1},
                    tags=["family", "core"], hidden=False),
              Block(label="scratch", value="", preserve_on_migration=True)]
    parsed = [BlockResponse.model_validate(b.model_dump(mode="json")) for b in blocks]
    for dumped in ([b.to_dict() for b in parsed], [b.model_dump() for b in parsed]):
        assert_service_round_trip(service(), BLOCK, dumped, agent="agent-1")
        assert_service_round_trip(service(), BLOCK, [s.model_dump() for s in _export(blocks)], agent="agent-1")


# -- letta.agent_file ------------------------------------------------------------------------------

AGENT_FILE = FORMS["letta.agent_file"]
_PUBLISHED = sorted((Path(__file__).resolve().parent.parent / "data" / "published" / "letta-agent-file")
                    .glob("*.af.gz"))
_ROOT = Path(__file__).resolve().parents[4]


@pytest.mark.parametrize("path", _PUBLISHED, ids=lambda p: p.name)
def test_published_agent_files_come_back_as_letta_reads_them(path: Path) -> None:
    """Each published Agent File, through memorywire, is the same file, and
    letta's own AgentFileSchema reads it as it reads the original (letta
    fills some defaults with new random values each time, so its models of
    one file are never equal: their agents, messages and blocks are
    compared by id and content)."""
    import gzip

    item = json.loads(gzip.decompress(path.read_bytes()).decode("utf-8"))
    back = AGENT_FILE.from_records(AGENT_FILE.to_records([item]))
    doc = json.loads(item) if isinstance(item, str) else item
    again = json.loads(back[0]) if isinstance(back[0], str) else back[0]
    assert back == [item]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = AgentFileSchema.model_validate(again), AgentFileSchema.model_validate(doc)
    assert [(a.id, a.name, a.system, [(m.id, m.role, m.content) for m in a.messages or ()]) for a in ours.agents] \
        == [(a.id, a.name, a.system, [(m.id, m.role, m.content) for m in a.messages or ()]) for a in theirs.agents]
    assert [(b.id, b.label, b.value, b.limit) for b in ours.blocks] == \
        [(b.id, b.label, b.value, b.limit) for b in theirs.blocks]


def test_records_of_other_producers_make_an_agent_file_letta_reads() -> None:
    import memorywire.json

    records = [memorywire.json.decode(p.read_bytes())
               for p in sorted((_ROOT / "examples" / "v1" / "records").glob("*.json"))]
    files = AGENT_FILE.from_records(records)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = AgentFileSchema.model_validate(files[0])
    assert len(schema.agents) == 1 and len(schema.agents[0].messages) == sum(r["kind"] == "message" for r in records)
    assert [b.label for b in schema.blocks] == [r["block"]["label"] for r in records if r["kind"] == "block"]
    assert json.loads(schema.model_dump_json())["metadata"] == files[0]["metadata"]
