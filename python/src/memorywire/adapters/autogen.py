"""AutoGen (autogen-core) LLM messages, memory contents and ListMemory
components (spec/v1/adapters/autogen.md)."""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

import orjson

from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    align,
    from_value,
    keep_text,
    memory_text,
    native,
    ordered,
    residue_of,
    to_value,
    unmapped,
    unmapped_value,
)

FRAMEWORK = "autogen"
LLM = "autogen.llm_message"
CONTENT = "autogen.memory_content"
COMPONENT = "autogen.list_memory_component"

#: message type -> (role, member order of model_dump()).
TYPES: dict[str, tuple[str, tuple[str, ...]]] = {
    "SystemMessage": ("system", ("content", "type")),
    "UserMessage": ("user", ("content", "source", "type")),
    "AssistantMessage": ("assistant", ("content", "thought", "source", "type")),
    "FunctionExecutionResultMessage": ("tool", ("content", "type")),
}
ROLE_TYPES = {"system": "SystemMessage", "developer": "SystemMessage", "user": "UserMessage",
              "assistant": "AssistantMessage", "tool": "FunctionExecutionResultMessage"}
CALL_ORDER = ("id", "arguments", "name")
RESULT_ORDER = ("content", "name", "call_id", "is_error")
CONTENT_ORDER = ("content", "mime_type", "metadata")
COMPONENT_ORDER = ("provider", "component_type", "version", "component_version", "description", "label", "config")
CONFIG_ORDER = ("name", "memory_contents")
PNG = b"\x89PNG\r\n\x1a\n"
#: custom.type of a MemoryContent whose content is not a non-empty string.
CONTENT_TYPE = "autogen.memory_content"
#: custom.type of the ListMemory component itself.
COMPONENT_TYPE = "autogen.list_memory"


def _ok(x: Any, most: int = 256) -> bool:
    return type(x) is str and 0 < len(x) <= most


def _record(rid: str, kind: str, payload: Any, scope: dict[str, Any]) -> Record:
    record: Record = {"specversion": "1.0", "id": rid, "kind": kind}
    if scope:
        record["scope"] = dict(scope)
    record[kind] = payload
    return record


# -- autogen.llm_message ---------------------------------------------------------------------------

def _image(element: dict[str, Any]) -> dict[str, Any] | None:
    data = element.get("data")
    if set(element) != {"data"} or type(data) is not str:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not raw or base64.b64encode(raw).decode("ascii") != data:
        return None
    return {"data": data, "media_type": "image/png"} if raw.startswith(PNG) else {"data": data}


def _element(element: Any, kind: str, pointer: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The content part of one element of a content list, and its residue entry."""
    if kind == "UserMessage":
        if type(element) is str and element:
            return {"text": {"text": element}}, {}
        if type(element) is dict:
            image = _image(element)
            if image is not None:
                return {"image": image}, {}
    elif kind == "AssistantMessage":
        if type(element) is dict and set(element) >= set(CALL_ORDER) and _ok(element["id"]) \
                and _ok(element["name"]) and type(element["arguments"]) is str:
            call = {"call_id": element["id"], "name": element["name"], "arguments": element["arguments"]}
            extra = {k: to_value(v, f"{pointer}/{k}") for k, v in element.items() if k not in CALL_ORDER}
            return {"tool_call": call}, extra
    elif kind == "FunctionExecutionResultMessage":
        if type(element) is dict and set(element) >= set(RESULT_ORDER) and _ok(element["call_id"]) \
                and type(element["name"]) is str and len(element["name"]) <= 256 \
                and type(element["content"]) is str and element["is_error"] in (True, False, None):
            result: dict[str, Any] = {"call_id": element["call_id"]}
            if element["name"]:
                result["name"] = element["name"]
            result["output"] = element["content"]
            if element["is_error"] is not None:
                result["status"] = "error" if element["is_error"] else "success"
            extra = {k: to_value(v, f"{pointer}/{k}") for k, v in element.items() if k not in RESULT_ORDER}
            return {"tool_result": result}, extra
    return None, unmapped(element, pointer)


def _llm_record(item: Any, pointer: str, rid: str, scope: dict[str, Any]) -> Record:
    if type(item) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", "an AutoGen LLM message is a dict (model_dump())")
    kind = item.get("type")
    if kind not in TYPES:
        raise AdapterError.at(f"{pointer}/type", "UNSUPPORTED_ITEM", f"{kind!r} is not an AutoGen LLM message type")
    role, order = TYPES[kind]
    for key in order:
        if key not in item:
            raise AdapterError.at(f"{pointer}/{key}", "MISSING_MEMBER", f"a {kind} has {key}")
    residue: dict[str, Any] = {}
    msg: dict[str, Any] = {"role": role}
    if "source" in item:
        if _ok(item["source"]):
            msg["name"] = item["source"]
        elif item["source"] != "":
            residue["source"] = to_value(item["source"], f"{pointer}/source")
    parts: list[dict[str, Any]] = []
    if "thought" in item:
        thought = item["thought"]
        if type(thought) is str:
            parts.append({"reasoning": {"text": thought} if thought else {}})
        elif thought is not None:
            raise AdapterError.at(f"{pointer}/thought", "TYPE_MISMATCH", "thought is a string or null")
    content = item["content"]
    if type(content) is str and kind != "FunctionExecutionResultMessage":
        if content:
            parts.append({"text": {"text": content}})
    elif type(content) is list:
        entries = []
        for i, element in enumerate(content):
            part, entry = _element(element, kind, f"{pointer}/content/{i}")
            if part is not None:
                parts.append(part)
            entries.append(entry)
        # The entries are kept unless they are all empty and the parts already say "a list".
        listed = kind == "FunctionExecutionResultMessage" or any("text" not in p and "reasoning" not in p
                                                                 for p in parts)
        if not listed or any(entries):
            residue["content"] = entries
    else:
        raise AdapterError.at(f"{pointer}/content", "TYPE_MISMATCH", f"the content of a {kind} has another type")
    if parts:
        msg["content"] = parts
    residue.update({k: to_value(v, f"{pointer}/{k}") for k, v in item.items() if k not in order})
    record = _record(rid, "message", msg, scope)
    if residue:
        record["native"] = native(LLM, FRAMEWORK, residue)
    return record


def _encode_llm(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(LLM, scope)
    return [_llm_record(item, f"/{i}", ids.assign(i), scope) for i, item in enumerate(items)]


def _part_element(part: dict[str, Any], kind: str, entry: dict[str, Any] | None, pointer: str) -> Any:
    e = entry or {}
    if kind == "UserMessage" and "text" in part:
        return part["text"]["text"]
    if kind == "UserMessage" and "image" in part and "data" in part["image"]:
        return {"data": part["image"]["data"]}
    if kind == "AssistantMessage" and "tool_call" in part:
        call = part["tool_call"]
        out = {"id": call["call_id"], "arguments": call.get("arguments", ""), "name": call["name"]}
    elif kind == "FunctionExecutionResultMessage" and "tool_result" in part:
        result = part["tool_result"]
        output = result.get("output")
        if output is None:
            output = "".join(p["text"]["text"] for p in result.get("output_parts", []) if "text" in p)
        status = result.get("status")
        is_error = None if status in (None, "running") else status != "success"
        out = {"content": output, "name": result.get("name", ""), "call_id": result["call_id"], "is_error": is_error}
    else:
        member = next((k for k in part if k not in ("id", "extensions")), "?")
        raise AdapterError.at(pointer, "NOT_REPRESENTABLE", f"a {member} part has no place in an AutoGen {kind}")
    out.update({k: from_value(v) for k, v in e.items()})
    return out


def _decode_llm_one(record: dict[str, Any], pointer: str) -> dict[str, Any]:
    res = residue_of(record, LLM)
    residue: dict[str, Any] = res if type(res) is dict else {}
    kind = record.get("kind")
    if kind == "message":
        msg = record.get("message", {})
        role = msg.get("role")
        parts: list[dict[str, Any]] = list(msg.get("content", []))
    elif kind in ("tool_call", "tool_result"):
        role = "assistant" if kind == "tool_call" else "tool"
        msg = {}
        parts = [{kind: record[kind]}]
    else:
        # A memory of another kind is what AutoGen's memory gives a model: a system message.
        role, msg = "system", {}
        text = memory_text(record, pointer)
        parts = [{"text": {"text": text}}] if text else []
    mtype = ROLE_TYPES.get(str(role), "UserMessage")
    order = TYPES[mtype][1]
    item: dict[str, Any] = {}
    thought: str | None = None
    if mtype == "AssistantMessage":
        # Reasoning (AutoGen's own thought), and another producer's text beside tool calls, is the thought.
        calls = any("tool_call" in p for p in parts)
        said = [p["reasoning"].get("text", "") if "reasoning" in p else p["text"]["text"] for p in parts
                if "reasoning" in p or (calls and "text" in p)]
        parts = [p for p in parts if not ("reasoning" in p or (calls and "text" in p))]
        thought = "\n".join(said) if said else None
    entries = residue.get("content")
    content: Any
    if type(entries) is list:
        content = []
        index = 0
        for entry, part in align(entries, parts):
            if part is None:
                content.append(unmapped_value(entry))
            else:
                content.append(_part_element(part, mtype, entry, f"{pointer}/message/content/{index}"))
                index += 1
    elif mtype == "FunctionExecutionResultMessage" or any("text" not in p for p in parts):
        content = [_part_element(p, mtype, None, f"{pointer}/message/content/{i}") for i, p in enumerate(parts)]
    else:
        content = "".join(p["text"]["text"] for p in parts)
    item["content"] = content
    if mtype == "AssistantMessage":
        item["thought"] = thought
    if "source" in order:
        item["source"] = from_value(residue["source"]) if "source" in residue else msg.get("name", "")
    item["type"] = mtype
    item.update({k: from_value(v) for k, v in residue.items() if k not in order})
    return ordered(item, order)


def _decode_llm(records: list[Record]) -> list[Any]:
    return [_decode_llm_one(r, f"/{i}") for i, r in enumerate(records)]


# -- autogen.memory_content ------------------------------------------------------------------------

def _content_record(item: Any, pointer: str, rid: str, scope: dict[str, Any], form: str,
                    metadata_member: bool) -> Record:
    """A MemoryContent dump. ``metadata_member``: the form always writes
    ``metadata`` (model_dump()); otherwise it leaves out a null one."""
    if type(item) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", "a MemoryContent dump is a dict")
    if "content" not in item:
        raise AdapterError.at(f"{pointer}/content", "MISSING_MEMBER", "a MemoryContent has content")
    if metadata_member and "metadata" not in item:
        raise AdapterError.at(f"{pointer}/metadata", "MISSING_MEMBER", "MemoryContent.model_dump() writes metadata")
    content = item["content"]
    if type(content) is str and content:
        record = _record(rid, "fact", {"text": content}, scope)
    else:
        record = _record(rid, "custom", {"type": CONTENT_TYPE, "value": to_value(content, f"{pointer}/content")},
                         scope)
    residue: dict[str, Any] = {}
    if "mime_type" in item:
        residue["mime_type"] = to_value(item["mime_type"], f"{pointer}/mime_type")
    metadata = item.get("metadata")
    if type(metadata) is dict and 0 < len(metadata) <= 1000:
        record["metadata"] = {k: to_value(v, f"{pointer}/metadata/{k}") for k, v in metadata.items()}
    elif "metadata" in item and (metadata is not None or not metadata_member):
        residue["metadata"] = to_value(metadata, f"{pointer}/metadata")
    residue.update({k: to_value(v, f"{pointer}/{k}") for k, v in item.items() if k not in CONTENT_ORDER})
    record["native"] = native(form, FRAMEWORK, residue)
    return record


def _encode_contents(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(CONTENT, scope)
    return [_content_record(item, f"/{i}", ids.assign(i), scope, CONTENT, True) for i, item in enumerate(items)]


def _default_mime(content: Any) -> str:
    if type(content) is str:
        return "text/plain"
    return "application/octet-stream" if type(content) is bytes else "application/json"


def _decode_content(record: dict[str, Any], form: str, metadata_member: bool, pointer: str) -> dict[str, Any]:
    res = residue_of(record, form)
    residue: dict[str, Any] = res if type(res) is dict else {}
    kind = record.get("kind")
    content: Any
    if kind == "custom" and type(record.get("custom")) is dict:
        content = from_value(record["custom"].get("value"))
    elif kind == "message":
        content = "".join(p["text"]["text"] for p in record["message"].get("content", []) if "text" in p)
    elif kind == "tool_call":
        content = record["tool_call"].get("arguments", "")
    elif kind == "tool_result":
        result = record["tool_result"]
        content = result.get("output", "".join(p["text"]["text"] for p in result.get("output_parts", [])
                                               if "text" in p))
    else:
        content = memory_text(record, pointer)
    item: dict[str, Any] = {"content": content}
    item["mime_type"] = from_value(residue["mime_type"]) if "mime_type" in residue else _default_mime(content)
    if "metadata" in record:
        item["metadata"] = {k: from_value(v) for k, v in record["metadata"].items()}
    elif "metadata" in residue:
        item["metadata"] = from_value(residue["metadata"])
    elif metadata_member:
        item["metadata"] = None
    item.update({k: from_value(v) for k, v in residue.items() if k not in CONTENT_ORDER})
    return ordered(item, CONTENT_ORDER)


def _decode_contents(records: list[Record]) -> list[Any]:
    return [_decode_content(r, CONTENT, True, f"/{i}") for i, r in enumerate(records)]


# -- autogen.list_memory_component ---------------------------------------------------------------

def _pydantic_json(value: Any) -> str:
    """What pydantic's ``model_dump_json()`` writes for plain JSON data."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _same(a: Any, b: Any) -> bool:
    """Type-exact equality (floats by their bits, dicts by keys, lists in order)."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return bool(a.hex() == b.hex())
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if type(a) is list:
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _component_records(item: Any, pointer: str, position: int, ids: Ids, scope: dict[str, Any]) -> list[Record]:
    text = item if type(item) is str else None
    if text is not None:
        try:
            component = json.loads(text)
        except ValueError as e:
            raise AdapterError.at(pointer, "TYPE_MISMATCH", f"the component text is not JSON: {e}") from None
    else:
        component = item
    if type(component) is not dict or type(component.get("config")) is not dict \
            or type(component["config"].get("memory_contents")) is not list:
        raise AdapterError.at(f"{pointer}/config/memory_contents", "MISSING_MEMBER",
                              "a ListMemory component has config.memory_contents, a list")
    contents = component["config"]["memory_contents"]
    envelope = dict(component)
    envelope["config"] = {k: v for k, v in component["config"].items() if k != "memory_contents"}
    residue: dict[str, Any] = {"memory_contents": len(contents)}
    if text is not None:
        residue["model_dump_json"] = None
    head = _record(ids.assign(position), "custom", {"type": COMPONENT_TYPE, "value": to_value(envelope, pointer)},
                   scope)
    head["native"] = native(COMPONENT, FRAMEWORK, residue)
    records = [head]
    for j, content in enumerate(contents):
        records.append(_content_record(content, f"{pointer}/config/memory_contents/{j}",
                                       ids.assign(position + 1 + j), scope, COMPONENT, False))
    if text is not None:
        again = orjson.loads(orjson.dumps(records, option=orjson.OPT_SORT_KEYS))
        residue["model_dump_json"] = keep_text(text, _pydantic_json(_component(again[0], again[1:])))
    return records


def _component(head: dict[str, Any], contents: list[dict[str, Any]]) -> dict[str, Any]:
    envelope = from_value(head["custom"].get("value"))
    if type(envelope) is not dict:
        envelope = {}
    component = ordered(envelope, COMPONENT_ORDER)
    config = dict(component.get("config") or {})
    config["memory_contents"] = [_decode_content(r, COMPONENT, False, f"/{j}") for j, r in enumerate(contents)]
    component["config"] = ordered(config, CONFIG_ORDER)
    return component


def _encode_components(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(COMPONENT, scope)
    records: list[Record] = []
    for i, item in enumerate(items):
        records.extend(_component_records(item, f"/{i}", len(records), ids, scope))
    return records


def _decode_components(records: list[Record]) -> list[Any]:
    items: list[Any] = []
    i = 0
    while i < len(records):
        residue = residue_of(records[i], COMPONENT)
        count = residue.get("memory_contents") if type(residue) is dict else None
        if type(count) is not int or records[i].get("kind") != "custom" or type(residue) is not dict:
            raise AdapterError.at(f"/{i}", "UNSUPPORTED_ITEM",
                                  "a ListMemory component starts with its own record (custom autogen.list_memory)")
        inner = records[i + 1:i + 1 + count]
        if len(inner) != count:
            raise AdapterError.at(f"/{i}/native/record/memory_contents", "MISSING_MEMBER",
                                  f"the component holds {count} contents; {len(inner)} records follow it")
        component = _component(records[i], inner)
        if "model_dump_json" in residue:
            kept = residue["model_dump_json"]
            rebuilt = _pydantic_json(component)
            if type(kept) is str:
                try:
                    rebuilt = kept if _same(json.loads(kept), component) else rebuilt
                except ValueError:
                    pass
            items.append(rebuilt)
        else:
            items.append(component)
        i += 1 + count
    return items


FORMS = (
    Form(
        name=LLM,
        framework=FRAMEWORK,
        description="AutoGen LLM messages: model_dump() of SystemMessage, UserMessage, AssistantMessage and "
                    "FunctionExecutionResultMessage (a chat completion context's saved messages).",
        encode=_encode_llm,
        decode=_decode_llm,
    ),
    Form(
        name=CONTENT,
        framework=FRAMEWORK,
        description="AutoGen memory contents: MemoryContent.model_dump() (text, markdown, JSON, bytes, image).",
        encode=_encode_contents,
        decode=_decode_contents,
    ),
    Form(
        name=COMPONENT,
        framework=FRAMEWORK,
        description="AutoGen ListMemory.dump_component(): the component's model_dump() dict or its "
                    "model_dump_json() text.",
        encode=_encode_components,
        decode=_decode_components,
    ),
)
