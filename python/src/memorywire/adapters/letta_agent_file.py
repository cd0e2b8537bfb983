"""Letta's Agent File (.af): whole agent files as memorywire records, and
back (spec/v1/adapters/letta.md §7).

An item of ``letta.agent_file`` is one Agent File: its JSON object
(``AgentFileSchema.model_dump(mode="json")``), or its JSON text (a file
whose JSON value is a string that holds the document).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import memorywire.json as _json
from memorywire.adapters import _patch
from memorywire.adapters._bridge import LossReport
from memorywire.adapters._kit import (
    AdapterError,
    Files,
    Form,
    Ids,
    Record,
    from_value,
    memory_text,
    native,
    parse_time,
    pointer_token,
    residue_of,
    to_value,
)

FRAMEWORK = "letta"
FORM_NAME = "letta.agent_file"
#: The custom type of the record that holds what an Agent File has besides
#: its blocks and messages.
HEADER = "letta.agent_file"
#: The member of a block's ``metadata`` and of the file's ``metadata`` that
#: keeps what the Agent File's own fields do not carry.
EXTENSION = "memorywire"
#: The agent that an Agent File made from records of other producers has.
AGENT_NAME = "memorywire"
_ROLES = ("system", "user", "assistant", "tool")
_STORE_ADDED = ("sequence", "revision")
_BLOCK_MEMBERS = ("value", "limit", "label", "read_only", "description", "metadata")


def _sorted(v: Any) -> Any:
    if type(v) is dict:
        return {k: _sorted(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_sorted(x) for x in v]
    return v


def _plain(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


# -- Blocks and messages: the neutral mapping ----------------------------------------------------

def _block_record(block: Mapping[str, Any], scope: Mapping[str, Any]) -> Record:
    record: Record = {"specversion": "1.0", "id": str(block.get("id", "")), "kind": "block"}
    payload: dict[str, Any] = {"label": block.get("label") if type(block.get("label")) is str else ""}
    value = block.get("value")
    if type(value) is str and value:
        payload["value"] = value
    limit = block.get("limit")
    if type(limit) is int and 0 <= limit <= 9007199254740991:
        payload["limit"] = limit
    if block.get("read_only") is True:
        payload["read_only"] = True
    if type(block.get("description")) is str and block["description"]:
        payload["description"] = block["description"]
    record["block"] = payload
    meta = block.get("metadata")
    if type(meta) is dict:
        own = {k: _sorted(to_value(v)) for k, v in sorted(meta.items()) if k != EXTENSION}
        if own and len(own) <= 1000:
            record["metadata"] = own
    if scope:
        record["scope"] = dict(scope)
    return record


def _block_of(record: Mapping[str, Any], scope: Mapping[str, Any]) -> dict[str, Any]:
    payload = record.get("block") if record.get("kind") == "block" else None
    block: dict[str, Any] = {}
    if type(payload) is dict:
        block["value"] = payload.get("value", "")
        if "limit" in payload:
            block["limit"] = payload["limit"]
        block["label"] = payload.get("label", "")
        block["read_only"] = payload.get("read_only", False)
        block["description"] = payload.get("description")
    else:
        block["value"] = memory_text(record, "") if record.get("kind") not in ("message",) else ""
        block["label"] = str(record.get("kind"))
        block["read_only"] = False
        block["description"] = None
    meta = record.get("metadata")
    block["metadata"] = {k: from_value(v) for k, v in meta.items()} if isinstance(meta, Mapping) else {}
    block["id"] = str(record.get("id", ""))
    return block


def _text_of(content: Any) -> str | None:
    """The text of a Letta message's content: a list of one text part."""
    if type(content) is list and len(content) == 1 and type(content[0]) is dict \
            and content[0].get("type") == "text" and type(content[0].get("text")) is str and content[0]["text"]:
        return str(content[0]["text"])
    return None


def _message_record(msg: Mapping[str, Any], scope: Mapping[str, Any]) -> Record:
    record: Record = {"specversion": "1.0", "id": str(msg.get("id", "")), "kind": "message"}
    role = msg.get("role")
    text = _text_of(msg.get("content"))
    record["message"] = {"role": role if role in _ROLES else "user",
                         "content": [{"text": {"text": text}}] if text is not None else []}
    created = msg.get("created_at")
    if type(created) is str:
        try:
            record["created_at"] = parse_time(created)
        except AdapterError:
            pass
    if scope:
        record["scope"] = dict(scope)
    return record


def _message_of(record: Mapping[str, Any], scope: Mapping[str, Any]) -> dict[str, Any]:
    message = record.get("message") if record.get("kind") == "message" else None
    msg: dict[str, Any] = {"type": "message"}
    role = message.get("role") if type(message) is dict else None
    msg["role"] = role if role in _ROLES else "system" if role == "developer" else "user"
    texts = [p["text"]["text"] for p in message.get("content", ()) if type(p) is dict
             and type(p.get("text")) is dict and type(p["text"].get("text")) is str] if type(message) is dict else []
    msg["content"] = [{"type": "text", "text": texts[0]}] if len(texts) == 1 and texts[0] else []
    msg["id"] = str(record.get("id", ""))
    if type(record.get("created_at")) is str:
        msg["created_at"] = record["created_at"]
    return msg


def _object(to_record: Any, of_record: Any, record: Mapping[str, Any],
            scope: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The Letta object of a record of any producer and the remainder (a
    patch of the record) that the object's own fields do not carry."""
    obj = of_record(record, scope)
    remainder = _sorted(_plain(_patch.diff(dict(record), to_record(obj, scope))))
    return obj, remainder


# -- The residue: patches and member order ------------------------------------------------------

def _walk(value: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if type(value) is dict:
        yield pointer, value
        for k, v in value.items():
            yield from _walk(v, f"{pointer}/{pointer_token(k)}")
    elif type(value) is list:
        for i, v in enumerate(value):
            yield from _walk(v, f"{pointer}/{i}")


def _orders(original: Any, made: Any) -> dict[str, list[str]]:
    """The member order of each object of ``original`` whose members
    ``made`` has in another order, by JSON Pointer."""
    found = dict(_walk(made))
    return {p: list(d) for p, d in _walk(original) if p in found and list(found[p]) != list(d)}


def _reorder(value: Any, orders: Mapping[str, Sequence[str]], pointer: str = "") -> Any:
    if type(value) is dict:
        order = orders.get(pointer)
        items = list(value.items())
        if order is not None:
            first = {k: value[k] for k in order if k in value}
            first.update((k, v) for k, v in items if k not in first)
            items = list(first.items())
        return {k: _reorder(v, orders, f"{pointer}/{pointer_token(k)}") for k, v in items}
    if type(value) is list:
        return [_reorder(v, orders, f"{pointer}/{i}") for i, v in enumerate(value)]
    return value


def _own(record: Mapping[str, Any]) -> Any:
    res = residue_of(record, FORM_NAME)
    return from_value(res) if res is not None else None


# -- Files ----------------------------------------------------------------------------------------

def _encode(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(FORM_NAME, scope)
    out: list[Record] = []
    for i, item in enumerate(items):
        text = None
        doc = item
        if type(item) is str:
            text = item
            try:
                doc = json.loads(item)
            except ValueError as e:
                raise AdapterError.at(f"/{i}", "INVALID_JSON", f"the text of an Agent File is not JSON: {e}") from None
        if type(doc) is not dict or type(doc.get("agents")) is not list:
            raise AdapterError.at(f"/{i}", "TYPE_MISMATCH", "an Agent File is a JSON object with a list of agents")
        again = None if scope or text is not None else _records_again(doc)
        out.extend(again if again is not None else _encode_file(doc, text, i, ids, len(out), scope))
    return out


def _records_again(doc: dict[str, Any]) -> list[Record] | None:
    """The records of other producers that made ``doc`` (section 7.4), or
    None when ``doc`` is not such a file."""
    agents, blocks, meta = doc.get("agents"), doc.get("blocks"), doc.get("metadata")
    if set(doc) != {"agents", "groups", "blocks", "files", "sources", "tools", "mcp_servers", "metadata"} \
            or type(agents) is not list or len(agents) != 1 \
            or type(agents[0]) is not dict or type(blocks) is not list or type(meta) is not dict:
        return None
    agent: dict[str, Any] = agents[0]
    try:
        box = json.loads(meta[EXTENSION]) if type(meta.get(EXTENSION)) is str else {}
    except ValueError:
        return None
    if type(box) is not dict:
        return None
    name = agent.get("name")
    sc = {"agent": name} if type(name) is str and name != AGENT_NAME and 0 < len(name) <= 256 else {}
    remainders: dict[str, Any] = box["messages"] if type(box.get("messages")) is dict else {}
    records: list[Record] = []
    for msg in agent.get("messages") or ():
        if type(msg) is not dict:
            return None
        record = _message_record(msg, sc)
        record["id"] = str(msg.get("id", ""))
        rem = remainders.get(str(msg.get("id")))
        records.append(_patch.apply(record, rem) if _patch.is_patch(rem) else record)
    for block in blocks:
        if type(block) is not dict:
            return None
        record = _block_record(block, sc)
        record["id"] = str(block.get("id", ""))
        rem = block["metadata"].get(EXTENSION) if type(block.get("metadata")) is dict else None
        records.append(_patch.apply(record, rem) if _patch.is_patch(rem) else record)
    for other in box.get("records") or ():
        if type(other) is not dict:
            return None
        records.append(dict(other))
    made = _foreign_file(list(enumerate(records)), LossReport(FORM_NAME), 0)
    return records if _patch.same(made, doc) else None


def _agent_scope(scope: Mapping[str, Any], agent: Any) -> dict[str, Any]:
    out = dict(scope)
    name = agent.get("name") if type(agent) is dict else None
    if "agent" not in out and type(name) is str and 0 < len(name) <= 256:
        out["agent"] = name
    return out


def _encode_file(doc: dict[str, Any], text: str | None, i: int, ids: Ids, n: int,
                 scope: dict[str, Any]) -> list[Record]:
    agents: list[Any] = doc["agents"]
    blocks: list[Any] = doc["blocks"] if type(doc.get("blocks")) is list else []
    value = dict(doc)
    value["agents"] = [{k: v for k, v in a.items() if k != "messages"} if type(a) is dict else a for a in agents]
    if "blocks" in value and type(value["blocks"]) is list:
        value["blocks"] = []
    header: Record = {"specversion": "1.0", "id": ids.assign(n, None), "kind": "custom",
                      "custom": {"type": HEADER, "value": _sorted(to_value(value, f"/{i}"))}}
    if scope:
        header["scope"] = dict(scope)
    records: list[Record] = [header]
    counts: list[int | None] = []
    for k, agent in enumerate(agents):
        messages: list[Any] = agent["messages"] if type(agent) is dict and type(agent.get("messages")) is list else []
        counts.append(len(messages) if type(agent) is dict and "messages" in agent else None)
        sc = _agent_scope(scope, agent)
        for j, msg in enumerate(messages):
            if type(msg) is not dict:
                raise AdapterError.at(f"/{i}/agents/{k}/messages/{j}", "TYPE_MISMATCH", "a Letta message is an object")
            record = _message_record(msg, sc)
            record["id"] = ids.assign(n + len(records), None)
            _residue(record, msg, _message_of, _message_record, sc, f"/{i}/agents/{k}/messages/{j}")
            records.append(record)
    first = agents[0] if agents else None
    sc = _agent_scope(scope, first)
    for j, block in enumerate(blocks):
        if type(block) is not dict:
            raise AdapterError.at(f"/{i}/blocks/{j}", "TYPE_MISMATCH", "a Letta block is an object")
        record = _block_record(block, sc)
        record["id"] = ids.assign(n + len(records), None)
        _residue(record, block, _block_of, _block_record, sc, f"/{i}/blocks/{j}")
        records.append(record)
    # The file's residue: the message counts, member order, the text.
    through = [_json.decode(_json.encode(r)) for r in records]
    made = _file(through, {"counts": counts})
    residue: dict[str, Any] = {"counts": counts}
    patch = _patch.diff(doc, made)
    if patch:
        residue["patch"] = patch
        made = _patch.apply(made, patch)
    orders = _orders(doc, made)
    if orders:
        residue["orders"] = orders
    if text is not None:
        rebuilt = json.dumps(doc, indent=2, ensure_ascii=False)
        residue["text"] = True if rebuilt == text else text
    header["native"] = native(FORM_NAME, FRAMEWORK, to_value(residue, f"/{i}"))
    return records


def _residue(record: Record, obj: Mapping[str, Any], of_record: Any, to_record: Any, scope: Mapping[str, Any],
             pointer: str) -> None:
    made, _ = _object(to_record, of_record, record, scope)
    patch = _patch.diff(dict(obj), made)
    if patch:
        record["native"] = native(FORM_NAME, FRAMEWORK, to_value(patch, pointer))


def _decoded(record: Mapping[str, Any], of_record: Any, to_record: Any, scope: Mapping[str, Any],
             loss: tuple[LossReport, int, str] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """A block or message of a record: with its residue, or with the
    remainder the caller keeps."""
    own = _own(record)
    if own is not None:
        obj, _ = _object(to_record, of_record, {k: v for k, v in record.items() if k != "native"}, scope)
        return (_patch.apply(obj, own) if _patch.is_patch(own) else obj), {}
    return _object(to_record, of_record, record, scope)


def _file(records: Sequence[Mapping[str, Any]], residue: Mapping[str, Any]) -> dict[str, Any]:
    """The Agent File of a header's records (its residue aside)."""
    header = records[0]
    doc = dict(from_value(header["custom"]["value"]))
    counts = list(residue.get("counts") or [])
    rest = list(records[1:])
    agents = []
    for k, agent in enumerate(doc.get("agents") or []):
        count = counts[k] if k < len(counts) else None
        if type(agent) is dict and type(count) is int:
            agent = dict(agent)
            sc = _agent_scope(dict(header.get("scope") or {}), agent)
            taken, rest = rest[:count], rest[count:]
            agent["messages"] = [_decoded(r, _message_of, _message_record, sc, None)[0] for r in taken]
        agents.append(agent)
    doc["agents"] = agents
    if "blocks" in doc:
        sc = _agent_scope(dict(header.get("scope") or {}), agents[0] if agents else None)
        doc["blocks"] = [_decoded(r, _block_of, _block_record, sc, None)[0] for r in rest if r.get("kind") == "block"]
    return doc


def _own_file(records: list[Mapping[str, Any]]) -> Any:
    residue = _own(records[0])
    doc = _file(records, residue or {})
    if not isinstance(residue, Mapping):
        return doc
    if _patch.is_patch(residue.get("patch")):
        doc = _patch.apply(doc, residue["patch"])
    if isinstance(residue.get("orders"), Mapping):
        doc = _reorder(doc, residue["orders"])
    text = residue.get("text")
    if text is True:
        return json.dumps(doc, indent=2, ensure_ascii=False)
    return text if type(text) is str else doc


def _foreign_file(records: list[tuple[int, Mapping[str, Any]]], loss: LossReport, at: int) -> dict[str, Any]:
    """The Agent File of records of other producers: one agent with their
    messages, their blocks, and every other record in the file's
    ``metadata``."""
    agents = {str((r.get("scope") or {}).get("agent", "")) for _, r in records}
    name = agents.pop() if len(agents) == 1 else ""
    sc = {"agent": name} if name else {}
    name = name or AGENT_NAME
    messages: list[Any] = []
    blocks: list[Any] = []
    others: list[Any] = []
    remainders: dict[str, Any] = {}
    for index, r in records:
        kind = r.get("kind")
        if kind == "message":
            msg, rem = _object(_message_record, _message_of, r, sc)
            if rem:
                remainders[msg["id"]] = rem
                loss.add_patch(index, r, rem, f"/{at}/metadata/{EXTENSION}")
            messages.append(msg)
        elif kind == "block":
            block, rem = _object(_block_record, _block_of, r, sc)
            if rem:
                block["metadata"] = dict(block.get("metadata") or {})
                block["metadata"][EXTENSION] = rem
                loss.add_patch(index, r, rem, f"/{at}/blocks/{len(blocks)}/metadata/{EXTENSION}")
            blocks.append(block)
        else:
            loss.add_patch(index, r, {"$set": dict(r)}, f"/{at}/metadata/{EXTENSION}")
            others.append(_sorted(_plain(dict(r))))
    agent = {"name": name, "id": "agent-0", "block_ids": [b["id"] for b in blocks], "messages": messages,
             "in_context_message_ids": [m["id"] for m in messages]}
    meta: dict[str, Any] = {}
    if others or remainders:
        box: dict[str, Any] = {}
        if others:
            box["records"] = others
        if remainders:
            box["messages"] = remainders
        # The file's metadata maps names to strings: the box as JSON text.
        meta[EXTENSION] = json.dumps(box, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return {"agents": [agent], "groups": [], "blocks": blocks, "files": [], "sources": [], "tools": [],
            "mcp_servers": [], "metadata": meta}


def _report(records: list[Record]) -> tuple[list[Any], LossReport]:
    """Agent Files of records: a header record opens a file, whose records
    follow it; the records of other producers make one more file."""
    loss = LossReport(FORM_NAME, len(records))
    files: list[Any] = []
    current: list[Mapping[str, Any]] | None = None
    groups: list[Any] = []
    loose: list[tuple[int, Mapping[str, Any]]] = []
    loose_at: int | None = None
    for index, r in enumerate(records):
        custom = r.get("custom")
        if r.get("kind") == "custom" and isinstance(custom, Mapping) and custom.get("type") == HEADER \
                and isinstance(custom.get("value"), Mapping) and _own(r) is not None:
            current = [r]
            groups.append(current)
            continue
        if current is not None and _own(r) is not None and r.get("kind") in ("message", "block"):
            current.append(r)
            continue
        if loose_at is None:
            loose_at = len(groups)
            groups.append(None)
        loose.append((index, r))
    for k, group in enumerate(groups):
        files.append(_foreign_file(loose, loss, k) if group is None else _own_file(group))
    return files, loss


def _decode(records: list[Record]) -> list[Any]:
    return _report(records)[0]


def read_file(path: str) -> list[Any]:
    """The items of an Agent File on disk: the file (a JSON object, or a
    JSON string holding one), or each file of a JSON list."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except ValueError as e:
        raise AdapterError.at("", "INVALID_JSON", f"{path} is not JSON: {e}") from None
    return doc if type(doc) is list else [doc]


def write_file(items: list[Any], path: str) -> bool:
    """One Agent File written to a path ending in ``.af``: its JSON indented
    by two with a final newline, or the JSON string it was read as. The
    white space of the file read is not kept (the item is its JSON value)."""
    if not path.endswith(".af") or len(items) != 1:
        return False
    item = items[0]
    text = json.dumps(item) if type(item) is str else json.dumps(item, indent=2, ensure_ascii=False) + "\n"
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return True


FORM = Form(
    FORM_NAME, FRAMEWORK,
    "Letta Agent Files (.af): the whole file, its agents' messages and its blocks; as JSON, or as the JSON "
    "text some published files hold.",
    _encode, _decode, file=Files(read_file, write_file), report=_report)

FORMS = (FORM,)
