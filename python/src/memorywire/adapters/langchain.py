"""LangChain messages (spec/v1/adapters/langchain.md).

Three forms of the same messages: the message objects
(``langchain.messages``, which needs langchain-core at call time), the
dicts of ``messages_to_dict`` (every field written) and those of
``langchain_core.load.dumpd`` (only the fields that were set). Each message
is one record: a ``tool_result`` for a ``ToolMessage`` with a usable call
id, a ``custom`` record for a ``RemoveMessage``, a ``message`` otherwise.
"""

from __future__ import annotations

import base64
import importlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from memorywire._extras import install_hint
from memorywire._formats import check_format
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    align,
    canonical_json,
    from_value,
    is_generated,
    is_unmapped,
    media_from_uri,
    native,
    ordered,
    residue_of,
    to_value,
    unmapped,
    unmapped_value,
    uri_from_media,
    valid_id,
)

FRAMEWORK = "langchain"
OBJECTS = "langchain.messages"
TO_DICT = "langchain.messages_to_dict"
DUMPD = "langchain.dumpd"
#: The ``custom.type`` of a RemoveMessage.
REMOVE_TYPE = "langchain.remove_message"
RESPONSE_METADATA = "langchain.response_metadata"
USAGE_METADATA = "langchain.usage_metadata"

BASE_FIELDS = ("content", "additional_kwargs", "response_metadata", "type", "name", "id")
_AI = ("tool_calls", "invalid_tool_calls", "usage_metadata")
_TOOL = ("tool_call_id", "artifact", "status")

#: Message type -> (class name, family, fields after the base fields, in
#: the order messages_to_dict writes them).
CLASSES: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "system": ("SystemMessage", "system", ()),
    "human": ("HumanMessage", "human", ()),
    "ai": ("AIMessage", "ai", _AI),
    "tool": ("ToolMessage", "tool", _TOOL),
    "function": ("FunctionMessage", "function", ()),
    "chat": ("ChatMessage", "chat", ("role",)),
    "remove": ("RemoveMessage", "remove", ()),
    "SystemMessageChunk": ("SystemMessageChunk", "system", ()),
    "HumanMessageChunk": ("HumanMessageChunk", "human", ()),
    "AIMessageChunk": ("AIMessageChunk", "ai", (*_AI, "tool_call_chunks", "chunk_position")),
    "ToolMessageChunk": ("ToolMessageChunk", "tool", _TOOL),
    "FunctionMessageChunk": ("FunctionMessageChunk", "function", ()),
    "ChatMessageChunk": ("ChatMessageChunk", "chat", ("role",)),
}
BY_CLASS = {cls: t for t, (cls, _, _) in CLASSES.items()}
LC_NAMESPACE = ["langchain", "schema", "messages"]

#: The defaults of the optional fields; the rest are required.
DEFAULTS: dict[str, Any] = {
    "additional_kwargs": {}, "response_metadata": {}, "name": None, "id": None, "tool_calls": [],
    "invalid_tool_calls": [], "usage_metadata": None, "tool_call_chunks": [], "chunk_position": None,
    "artifact": None, "status": "success",
}

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "function": "tool"}
_CHAT_ROLES = {"system": "system", "developer": "developer", "user": "user", "assistant": "assistant",
               "tool": "tool", "human": "user", "ai": "assistant"}
_MAX_NAME = 256


def _fields(type_: str) -> tuple[str, ...]:
    return (*BASE_FIELDS, *CLASSES[type_][2])


def _default(value: Any) -> Any:
    return {} if isinstance(value, dict) else ([] if isinstance(value, list) else value)


def _err(pointer: str, reason: str, message: str) -> AdapterError:
    return AdapterError.at(pointer, reason, message)


def _short(x: Any, limit: int = _MAX_NAME) -> bool:
    return type(x) is str and 0 < len(x) <= limit


# -- content ------------------------------------------------------------------------------------

def _content_parts(content: Any, p: str) -> tuple[list[dict[str, Any]], list[Any] | None]:
    """The parts of ``content``, and the residue list of a list content."""
    if type(content) is str:
        return ([{"text": {"text": content}}] if content else []), None
    if type(content) is not list:
        raise _err(p, "TYPE_MISMATCH", "content is a string or a list")
    parts: list[dict[str, Any]] = []
    entries: list[Any] = []
    for j, element in enumerate(content):
        found = _element(element)
        if found is None:
            entries.append(unmapped(element, f"{p}/{j}"))
        else:
            part, entry = found
            parts.append(part)
            entries.append(to_value(entry, f"{p}/{j}"))
    return parts, entries


def _element(element: Any) -> tuple[dict[str, Any], Any] | None:
    """The part of one content element and its residue entry ("" for a
    bare string), or None when it yields no part."""
    if type(element) is str:
        return ({"text": {"text": element}}, "") if element else None
    if type(element) is not dict:
        return None
    rest = dict(element)
    kind = rest.get("type")
    part: dict[str, Any]
    if kind == "text" and _short(rest.get("text"), 1 << 62):
        part = {"text": {"text": rest.pop("text")}}
    elif kind == "reasoning" and _short(rest.get("reasoning"), 1 << 62):
        part = {"reasoning": {"text": rest.pop("reasoning")}}
    elif kind == "image_url":
        media = _image_url(rest)
        if media is None:
            return None
        part = {"image": media}
    elif kind in STANDARD_MEDIA:
        media = _standard_media(rest)
        if media is None:
            return None
        part = {str(kind): media}
    else:
        return None
    if _short(rest.get("id")) and kind != "image_url":
        part["id"] = rest.pop("id")
    return part, rest


#: The standard content blocks of media (langchain-core 1.x), by type.
STANDARD_MEDIA = ("image", "audio", "video", "file")


def _standard_media(rest: dict[str, Any]) -> dict[str, Any] | None:
    """The MediaPart of a standard media block (``url``, ``base64`` or
    ``file_id``, and ``mime_type``); takes what it maps out of ``rest``.
    A ``data:`` URL stays in the block: its text is the block's."""
    fields: dict[str, Any] = {}
    url, data, file_id, mime = (rest.get(k) for k in ("url", "base64", "file_id", "mime_type"))
    if url is not None:
        if not (type(url) is str and len(url) <= 8192 and check_format(url, "uri") and not url.startswith("data:")):
            return None
        fields["uri"] = url
    if data is not None:
        if not (type(data) is str and data and _is_base64(data)):
            return None
        fields["data"] = data
    if file_id is not None:
        if not _short(file_id):
            return None
        fields["file_id"] = file_id
    if not fields:
        return None
    if type(mime) is str and len(mime) <= 256 and check_format(mime, "media-type"):
        fields["media_type"] = mime
    for k in ("url", "base64", "file_id", "mime_type"):
        if k in rest and ({"url": "uri", "base64": "data", "mime_type": "media_type"}.get(k, k)) in fields:
            del rest[k]
    return fields


def _is_base64(text: str) -> bool:
    try:
        return base64.b64encode(base64.b64decode(text, validate=True)).decode("ascii") == text
    except ValueError:
        return False


def _image_url(rest: dict[str, Any]) -> dict[str, Any] | None:
    """The MediaPart of an ``image_url`` element; takes what it maps out of
    ``rest``."""
    inner = rest.get("image_url")
    url = inner if type(inner) is str else (inner.get("url") if type(inner) is dict else None)
    if type(url) is not str:
        return None
    fields, kept = media_from_uri(url)
    # A MediaPart needs a uri that is an absolute URI, or non-empty data.
    if kept is not None or not (fields.get("data") or check_format(fields.get("uri", ""), "uri")):
        return None
    if type(inner) is str:
        del rest["image_url"]
        return fields
    left = dict(inner) if type(inner) is dict else {}
    del left["url"]
    if type(left.get("detail")) is str and len(left["detail"]) <= 32 and left["detail"]:
        fields["detail"] = left.pop("detail")
    rest["image_url"] = left
    return fields


def _content_back(parts: Sequence[Mapping[str, Any]], entries: Any) -> str | list[Any]:
    if isinstance(entries, list):
        pairs = list(align(entries, parts))
        if all(e is None or is_unmapped(e) or _fits(from_value(e), part) for e, part in pairs):
            return [unmapped_value(e) if part is None else _element_back(part, from_value(e)) for e, part in pairs]
        return [_element_back(part, None) for part in parts]
    if not parts:
        return ""
    if len(parts) == 1 and set(parts[0]) == {"text"}:
        return str(parts[0]["text"]["text"])
    return [_element_back(part, None) for part in parts]


def _fits(entry: Any, part: Mapping[str, Any]) -> bool:
    if entry == "":
        return "text" in part and "id" not in part
    if type(entry) is not dict:
        return False
    if entry.get("type") in STANDARD_MEDIA:
        return entry["type"] in part
    want = {"text": "text", "reasoning": "reasoning", "image": "image_url"}
    return any(k in part and entry.get("type") == v for k, v in want.items())


def _element_back(part: Mapping[str, Any], entry: Any) -> Any:
    if entry == "" and "text" in part:
        return part["text"]["text"]
    out: dict[str, Any] = dict(entry) if type(entry) is dict else {}
    if "text" in part:
        out.setdefault("type", "text")
        out["text"] = part["text"]["text"]
    elif "reasoning" in part:
        out.setdefault("type", "reasoning")
        if "text" in part["reasoning"]:
            out["reasoning"] = part["reasoning"]["text"]
    elif type(entry) is dict and entry.get("type") in STANDARD_MEDIA and entry["type"] in part:
        media = part[entry["type"]]
        for field, member in (("uri", "url"), ("data", "base64"), ("file_id", "file_id"), ("media_type", "mime_type")):
            if field in media:
                out[member] = media[field]
    elif "image" in part:
        media = part["image"]
        url = uri_from_media(media)
        if type(entry) is dict and "image_url" not in entry:
            out["image_url"] = url
        else:
            inner = dict(out.get("image_url") or {})
            inner["url"] = url
            if "detail" in media:
                inner["detail"] = media["detail"]
            out["type"] = out.get("type", "image_url")
            out["image_url"] = ordered(inner, ("url", "detail"))
        return ordered(out, ("type", "image_url"))
    else:
        return _foreign_element(part)
    if "id" in part:
        out["id"] = part["id"]
    return ordered(out, ("type", "text", "reasoning", "url", "base64", "file_id", "mime_type"))


def _foreign_element(part: Mapping[str, Any]) -> dict[str, Any]:
    """A LangChain standard content block of a part that no LangChain form
    wrote (another producer's file, audio, data or refusal)."""
    for kind in ("image", "audio", "video", "file"):
        if kind in part:
            media = part[kind]
            block: dict[str, Any] = {"type": kind}
            if "uri" in media:
                block["url"] = media["uri"]
            if "data" in media:
                block["base64"] = media["data"]
            if "file_id" in media:
                block["file_id"] = media["file_id"]
            if "media_type" in media:
                block["mime_type"] = media["media_type"]
            return block
    return {"type": "non_standard", "value": from_value(dict(part))}


# -- tool calls ---------------------------------------------------------------------------------

def _tool_calls(calls: Any, p: str, invalid: bool) -> tuple[list[dict[str, Any]], list[Any]]:
    if type(calls) is not list:
        raise _err(p, "TYPE_MISMATCH", "a list of tool calls")
    parts, entries = [], []
    for j, call in enumerate(calls):
        q = f"{p}/{j}"
        if type(call) is not dict:
            raise _err(q, "TYPE_MISMATCH", "a tool call is a dict")
        rest = dict(call)
        part: dict[str, Any] | None = None
        if valid_id(call.get("id")) and _short(call.get("name")):
            args = call.get("args")
            if invalid:
                part = {"call_id": rest.pop("id"), "name": rest.pop("name")}
                if type(args) is str and args:
                    part["arguments"] = rest.pop("args")
                if type(call.get("error")) is str and call["error"]:
                    part["error"] = rest.pop("error")
            elif type(args) is dict:
                arguments = canonical_json(to_value(args, f"{q}/args"))
                part = {"call_id": rest.pop("id"), "name": rest.pop("name"), "arguments": arguments}
                del rest["args"]
        if part is None:
            entries.append(unmapped(call, q))
        else:
            parts.append({"tool_call": part})
            entries.append(to_value(rest, q))
    return parts, entries


def _call_back(call: Mapping[str, Any], entry: Any, invalid: bool) -> dict[str, Any]:
    """A tool call (or invalid tool call) of a ToolCall part, laid over its
    residue entry."""
    out: dict[str, Any] = dict(entry) if type(entry) is dict else {}
    if invalid:
        out["name"], out["id"] = call["name"], call["call_id"]
        out["args"] = call["arguments"] if "arguments" in call else out.get("args")
        out["error"] = call["error"] if "error" in call else out.get("error")
        out.setdefault("type", "invalid_tool_call")
        return out
    out.update({"name": call["name"], "args": from_value(json.loads(call["arguments"])), "id": call["call_id"]})
    out.setdefault("type", "tool_call")
    return ordered(out, ("name", "args", "id", "type"))


def _parses(call: Mapping[str, Any]) -> bool:
    try:
        return type(from_value(json.loads(call.get("arguments", "")))) is dict
    except (ValueError, AdapterError):
        return False


def _calls_back(parts: list[Mapping[str, Any]], res: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
    calls = [p["tool_call"] for p in parts]
    r1, r2 = res.get("tool_calls"), res.get("invalid_tool_calls")
    if isinstance(r1, list) and isinstance(r2, list):
        k1 = sum(1 for e in r1 if not is_unmapped(e))
        k2 = sum(1 for e in r2 if not is_unmapped(e))
        if k1 + k2 == len(calls) and all(_parses(c) for c in calls[:k1]):
            valid = [unmapped_value(e) if c is None else _call_back(c, from_value(e), False)
                     for e, c in align(r1, calls[:k1])]
            bad = [unmapped_value(e) if c is None else _call_back(c, from_value(e), True)
                   for e, c in align(r2, calls[k1:])]
            return valid, bad
    valid, bad = [], []
    for c in calls:
        if "error" not in c and _parses(c):
            valid.append(_call_back(c, None, False))
        else:
            bad.append(_call_back(c, None, True))
    return valid, bad


# -- to records ---------------------------------------------------------------------------------

def _check(data: Mapping[str, Any], type_: str, p: str) -> None:
    checks = {
        "additional_kwargs": dict, "response_metadata": dict, "tool_calls": list, "invalid_tool_calls": list,
        "tool_call_chunks": list,
    }
    for k, t in checks.items():
        if k in data and type(data[k]) is not t:
            raise _err(f"{p}/{k}", "TYPE_MISMATCH", f"{k} is a {t.__name__}")
    for k in ("name", "id", "chunk_position"):
        if k in data and data[k] is not None and type(data[k]) is not str:
            raise _err(f"{p}/{k}", "TYPE_MISMATCH", f"{k} is a string or null")
    for k in ("tool_call_id", "role", "status"):
        if k in data and type(data[k]) is not str:
            raise _err(f"{p}/{k}", "TYPE_MISMATCH", f"{k} is a string")
    if "usage_metadata" in data and data["usage_metadata"] is not None and type(data["usage_metadata"]) is not dict:
        raise _err(f"{p}/usage_metadata", "TYPE_MISMATCH", "usage_metadata is a dict or null")


def _full(type_: str, given: Mapping[str, Any], p: str) -> dict[str, Any]:
    """Every field of the class, the defaults filled in, extras last."""
    data: dict[str, Any] = {}
    for k in _fields(type_):
        if k == "type":
            data[k] = type_
        elif k in given:
            data[k] = given[k]
        elif k in DEFAULTS and not (k == "name" and CLASSES[type_][1] == "function"):
            data[k] = _default(DEFAULTS[k])
        else:
            raise _err(f"{p}/{k}", "MISSING_MEMBER", f"a {CLASSES[type_][0]} has {k!r}")
    data.update((k, v) for k, v in given.items() if k not in data)
    _check(data, type_, p)
    return data


def _message_record(data: dict[str, Any], type_: str, p: str, ids: Ids, position: int,
                    scope: dict[str, Any], form: str) -> tuple[Record, dict[str, Any]]:
    family = CLASSES[type_][1]
    fields = _fields(type_)
    res: dict[str, Any] = {}
    rec: Record = {"specversion": "1.0"}
    parts, entries = _content_parts(data["content"], f"{p}/content")
    kind: str
    payload: dict[str, Any]
    if family == "remove":
        kind = "custom"
        rec["id"] = ids.assign(position)
        payload = {"type": REMOVE_TYPE, "value": {"id": to_value(data["id"], f"{p}/id")}}
        if data["content"] != "":
            res["content"] = to_value(data["content"], f"{p}/content")
    else:
        framework_id = data["id"]
        rec["id"] = ids.assign(position, framework_id)
        if framework_id is not None and (rec["id"] != framework_id or is_generated(framework_id)):
            res["id"] = framework_id
        if family == "tool" and valid_id(data["tool_call_id"]):
            kind = "tool_result"
            payload = {"call_id": data["tool_call_id"]}
            if _short(data["name"]):
                payload["name"] = data["name"]
            if type(data["content"]) is str:
                payload["output"] = data["content"]
            else:
                if parts:
                    payload["output_parts"] = parts
                res["content"] = entries
            if data["status"] in ("success", "error"):
                payload["status"] = data["status"]
            else:
                res["status"] = data["status"]
            if data["artifact"] is not None:
                payload["artifact"] = to_value(data["artifact"], f"{p}/artifact")
        else:
            kind = "message"
            payload = {}
            if family == "chat":
                role = _CHAT_ROLES.get(data["role"], "assistant")
                if data["role"] != role:
                    res["role"] = data["role"]
            else:
                role = "tool" if family == "tool" else _ROLES[family]
            payload["role"] = role
            if _short(data["name"]):
                payload["name"] = data["name"]
            if entries is not None:
                res["content"] = entries
            if family == "ai":
                calls, r1 = _tool_calls(data["tool_calls"], f"{p}/tool_calls", False)
                bad, r2 = _tool_calls(data["invalid_tool_calls"], f"{p}/invalid_tool_calls", True)
                parts = parts + calls + bad
                if r1 or r2:
                    res["tool_calls"], res["invalid_tool_calls"] = r1, r2
            if family == "tool":
                for k in _TOOL:
                    if data[k] != DEFAULTS.get(k):
                        res[k] = to_value(data[k], f"{p}/{k}")
            if parts:
                payload["content"] = parts
    if data["name"] is not None and not (kind != "custom" and "name" in payload):
        res["name"] = data["name"]
    rec["kind"] = kind
    if scope:
        rec["scope"] = dict(scope)
    rec[kind] = payload
    if data["additional_kwargs"]:
        rec["metadata"] = to_value(data["additional_kwargs"], f"{p}/additional_kwargs")
    ext = {}
    if data["response_metadata"]:
        ext[RESPONSE_METADATA] = to_value(data["response_metadata"], f"{p}/response_metadata")
    if "usage_metadata" in fields and data["usage_metadata"] is not None:
        ext[USAGE_METADATA] = to_value(data["usage_metadata"], f"{p}/usage_metadata")
    if ext:
        rec["extensions"] = ext
    if "tool_call_chunks" in fields and data["tool_call_chunks"]:
        res["tool_call_chunks"] = to_value(data["tool_call_chunks"], f"{p}/tool_call_chunks")
    if "chunk_position" in fields and data["chunk_position"] is not None:
        res["chunk_position"] = data["chunk_position"]
    extra = {k: v for k, v in data.items() if k not in fields}
    if extra:
        res["extra"] = to_value(extra, p)
    if type_ != _default_type(rec):
        res["type"] = type_
    return rec, res


def _encode_dicts(items: list[Any], scope: dict[str, Any], form: str, objects: bool = False) -> list[Record]:
    ids = Ids(form, scope)
    out = []
    for i, item in enumerate(items):
        if type(item) is not dict:
            raise _err(f"/{i}", "TYPE_MISMATCH", "an item is the dict messages_to_dict writes")
        p = f"/{i}" if objects else f"/{i}/data"
        for k in item:
            if k not in ("type", "data"):
                raise _err(f"/{i}/{k}", "UNSUPPORTED_ITEM", f"{k!r} is not a member of messages_to_dict output")
        type_, data = item.get("type"), item.get("data")
        if type_ not in CLASSES:
            raise _err(f"/{i}/type", "UNSUPPORTED_ITEM", f"{type_!r} is not a LangChain message type")
        if type(data) is not dict:
            raise _err(f"/{i}/data", "TYPE_MISMATCH", "data is a dict")
        if data.get("type") != type_:
            raise _err(f"{p}/type", "TYPE_MISMATCH", f"the data type {data.get('type')!r} is not {type_!r}")
        full = _full(type_, data, p)
        rec, res = _message_record(full, type_, p, ids, i, scope, form)
        if list(full) != list(data):
            res["order"] = list(data)
        if res:
            rec["native"] = native(form, FRAMEWORK, res)
        out.append(rec)
    return out


def _dumpd_keys(type_: str, data: Mapping[str, Any]) -> list[str]:
    """The kwargs that dumpd writes for a message built with only its
    non-default fields: content and type, every field that differs from its
    default, and the fields the class always sets."""
    family = CLASSES[type_][1]
    always = {"content", "type"}
    if family == "ai":
        always |= {"tool_calls", "invalid_tool_calls"}
    if family == "tool":
        always |= {"tool_call_id", "status"}
    if family == "chat":
        always.add("role")
    if family == "function":
        always.add("name")
    return [k for k in _fields(type_) if k in always or (k in data and data[k] != DEFAULTS.get(k))]


def _encode_dumpd(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(DUMPD, scope)
    out = []
    for i, item in enumerate(items):
        p = f"/{i}"
        if type(item) is not dict:
            raise _err(p, "TYPE_MISMATCH", "an item is the dict dumpd writes")
        for k in item:
            if k not in ("lc", "type", "id", "kwargs"):
                raise _err(f"{p}/{k}", "UNSUPPORTED_ITEM", f"{k!r} is not a member of dumpd output")
        if item.get("lc") != 1 or type(item.get("lc")) is not int or item.get("type") != "constructor":
            raise _err(f"{p}/type", "UNSUPPORTED_ITEM", "only lc 1 constructor entries are messages")
        path = item.get("id")
        if (type(path) is not list or len(path) != 4 or path[:3] != LC_NAMESPACE
                or path[3] not in BY_CLASS):
            raise _err(f"{p}/id", "UNSUPPORTED_ITEM", f"{path!r} is not a LangChain message class")
        type_ = BY_CLASS[path[3]]
        kwargs = item.get("kwargs")
        if type(kwargs) is not dict:
            raise _err(f"{p}/kwargs", "TYPE_MISMATCH", "kwargs is a dict")
        if kwargs.get("type") != type_:
            raise _err(f"{p}/kwargs/type", "TYPE_MISMATCH", f"the type {kwargs.get('type')!r} is not {type_!r}")
        if list(item) != ["lc", "type", "id", "kwargs"]:
            raise _err(p, "UNSUPPORTED_ITEM", "dumpd writes lc, type, id and kwargs, in this order")
        full = _full(type_, kwargs, f"{p}/kwargs")
        rec, res = _message_record(full, type_, f"{p}/kwargs", ids, i, scope, DUMPD)
        if _dumpd_keys(type_, full) != list(kwargs):
            res["kwargs"] = list(kwargs)
        if res:
            rec["native"] = native(DUMPD, FRAMEWORK, res)
        out.append(rec)
    return out


# -- from records -------------------------------------------------------------------------------

def _default_type(rec: Mapping[str, Any]) -> str:
    kind = rec.get("kind")
    if kind == "tool_result" or kind == "tool_call":
        return "tool" if kind == "tool_result" else "ai"
    if kind == "custom" and (rec.get("custom") or {}).get("type") == REMOVE_TYPE:
        return "remove"
    role = (rec.get("message") or {}).get("role")
    if role == "tool":
        return "function" if (rec.get("message") or {}).get("name") else "chat"
    return {"system": "system", "user": "human", "assistant": "ai"}.get(str(role), "chat")


def _compatible(type_: str, kind: Any) -> bool:
    family = CLASSES[type_][1]
    if family == "remove":
        return bool(kind == "custom")
    if family == "tool":
        return kind in ("tool_result", "message")
    return bool(kind == "message")


def _message_data(rec: Mapping[str, Any], form: str, p: str) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """The message type, every field, and the residue of one record."""
    found = residue_of(rec, form)
    res: dict[str, Any] = dict(found) if isinstance(found, Mapping) else {}
    kind = rec.get("kind")
    if kind not in ("message", "tool_result", "tool_call", "custom"):
        raise _err(f"{p}/kind", "UNSUPPORTED_ITEM", f"a record of kind {kind!r} is not a LangChain message")
    if kind == "custom" and (rec.get("custom") or {}).get("type") != REMOVE_TYPE:
        raise _err(f"{p}/custom/type", "UNSUPPORTED_ITEM", "only RemoveMessage is a custom LangChain record")
    type_ = res.get("type")
    if type_ not in CLASSES or not _compatible(type_, kind):
        type_ = _default_type(rec)
    family = CLASSES[type_][1]
    data: dict[str, Any] = {}
    payload: Mapping[str, Any] = rec.get(kind) or {}
    if kind == "tool_call":
        parts: list[Mapping[str, Any]] = [{"tool_call": payload}]
    elif kind == "tool_result":
        parts = list(payload.get("output_parts") or [])
    else:
        parts = list(payload.get("content") or [])
    content_parts = [x for x in parts if "tool_call" not in x]
    if kind == "tool_result" and "output" in payload:
        data["content"] = payload["output"]
    elif family == "remove":
        data["content"] = from_value(res["content"]) if "content" in res else ""
    else:
        data["content"] = _content_back(content_parts, res.get("content"))
    data["additional_kwargs"] = from_value(rec.get("metadata") or {})
    ext = rec.get("extensions") or {}
    data["response_metadata"] = from_value(ext.get(RESPONSE_METADATA, {}))
    data["type"] = type_
    name = payload.get("name") if kind in ("message", "tool_result") else None
    data["name"] = res["name"] if "name" in res else name
    if family == "remove":
        data["id"] = from_value((payload.get("value") or {}).get("id"))
    elif "id" in res:
        data["id"] = res["id"]
    else:
        rid = rec.get("id")
        data["id"] = None if not isinstance(rid, str) or is_generated(rid) else rid
    if family == "ai":
        data["tool_calls"], data["invalid_tool_calls"] = _calls_back(
            [x for x in parts if "tool_call" in x], res)
        usage = ext.get(USAGE_METADATA)
        data["usage_metadata"] = None if usage is None else from_value(usage)
        data["tool_call_chunks"] = from_value(res.get("tool_call_chunks", []))
        data["chunk_position"] = res.get("chunk_position")
    if family == "tool":
        if kind == "tool_result":
            data["tool_call_id"] = payload.get("call_id", "")
            artifact = payload.get("artifact")
            data["artifact"] = None if "artifact" not in payload else from_value(artifact)
            status = payload.get("status")
            data["status"] = res.get("status", "success" if status in (None, "success") else "error")
        else:
            data["tool_call_id"] = res.get("tool_call_id", "")
            data["artifact"] = from_value(res["artifact"]) if "artifact" in res else None
            data["status"] = res.get("status", "success")
    if family == "chat":
        role = res.get("role")
        data["role"] = role if type(role) is str else str(payload.get("role", "assistant"))
    if family == "function" and data["name"] is None:
        data["name"] = ""
    full = {k: data[k] for k in _fields(type_)}
    extra = res.get("extra")
    if isinstance(extra, Mapping):
        full.update((k, v) for k, v in from_value(dict(extra)).items() if k not in full)
    return type_, full, res


def _decode_dicts(records: list[Record], form: str) -> list[Any]:
    out = []
    for i, rec in enumerate(records):
        type_, data, res = _message_data(rec, form, f"/{i}")
        order = res.get("order")
        if isinstance(order, list) and sorted(order) == sorted(data):
            data = ordered(data, order)
        out.append({"type": type_, "data": data})
    return out


def _decode_dumpd(records: list[Record]) -> list[Any]:
    out = []
    for i, rec in enumerate(records):
        type_, data, res = _message_data(rec, DUMPD, f"/{i}")
        keys = res.get("kwargs")
        if not (isinstance(keys, list) and all(k in data for k in keys)):
            keys = _dumpd_keys(type_, data)
        out.append({"lc": 1, "type": "constructor", "id": [*LC_NAMESPACE, CLASSES[type_][0]],
                    "kwargs": {k: data[k] for k in keys}})
    return out


# -- message objects ----------------------------------------------------------------------------

def _langchain() -> Any:
    try:
        return importlib.import_module("langchain_core.messages")
    except ImportError as e:
        raise ImportError(install_hint("the form langchain.messages", "langchain")) from e


def _encode_objects(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    messages = _langchain()
    for i, item in enumerate(items):
        if not isinstance(item, messages.BaseMessage):
            raise _err(f"/{i}", "TYPE_MISMATCH", f"an item is a LangChain message, not {type(item).__name__}")
    return _encode_dicts(messages.messages_to_dict(items), scope, OBJECTS, objects=True)


def _decode_objects(records: list[Record]) -> list[Any]:
    messages = _langchain()
    return list(messages.messages_from_dict(_decode_dicts(records, OBJECTS)))


FORMS = (
    Form(OBJECTS, FRAMEWORK, "LangChain message objects (BaseMessage instances, chunks included).",
         _encode_objects, _decode_objects, extra="langchain"),
    Form(TO_DICT, FRAMEWORK, "The dicts of langchain_core.messages.messages_to_dict: every field written.",
         lambda items, scope: _encode_dicts(items, scope, TO_DICT), lambda records: _decode_dicts(records, TO_DICT)),
    Form(DUMPD, FRAMEWORK, "The dicts of langchain_core.load.dumpd of each message: only the fields that were set.",
         _encode_dumpd, _decode_dumpd),
)
