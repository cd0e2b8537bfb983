"""The OpenAI Responses item mapper, shared by every Responses-based form
(``openai.responses_item``, ``openai_agents.*``, ``agency_swarm.*``).

:func:`encode_item` maps one Responses input item to the fields of a record
and its residue; :func:`decode_item` maps a record (and the residue, when the
record is of the caller's form) back to the item. The mapping is
spec/v1/adapters/openai.md section 3.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from memorywire._formats import check_format
from memorywire.adapters._kit import (
    AdapterError,
    Ids,
    Record,
    align,
    canonical_json,
    from_value,
    is_generated,
    media_from_uri,
    native,
    ordered,
    pointer_token,
    residue_of,
    to_value,
    unmapped,
    unmapped_value,
    uri_from_media,
    valid_id,
)

Json = dict[str, Any]

#: A member that an object does not carry.
_ABSENT: Any = object()

ROLES = ("system", "developer", "user", "assistant")
MESSAGE_STATUS = ("in_progress", "completed", "incomplete")
CALL_STATUS = ("in_progress", "completed", "incomplete")
_MAX_INT = (1 << 53) - 1

#: Member order of each item shape as the openai package and the Agents SDK
#: write them (the pydantic field order of model_dump, the SDK's own dicts).
ITEM_ORDER: dict[str, tuple[str, ...]] = {
    "input_message": ("id", "content", "role", "status", "type", "phase"),
    "output_message": ("id", "content", "role", "status", "type", "phase"),
    "function_call": ("arguments", "call_id", "name", "type", "id", "status", "namespace", "caller"),
    "function_call_output": ("call_id", "output", "type", "id", "status"),
    "reasoning": ("id", "summary", "type", "content", "encrypted_content", "status"),
    "file_search_call": ("id", "queries", "status", "type", "results"),
    "item_reference": ("type", "id"),
}
PART_ORDER: dict[str, tuple[str, ...]] = {
    "input_text": ("type", "text"),
    "output_text": ("annotations", "text", "type", "logprobs"),
    "refusal": ("refusal", "type"),
    "input_image": ("type", "image_url", "file_id", "detail"),
    "input_file": ("type", "file_data", "file_id", "file_url", "filename", "detail"),
    "summary_text": ("text", "type"),
    "reasoning_text": ("text", "type"),
}
#: The members of an Annotation, in the order of their fields.
ANNOTATION_FIELDS = ("type", "url", "title", "file_id", "filename", "text", "index", "start_index", "end_index")
_ANNOTATION_LIMITS = {"type": 64, "url": 8192, "title": 1024, "file_id": 256, "filename": 1024}
ANNOTATION_ORDER: dict[str, tuple[str, ...]] = {
    "file_citation": ("file_id", "filename", "index", "type"),
    "url_citation": ("end_index", "start_index", "title", "type", "url"),
    "container_file_citation": ("container_id", "end_index", "file_id", "filename", "start_index", "type"),
    "file_path": ("file_id", "index", "type"),
}
#: The prefix of the custom type of an item that no payload holds.
CUSTOM_PREFIX = "openai.responses."


def at(pointer: str, key: str | int) -> str:
    return f"{pointer}/{pointer_token(key)}"


# -- Residue -----------------------------------------------------------------------------------

class Rest:
    """The members of a framework object that no field has taken yet; what
    is left at the end is the object's residue."""

    def __init__(self, obj: Mapping[str, Any], pointer: str) -> None:
        self.left: dict[str, Any] = dict(obj)
        self.pointer = pointer
        self.built: dict[str, Any] = {}

    def get(self, key: str) -> Any:
        return self.left.get(key, _ABSENT)

    def take(self, key: str) -> Any:
        return self.left.pop(key, _ABSENT)

    def text(self, key: str, limit: int | None = None) -> str | None:
        """A non-empty string member within ``limit`` code points, taken;
        anything else stays in the residue."""
        v = self.left.get(key, _ABSENT)
        if type(v) is str and v and (limit is None or len(v) <= limit):
            del self.left[key]
            return v
        return None

    def choice(self, key: str, values: Sequence[str]) -> str | None:
        v = self.left.get(key, _ABSENT)
        if type(v) is str and v in values:
            del self.left[key]
            return v
        return None

    def integer(self, key: str) -> int | None:
        v = self.left.get(key, _ABSENT)
        if type(v) is int and 0 <= v <= _MAX_INT:
            del self.left[key]
            return v
        return None

    def put(self, key: str, residue: Any) -> None:
        """A member whose residue was built element by element."""
        self.left.pop(key, None)
        self.built[key] = residue

    def residue(self) -> Json:
        out: Json = {}
        for k, v in self.left.items():
            out[k] = self.built[k] if k in self.built else to_value(v, at(self.pointer, k))
        for k, v in self.built.items():
            out.setdefault(k, v)
        return wrap(out)


def wrap(residue: Json) -> Json:
    """A residue map with one member starting with ``$`` would read as a tag."""
    if len(residue) == 1 and next(iter(residue)).startswith("$"):
        return {"$map": residue}
    return residue


def unwrap(residue: Any) -> Json:
    if type(residue) is not dict:
        return {}
    if len(residue) == 1 and "$map" in residue and type(residue["$map"]) is dict:
        return dict(residue["$map"])
    return dict(residue)


def members(residue: Json, structured: Sequence[str] = ()) -> Json:
    """The framework members of a residue map, as Python values; the members
    named in ``structured`` (residue lists built element by element) are
    returned as they are."""
    return {k: (v if k in structured and type(v) is list else from_value(v)) for k, v in residue.items()}


def residue_list(residue: Json, key: str) -> list[Any] | None:
    v = residue.get(key)
    return v if type(v) is list else None


def entry_map(entry: Any) -> Json:
    return unwrap(entry) if entry is not None else {}


# -- Annotations -------------------------------------------------------------------------------

def encode_annotation(a: Any, pointer: str) -> tuple[Json | None, Any]:
    """An Annotation and its residue entry, or None and the unmapped entry."""
    if type(a) is not dict:
        return None, unmapped(a, pointer)
    rest = Rest(a, pointer)
    out: Json = {}
    if rest.text("type", 64) is None:
        return None, unmapped(a, pointer)
    out["type"] = a["type"]
    for key in ANNOTATION_FIELDS[1:]:
        if key in ("index", "start_index", "end_index"):
            n = rest.integer(key)
            if n is not None:
                out[key] = n
        else:
            s = rest.text(key, _ANNOTATION_LIMITS.get(key))
            if s is not None:
                out[key] = s
    return out, rest.residue()


def decode_annotation(entry: Any, annotation: Mapping[str, Any]) -> Json:
    item = members(entry_map(entry))
    item.update((k, annotation[k]) for k in ANNOTATION_FIELDS if k in annotation)
    return ordered(item, ANNOTATION_ORDER.get(str(item.get("type")), ()))


def encode_annotations(rest: Rest, key: str) -> list[Json]:
    """The annotations of ``rest[key]``; their residue list stays under ``key``."""
    value = rest.get(key)
    if type(value) is not list:
        return []
    out: list[Json] = []
    entries: list[Any] = []
    for i, a in enumerate(value):
        mapped, entry = encode_annotation(a, at(at(rest.pointer, key), i))
        if mapped is not None:
            out.append(mapped)
        entries.append(entry)
    rest.put(key, entries)
    return out


def decode_annotations(entries: list[Any] | None, annotations: Sequence[Mapping[str, Any]]) -> list[Json]:
    out: list[Json] = []
    for entry, a in align(entries, annotations):
        out.append(restore(entry, ANNOTATION_ORDER) if a is None else decode_annotation(entry, a))
    return out


# -- Media -------------------------------------------------------------------------------------

def _canonical_base64(text: str) -> bool:
    if not text:
        return False
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return False
    return base64.b64encode(raw).decode("ascii") == text


def encode_media_url(rest: Rest, key: str, media: Json) -> None:
    """A URL member (``image_url``) as uri, or data and media_type."""
    v = rest.get(key)
    if type(v) is not str or not v:
        return
    fields, kept = media_from_uri(v)
    if not fields.get("uri") and not fields.get("data"):
        return
    media.update(fields)
    rest.take(key)
    if kept is not None:
        rest.left[key] = kept


def encode_file_data(rest: Rest, key: str, media: Json) -> None:
    """``file_data``: a data: URI as data and media_type, bare base64 as data."""
    v = rest.get(key)
    if type(v) is not str or not v:
        return
    if v.startswith("data:"):
        fields, kept = media_from_uri(v)
        if fields.get("data") and kept is None:
            media.update(fields)
            rest.take(key)
    elif _canonical_base64(v):
        media["data"] = v
        rest.take(key)


def decode_file_data(part: Mapping[str, Any]) -> str | None:
    if "data" not in part:
        return None
    if "media_type" in part:
        return uri_from_media({"data": part["data"], "media_type": part["media_type"]})
    return str(part["data"])


# -- Content parts -----------------------------------------------------------------------------

def encode_part(el: Any, pointer: str) -> tuple[Json | None, Any]:
    """One element of a content list or list output: a ContentPart and its
    residue entry, or None and the unmapped entry."""
    if type(el) is not dict:
        return None, unmapped(el, pointer)
    rest = Rest(el, pointer)
    t = el.get("type")
    part: Json | None = None
    if t in ("input_text", "output_text"):
        text = rest.text("text")
        if text is not None:
            body: Json = {"text": text}
            annotations = encode_annotations(rest, "annotations")
            if annotations:
                body["annotations"] = annotations
            part = {"text": body}
    elif t == "refusal":
        text = rest.text("refusal")
        if text is not None:
            part = {"refusal": {"text": text}}
    elif t == "input_image":
        media: Json = {}
        encode_media_url(rest, "image_url", media)
        part = _media_part("image", rest, media, ("file_id", 256), ("detail", 32))
    elif t == "input_file":
        media = {}
        encode_file_data(rest, "file_data", media)
        url = rest.get("file_url")
        if type(url) is str and url and len(url) <= 8192 and check_format(url, "uri"):
            media["uri"] = rest.take("file_url")
        part = _media_part("file", rest, media, ("file_id", 256), ("filename", 1024), ("detail", 32))
    if part is None:
        return None, unmapped(el, pointer)
    return part, rest.residue()


def _media_part(kind: str, rest: Rest, media: Json, *fields: tuple[str, int]) -> Json | None:
    for key, limit in fields:
        v = rest.text(key, limit)
        if v is not None:
            media[key] = v
    if not (media.get("uri") or media.get("data") or media.get("file_id")):
        return None  # without a place to fetch it from, the element is no MediaPart
    return {kind: media}


def decode_part(entry: Any, part: Mapping[str, Any], default_text: str, pointer: str) -> Json:
    """The element of a content list or list output for one ContentPart."""
    extra = entry_map(entry)
    item = members(extra, ("annotations",))
    if "text" in part:
        body = part["text"]
        item.setdefault("type", default_text)
        item["text"] = body["text"]
        notes = body.get("annotations", [])
        entries = residue_list(extra, "annotations")
        if entries is not None or notes or (item["type"] == "output_text" and entry is None):
            item["annotations"] = decode_annotations(entries, notes)
    elif "refusal" in part:
        item.setdefault("type", "refusal")
        item["refusal"] = part["refusal"]["text"]
    elif "image" in part:
        media = part["image"]
        item.setdefault("type", "input_image")
        url = uri_from_media(media, item.get("image_url") if type(item.get("image_url")) is str else None)
        if url is not None:
            item["image_url"] = url
        for key in ("file_id", "detail"):
            if key in media:
                item[key] = media[key]
        if "detail" not in item and entry is None:
            item["detail"] = "auto"
    elif "file" in part:
        media = part["file"]
        item.setdefault("type", "input_file")
        data = decode_file_data(media)
        if data is not None and "file_data" not in item:
            item["file_data"] = data
        if "uri" in media:
            item["file_url"] = media["uri"]
        for key in ("file_id", "filename", "detail"):
            if key in media:
                item[key] = media[key]
    else:
        kind = next(iter(part), "?")
        raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a {kind} part has no Responses content form")
    return ordered(item, PART_ORDER.get(str(item.get("type")), ()))


def encode_parts(rest: Rest, key: str) -> list[Json]:
    """The parts of the list ``rest[key]``; its residue list stays under ``key``."""
    value = rest.get(key)
    parts: list[Json] = []
    entries: list[Any] = []
    for i, el in enumerate(value):
        part, entry = encode_part(el, at(at(rest.pointer, key), i))
        if part is not None:
            parts.append(part)
        entries.append(entry)
    rest.put(key, entries)
    return parts


def restore(entry: Any, order: Mapping[str, tuple[str, ...]]) -> Any:
    """An unmapped element, its members in the framework's order (a Value
    map does not keep the order of its members)."""
    value = unmapped_value(entry)
    if type(value) is dict:
        return ordered(value, order.get(str(value.get("type")), ("type",)))
    return value


def decode_parts(entries: list[Any] | None, parts: Sequence[Mapping[str, Any]], default_text: str,
                 pointer: str) -> list[Any]:
    out: list[Any] = []
    for i, (entry, part) in enumerate(align(entries, parts)):
        out.append(restore(entry, PART_ORDER) if part is None
                   else decode_part(entry, part, default_text, f"{pointer}/{i}"))
    return out


# -- Items -------------------------------------------------------------------------------------

class Mapped:
    """What one item gives a record: its kind, payload, framework id, residue
    and links."""

    def __init__(self, kind: str, payload: Json, framework_id: Any, rest: Rest) -> None:
        self.kind = kind
        self.payload = payload
        self.framework_id = framework_id
        self.rest = rest
        self.links: list[Json] = []


def encode_item(item: Any, pointer: str) -> Mapped:
    """The record fields of one Responses input item. The item's ``id``
    (when it identifies the item) is in ``framework_id``; the caller assigns
    the record id and keeps the framework id in the residue when they differ."""
    if type(item) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", f"a Responses item is a dict, not {type(item).__name__}")
    t = item.get("type", _ABSENT)
    if t is _ABSENT or t == "message":
        if "role" in item or t == "message":
            return _encode_message(item, pointer)
        raise AdapterError.at(at(pointer, "type"), "MISSING_MEMBER", "an item without type is a message with a role")
    if type(t) is not str:
        raise AdapterError.at(at(pointer, "type"), "TYPE_MISMATCH", "type is a string")
    mapped: Mapped | None = None
    if t == "function_call":
        mapped = _encode_function_call(item, pointer)
    elif t == "function_call_output":
        mapped = _encode_function_call_output(item, pointer)
    elif t == "reasoning":
        mapped = _encode_reasoning(item, pointer)
    elif t == "file_search_call":
        mapped = _encode_file_search_call(item, pointer)
    return mapped if mapped is not None else _encode_custom(item, pointer, t)


def _take_id(rest: Rest) -> Any:
    return rest.take("id")


def _encode_message(item: Json, pointer: str) -> Mapped:
    rest = Rest(item, pointer)
    role = rest.get("role")
    if role is _ABSENT:
        raise AdapterError.at(at(pointer, "role"), "MISSING_MEMBER", "a message has a role")
    if role not in ROLES:
        raise AdapterError.at(at(pointer, "role"), "UNSUPPORTED_ITEM", f"role {role!r} is not one of {ROLES}")
    rest.take("role")
    message: Json = {"role": role}
    content = rest.get("content")
    if content is _ABSENT:
        raise AdapterError.at(at(pointer, "content"), "MISSING_MEMBER", "a message has content")
    if type(content) is str:
        if content:
            message["content"] = [{"text": {"text": rest.take("content")}}]
    elif type(content) is list:
        parts = encode_parts(rest, "content")
        if parts:
            message["content"] = parts
    else:
        raise AdapterError.at(at(pointer, "content"), "TYPE_MISMATCH", "content is a string or a list of parts")
    status = rest.choice("status", MESSAGE_STATUS)
    if status is not None:
        message["status"] = status
    phase = rest.text("phase", 64)
    if phase is not None:
        message["phase"] = phase
    return Mapped("message", message, _take_id(rest), rest)


def _encode_function_call(item: Json, pointer: str) -> Mapped | None:
    if not (valid_call(item.get("call_id")) and valid_call(item.get("name")) and type(item.get("arguments")) is str):
        return None
    rest = Rest(item, pointer)
    rest.take("type")
    call: Json = {"call_id": rest.take("call_id"), "name": rest.take("name")}
    arguments = rest.text("arguments")
    if arguments is not None:
        call["arguments"] = arguments
    status = rest.choice("status", CALL_STATUS)
    if status is not None:
        call["status"] = status
    return Mapped("tool_call", call, _take_id(rest), rest)


def valid_call(x: Any) -> bool:
    return type(x) is str and 0 < len(x) <= 256


def _encode_function_call_output(item: Json, pointer: str) -> Mapped | None:
    output = item.get("output", _ABSENT)
    if not valid_call(item.get("call_id")) or type(output) not in (str, list):
        return None
    rest = Rest(item, pointer)
    rest.take("type")
    result: Json = {"call_id": rest.take("call_id")}
    if type(output) is str:
        result["output"] = rest.take("output")
    else:
        parts = encode_parts(rest, "output")
        if parts:
            result["output_parts"] = parts
    return Mapped("tool_result", result, _take_id(rest), rest)


def _encode_reasoning(item: Json, pointer: str) -> Mapped | None:
    summary = item.get("summary", _ABSENT)
    content = item.get("content", _ABSENT)
    if summary is not _ABSENT and type(summary) is not list:
        return None
    rest = Rest(item, pointer)
    first: Json = {}
    if type(summary) is list:
        texts: list[str] = []
        entries: list[Any] = []
        for i, s in enumerate(summary):
            sp = at(at(pointer, "summary"), i)
            if type(s) is dict and type(s.get("text")) is str:
                sub = Rest(s, sp)
                texts.append(sub.take("text"))
                entries.append(sub.residue())
            else:
                entries.append(unmapped(s, sp))
        rest.put("summary", entries)
        if texts:
            first["summary"] = texts
    encrypted = rest.text("encrypted_content")
    if encrypted is not None:
        first["encrypted_content"] = encrypted
    parts: list[Json] = [{"reasoning": first}]
    if type(content) is list:
        entries = []
        for i, c in enumerate(content):
            cp = at(at(pointer, "content"), i)
            if type(c) is dict and type(c.get("text")) is str and c["text"]:
                sub = Rest(c, cp)
                parts.append({"reasoning": {"text": sub.take("text")}})
                entries.append(sub.residue())
            else:
                entries.append(unmapped(c, cp))
        rest.put("content", entries)
    message: Json = {"role": "assistant", "content": parts}
    status = rest.choice("status", MESSAGE_STATUS)
    if status is not None:
        message["status"] = status
    return Mapped("message", message, _take_id(rest), rest)


def _encode_file_search_call(item: Json, pointer: str) -> Mapped | None:
    queries = item.get("queries", _ABSENT)
    if not valid_id(item.get("id")) or type(queries) is not list or not all(type(q) is str for q in queries):
        return None
    rest = Rest(item, pointer)
    rest.take("type")
    rest.take("queries")
    call: Json = {"call_id": item["id"], "name": "file_search",
                  "arguments": canonical_json({"queries": queries}), "tool_type": "file_search"}
    status = rest.choice("status", CALL_STATUS)
    if status is not None:
        call["status"] = status
    return Mapped("tool_call", call, _take_id(rest), rest)


def _encode_custom(item: Json, pointer: str, t: str) -> Mapped:
    name = CUSTOM_PREFIX + t
    if not check_custom_type(name):
        raise AdapterError.at(at(pointer, "type"), "UNSUPPORTED_ITEM", f"item type {t!r} has no record form")
    rest = Rest(item, pointer)
    rest.take("type")
    # An item_reference's id names the item it refers to, not itself.
    framework_id = _ABSENT if t == "item_reference" else rest.take("id")
    mapped = Mapped("custom", {"type": name, "value": to_value(rest.left, pointer)}, framework_id, rest)
    rest.left = {}
    if t == "item_reference" and valid_id(item.get("id")):
        mapped.links.append({"type": "references", "target": item["id"]})
    return mapped


_CUSTOM_TYPE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*\.[a-z_][a-z0-9_]*")


def check_custom_type(name: str) -> bool:
    return len(name) <= 256 and _CUSTOM_TYPE.fullmatch(name) is not None


# -- The way back ------------------------------------------------------------------------------

def item_id(record: Mapping[str, Any], residue: Json) -> Any:
    """The item's ``id``: the one the residue kept, else the record id
    unless it was generated."""
    if "id" in residue:
        return from_value(residue["id"])
    rid = record.get("id")
    if type(rid) is str and not is_generated(rid):
        return rid
    return _ABSENT


def decode_item(record: Mapping[str, Any], residue: Any, pointer: str) -> Json:
    """The Responses item of a record; ``residue`` is the record's residue
    when it is of the caller's form, else None."""
    extra = unwrap(residue)
    kind = record.get("kind")
    if kind == "message":
        message = record.get("message") or {}
        t = extra.get("type")
        parts = message.get("content", [])
        if t == "reasoning" or (residue is None and parts and all("reasoning" in p for p in parts)):
            return _decode_reasoning(record, message, extra)
        return _decode_message(record, message, extra, pointer)
    if kind == "tool_call":
        call = record.get("tool_call") or {}
        if call.get("tool_type") == "file_search":
            decoded = _decode_file_search_call(record, call, extra)
            if decoded is not None:
                return decoded
        return _decode_function_call(record, call, extra)
    if kind == "tool_result":
        return _decode_function_call_output(record, record.get("tool_result") or {}, extra, pointer)
    if kind == "custom":
        custom = record.get("custom") or {}
        name = custom.get("type")
        if type(name) is str and name.startswith(CUSTOM_PREFIX) and type(from_value(custom.get("value"))) is dict:
            return _decode_custom(record, name[len(CUSTOM_PREFIX):], custom, extra)
    raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a record of kind {kind!r} has no Responses item form")


def _with_id(item: Json, record: Mapping[str, Any], extra: Json) -> None:
    fid = item_id(record, extra)
    if fid is not _ABSENT:
        item["id"] = fid


def _decode_message(record: Mapping[str, Any], message: Mapping[str, Any], extra: Json, pointer: str) -> Json:
    item = members(extra, ("content",))
    _with_id(item, record, extra)
    role = message.get("role")
    item["role"] = role
    parts = list(message.get("content", []))
    default_text = "output_text" if role == "assistant" else "input_text"
    entries = residue_list(extra, "content")
    if entries is not None:
        item["content"] = decode_parts(entries, parts, default_text, f"{pointer}/message/content")
    elif type(item.get("content")) is str and not parts:
        pass
    elif not parts:
        item["content"] = ""
    elif len(parts) == 1 and "text" in parts[0] and not parts[0]["text"].get("annotations"):
        item["content"] = parts[0]["text"]["text"]
    else:
        item["content"] = decode_parts(None, parts, default_text, f"{pointer}/message/content")
    for key in ("status", "phase"):
        if key in message:
            item[key] = message[key]
    if "id" in item and item.get("type") == "message":
        return ordered(item, ITEM_ORDER["output_message"])
    if "type" in item or type(item.get("content")) is list:
        # What an application writes: role first.
        return ordered(item, ("id", "role", *ITEM_ORDER["input_message"]))
    return ordered(item, ITEM_ORDER["input_message"])


def _decode_reasoning(record: Mapping[str, Any], message: Mapping[str, Any], extra: Json) -> Json:
    item = members(extra, ("summary", "content"))
    _with_id(item, record, extra)
    item["type"] = "reasoning"
    parts = list(message.get("content", []))
    first = parts[0]["reasoning"] if parts and "reasoning" in parts[0] else {}
    texts = list(first.get("summary", []))
    entries = residue_list(extra, "summary")
    summary: list[Any] = []
    for entry, text in align(entries, texts):
        if text is None:
            summary.append(unmapped_value(entry))
        else:
            summary.append(ordered({"text": text, **members(entry_map(entry))}, ("text", "type"))
                           if entry is not None else {"text": text, "type": "summary_text"})
    if entries is not None or texts or not extra:
        item["summary"] = summary  # a reasoning item of another producer gets the summary Responses requires
    if "encrypted_content" in first:
        item["encrypted_content"] = first["encrypted_content"]
    if "text" in first:
        parts = [{"reasoning": {"text": first["text"]}}, *parts[1:]]
    else:
        parts = parts[1:]
    content_entries = residue_list(extra, "content")
    if content_entries is not None or parts:
        content: list[Any] = []
        for entry, part in align(content_entries, parts):
            if part is None:
                content.append(unmapped_value(entry))
            else:
                text = part.get("reasoning", {}).get("text", "")
                body = {"text": text, **members(entry_map(entry))} if entry is not None else {
                    "text": text, "type": "reasoning_text"}
                content.append(ordered(body, ("text", "type")))
        item["content"] = content
    if "status" in message:
        item["status"] = message["status"]
    return ordered(item, ITEM_ORDER["reasoning"])


def _decode_function_call(record: Mapping[str, Any], call: Mapping[str, Any], extra: Json) -> Json:
    item = members(extra)
    _with_id(item, record, extra)
    item["type"] = "function_call"
    item["call_id"] = call.get("call_id", "")
    item["name"] = call.get("name", "")
    if "arguments" in call or "arguments" not in item:
        item["arguments"] = call.get("arguments", "")
    if "status" in call:
        item["status"] = call["status"]
    return ordered(item, ITEM_ORDER["function_call"])


def _decode_file_search_call(record: Mapping[str, Any], call: Mapping[str, Any], extra: Json) -> Json | None:
    try:
        args = json.loads(call.get("arguments", ""))
    except ValueError:
        return None
    if type(args) is not dict or set(args) != {"queries"} or type(args["queries"]) is not list:
        return None
    item = members(extra)
    item["id"] = call.get("call_id", "")
    item["queries"] = args["queries"]
    item["type"] = "file_search_call"
    if "status" in call:
        item["status"] = call["status"]
    return ordered(item, ITEM_ORDER["file_search_call"])


def _decode_function_call_output(record: Mapping[str, Any], result: Mapping[str, Any], extra: Json,
                                 pointer: str) -> Json:
    item = members(extra, ("output",))
    _with_id(item, record, extra)
    item["type"] = "function_call_output"
    item["call_id"] = result.get("call_id", "")
    entries = residue_list(extra, "output")
    if "output" in result:
        item["output"] = result["output"]
    elif entries is not None or result.get("output_parts"):
        item["output"] = decode_parts(entries, result.get("output_parts", []), "input_text",
                                      f"{pointer}/tool_result/output_parts")
    else:
        item["output"] = ""
    return ordered(item, ITEM_ORDER["function_call_output"])


def _decode_custom(record: Mapping[str, Any], t: str, custom: Mapping[str, Any], extra: Json) -> Json:
    item: Json = {"type": t}
    item.update(from_value(custom.get("value")))
    item.update(members(extra))
    if t != "item_reference":
        _with_id(item, record, extra)
    return ordered(item, ITEM_ORDER.get(t, ("type",)))


# -- Lists of items ----------------------------------------------------------------------------

def record_of(form: str, framework: str, ids: Ids, position: int, mapped: Mapped,
              scope: Mapping[str, Any]) -> Record:
    """The record of one mapped item; the framework id stays in the residue
    when the record id is not that id."""
    fid = mapped.framework_id
    rid = ids.assign(position, None if fid is _ABSENT else fid)
    if fid is not _ABSENT and fid != rid:
        mapped.rest.left["id"] = fid
    residue = mapped.rest.residue()
    record: Record = {"specversion": "1.0", "id": rid, "kind": mapped.kind, mapped.kind: mapped.payload}
    if scope:
        record["scope"] = dict(scope)
    if mapped.links:
        record["links"] = mapped.links
    if residue:
        record["native"] = native(form, framework, residue)
    return record


def encode_items(form: str, framework: str, items: Sequence[Any], scope: Mapping[str, Any]) -> list[Record]:
    ids = Ids(form, scope)
    return [record_of(form, framework, ids, i, encode_item(item, f"/{i}"), scope) for i, item in enumerate(items)]


def decode_records(form: str, records: Sequence[Mapping[str, Any]]) -> list[Any]:
    return [item for i, r in enumerate(records) for item in decode_items(r, residue_of(r, form), f"/{i}")]


def _part_class(part: Mapping[str, Any]) -> str:
    if "tool_call" in part or "tool_result" in part:
        return "tool"
    return "reasoning" if "reasoning" in part else "content"


def decode_items(record: Mapping[str, Any], residue: Any, pointer: str) -> list[Json]:
    """The Responses items of a record: one, except for a message of another
    producer that holds tool calls or results, or reasoning beside other
    content, which Responses keeps as items of their own. It gives, in the
    order of its parts, one item per run of content parts, per run of
    reasoning parts and per tool call or result; only the first item takes
    the record id."""
    message = record.get("message")
    if residue is not None or record.get("kind") != "message" or not isinstance(message, Mapping):
        return [decode_item(record, residue, pointer)]
    parts = list(message.get("content", []))
    classes = [_part_class(p) for p in parts]
    if "tool" not in classes and len(set(classes)) < 2:
        return [decode_item(record, residue, pointer)]
    groups: list[list[Mapping[str, Any]]] = []
    for part, cls in zip(parts, classes, strict=True):
        if groups and cls != "tool" and _part_class(groups[-1][0]) == cls:
            groups[-1].append(part)
        else:
            groups.append([part])
    items: list[Json] = []
    for n, group in enumerate(groups):
        piece: dict[str, Any] = {"id": record.get("id") if n == 0 else "urn:uuid:", "kind": "message",
                                 "message": {**message, "content": group}}
        if "tool_call" in group[0]:
            piece.update(kind="tool_call", tool_call=group[0]["tool_call"])
        elif "tool_result" in group[0]:
            piece.update(kind="tool_result", tool_result=group[0]["tool_result"])
        items.append(decode_item(piece, None, pointer))
    return items
