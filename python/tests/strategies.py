"""Hypothesis strategies that generate memorywire documents from the v1 JSON Schemas.

The schemas of ``schemas/v1`` reference each other by file name and are
recursive (Value, Filter, ContentPart -> ToolResult -> ContentPart).
hypothesis-jsonschema needs one self-contained schema, so this module builds,
for each top-level document type, an inlined copy of its schema file:

* every ``$ref`` is replaced by the schema it names (siblings of a ``$ref``,
  such as ``"properties": {"specversion": false}``, are merged into it);
* recursion is bounded: after a few levels a recursive reference becomes a
  small leaf schema (a scalar Value, a comparison-only Filter, a text-only
  ContentPart, a ToolResult without output_parts);
* the combinators of the generated schemas that make hypothesis-jsonschema
  slow (``allOf`` of a ``oneOf`` of ``required`` lists, ``not`` required
  pairs, ``anyOf`` of ``required``) are rewritten into an equivalent ``anyOf``
  of branches, one per oneof member, each without the other members. For
  ``MemoryRecord`` the ``if kind then payload`` rules are folded in by fixing
  ``kind`` in each payload branch. ``if``/``then``/``else`` rules other than
  that are dropped: documents that break them are filtered out by
  ``memorywire.validate`` in the tests;
* string lengths, array sizes and the member counts of free-form objects are
  capped to keep documents small and generation fast (never loosening a
  bound of the schema), except the length of a string whose pattern bounds
  it (a digest, a timestamp);
* ``specversion`` is pinned to ``"1.0"``, the version of the reader under
  test (other versions have targeted tests), so each schema is taken in its
  strict form, without its newer-minor form (``$defs``); specversion is
  dropped from nested records, which MUST NOT carry it (a mutation test
  checks that rule).

One rule JSON Schema cannot state is repaired after generation so that a
useful fraction of the documents is valid: ``Embedding.dimensions`` is set to
the number of values. Everything else is left as generated; the tests keep
only the documents ``memorywire.validate`` accepts and check that enough are.
"""

from __future__ import annotations

import copy
import functools
import json
import pathlib
from typing import Any

import hypothesis_jsonschema._canonicalise as _canonicalise
import hypothesis_jsonschema._from_schema as _hjs
import jsonschema
from hypothesis import strategies as st
from hypothesis.internal.conjecture import utils as _cu
from hypothesis_jsonschema import from_schema
from hypothesis_jsonschema._encode import encode_canonical_json as _encode_canonical_json

from memorywire import _model

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA_DIR = ROOT / "schemas" / "v1"
PACKAGE = "memorywire.v1."
RECORD = "memory-record.schema.json"
RECORD_DOCUMENT = "record-document.schema.json"

#: Caps applied to the inlined copy (never loosening a schema's own bound).
MAX_STRING = 12
MAX_ITEMS = 2
MAX_PROPERTIES = 3
#: How many times one recursive schema may occur on a path before it becomes a leaf.
RECURSION = {
    "value.schema.json": 2,
    "filter.schema.json": 2,
    "filter-list.schema.json": 1,
    "content-part.schema.json": 1,
    "tool-result.schema.json": 1,
}
_ANNOTATIONS = frozenset({"$schema", "$id", "title", "description", "contentEncoding", "$comment",
                          "examples", "default", "deprecated",
                          # The newer-minor forms: generated documents are of version 1.0.
                          "$defs"})


# -- compatibility of hypothesis-jsonschema 0.23 with current Hypothesis ------------


class _CompatMany:
    """hypothesis-jsonschema 0.23 drives ``cu.many`` with ``more()``/``reject()``;
    newer Hypothesis replaced that by a ``with``/``for`` protocol. This adapter
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


# hypothesis-jsonschema canonicalises a schema, and builds its strategy, every
# time it draws an object member, without caching: with inlined schemas that
# is minutes per document type. Memoising both on the canonical JSON text of
# the schema changes nothing but the speed (test infrastructure only).
_original_canonicalish = _canonicalise.canonicalish
_canonical_cache: dict[str, str] = {}


def _canonicalish(schema: Any) -> Any:
    if schema is True or schema is False:
        return _original_canonicalish(schema)
    key = _encode_canonical_json(schema)
    text = _canonical_cache.get(key)
    if text is None:
        text = _canonical_cache[key] = json.dumps(_original_canonicalish(schema))
    return json.loads(text)


_original_from_schema = _hjs.__dict__["__from_schema"]
_strategy_by_id: dict[tuple[int, int, int], tuple[Any, Any]] = {}
_keep_alive: list[Any] = []


def _from_schema_cached(schema: Any, *, alphabet: Any, custom_formats: Any) -> Any:
    # The schemas drawn from are the same objects at every draw: cache by
    # identity, keeping each schema alive so that its id stays its own.
    key = (id(schema), id(alphabet), id(custom_formats))
    hit = _strategy_by_id.get(key)
    if hit is not None and hit[0] is schema:
        return hit[1]
    strategy = _original_from_schema(schema, alphabet=alphabet, custom_formats=custom_formats)
    _strategy_by_id[key] = (schema, strategy)
    _keep_alive.append((alphabet, custom_formats))
    return strategy


def _validator_class(schema: Any) -> Any:
    # The inlined schemas are valid 2020-12 schemas by construction; checking
    # each one against the meta-schema at every strategy build is most of the
    # build time, and selects the same validator class.
    return jsonschema.validators.validator_for(schema)


_canonicalise._get_validator_class = _validator_class  # type: ignore[assignment]
_canonicalise.canonicalish = _canonicalish  # type: ignore[assignment]
_hjs.canonicalish = _canonicalish  # type: ignore[assignment]
_hjs.__dict__["__from_schema"] = _from_schema_cached


# -- schema files and types ---------------------------------------------------------


@functools.cache
def raw_schemas() -> dict[str, dict[str, Any]]:
    return {p.name: json.loads(p.read_text(encoding="utf-8")) for p in sorted(SCHEMA_DIR.glob("*.schema.json"))}


def kebab(name: str) -> str:
    return "".join("-" + c.lower() if c.isupper() else c for c in name).lstrip("-")


def schema_file(type_name: str) -> str:
    short = type_name.removeprefix(PACKAGE)
    if short == "MemoryRecord":
        return RECORD_DOCUMENT
    return kebab(short) + ".schema.json"


def document_types() -> list[str]:
    """Every message type that can be a document of its own and has a schema file."""
    return [t for t in _model.top_level_types() if schema_file(t) in raw_schemas()]


# -- inlining ---------------------------------------------------------------------

_INT64: dict[str, Any] = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
_FLOAT: dict[str, Any] = {"type": "number", "not": {"type": "integer"}}


def _scalar_value() -> dict[str, Any]:
    return {"anyOf": [{"type": ["null", "boolean", "string"], "maxLength": MAX_STRING},
                      copy.deepcopy(_INT64), copy.deepcopy(_FLOAT)]}


def _leaf(name: str) -> dict[str, Any]:
    """The non-recursive stand-in of a recursive schema."""
    if name == "value.schema.json":
        return _scalar_value()
    if name == "filter.schema.json":
        return {"type": "object", "properties": {"compare": _inline_ref("comparison.schema.json", ())},
                "required": ["compare"], "additionalProperties": False}
    if name == "filter-list.schema.json":
        return {"type": "object",
                "properties": {"filters": {"type": "array", "items": _leaf("filter.schema.json"),
                                           "minItems": 1, "maxItems": 2}},
                "required": ["filters"], "additionalProperties": False}
    if name == "content-part.schema.json":
        return {"type": "object", "properties": {"text": _inline_ref("text-part.schema.json", ())},
                "required": ["text"], "additionalProperties": False}
    raise KeyError(name)


def _inline_ref(name: str, path: tuple[str, ...]) -> dict[str, Any]:
    limit = RECURSION.get(name)
    deep = limit is not None and path.count(name) >= limit
    if deep and name != "tool-result.schema.json":
        return _leaf(name)
    raw = copy.deepcopy(raw_schemas()[name])
    if deep:
        # A ToolResult deep down: everything but the recursive output_parts.
        raw["properties"].pop("output_parts", None)
    if name == RECORD and path != (RECORD_DOCUMENT,):
        # A nested record MUST NOT carry specversion.
        raw["properties"].pop("specversion", None)
    if name == "value.schema.json":
        return _value_schema(raw, path + (name,))
    return _inline(raw, name, path + (name,))


def _value_schema(raw: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """A Value: any JSON value, integers bounded to int64, floats apart."""
    branches: list[dict[str, Any]] = _scalar_value()["anyOf"]
    child = _inline_ref("value.schema.json", path)
    branches.append({"type": "array", "items": child, "maxItems": MAX_ITEMS})
    branches.append({"type": "object", "additionalProperties": copy.deepcopy(child),
                     "maxProperties": MAX_PROPERTIES})
    return {"anyOf": branches}


def _inline(node: Any, current: str, path: tuple[str, ...]) -> Any:
    if isinstance(node, list):
        return [_inline(x, current, path) for x in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS or key == "$ref":
            continue
        if key == "properties":
            out[key] = {k: _inline(v, current, path) for k, v in value.items()}
        else:
            out[key] = _inline(value, current, path)
    if "$ref" in node:
        target = current if node["$ref"] == "#" else node["$ref"]
        resolved = _inline_ref(target, path)
        merged = constrain(resolved, out) if out else resolved
        assert merged is not None, f"unsatisfiable $ref siblings in {current}"
        return merged
    if "dependentRequired" in out:
        out["dependencies"] = out.pop("dependentRequired")
    _cap(out)
    if "allOf" in out:
        return _expand(out)
    return out


def _bounded_pattern(schema: dict[str, Any]) -> bool:
    """Whether a string's pattern bounds its length by itself (no ``+``,
    ``*`` or open ``{n,}``), as a digest's or a timestamp's does: capping
    such a string below the pattern's length would leave none to generate."""
    pattern = schema.get("pattern")
    return isinstance(pattern, str) and not any(q in pattern for q in ("+", "*", ",}"))


def _cap(schema: dict[str, Any]) -> None:
    types = schema.get("type")
    if (types == "string" or "maxLength" in schema or "minLength" in schema) and not _bounded_pattern(schema):
        lo = schema.get("minLength", 0)
        schema["maxLength"] = max(lo, min(schema.get("maxLength", MAX_STRING), MAX_STRING))
    if types == "array" or "items" in schema:
        lo = schema.get("minItems", 0)
        schema["maxItems"] = max(lo, min(schema.get("maxItems", MAX_ITEMS), MAX_ITEMS))
    if isinstance(schema.get("additionalProperties"), dict):
        lo = schema.get("minProperties", 0)
        schema["maxProperties"] = max(lo, min(schema.get("maxProperties", MAX_PROPERTIES), MAX_PROPERTIES))
    props = schema.get("properties")
    if isinstance(props, dict) and "specversion" in props:
        props["specversion"] = {"type": "string", "const": "1.0"}


# -- combinators -------------------------------------------------------------------


def _type_set(t: Any) -> set[str]:
    return {t} if isinstance(t, str) else set(t)


def constrain(schema: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any] | None:
    """The schema with extra constraints applied (their conjunction), or None
    when nothing can satisfy both. Handles what the v1 schemas use."""
    if "anyOf" in schema and len(schema) == 1:
        branches = [b for b in (constrain(b, extra) for b in schema["anyOf"]) if b is not None]
        return {"anyOf": branches} if branches else None
    out = copy.deepcopy(schema)
    for key, value in extra.items():
        if key == "properties":
            props = out.setdefault("properties", {})
            for name, sub in value.items():
                if name not in props:
                    continue
                merged = None if sub is False else (props[name] if sub is True else constrain(props[name], sub))
                if merged is None:
                    if name in out.get("required", []):
                        return None
                    del props[name]
                else:
                    props[name] = merged
        elif key == "required":
            if any(name not in out.get("properties", {name: True}) for name in value):
                return None
            out["required"] = sorted(set(out.get("required", [])) | set(value))
        elif key == "const":
            if "const" in out and out["const"] != value:
                return None
            if "enum" in out and value not in out["enum"]:
                return None
            out["const"] = value
        elif key == "type":
            if "type" in out:
                both = _type_set(out["type"]) & _type_set(value)
                if "integer" in _type_set(value) and "number" in _type_set(out["type"]):
                    both.add("integer")
                if not both:
                    return None
                out["type"] = sorted(both) if len(both) > 1 else both.pop()
            else:
                out["type"] = value
        elif key in ("minItems", "minLength", "minProperties", "minimum"):
            out[key] = max(out.get(key, value), value)
        elif key in ("maxItems", "maxLength", "maxProperties", "maximum"):
            out[key] = min(out.get(key, value), value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def _required_names(branch: Any) -> list[str] | None:
    if isinstance(branch, dict) and set(branch) == {"required"}:
        return list(branch["required"])
    return None


def _expand(schema: dict[str, Any]) -> dict[str, Any]:
    """Rewrite the allOf of an object schema into an anyOf of plain branches."""
    items = schema.pop("allOf")
    branches: list[dict[str, Any]] = [schema]
    for item in items:
        if "oneOf" in item or ("anyOf" in item and all(_required_names(b) for b in item["anyOf"])):
            alternatives = item.get("oneOf") or item["anyOf"]
            exclusive = "oneOf" in item
            members = sorted({n for b in alternatives for n in (_required_names(b) or [])})
            new: list[dict[str, Any]] = []
            for base in branches:
                for alt in alternatives:
                    b = _branch(base, alt, members if exclusive else [])
                    if b is not None:
                        new.append(b)
            branches = new
        elif set(item) == {"not"} and _required_names(item["not"]):
            pair = _required_names(item["not"]) or []
            new = []
            for base in branches:
                for name in pair:
                    b = constrain(base, {"properties": {name: False}})
                    if b is not None:
                        new.append(b)
            branches = new
        elif "if" in item:
            continue  # dropped: documents that break it are filtered out
        else:
            branches = [b for b in (constrain(base, item) for base in branches) if b is not None]
    branches = _dedupe(branches)
    return branches[0] if len(branches) == 1 else {"anyOf": branches}


def _branch(base: dict[str, Any], alt: dict[str, Any], members: list[str]) -> dict[str, Any] | None:
    """One alternative of a oneof: the members it does not require are removed."""
    wanted = set(_required_names(alt) or alt.get("required", []))
    extra = {k: v for k, v in alt.items() if k not in ("not", "required")}
    drop = {name: False for name in members if name not in wanted}
    b = constrain(base, {"properties": drop}) if drop else copy.deepcopy(base)
    if b is None:
        return None
    if wanted:
        b = constrain(b, {"required": sorted(wanted)})
    if b is not None and extra:
        b = constrain(b, extra)
    if b is None:
        return None
    kind = b.get("properties", {}).get("kind")
    if members and len(wanted) == 1 and isinstance(kind, dict):
        (member,) = wanted
        if member in kind.get("enum", []):
            # MemoryRecord: the payload member names the kind (unless encrypted).
            b["properties"]["kind"] = {"type": "string", "const": member}
    return b


def _dedupe(branches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: set[str] = set()
    out = []
    for b in branches:
        key = json.dumps(b, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(b)
    return out


@functools.cache
def inlined_schema(type_name: str) -> dict[str, Any]:
    """A self-contained, bounded copy of the schema of a top-level document type."""
    name = schema_file(type_name)
    return _inline(strict_form(name), name, (name,))  # type: ignore[no-any-return]


def strict_form(name: str) -> dict[str, Any]:
    """The form of a document type's schema that a document of version 1.0
    takes, without the choice by specversion."""
    raw = copy.deepcopy(raw_schemas()[name])
    if "strict" in raw.get("$defs", {}):
        return raw["$defs"]["strict"]  # type: ignore[no-any-return]
    if "else" in raw:
        return {**raw["else"], "required": raw["required"]}  # record-document.schema.json
    return raw


def refs_left(node: Any) -> bool:
    if isinstance(node, dict):
        return "$ref" in node or any(refs_left(v) for v in node.values())
    if isinstance(node, list):
        return any(refs_left(v) for v in node)
    return False


# -- strategies --------------------------------------------------------------------


def fix_semantics(doc: Any) -> Any:
    """Repair the one rule JSON Schema cannot state that almost every generated
    embedding breaks: Embedding.dimensions equals the number of values."""
    if isinstance(doc, dict):
        for v in doc.values():
            fix_semantics(v)
        if {"model", "dimensions", "values"} <= doc.keys() and isinstance(doc["values"], list) \
                and type(doc["dimensions"]) is int:
            doc["dimensions"] = max(1, len(doc["values"]))
    elif isinstance(doc, list):
        for v in doc:
            fix_semantics(v)
    return doc


@functools.cache
def documents(type_name: str) -> st.SearchStrategy[dict[str, Any]]:
    """Documents of a type as its (inlined) schema allows them; not all valid."""
    schema = inlined_schema(type_name)
    assert not refs_left(schema), f"unresolved $ref in the inlined schema of {type_name}"
    return from_schema(schema).map(fix_semantics)


# -- walking documents (for mutations) ---------------------------------------------


def message_nodes(doc: Any, type_name: str) -> list[tuple[dict[str, Any], _model.MessageInfo, tuple[Any, ...]]]:
    """Every message object of a document (not Value content), with its field table and path."""
    out: list[tuple[dict[str, Any], _model.MessageInfo, tuple[Any, ...]]] = []

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


def pointer(path: tuple[Any, ...]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


# -- small independent wire helpers for hand-built inputs --------------------------


def pb_top_fields(data: bytes) -> list[tuple[int, int]]:
    """(field number, offset after the field) of each top-level field of a
    Protobuf message, read independently of the codec."""

    def varint(pos: int) -> tuple[int, int]:
        result = shift = 0
        while True:
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result, pos
            shift += 7

    out = []
    pos = 0
    while pos < len(data):
        key, pos = varint(pos)
        wire = key & 7
        if wire == 0:
            _, pos = varint(pos)
        elif wire == 2:
            length, pos = varint(pos)
            pos += length
        else:
            pos += 8 if wire == 1 else 4
        out.append((key >> 3, pos))
    return out


def pb_varint(n: int) -> bytes:
    """A Protobuf varint; negative numbers as 64-bit two's complement (10 bytes)."""
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def pb_tag(number: int, wire: int) -> bytes:
    return pb_varint(number << 3 | wire)


def pb_len(number: int, payload: bytes) -> bytes:
    return pb_tag(number, 2) + pb_varint(len(payload)) + payload


def field_number(type_name: str, field: str) -> int:
    return _model.message(type_name).fields[field].number
