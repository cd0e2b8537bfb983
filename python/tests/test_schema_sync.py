"""The schema-sync check passes on the tree and catches each kind of drift."""

from __future__ import annotations

import pathlib
import shutil
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import schema_sync  # noqa: E402


def test_schemas_and_protos_are_in_sync() -> None:
    assert schema_sync.check(ROOT / "proto", ROOT / "schemas" / "v1") == []


@pytest.fixture
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    shutil.copytree(ROOT / "proto", tmp_path / "proto")
    shutil.copytree(ROOT / "schemas" / "v1", tmp_path / "schemas")
    return tmp_path


def edit(path: pathlib.Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1))


DRIFTS = {
    "field added to the proto only": (
        "proto/memorywire/v1/record.proto",
        "  repeated string tags = 29",
        "  // A field only the proto has.\n  string mood = 30;\n\n  repeated string tags = 29",
        "MemoryRecord.mood: no property",
    ),
    "property added to the schema only": (
        "schemas/fact.schema.json",
        '"properties": {',
        '"properties": {"confidence_note": {"type": "string"},',
        "property 'confidence_note' is not a field of Fact",
    ),
    "enum value added to the proto only": (
        "proto/memorywire/v1/record.proto",
        "  ROLE_TOOL = 5;",
        "  ROLE_TOOL = 5;\n\n  // A narrator.\n  ROLE_NARRATOR = 6;",
        "value 'narrator' missing from role.schema.json",
    ),
    "enum value added to the schema only": (
        "schemas/sentiment.schema.json",
        '"mixed"',
        '"mixed", "ambivalent"',
        "value 'ambivalent' is not in enum Sentiment",
    ),
    "field made optional in the schema": (
        "schemas/tool-call.schema.json",
        '"required": [\n    "call_id",\n',
        '"required": [\n',
        "ToolCall.call_id: required in the proto, optional",
    ),
    "type changed in the schema": (
        "schemas/lifecycle.schema.json",
        '"access_count": {\n      "description": "How many times the record was read.",\n      "type": "integer"',
        '"access_count": {\n      "description": "How many times the record was read.",\n      "type": "string"',
        "Lifecycle.access_count: proto type maps to JSON integer, schema says string",
    ),
    "constraint changed in the proto": (
        "proto/memorywire/v1/record.proto",
        "string label = 1 [(rules) = {\n    required: true\n    max_length: 256",
        "string label = 1 [(rules) = {\n    required: true\n    max_length: 512",
        "MemoryBlock.label: proto max_length=512, schema maxLength=256",
    ),
    "newer-minor form refuses unknown members": (
        "schemas/fact.schema.json",
        '"additionalProperties": {\n        "$ref": "value.schema.json"\n      }',
        '"additionalProperties": false',
        "fact.schema.json#/$defs/newer-minor: unknown members are not read as Values",
    ),
    "newer-minor form of an enum refuses added names": (
        "schemas/sentiment.schema.json",
        '"pattern": "^[a-z][a-z0-9_]*$"',
        '"pattern": "^[a-z]+$"',
        "sentiment.schema.json: #/$defs/newer-minor does not take the names",
    ),
    "format named in the schema": (
        "schemas/media-part.schema.json",
        '"$comment": "format uri (spec/v1/core.md, section 3)",',
        '"format": "uri",',
        "MediaPart.uri: schema format='uri', which stock validators refuse",
    ),
    "format pattern changed in the schema": (
        "schemas/media-part.schema.json",
        '"pattern": "^(?:[A-Za-z][A-Za-z0-9+.-]*:',
        '"pattern": "^(?:[a-z]+:',
        "MediaPart.uri: proto pattern=",
    ),
    "field retyped in the proto": (
        "proto/memorywire/v1/record.proto",
        "  uint64 access_count = 4",
        "  double access_count = 4",
        "Lifecycle.access_count: proto type maps to JSON number, schema says integer",
    ),
}


@pytest.mark.parametrize("name", sorted(DRIFTS))
def test_drift_is_caught(tree: pathlib.Path, name: str) -> None:
    file, old, new, expected = DRIFTS[name]
    edit(tree / file, old, new)
    problems = schema_sync.check(tree / "proto", tree / "schemas")
    assert any(expected in p for p in problems), problems
