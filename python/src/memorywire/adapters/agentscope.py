"""AgentScope messages: 1.x ``Msg.to_dict()`` and 2.x ``Msg.model_dump(mode="json")``
dicts, 1.x ``InMemoryMemory.state_dict()`` and its ``[msg, marks]`` pairs, and
2.x ``AgentState.model_dump_json()`` text (spec/v1/adapters/agentscope.md)."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

import orjson

from memorywire._formats import check_format
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    align,
    canonical_json,
    from_value,
    isoformat,
    keep_text,
    media_from_uri,
    memory_text,
    native,
    ordered,
    parse_time,
    residue_of,
    sqlite_time,
    time_to_micros,
    to_value,
    unmapped,
    unmapped_value,
    uri_from_media,
)

NAME = "agentscope.msg"
FRAMEWORK = "agentscope"

V1_ORDER = ("id", "name", "role", "content", "metadata", "timestamp")
V2_ORDER = ("name", "content", "role", "id", "metadata", "created_at", "usage", "finished_at",
            "finished_reason", "structured_output", "error")
STATE_ORDER = ("session_id", "summary", "context", "reply_context", "permission_context", "tool_context",
               "tasks_context", "middle_context")
#: The member order of AgentState's own contexts, as pydantic dumps them.
CONTEXT_ORDERS = {
    "reply_context": ("reply_id", "cur_iter", "structured_schema", "structured_output"),
    "permission_context": ("mode", "working_directories", "allow_rules", "deny_rules", "ask_rules"),
    "tool_context": ("max_cache_files", "max_cache_bytes", "read_file_cache", "activated_groups"),
    "tasks_context": ("tasks",),
}
MEMORY_ORDER = ("_compressed_summary", "content")
V1_BLOCKS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text"),
    "thinking": ("type", "thinking"),
    "image": ("type", "source"),
    "audio": ("type", "source"),
    "video": ("type", "source"),
    "tool_use": ("type", "id", "name", "input", "raw_input"),
    "tool_result": ("type", "id", "name", "output"),
}
V2_BLOCKS: dict[str, tuple[str, ...]] = {
    "text": ("type", "text", "id", "created_at", "finished_at"),
    "thinking": ("type", "thinking", "id", "created_at", "finished_at"),
    "hint": ("type", "hint", "id", "source", "created_at", "finished_at"),
    "data": ("type", "id", "source", "name", "created_at", "finished_at"),
    "tool_call": ("type", "id", "name", "input", "state", "suggested_rules", "created_at", "finished_at"),
    "tool_result": ("type", "id", "name", "output", "state", "metadata", "created_at", "finished_at"),
}
SOURCE_ORDER: dict[int, dict[str, tuple[str, ...]]] = {
    1: {"base64": ("type", "media_type", "data"), "url": ("type", "url")},
    2: {"base64": ("type", "data", "media_type"), "url": ("type", "url", "media_type")},
}
USAGE_ORDER = ("input_tokens", "output_tokens", "cache_input_tokens", "cache_creation_input_tokens")
ERROR_ORDER = ("type", "message")
ROLES = ("user", "assistant", "system")
#: 2.x ToolCallBlock.state -> ToolCall.status.
CALL_STATES = {"pending": "pending", "asking": "awaiting_approval", "allowed": "approved",
               "submitted": "in_progress", "finished": "completed"}
CALL_STATUSES = {v: k for k, v in CALL_STATES.items()}
RESULT_STATES = ("success", "error", "interrupted", "denied", "running")
#: Msg members of 2.x that go to extensions when not null.
EXTENSIONS = ("usage", "finished_reason", "structured_output", "error")
MEDIA = ("image", "audio", "video", "file")


# -- small checks --------------------------------------------------------------------------------

def _text_ok(x: Any, most: int) -> bool:
    return type(x) is str and 0 < len(x) <= most


def _media_type_ok(x: Any) -> bool:
    return type(x) is str and 0 < len(x) <= 256 and check_format(x, "media-type")


def _canonical_base64(x: Any) -> bool:
    if type(x) is not str:
        return False
    try:
        return base64.b64encode(base64.b64decode(x, validate=True)).decode("ascii") == x
    except (binascii.Error, ValueError):
        return False


def _extras(item: dict[str, Any], known: Sequence[str], pointer: str) -> dict[str, Any]:
    return {k: to_value(v, f"{pointer}/{k}") for k, v in item.items() if k not in known}


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


def _pydantic_json(value: Any) -> str:
    """What pydantic's ``model_dump_json()`` writes for plain JSON data."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _v1_time(ts: str) -> str:
    """AgentScope 1.x's ``%Y-%m-%d %H:%M:%S.%f``, cut to milliseconds."""
    return f"{sqlite_time(ts)}.{time_to_micros(ts) % 1_000_000 // 1000:03d}"


# -- blocks -> content parts -----------------------------------------------------------------------

def _media(block: dict[str, Any], v: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The MediaPart fields of a media block and the residue of its source."""
    src = block.get("source")
    if type(src) is not dict:
        return None
    kind = src.get("type")
    if kind == "base64":
        if set(src) != {"type", "data", "media_type"}:
            return None
        if not src["data"] or not _canonical_base64(src["data"]) or not _media_type_ok(src["media_type"]):
            return None
        return {"data": src["data"], "media_type": src["media_type"]}, {"type": "base64"}
    if kind != "url" or set(src) != set(SOURCE_ORDER[v]["url"]) or type(src["url"]) is not str:
        return None
    fields, kept = media_from_uri(src["url"])
    if kept is not None or fields.get("data") == "" or ("uri" in fields and not check_format(fields["uri"], "uri")):
        return None
    entry: dict[str, Any] = {"type": "url"}
    if v == 2:
        mt = src["media_type"]
        if "data" in fields:
            if fields["media_type"] != mt:
                entry["media_type"] = to_value(mt)
        elif _media_type_ok(mt):
            fields["media_type"] = mt
        else:
            entry["media_type"] = to_value(mt)
    return fields, entry


def _media_kind(media_type: str) -> str:
    top = media_type.split("/", 1)[0].lower()
    return top if top in ("image", "audio", "video") else "file"


def _block(block: Any, v: int, pointer: str) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """A block's content part (None when it yields none) and its residue entry."""
    if type(block) is not dict or type(block.get("type")) is not str:
        return None, unmapped(block, pointer)
    kind = block["type"]
    known = (V1_BLOCKS if v == 1 else V2_BLOCKS).get(kind)
    if known is None or kind == "hint":
        return None, unmapped(block, pointer)
    required = [k for k in known if k != "raw_input"]
    if any(k not in block for k in required):
        return None, unmapped(block, pointer)
    entry: dict[str, Any] = {}
    part: dict[str, Any] = {}
    if v == 2:
        entry["created_at"] = to_value(block["created_at"], f"{pointer}/created_at")
        entry["finished_at"] = to_value(block["finished_at"], f"{pointer}/finished_at")
        if kind not in ("tool_call", "tool_result"):
            if _text_ok(block["id"], 256):
                part["id"] = block["id"]
            else:
                entry["id"] = to_value(block["id"], f"{pointer}/id")
    if kind == "text":
        if type(block["text"]) is not str or not block["text"]:
            return None, unmapped(block, pointer)
        part["text"] = {"text": block["text"]}
    elif kind == "thinking":
        if type(block["thinking"]) is not str:
            return None, unmapped(block, pointer)
        part["reasoning"] = {"text": block["thinking"]} if block["thinking"] else {}
    elif kind in ("image", "audio", "video", "data"):
        found = _media(block, v)
        if found is None:
            return None, unmapped(block, pointer)
        fields, entry["source"] = found
        if kind == "data":
            name = block["name"]
            if _text_ok(name, 1024):
                fields["filename"] = name
            elif name is not None:
                entry["name"] = to_value(name, f"{pointer}/name")
            kind = _media_kind(str(fields.get("media_type") or block["source"]["media_type"]))
        part[kind] = fields
    elif kind in ("tool_use", "tool_call"):
        call = _tool_call(block, v, entry, pointer)
        if call is None:
            return None, unmapped(block, pointer)
        part["tool_call"] = call
    else:
        result = _tool_result(block, v, entry, pointer)
        if result is None:
            return None, unmapped(block, pointer)
        part["tool_result"] = result
    entry.update(_extras(block, known, pointer))
    return part, entry


def _tool_call(block: dict[str, Any], v: int, entry: dict[str, Any], pointer: str) -> dict[str, Any] | None:
    if not _text_ok(block["id"], 256) or not _text_ok(block["name"], 256):
        return None
    call: dict[str, Any] = {"call_id": block["id"], "name": block["name"]}
    if v == 1:
        entry["input"] = to_value(block["input"], f"{pointer}/input")
        if "raw_input" in block:
            if type(block["raw_input"]) is not str:
                return None
            call["arguments"] = block["raw_input"]
        else:
            entry["raw_input"] = None
            call["arguments"] = canonical_json(entry["input"])
        return call
    if type(block["input"]) is not str:
        return None
    call["arguments"] = block["input"]
    state = block["state"]
    if state in CALL_STATES:
        call["status"] = CALL_STATES[state]
    else:
        entry["state"] = to_value(state, f"{pointer}/state")
    if block["suggested_rules"] != []:
        entry["suggested_rules"] = to_value(block["suggested_rules"], f"{pointer}/suggested_rules")
    return call


def _tool_result(block: dict[str, Any], v: int, entry: dict[str, Any], pointer: str) -> dict[str, Any] | None:
    if not _text_ok(block["id"], 256) or type(block["name"]) is not str or len(block["name"]) > 256:
        return None
    result: dict[str, Any] = {"call_id": block["id"]}
    if block["name"]:
        result["name"] = block["name"]
    output = block["output"]
    if type(output) is str:
        result["output"] = output
    elif type(output) is list:
        parts, entries = _blocks(output, v, f"{pointer}/output")
        if parts:
            result["output_parts"] = parts
        entry["output"] = entries
    else:
        return None
    if v == 2:
        if block["state"] in RESULT_STATES:
            result["status"] = block["state"]
        else:
            entry["state"] = to_value(block["state"], f"{pointer}/state")
        if block["metadata"] != {}:
            entry["metadata"] = to_value(block["metadata"], f"{pointer}/metadata")
    return result


def _blocks(blocks: list[Any], v: int, pointer: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    parts: list[dict[str, Any]] = []
    entries: list[dict[str, Any]] = []
    for i, block in enumerate(blocks):
        part, entry = _block(block, v, f"{pointer}/{i}")
        if part is not None:
            parts.append(part)
        entries.append(entry)
    return parts, entries


# -- items -> records ------------------------------------------------------------------------------

def _version(item: Any, pointer: str) -> int:
    if type(item) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", "an AgentScope Msg is a dict")
    if "timestamp" in item and "created_at" not in item:
        return 1
    if "created_at" in item and "timestamp" not in item:
        return 2
    raise AdapterError.at(pointer, "UNSUPPORTED_ITEM",
                          "a Msg has either timestamp (1.x to_dict) or created_at (2.x model_dump)")


def _message(item: Any, v: int, pointer: str, rid: str, scope: dict[str, Any]) -> Record:
    """The record of one Msg dict of version ``v``."""
    order = V1_ORDER if v == 1 else V2_ORDER
    for key in order[:5] if v == 1 else order[:6]:
        if key not in item:
            raise AdapterError.at(f"{pointer}/{key}", "MISSING_MEMBER", f"a {v}.x Msg has {key}")
    residue: dict[str, Any] = {}
    if rid != item["id"]:
        residue["id"] = to_value(item["id"], f"{pointer}/id")
    if item["role"] not in ROLES:
        raise AdapterError.at(f"{pointer}/role", "UNSUPPORTED_ITEM", f"role {item['role']!r} is not an AgentScope role")
    msg: dict[str, Any] = {"role": item["role"]}
    name = item["name"]
    if _text_ok(name, 256):
        msg["name"] = name
    elif name != "":
        residue["name"] = to_value(name, f"{pointer}/name")
    content = item["content"]
    if type(content) is str and v == 1:
        if content:
            msg["content"] = [{"text": {"text": content}}]
    elif type(content) is list:
        parts, entries = _blocks(content, v, f"{pointer}/content")
        if parts:
            msg["content"] = parts
        residue["content"] = entries
    else:
        raise AdapterError.at(f"{pointer}/content", "TYPE_MISMATCH",
                              "Msg content is a list of blocks (1.x: or a string)")
    record: Record = {"specversion": "1.0", "id": rid, "kind": "message"}
    if scope:
        record["scope"] = dict(scope)
    metadata = item["metadata"]
    if type(metadata) is dict and 0 < len(metadata) <= 1000:
        record["metadata"] = {k: to_value(x, f"{pointer}/metadata/{k}") for k, x in metadata.items()}
    elif metadata != {} or type(metadata) is not dict:
        residue["metadata"] = to_value(metadata, f"{pointer}/metadata")
    time_key = "timestamp" if v == 1 else "created_at"
    text = item[time_key]
    try:
        record["created_at"] = parse_time(text)
    except AdapterError:
        residue[time_key] = to_value(text, f"{pointer}/{time_key}")
    else:
        # 1.x: the text is always kept (it marks a 1.x Msg); 2.x: when isoformat() differs.
        if v == 1 or isoformat(record["created_at"], naive=True) != text:
            residue[time_key] = text
    record["message"] = msg
    if v == 2:
        extensions = {}
        for key in EXTENSIONS:
            if item[key] is not None:
                extensions[f"agentscope.{key}"] = to_value(item[key], f"{pointer}/{key}")
        if extensions:
            record["extensions"] = extensions
        if item["finished_at"] is not None:
            residue["finished_at"] = to_value(item["finished_at"], f"{pointer}/finished_at")
    residue.update(_extras(item, order, pointer))
    if v == 1 or residue:
        record["native"] = native(NAME, FRAMEWORK, residue)
    return record


def _pair(item: list[Any], pointer: str, rid: str, scope: dict[str, Any]) -> Record:
    """A 1.x ``InMemoryMemory`` entry ``[msg, marks]``: marks as tags."""
    msg, marks = item
    record = _message(msg, _version(msg, f"{pointer}/0"), f"{pointer}/0", rid, scope)
    inner = record.pop("native", {"record": {}})["record"]
    if type(marks) is list and all(_text_ok(m, 1 << 20) for m in marks) and len(set(marks)) == len(marks) \
            and len(marks) <= 1000:
        if marks:
            record["tags"] = list(marks)
        kept: Any = None
    else:
        kept = to_value(marks, f"{pointer}/1")
    record["native"] = native(NAME, FRAMEWORK, [inner, kept])
    return record


def _container(item: Any, pointer: str, position: int, ids: Ids, scope: dict[str, Any]) -> list[Record]:
    """A 1.x ``state_dict()`` (dict) or a 2.x ``AgentState.model_dump_json()`` (text)."""
    text = item if type(item) is str else None
    if text is not None:
        try:
            state = json.loads(text)
        except ValueError as e:
            raise AdapterError.at(pointer, "TYPE_MISMATCH", f"AgentState text is not JSON: {e}") from None
        if type(state) is not dict or type(state.get("context")) is not list:
            raise AdapterError.at(pointer, "TYPE_MISMATCH", "AgentState JSON is an object with a context list")
        inner_key, summary_key = "context", "summary"
    else:
        state = item
        inner_key, summary_key = "content", "_compressed_summary"
    scope = dict(scope)
    residue: dict[str, Any] = {}
    session = state.get("session_id")
    if text is not None and _text_ok(session, 256) and scope.get("session", session) == session:
        scope["session"] = session
    elif "session_id" in state:
        residue["session_id"] = to_value(session, f"{pointer}/session_id")
    rid = ids.assign(position)
    head: Record = {"specversion": "1.0", "id": rid}
    summary = state.get(summary_key)
    if type(summary) is str and summary:
        head.update(kind="summary", summary={"text": summary})
    else:
        head.update(kind="custom", custom={"type": "agentscope.agent_state" if text else "agentscope.memory_state",
                                           "value": None})
        if summary_key in state:
            residue[summary_key] = to_value(summary, f"{pointer}/{summary_key}")
    if scope:
        head["scope"] = scope
    inner = state[inner_key]
    residue[inner_key] = len(inner)
    skip = ("session_id", summary_key, inner_key)
    residue.update({k: to_value(x, f"{pointer}/{k}") for k, x in state.items() if k not in skip})
    head["native"] = native(NAME, FRAMEWORK, residue)
    records = [head]
    for j, element in enumerate(inner):
        where = f"{pointer}/{inner_key}/{j}"
        rid = ids.assign(position + 1 + j, _framework_id(element[0].get("id") if _is_pair(element) else
                                                         element.get("id") if type(element) is dict else None))
        if text is None:
            if not _is_pair(element):
                raise AdapterError.at(where, "TYPE_MISMATCH", "a state_dict entry is a [msg, marks] pair")
            records.append(_pair(element, where, rid, scope))
        else:
            records.append(_message(element, _version(element, where), where, rid, scope))
    if text is not None:
        again = orjson.loads(orjson.dumps(records, option=orjson.OPT_SORT_KEYS))
        kept = keep_text(text, _state_text(_decode_container(again[0], residue_of(again[0], NAME), again[1:])))
        if kept is not None:
            residue["model_dump_json"] = kept
    return records


def _framework_id(x: Any) -> Any:
    """The framework id to offer as record id: none with a control character."""
    return x if type(x) is str and not any(c < " " or c == "\x7f" for c in x) else None


def _is_pair(x: Any) -> bool:
    return type(x) is list and len(x) == 2 and type(x[0]) is dict


def _is_container(item: Any) -> bool:
    return type(item) is str or (type(item) is dict and type(item.get("content")) is list
                                 and "role" not in item and "id" not in item)


def encode(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(NAME, scope)
    records: list[Record] = []
    for i, item in enumerate(items):
        pointer = f"/{i}"
        position = len(records)
        if _is_container(item):
            records.extend(_container(item, pointer, position, ids, scope))
        elif _is_pair(item):
            records.append(_pair(item, pointer, ids.assign(position, _framework_id(item[0].get("id"))), scope))
        else:
            v = _version(item, pointer)
            records.append(_message(item, v, pointer, ids.assign(position, _framework_id(item.get("id"))), scope))
    return records


# -- records -> items ------------------------------------------------------------------------------

def _order_block(block: Any, v: int) -> Any:
    """The member order the framework writes, for a block kept whole."""
    if type(block) is not dict:
        return block
    out = ordered(block, (V1_BLOCKS if v == 1 else V2_BLOCKS).get(str(block.get("type")), ()))
    for key in ("hint", "output"):
        if type(out.get(key)) is list:
            out[key] = [_order_block(b, v) for b in out[key]]
    if type(out.get("source")) is dict:
        out["source"] = ordered(out["source"], SOURCE_ORDER[v].get(str(out["source"].get("type")), ()))
    return out


def _part_block(part: dict[str, Any], entry: dict[str, Any] | None, v: int, pointer: str) -> dict[str, Any]:
    """The block of a content part; ``entry`` is its residue (None: another producer's part)."""
    e = entry or {}
    block: dict[str, Any] = {}
    kind = next((k for k in part if k not in ("id", "extensions")), None)
    if kind == "text":
        block = {"type": "text", "text": part["text"].get("text", "")}
    elif kind == "reasoning":
        block = {"type": "thinking", "thinking": part["reasoning"].get("text", "")}
    elif kind in MEDIA:
        fields = part[kind]
        src_entry = e.get("source") or {"type": "base64" if "data" in fields else "url"}
        if src_entry.get("type") == "base64" and "data" in fields:
            source = {"type": "base64", "data": fields["data"],
                      "media_type": fields.get("media_type", "application/octet-stream")}
        else:
            url = uri_from_media(fields, src_entry.get("url"))
            if url is None:
                raise AdapterError.at(pointer, "NOT_REPRESENTABLE", "a media part without uri or data")
            source = {"type": "url", "url": url}
            if v == 2:
                source["media_type"] = from_value(src_entry["media_type"]) if "media_type" in src_entry \
                    else fields.get("media_type", "application/octet-stream")
        source = ordered(source, SOURCE_ORDER[v][source["type"]])
        if v == 1:
            block = {"type": kind, "source": source}
        else:
            name = from_value(e["name"]) if "name" in e else fields.get("filename")
            block = {"type": "data", "source": source, "name": name}
    elif kind == "tool_call":
        call = part["tool_call"]
        arguments = call.get("arguments", "")
        block = {"type": "tool_use" if v == 1 else "tool_call", "id": call["call_id"], "name": call["name"]}
        if v == 1:
            block["input"] = from_value(e["input"]) if "input" in e else _arguments(arguments)
            if not ("raw_input" in e and e["raw_input"] is None):
                block["raw_input"] = arguments
        else:
            block["input"] = arguments
            block["state"] = from_value(e["state"]) if "state" in e else CALL_STATUSES.get(call.get("status", ""),
                                                                                           "pending")
            block["suggested_rules"] = from_value(e.get("suggested_rules", []))
    elif kind == "tool_result":
        result = part["tool_result"]
        block = {"type": "tool_result", "id": result["call_id"], "name": result.get("name", "")}
        if type(e.get("output")) is list:
            block["output"] = _part_blocks(result.get("output_parts", []), e["output"], v, f"{pointer}/output_parts")
        elif "output" in result:
            block["output"] = result["output"]
        else:
            block["output"] = _part_blocks(result.get("output_parts", []), None, v, f"{pointer}/output_parts")
        if v == 2:
            block["state"] = from_value(e["state"]) if "state" in e else result.get("status", "running")
            block["metadata"] = from_value(e.get("metadata", {}))
    else:
        raise AdapterError.at(pointer, "UNSUPPORTED_ITEM", f"a {kind} part has no AgentScope block")
    if v == 2:
        if "id" in e:
            block["id"] = from_value(e["id"])
        elif kind not in ("tool_call", "tool_result"):  # their id is the call id
            block["id"] = part.get("id", "")
        block["created_at"] = from_value(e.get("created_at", ""))
        block["finished_at"] = from_value(e.get("finished_at"))
    known = (V1_BLOCKS if v == 1 else V2_BLOCKS)[block["type"]] if block["type"] != "file" else ("type", "source")
    block.update({k: from_value(x) for k, x in e.items() if k not in known})
    return ordered(block, known)


def _arguments(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if type(value) is dict else {}


def _part_blocks(parts: list[dict[str, Any]], entries: list[Any] | None, v: int, pointer: str) -> list[Any]:
    blocks: list[Any] = []
    index = 0
    for entry, part in align(entries, parts):
        if part is None:
            blocks.append(_order_block(unmapped_value(entry), v))
        else:
            blocks.append(_part_block(part, entry, v, f"{pointer}/{index}"))
            index += 1
    return blocks


def _decode_message(record: dict[str, Any], residue: Any, pointer: str) -> dict[str, Any]:
    res: dict[str, Any] = residue if type(residue) is dict else {}
    v = 1 if "timestamp" in res else 2
    kind = record.get("kind")
    if kind == "message":
        msg = record.get("message", {})
        role = msg.get("role")
        # AgentScope 2.x keeps tool results in assistant messages; a system message holds text only.
        role = role if role in ROLES else {"developer": "system", "tool": "assistant"}.get(role, "assistant")
        parts = msg.get("content", [])
        name = msg.get("name", "")
    elif kind in ("tool_call", "tool_result"):
        msg, parts, name = {}, [{kind: record[kind]}], ""
        role = "assistant"
    else:
        # A memory of another kind is what AgentScope gives a model as a system message.
        text = memory_text(record, pointer)
        msg, parts, name = {}, [{"text": {"text": text}}] if text else [], ""
        role = "system"
    if "name" in res:
        name = from_value(res["name"])
    entries = res.get("content")
    if type(entries) is list:
        content: Any = _part_blocks(parts, entries, v, f"{pointer}/message/content")
    elif v == 1 and residue is not None and all("text" in p for p in parts):
        content = "".join(p["text"]["text"] for p in parts)
    else:
        content = _part_blocks(parts, None, v, f"{pointer}/message/content")
    metadata = from_value(res["metadata"]) if "metadata" in res else \
        {k: from_value(x) for k, x in record.get("metadata", {}).items()}
    created = record.get("created_at")
    item: dict[str, Any] = {
        "id": from_value(res["id"]) if "id" in res else record["id"],
        "name": name,
        "role": role,
        "content": content,
        "metadata": metadata,
    }
    if v == 1:
        kept = res["timestamp"]
        if created is not None and (type(kept) is not str or _parse_or_none(kept) != created):
            kept = _v1_time(created)
        item["timestamp"] = from_value(kept)
    else:
        if "created_at" in res and (created is None or _parse_or_none(res["created_at"]) == created):
            item["created_at"] = from_value(res["created_at"])
        else:
            item["created_at"] = isoformat(created, naive=True) if created is not None else ""
        extensions = record.get("extensions", {})
        for key in EXTENSIONS:
            value = from_value(extensions.get(f"agentscope.{key}"))
            if key == "usage" and type(value) is dict:
                value = ordered(value, USAGE_ORDER)
            elif key == "error" and type(value) is dict:
                value = ordered(value, ERROR_ORDER)
            item[key] = value
        item["finished_at"] = from_value(res.get("finished_at"))
    order = V1_ORDER if v == 1 else V2_ORDER
    item.update({k: from_value(x) for k, x in res.items() if k not in order})
    return ordered(item, order)


def _parse_or_none(text: Any) -> str | None:
    try:
        return parse_time(text)
    except AdapterError:
        return None


def _decode_container(head: dict[str, Any], residue: dict[str, Any], inner: list[dict[str, Any]]) -> Any:
    text = "context" in residue
    inner_key, summary_key = ("context", "summary") if text else ("content", "_compressed_summary")
    state: dict[str, Any] = {}
    if text:
        state["session_id"] = from_value(residue["session_id"]) if "session_id" in residue \
            else head.get("scope", {}).get("session", "")
    if head.get("kind") == "summary":
        state[summary_key] = head["summary"]["text"]
    elif summary_key in residue:
        state[summary_key] = from_value(residue[summary_key])
    items: list[Any] = []
    for j, record in enumerate(inner):
        res = residue_of(record, NAME)
        if text:
            items.append(_decode_message(record, res, f"/{j}"))
        else:
            pair = res if type(res) is list and len(res) == 2 else [res, None]
            marks = from_value(pair[1]) if pair[1] is not None else list(record.get("tags", []))
            items.append([_decode_message(record, pair[0], f"/{j}"), marks])
    state[inner_key] = items
    skip = (inner_key, summary_key, "session_id", "model_dump_json")
    for k, x in residue.items():
        if k not in skip:
            value = from_value(x)
            state[k] = ordered(value, CONTEXT_ORDERS[k]) if text and k in CONTEXT_ORDERS and type(value) is dict \
                else value
    state = ordered(state, STATE_ORDER if text else MEMORY_ORDER)
    if not text:
        return state
    kept = residue.get("model_dump_json")
    if type(kept) is str:
        try:
            if _same(json.loads(kept), state):
                return kept
        except ValueError:
            pass
    return _state_text(state)


def _state_text(state: Any) -> str:
    return state if type(state) is str else _pydantic_json(state)


def decode(records: list[Record]) -> list[Any]:
    items: list[Any] = []
    i = 0
    while i < len(records):
        record = records[i]
        residue = residue_of(record, NAME)
        count = residue.get("context", residue.get("content")) if type(residue) is dict else None
        if type(count) is int and type(residue) is dict:
            inner = records[i + 1:i + 1 + count]
            if len(inner) != count:
                raise AdapterError.at(f"/{i}/native/record", "MISSING_MEMBER",
                                      f"the state holds {count} messages; {len(inner)} records follow it")
            items.append(_decode_container(record, residue, inner))
            i += 1 + count
            continue
        if type(residue) is list and len(residue) == 2:
            marks = from_value(residue[1]) if residue[1] is not None else list(record.get("tags", []))
            items.append([_decode_message(record, residue[0], f"/{i}"), marks])
        else:
            items.append(_decode_message(record, residue, f"/{i}"))
        i += 1
    return items


FORMS = (
    Form(
        name=NAME,
        framework=FRAMEWORK,
        description="AgentScope messages: 1.x Msg.to_dict() and 2.x Msg.model_dump(mode='json') dicts, 1.x "
                    "InMemoryMemory.state_dict() and its [msg, marks] pairs, 2.x AgentState.model_dump_json() text.",
        encode=encode,
        decode=decode,
    ),
)
