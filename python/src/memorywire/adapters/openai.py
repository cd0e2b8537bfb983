"""OpenAI APIs: Responses input items and Chat Completions messages
(spec/v1/adapters/openai.md)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memorywire.adapters import _responses as r
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    align,
    is_unmapped,
    ordered,
    residue_of,
    unmapped,
    unmapped_value,
    uri_from_media,
)

FRAMEWORK = "openai"
RESPONSES = "openai.responses_item"
CHAT = "openai.chat_message"

Json = dict[str, Any]

#: Member order of Chat Completions messages as the SDK's converter writes them.
CHAT_ORDER = ("role", "tool_call_id", "refusal", "content", "name", "tool_calls")
CHAT_PART_ORDER = {
    "text": ("type", "text"),
    "refusal": ("type", "refusal"),
    "image_url": ("type", "image_url"),
    "file": ("type", "file"),
}
TOOL_CALL_ORDER = ("id", "type", "function")


def _encode_responses(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    return r.encode_items(RESPONSES, FRAMEWORK, items, scope)


def _decode_responses(records: list[Record]) -> list[Any]:
    return r.decode_records(RESPONSES, records)


# -- Chat Completions --------------------------------------------------------------------------

def _encode_chat_part(el: Any, pointer: str) -> tuple[Json | None, Any]:
    if type(el) is not dict:
        return None, unmapped(el, pointer)
    rest = r.Rest(el, pointer)
    t = el.get("type")
    part: Json | None = None
    if t == "text":
        text = rest.text("text")
        if text is not None:
            part = {"text": {"text": text}}
    elif t == "refusal":
        text = rest.text("refusal")
        if text is not None:
            part = {"refusal": {"text": text}}
    elif t == "image_url" and type(el.get("image_url")) is dict:
        inner = r.Rest(el["image_url"], r.at(pointer, "image_url"))
        media: Json = {}
        r.encode_media_url(inner, "url", media)
        detail = inner.text("detail", 32)
        if detail is not None:
            media["detail"] = detail
        if media.get("uri") or media.get("data"):
            part = {"image": media}
            _nest(rest, "image_url", inner)
    elif t == "file" and type(el.get("file")) is dict:
        inner = r.Rest(el["file"], r.at(pointer, "file"))
        media = {}
        r.encode_file_data(inner, "file_data", media)
        for key, limit in (("file_id", 256), ("filename", 1024)):
            v = inner.text(key, limit)
            if v is not None:
                media[key] = v
        if media.get("data") or media.get("file_id"):
            part = {"file": media}
            _nest(rest, "file", inner)
    if part is None:
        return None, unmapped(el, pointer)
    return part, rest.residue()


def _nest(rest: r.Rest, key: str, inner: r.Rest) -> None:
    """The residue of a nested object, kept under its key only when not empty."""
    residue = inner.residue()
    if residue:
        rest.put(key, residue)
    else:
        rest.take(key)


def _decode_chat_part(entry: Any, part: Mapping[str, Any], pointer: str) -> Json:
    extra = r.entry_map(entry)
    item = r.members(extra, ("image_url", "file"))
    if "text" in part:
        item["type"] = "text"
        item["text"] = part["text"]["text"]
    elif "refusal" in part:
        item["type"] = "refusal"
        item["refusal"] = part["refusal"]["text"]
    elif "image" in part:
        media = part["image"]
        inner = r.members(r.entry_map(extra.get("image_url")))
        url = uri_from_media(media, inner.get("url") if type(inner.get("url")) is str else None)
        if url is not None:
            inner["url"] = url
        if "detail" in media:
            inner["detail"] = media["detail"]
        item["type"] = "image_url"
        item["image_url"] = ordered(inner, ("url", "detail"))
    elif "file" in part:
        media = part["file"]
        inner = r.members(r.entry_map(extra.get("file")))
        data = r.decode_file_data(media)
        if data is not None and "file_data" not in inner:
            inner["file_data"] = data
        for key in ("file_id", "filename"):
            if key in media:
                inner[key] = media[key]
        item["type"] = "file"
        item["file"] = ordered(inner, ("file_data", "file_id", "filename"))
    else:
        kind = next(iter(part), "?")
        raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a {kind} part has no Chat Completions form")
    return ordered(item, CHAT_PART_ORDER.get(str(item["type"]), ()))


def _encode_chat_parts(rest: r.Rest, key: str) -> list[Json]:
    parts: list[Json] = []
    entries: list[Any] = []
    for i, el in enumerate(rest.get(key)):
        part, entry = _encode_chat_part(el, r.at(r.at(rest.pointer, key), i))
        if part is not None:
            parts.append(part)
        entries.append(entry)
    rest.put(key, entries)
    return parts


def _encode_tool_call(call: Any, pointer: str) -> tuple[Json | None, Any]:
    if type(call) is not dict or type(call.get("function")) is not dict:
        return None, unmapped(call, pointer)
    fn = call["function"]
    if not (r.valid_call(call.get("id")) and r.valid_call(fn.get("name")) and type(fn.get("arguments")) is str):
        return None, unmapped(call, pointer)
    rest = r.Rest(call, pointer)
    inner = r.Rest(fn, r.at(pointer, "function"))
    part: Json = {"call_id": rest.take("id"), "name": inner.take("name")}
    arguments = inner.text("arguments")
    if arguments is not None:
        part["arguments"] = arguments
    tool_type = rest.text("type", 64)
    if tool_type is not None:
        part["tool_type"] = tool_type
    _nest(rest, "function", inner)
    return {"tool_call": part}, rest.residue()


def _decode_tool_call(entry: Any, part: Mapping[str, Any]) -> Json:
    extra = r.entry_map(entry)
    call = part["tool_call"]
    item = r.members(extra, ("function",))
    fn = r.members(r.entry_map(extra.get("function")))
    item["id"] = call.get("call_id", "")
    if "tool_type" in call:
        item["type"] = call["tool_type"]
    elif entry is None:
        item["type"] = "function"
    fn["name"] = call.get("name", "")
    if "arguments" in call or "arguments" not in fn:
        fn["arguments"] = call.get("arguments", "")
    item["function"] = ordered(fn, ("name", "arguments"))
    return ordered(item, TOOL_CALL_ORDER)


def _restore_call(entry: Any) -> Any:
    call = unmapped_value(entry)
    if type(call) is not dict:
        return call
    if type(call.get("function")) is dict:
        call["function"] = ordered(call["function"], ("name", "arguments"))
    return ordered(call, TOOL_CALL_ORDER)


def _encode_chat(msg: Any, pointer: str) -> r.Mapped:
    if type(msg) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH",
                              f"a Chat Completions message is a dict, not {type(msg).__name__}")
    rest = r.Rest(msg, pointer)
    role = msg.get("role", r._ABSENT)
    if role is r._ABSENT:
        raise AdapterError.at(r.at(pointer, "role"), "MISSING_MEMBER", "a message has a role")
    content = msg.get("content", r._ABSENT)
    if content is not r._ABSENT and content is not None and type(content) not in (str, list):
        raise AdapterError.at(r.at(pointer, "content"), "TYPE_MISMATCH", "content is a string, a list of parts or null")
    if role == "tool" and r.valid_call(msg.get("tool_call_id")) and type(content) in (str, list):
        rest.take("role")
        result: Json = {"call_id": rest.take("tool_call_id")}
        if type(content) is str:
            result["output"] = rest.take("content")
        else:
            output_parts = _encode_chat_parts(rest, "content")
            if output_parts:
                result["output_parts"] = output_parts
        return r.Mapped("tool_result", result, r._ABSENT, rest)
    if role in ("tool", "function"):
        message: Json = {"role": "tool"}
        if role == "tool":
            rest.take("role")  # "function" stays in the residue
    elif role in r.ROLES:
        message = {"role": rest.take("role")}
    else:
        raise AdapterError.at(r.at(pointer, "role"), "UNSUPPORTED_ITEM",
                              f"role {role!r} is not a Chat Completions role")
    parts: list[Json] = []
    if type(content) is str and content:
        parts.append({"text": {"text": rest.take("content")}})
    elif type(content) is list:
        parts.extend(_encode_chat_parts(rest, "content"))
    refusal = rest.text("refusal")
    if refusal is not None:
        parts.append({"refusal": {"text": refusal}})
    calls = rest.get("tool_calls")
    if type(calls) is list:
        entries: list[Any] = []
        for i, call in enumerate(calls):
            part, entry = _encode_tool_call(call, r.at(r.at(pointer, "tool_calls"), i))
            if part is not None:
                parts.append(part)
            entries.append(entry)
        rest.put("tool_calls", entries)
    if parts:
        message["content"] = parts
    name = rest.text("name", 256)
    if name is not None:
        message["name"] = name
    return r.Mapped("message", message, r._ABSENT, rest)


def _decode_chat(record: Mapping[str, Any], residue: Any, pointer: str) -> Json:
    extra = r.unwrap(residue)
    kind = record.get("kind")
    if kind == "tool_result":
        result = record.get("tool_result") or {}
        item = r.members(extra, ("content",))
        item["role"] = "tool"
        item["tool_call_id"] = result.get("call_id", "")
        entries = r.residue_list(extra, "content")
        if "output" in result:
            item["content"] = result["output"]
        elif entries is not None or result.get("output_parts"):
            item["content"] = _decode_chat_list(entries, result.get("output_parts", []),
                                                f"{pointer}/tool_result/output_parts")
        else:
            item["content"] = ""
        return ordered(item, CHAT_ORDER)
    if kind != "message":
        raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a record of kind {kind!r} has no Chat Completions form")
    message = record.get("message") or {}
    item = r.members(extra, ("content", "tool_calls"))
    role = message.get("role")
    if not (role == "tool" and item.get("role") == "function"):
        item["role"] = role
    parts = list(message.get("content", []))
    n_calls = 0
    while n_calls < len(parts) and "tool_call" in parts[len(parts) - 1 - n_calls]:
        n_calls += 1
    head, calls = parts[:len(parts) - n_calls], parts[len(parts) - n_calls:]
    entries = r.residue_list(extra, "content")
    if entries is not None:
        n = sum(1 for e in entries if not is_unmapped(e))
        item["content"] = _decode_chat_list(entries, head[:n], f"{pointer}/message/content")
        head = head[n:]
    elif "content" not in item:
        tail_refusal = bool(head) and "refusal" in head[-1]
        body = head[:-1] if tail_refusal else head
        if len(body) == 1 and "text" in body[0] and not body[0]["text"].get("annotations"):
            item["content"] = body[0]["text"]["text"]
        elif body:
            item["content"] = _decode_chat_list(None, body, f"{pointer}/message/content")
        head = head[len(body):]
    if head and "refusal" in head[0] and "refusal" not in item:
        item["refusal"] = head[0]["refusal"]["text"]
        head = head[1:]
    if head:
        raise AdapterError.at(f"{pointer}/message/content", "NOT_REPRESENTABLE",
                              "the parts after the content have no Chat Completions form")
    call_entries = r.residue_list(extra, "tool_calls")
    if call_entries is not None or calls:
        out: list[Any] = []
        for entry, part in align(call_entries, calls):
            out.append(_restore_call(entry) if part is None else _decode_tool_call(entry, part))
        item["tool_calls"] = out
    if "name" in message:
        item["name"] = message["name"]
    return ordered(item, CHAT_ORDER)


def _decode_chat_list(entries: list[Any] | None, parts: Sequence[Mapping[str, Any]], pointer: str) -> list[Any]:
    out: list[Any] = []
    for i, (entry, part) in enumerate(align(entries, parts)):
        out.append(r.restore(entry, CHAT_PART_ORDER) if part is None
                   else _decode_chat_part(entry, part, f"{pointer}/{i}"))
    return out


def _encode_chat_list(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(CHAT, scope)
    return [r.record_of(CHAT, FRAMEWORK, ids, i, _encode_chat(m, f"/{i}"), scope) for i, m in enumerate(items)]


def _chat_pieces(record: Record, residue: Any) -> list[Record]:
    """A message of another producer that holds tool results gives a
    message per run of other parts and a tool message per result, in order."""
    message = record.get("message")
    if residue is not None or record.get("kind") != "message" or not isinstance(message, dict):
        return [record]
    parts = message.get("content", [])
    if not any("tool_result" in p for p in parts):
        return [record]
    pieces: list[Record] = []
    run: list[Any] = []
    for part in [*parts, None]:
        if part is not None and "tool_result" not in part:
            run.append(part)
            continue
        if run:
            pieces.append({**record, "message": {**message, "content": run}})
            run = []
        if part is not None:
            pieces.append({"id": record.get("id"), "kind": "tool_result", "tool_result": part["tool_result"]})
    return pieces


def _decode_chat_list_records(records: list[Record]) -> list[Any]:
    out: list[Any] = []
    calls: list[Any] = []
    for i, rec in enumerate(records):
        residue = residue_of(rec, CHAT)
        if residue is None and rec.get("kind") == "tool_call":
            # Chat Completions keeps calls in the assistant message: the calls
            # of another producer's tool_call records in a row make one.
            calls.append({"tool_call": rec.get("tool_call") or {}})
            continue
        if calls:
            out.append(_decode_chat({"kind": "message", "message": {"role": "assistant", "content": calls}},
                                    None, f"/{i - len(calls)}"))
            calls = []
        out.extend(_decode_chat(piece, residue, f"/{i}") for piece in _chat_pieces(rec, residue))
    if calls:
        out.append(_decode_chat({"kind": "message", "message": {"role": "assistant", "content": calls}},
                                None, f"/{len(records) - len(calls)}"))
    return out


FORMS = (
    Form(RESPONSES, FRAMEWORK,
         "OpenAI Responses input items: the dicts the Responses API takes as input and the Agents SDK "
         "feeds back (RunItem.to_input_item()).",
         _encode_responses, _decode_responses),
    Form(CHAT, FRAMEWORK,
         "OpenAI Chat Completions messages: the dicts of the messages parameter, with tool_calls, tool "
         "messages, refusals and null content.",
         _encode_chat_list, _decode_chat_list_records),
)
