"""The worked mappings of the primer (spec/v1/primer.md, section 4) are what
the package's adapters do with real framework output.

Each example of section 4 is a pair of JSON blocks after a marker
``<!-- example {"form": ..., "scope": {...}} -->``: a framework item, as
captured from the framework itself under python/tests/adapters/data/<form>/,
and the record that ``FORMS[form].to_records(captured list, **scope)`` gives
for it, in canonical JSON (members sorted by name) indented by two spaces.
A string that ends in "…" stands for a longer one that starts with the same
text. The tests check that every item is captured output, member order
included, that the form gives exactly that record, that the record gives
the item back, and that the records are valid record documents.
"""

from __future__ import annotations

import json
import math
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

import memorywire.json
from memorywire.adapters import FORMS

ROOT = Path(__file__).resolve().parents[2]
PRIMER = ROOT / "spec" / "v1" / "primer.md"
DATA = Path(__file__).resolve().parent / "adapters" / "data"
SCHEMAS = ROOT / "schemas" / "v1"
ELLIPSIS = "…"

EXAMPLE = re.compile(r"^<!-- example (\{.*?\}) -->\n\n```json\n(.*?)\n```\n\n```json\n(.*?)\n```", re.S | re.M)


def examples() -> list[tuple[str, dict[str, Any], str, str]]:
    """(form, scope, item text, record text) of every example of the primer."""
    text = PRIMER.read_text("utf-8")
    found = []
    for marker, item, record in EXAMPLE.findall(text):
        spec = json.loads(marker)
        found.append((spec["form"], spec.get("scope", {}), item, record))
    # Every marker starts a pair: a marker whose blocks do not follow it is an error.
    markers = re.findall(r"^<!-- example ", text, re.M)
    assert len(found) == len(markers), "an example marker without its two JSON blocks"
    return found


EXAMPLES = examples()


def captured_lists(form: str) -> list[list[Any]]:
    """Every list of items captured for a form (a file's items, or the lists
    in its dictionary of results)."""
    lists: list[list[Any]] = []
    for path in sorted((DATA / form).glob("*.json")):
        items = json.loads(path.read_text("utf-8"))["items"]
        pending = [items]
        while pending:
            value = pending.pop(0)
            if isinstance(value, list):
                lists.append(value)
            elif isinstance(value, dict):
                pending.extend(value.values())
    return lists


def differs(shown: Any, actual: Any, path: str = "") -> str | None:
    """None when ``shown`` is ``actual`` type-exactly, dict member order
    included, with a shown string ending in "…" standing for any string it
    begins; else where they first differ."""
    where = path or "/"
    if isinstance(shown, str) and isinstance(actual, str) and shown.endswith(ELLIPSIS):
        prefix = shown[: -len(ELLIPSIS)]
        if actual != shown and not (actual.startswith(prefix) and len(actual) > len(prefix)):
            return f"{where}: {actual!r} does not begin with {prefix!r}"
        return None
    if type(shown) is not type(actual):
        return f"{where}: {shown!r} is not {actual!r}"
    if isinstance(shown, float):
        same = struct.pack("<d", shown) == struct.pack("<d", actual) or (math.isnan(shown) and math.isnan(actual))
        return None if same else f"{where}: {shown!r} is not {actual!r}"
    if isinstance(shown, dict):
        if list(shown) != list(actual):
            return f"{where}: members {list(shown)} are not {list(actual)}"
        for key in shown:
            found = differs(shown[key], actual[key], f"{path}/{key}")
            if found:
                return found
        return None
    if isinstance(shown, list):
        if len(shown) != len(actual):
            return f"{where}: {len(shown)} elements, not {len(actual)}"
        for i, (a, b) in enumerate(zip(shown, actual, strict=True)):
            found = differs(a, b, f"{path}/{i}")
            if found:
                return found
        return None
    return None if shown == actual else f"{where}: {shown!r} is not {actual!r}"


def locate(form: str, shown_item: Any) -> tuple[list[Any], int]:
    """The captured list that holds the shown item, and its position."""
    for items in captured_lists(form):
        for i, item in enumerate(items):
            if differs(shown_item, item) is None:
                return items, i
    raise AssertionError(f"not captured output of {form}: {json.dumps(shown_item, ensure_ascii=False)[:200]}")


def canonical(record: Any) -> Any:
    """The record as its canonical JSON reads (members sorted by name)."""
    return json.loads(memorywire.json.encode(record))


def indented(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


@pytest.fixture(scope="module")
def record_validator() -> Draft202012Validator:
    resources = []
    for path in SCHEMAS.glob("*.schema.json"):
        schema = json.loads(path.read_text(encoding="utf-8"))
        resources.append((schema["$id"], Resource.from_contents(schema)))
    schema = json.loads((SCHEMAS / "record-document.schema.json").read_text(encoding="utf-8"))
    return Draft202012Validator(schema, registry=Registry().with_resources(resources))


def test_every_mapping_of_section_4_has_examples() -> None:
    forms = {form for form, *_ in EXAMPLES}
    assert forms == {
        "agency_swarm.thread_message", "openai.responses_item", "openai.chat_message", "metagpt.message",
        "agentscope.msg", "langgraph.item", "mem0.memory_item", "letta.block",
    }
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(("form", "scope", "item_text", "record_text"), EXAMPLES,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(EXAMPLES)])
def test_example_is_what_the_adapter_writes(form: str, scope: dict[str, Any], item_text: str,
                                            record_text: str) -> None:
    shown_item, shown_record = json.loads(item_text), json.loads(record_text)
    items, i = locate(form, shown_item)
    # The blocks are written as json.dumps writes them, indented by two.
    assert item_text == indented(shown_item)
    assert record_text == indented(shown_record)
    records = FORMS[form].to_records(items, **scope)
    assert len(records) == len(items)
    problem = differs(shown_record, canonical(records[i]))
    assert problem is None, problem
    (back,) = FORMS[form].from_records([records[i]])
    problem = differs(back, items[i])
    assert problem is None, problem


@pytest.mark.parametrize(("form", "scope", "item_text", "record_text"), EXAMPLES,
                         ids=[f"{e[0]}-{i}" for i, e in enumerate(EXAMPLES)])
def test_example_record_is_a_valid_record_document(record_validator: Draft202012Validator, form: str,
                                                   scope: dict[str, Any], item_text: str,
                                                   record_text: str) -> None:
    items, i = locate(form, json.loads(item_text))
    record = canonical(FORMS[form].to_records(items, **scope)[i])
    errors = [e.message for e in record_validator.iter_errors(record)]
    assert errors == []


def test_the_comparison_sees_a_difference() -> None:
    form, scope, item_text, record_text = EXAMPLES[0]
    items, i = locate(form, json.loads(item_text))
    actual = canonical(FORMS[form].to_records(items, **scope)[i])
    shown = json.loads(record_text)
    assert differs(shown, actual) is None
    reordered = dict(reversed(list(shown.items())))
    assert differs(reordered, actual) is not None
    changed = json.loads(record_text.replace('"specversion": "1.0"', '"specversion": "1.1"'))
    assert differs(changed, actual) is not None
    assert differs({"a": 1}, {"a": 1.0}) is not None
    assert differs({"a": "ab…"}, {"a": "abc"}) is None
    assert differs({"a": "ab…"}, {"a": "ba"}) is not None
    assert differs({"a": [1, 2]}, {"a": [2, 1]}) is not None
    with pytest.raises(AssertionError, match="not captured output"):
        locate(form, {**json.loads(item_text), "extra": 1})
