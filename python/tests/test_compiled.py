"""The generated walkers against independent implementations of the same rules."""

from __future__ import annotations

import json
import pathlib

import pytest

from memorywire import _compiled, _model, validation
from memorywire import json as mjson
from memorywire import protobuf as mprotobuf

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "v1").glob("*/*.json"))


def example_type(path: pathlib.Path) -> str:
    if path.parent.name == "records":
        return "memorywire.v1.MemoryRecord"
    if path.stem.startswith("error"):
        return "memorywire.v1.Error"
    return "memorywire.v1." + "".join(p.capitalize() for p in path.stem.split("-"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_protobuf_writer_agrees_with_upb(path: pathlib.Path) -> None:
    type_name = example_type(path)
    doc = mjson.decode(path.read_bytes(), type=type_name)
    written = _compiled.function("pb", type_name)(doc)
    cls = _model.message(type_name).cls
    message = cls.FromString(written)
    # upb writes fields in field-number order too; with no map<> fields its
    # deterministic output is the canonical form.
    assert message.SerializeToString(deterministic=True) == written
    # And it reads back as the same document.
    assert mprotobuf.decode(written, type=type_name) == mjson.decode(mjson.encode(doc, type=type_name), type=type_name)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fast_and_reference_validators_agree_on_examples(path: pathlib.Path) -> None:
    type_name = example_type(path)
    doc = json.loads(path.read_text())
    assert validation.check(doc, type_name)[0] == []
    assert validation.reference_errors(doc, type_name) == []


def test_generated_source_is_valid_python() -> None:
    source = _compiled.FUNCTIONS["__source__"]
    compile(source, "<check>", "exec")
    assert "def check_MemoryRecord" in source and "def pb_MemoryRecord" in source
