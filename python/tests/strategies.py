"""Hypothesis strategies that generate memorywire documents from the v1 JSON Schemas.

The schemas of ``schemas/v1`` reference each other by file name and are
recursive (Value, Filter, ContentPart -> ToolResult -> ContentPart).
hypothesis-jsonschema needs one self-contained schema, so this module inlines
every ``$ref`` into a copy of the schema of the top-level type and bounds the
recursion: after a few levels a recursive reference is replaced by a small
leaf schema (a scalar Value, a comparison-only Filter, a text-only
ContentPart, a ToolResult without output_parts).

Generation is kept fast and the documents small by capping, in the inlined
copy only, string lengths, array sizes and the number of members of free-form
objects. ``specversion`` is pinned to ``"1.0"`` (the version of the reader under
test; other versions have targeted tests) and dropped from nested records
(which MUST NOT carry it; the mutation tests check that rule).

Two rules JSON Schema cannot state are repaired after generation, so that a
useful fraction of documents is valid: ``Embedding.dimensions`` is set to the
number of values. Everything else is left as generated; the tests keep only
the documents that ``memorywire.validate`` accepts.
"""

from __future__ import annotations

import copy
import functools
import json
import pathlib
from typing import Any

import hypothesis_jsonschema._from_schema as _hjs
from hypothesis import strategies as st
from hypothesis.internal.conjecture import utils as _cu
from hypothesis_jsonschema import from_schema

from memorywire import _model

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "schemas" / "v1"
PACKAGE = "memorywire.v1."

#: Caps applied to the inlined copy (never loosening a schema's own bound).
MAX_STRING = 12
MAX_ITEMS = 3
MAX_PROPERTIES = 3
#: How many times one recursive schema may occur on a path before it becomes a leaf.
RECURSION = {
    "value.schema.json": 2,
    "filter.schema.json": 2,
    "filter-list.schema.json": 1,
    "content-part.schema.json": 1,
    "tool-result.schema.json": 1,
}



class _CompatMany:
    """hypothesis-jsonschema 0.23 drives ``cu.many`` with ``more()``/``reject()``;
    Hypothesis >= 6.16x replaced that by a ``with``/``for`` protocol. This adapter
    gives the old interface on top of the new one (test infrastructure only)."""

    def __init__(self, data: Any, min_size: int, max_size: float, average_size: float) -> None:
        self._many = _cu.many(data, min_size=min_size, max_size=max_size, average_size=average_size)
        self._many.__enter__()
        self._iter = iter(self._many)

    def more(self) -> bool:
        try:
            next(self._iter)
        except StopIteration:
            self._many.__exit__(None, None, None)
            return False
        return True

    def reject(self, why: str | None = None) -> None:
        self._many.reject(why)


class _CompatUtils:
    many = _CompatMany


if not hasattr(_cu.many, "more"):
    _hjs.cu = _CompatUtils  # type: ignore[assignment]


INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
_SCALAR_VALUE: dict[str, Any] = {
    "anyOf": [
        {"type": ["null", "boolean", "string"], "maxLength": MAX_STRING},
        INT64,
        {"type": "number", "not": {"type": "integer"}},
    ]
}
MEDIA_TYPES = st.sampled_from(["image/png", "text/plain; charset=utf-8", "application/json", "audio/mpeg"])
CUSTOM_FORMATS = {"media-type": MEDIA_TYPES}
_ANNOTATIONS = ("$schema", "$id", "title", "description", "contentEncoding", "$comment", "examples")


@functools.cache
def raw_schemas() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMA_DIR.glob("*.schema.json"))}


def kebab(name: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")


def schema_file(type_name: str) -> str:
    short = type_name.removeprefix(PACKAGE)
    if short == "MemoryRecord":
        return "record-document.schema.json"
    return kebab(short) + ".schema.json"


def document_types() -> list[str]:
    """Every message type that can be a document of its own."""
    return [t for t in _model.top_level_types() if schema_file(t) in raw_schemas()]


def _leaf(name: str) -> dict[str, Any]:
    """The non-recursive stand-in of a recursive schema."""
    if name == "value.schema.json":
        return copy.deepcopy(_SCALAR_VALUE)
    if name == "filter.schema.json":
        return {
            "type": "object",
            "properties": {"compare": _inline_ref("comparison.schema.json", ())},
            "required": ["compare"],
            "additionalProperties": False,
        }
    if name == "filter-list.schema.json":
        return {
            "type": "object",
            "properties": {"filters": {"type": "array", "items": _leaf("filter.schema.json"),
                                       "minItems": 1, "maxItems": 2}},
            "required": ["filters"],
            "additionalProperties": False,
        }
    if name == "content-part.schema.json":
        return {
            "type": "object",
            "properties": {"text": _inline_ref("text-part.schema.json", ())},
            "required": ["text"],
            "additionalProperties": False,
        }
    raise KeyError(name)


def _inline_ref(name: str, path: tuple[str, ...]) -> dict[str, Any]:
    limit = RECURSION.get(name)
    deep = limit is not None and path.count(name) >= limit
    if deep and name != "tool-result.schema.json":
        return _leaf(name)
    schema: dict[str, Any] = _inline(raw_schemas()[name], name, path + (name,))
    if deep:
        # A ToolResult deep down: everything but the recursive output_parts.
        schema["properties"].pop("output_parts", None)
    if name == "memory-record.schema.json":
        # A nested record MUST NOT carry specversion (record-document adds it back).
        schema["properties"].pop("specversion", None)
    if name == "value.schema.json":
        schema = _value_schema(schema)
    return schema


def _value_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Value with integers bounded to int64 (the generated schema allows any)."""
    types = schema.pop("type")
    branches: list[dict[str, Any]] = [{"type": ["null", "boolean", "string"], "maxLength": MAX_STRING}, INT64,
                                      {"type": "number", "not": {"type": "integer"}}]
    if "array" in types:
        branches.append({"type": "array", "items": schema["items"], "maxItems": MAX_ITEMS})
    if "object" in types:
        branches.append({"type": "object", "additionalProperties": schema["additionalProperties"],
                         "maxProperties": MAX_PROPERTIES})
    return {"anyOf": branches}


def _inline(node: Any, current: str, path: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(x, current, path) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS:
            continue
        if key == "$ref":
            continue
        if key == "properties":
            out[key] = {k: _inline(v, current, path) for k, v in value.items()}
        else:
            out[key] = _inline(value, current, path)
    if "$ref" in node:
        target = current if node["$ref"] == "#" else node["$ref"]
        resolved = _inline_ref(target, path)
        if out:
            merged = copy.deepcopy(resolved)
            for k, v in out.items():
                if k == "required":
                    merged["required"] = sorted(set(merged.get("required", [])) | set(v))
                else:
                    merged[k] = v
            return merged
        return resolved
    _cap(out)
    return out


def _cap(schema: dict[str, Any]) -> None:
    types = schema.get("type")
    if types == "string" or "maxLength" in schema or "minLength" in schema:
        lo = schema.get("minLength", 0)
        schema["maxLength"] = max(lo, min(schema.get("maxLength", MAX_STRING), MAX_STRING))
    if types == "array" or "items" in schema:
        lo = schema.get("minItems", 0)
        schema["maxItems"] = max(lo, min(schema.get("maxItems", MAX_ITEMS), MAX_ITEMS))
    if "additionalProperties" in schema and isinstance(schema["additionalProperties"], dict):
        lo = schema.get("minProperties", 0)
        schema["maxProperties"] = max(lo, min(schema.get("maxProperties", MAX_PROPERTIES), MAX_PROPERTIES))
    props = schema.get("properties")
    if isinstance(props, dict) and "specversion" in props:
        props["specversion"] = {"type": "string", "const": "1.0"}


@functools.cache
def inlined_schema(type_name: str) -> dict[str, Any]:
    """A self-contained, bounded copy of the schema of a top-level document type."""
    name = schema_file(type_name)
    schema = _inline(raw_schemas()[name], name, (name,))
    _cap(schema)
    if "specversion" in schema.get("properties", {}):
        schema["properties"]["specversion"] = {"type": "string", "const": "1.0"}
    return schema  # type: ignore[no-any-return]


def _refs_left(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(_refs_left(v) for v in node.values())
    if isinstance(node, list):
        return any(_refs_left(v) for v in node)
    return False


def fix_semantics(doc: Any) -> Any:
    """Repair the rules JSON Schema cannot state (Embedding.dimensions)."""
    if isinstance(doc, dict):
        for v in doc.values():
            fix_semantics(v)
        if {"model", "dimensions", "values"} <= doc.keys() and isinstance(doc["values"], list):
            if isinstance(doc["dimensions"], int) and not isinstance(doc["dimensions"], bool):
                doc["dimensions"] = max(1, len(doc["values"]))
    elif isinstance(doc, list):
        for v in doc:
            fix_semantics(v)
    return doc


@functools.cache
def documents(type_name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Documents of a type as its schema allows them (not necessarily valid)."""
    schema = inlined_schema(type_name)
    assert not _refs_left(schema), f"unresolved $ref in the inlined schema of {type_name}"
    return from_schema(schema, custom_formats=CUSTOM_FORMATS).map(fix_semantics)


# -- mutations ---------------------------------------------------------------------


def _paths(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    out = [(path, doc)]
    if isinstance(doc, dict):
        for k, v in doc.items():
            out.extend(_paths(v, path + (k,)))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            out.extend(_paths(v, path + (i,)))
    return out


def message_nodes(doc: dict[str, Any], type_name: str) -> list[tuple[Any, _model.MessageInfo, tuple[Any, ...]]]:
    """Every message object of a document (not Value content), with its field table."""
    out: list[tuple[Any, _model.MessageInfo, tuple[Any, ...]]] = []

    def walk(node: Any, info: _model.MessageInfo, path: tuple[Any, ...]) -> None:
        if not isinstance(node, dict):
            return
        out.append((node, info, path))
        for key, value in node.items():
            f = info.fields.get(key)
            if f is None or f.kind != _model.MESSAGE or f.message is None:
                continue
            if f.repeated and isinstance(value, list):
                for i, x in enumerate(value):
                    walk(x, f.message, path + (key, i))
            elif not f.repeated:
                walk(value, f.message, path + (key,))

    walk(doc, _model.message(type_name), ())
    return out
