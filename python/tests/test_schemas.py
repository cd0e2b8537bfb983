"""The v1 schemas: valid 2020-12 schemas, up to date, and every example validates."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator

from memorywire import _schemas

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMAS = sorted((ROOT / "schemas" / "v1").glob("*.schema.json"))
EXAMPLES = sorted((ROOT / "examples" / "v1").glob("*/*.json"))


def example_type(path: pathlib.Path) -> str:
    if path.parent.name == "records":
        return "memorywire.v1.MemoryRecord"
    stem = path.stem
    if stem.startswith("error"):
        return "memorywire.v1.Error"
    return "memorywire.v1." + "".join(part.capitalize() for part in stem.split("-"))


@pytest.mark.parametrize("path", SCHEMAS, ids=lambda p: p.name)
def test_schema_passes_the_2020_12_meta_schema(path: pathlib.Path) -> None:
    schema = json.loads(path.read_text())
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == "https://memorywire.dev/schemas/v1/" + path.name


def test_generated_schemas_are_up_to_date() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "gen_schemas.py"), "--check"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_there_is_an_example_of_every_record_kind_and_operation() -> None:
    kinds = {json.loads(p.read_text())["kind"] for p in EXAMPLES if p.parent.name == "records"}
    wanted = set(json.loads((ROOT / "schemas/v1/record-kind.schema.json").read_text())["enum"])
    assert wanted <= kinds, f"no example of kinds {sorted(wanted - kinds)}"
    names = {p.stem for p in EXAMPLES if p.parent.name == "operations"}
    rpcs = ["put", "get", "history", "search", "update", "delete", "expire", "merge", "compact",
            "review", "watch", "commit-offset", "export", "import", "get-capabilities"]
    missing = [f"{r}-{side}" for r in rpcs for side in ("request", "response")
               if f"{r}-{side}" not in names]
    assert not missing, f"no example of {missing}"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_example_validates(path: pathlib.Path) -> None:
    validator = _schemas.validator(example_type(path))
    errors = [f"{e.json_path}: {e.message}" for e in validator.iter_errors(json.loads(path.read_text()))]
    assert errors == []


def test_a_broken_example_is_caught() -> None:
    record = json.loads((ROOT / "examples/v1/records").glob("message-*.json").__next__().read_text())
    validator = _schemas.validator("memorywire.v1.MemoryRecord")
    assert validator.is_valid(record)
    for breakage in (
        lambda r: r.pop("specversion"),
        lambda r: r.__setitem__("kind", "fact"),
        lambda r: r.__setitem__("surprise", 1),
        lambda r: r["message"].__setitem__("role", "narrator"),
        lambda r: r.__setitem__("created_at", "2026-11-30T10:00:00+01:00"),
    ):
        broken = json.loads(json.dumps(record))
        breakage(broken)
        assert not validator.is_valid(broken)


_FACT = {"id": "r1", "kind": "fact", "fact": {"text": "x"}}


def _put(record: dict[str, object]) -> dict[str, object]:
    return {"specversion": "1.0", "operation_id": "op-1", "items": [{"record": record}]}


@pytest.mark.parametrize(("doc", "type_name", "verdict"), [
    # An empty string is the default, which a reader takes for absent
    # (json-format.md section 4): a nested record's empty specversion is no
    # specversion, and so is an empty content_hash.
    (_put({**_FACT, "specversion": ""}), "memorywire.v1.PutRequest", None),
    (_put({**_FACT, "specversion": "1.0"}), "memorywire.v1.PutRequest",
     ("/items/0/record/specversion", "UNKNOWN_FIELD")),
    ({**_FACT, "specversion": ""}, "memorywire.v1.MemoryRecord", ("/specversion", "REQUIRED_FIELD_MISSING")),
    ({**_FACT, "specversion": "1.0", "provenance": {"content_hash": ""}}, "memorywire.v1.MemoryRecord", None),
    ({**_FACT, "specversion": "1.0", "provenance": {"content_hash": "x"}}, "memorywire.v1.MemoryRecord",
     ("/provenance/content_hash", "PATTERN_MISMATCH")),
])
def test_schemas_and_codec_agree_on_empty_strings(doc: dict[str, object], type_name: str,
                                                    verdict: tuple[str, str] | None) -> None:
    """The schemas accept and refuse an empty string where the codec does,
    with the same pointer and reason."""
    from memorywire import json as mw_json
    from memorywire.errors import MemorywireError
    from memorywire.validation import reference_errors

    found = [(v.pointer, v.reason) for v in reference_errors(doc, type_name)]
    try:
        mw_json.decode(json.dumps(doc), type=type_name)
        codec = None
    except MemorywireError as e:
        codec = (e.pointer, e.reason)
    assert codec == verdict
    assert found == ([] if verdict is None else [verdict])
