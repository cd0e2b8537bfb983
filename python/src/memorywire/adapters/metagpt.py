"""MetaGPT (0.8.2): ``Message`` as ``model_dump()`` dicts and as the JSON
text of ``Message.dump()``, as ``message`` records (spec/v1/adapters/metagpt.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    canonical_json,
    from_value,
    is_generated,
    keep_text,
    native,
    pointer_token,
    residue_of,
    to_value,
    unwrap_markers,
    wrap_markers,
)

FRAMEWORK = "metagpt"

#: The members of a Message, in the order MetaGPT 0.8.2 writes them.
ORDER = ("id", "content", "instruct_content", "role", "cause_by", "sent_from", "send_to")
#: MetaGPT's MESSAGE_ROUTE_TO_ALL, and memorywire's broadcast recipient.
TO_ALL, ALL = "<all>", "*"
#: What MetaGPT writes as cause_by when a message is given none.
USER_REQUIREMENT = "metagpt.actions.add_requirement.UserRequirement"
_ROLES = ("user", "system", "assistant")
#: Residue members of this form (MetaGPT member names never start with "$"):
#: the kept text of a dump() item (or true when it is rebuilt exactly), and
#: the members the item lacks that the neutral fields would give.
DUMP, ABSENT = "$dump", "$absent"
#: The residue member of the first record of a ``Memory.model_dump_json()``
#: text: ``{"count": n, "ignore_id": ..., "text": ...}``.
MEMORY = "$memory"
_DEFAULTED = ("sent_from", "send_to")


def dump_text(message: Mapping[str, Any]) -> str:
    """What ``Message.dump()`` writes for ``message`` (the dict without its
    null members): compact JSON, raw UTF-8."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values, type-exactly (1, 1.0 and true apart)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _name(x: Any, limit: int = 256) -> bool:
    return type(x) is str and 0 < len(x) <= limit


def _recipient(x: str) -> str:
    return ALL if x == TO_ALL else x


def _send_to(x: str) -> str:
    return TO_ALL if x == ALL else x


def _encode(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(MESSAGE.name, scope)
    out: list[Record] = []
    for i, x in enumerate(items):
        parsed = _parse(x, i) if type(x) is str else x
        if type(parsed) is dict and "storage" in parsed and "content" not in parsed:
            out.extend(_encode_memory(x, parsed, i, ids, scope, len(out)))
        else:
            out.append(_finish(_encode_one(x, i, ids, scope, len(out), parsed)))
    return out


def _parse(text: str, i: int) -> Any:
    try:
        return json.loads(text)
    except ValueError as e:
        raise AdapterError.at(f"/{i}", "TYPE_MISMATCH", f"not the JSON text of Message.dump(): {e}") from None


def memory_text(storage: list[Any], ignore_id: Any) -> str:
    """What ``Memory.model_dump_json()`` writes for a memory that added
    ``storage`` in order: every message also under its ``cause_by`` in
    ``index``, compact JSON, raw UTF-8."""
    index: dict[str, list[Any]] = {}
    for message in storage:
        if message.get("cause_by"):
            index.setdefault(str(message["cause_by"]), []).append(message)
    return dump_text({"storage": storage, "index": index, "ignore_id": ignore_id})


def _encode_memory(text: str, memory: dict[str, Any], i: int, ids: Ids, scope: dict[str, Any],
                   position: int) -> list[Record]:
    """The text of ``Memory.model_dump_json()``: one record per message of
    its ``storage``; the first record counts them and keeps what the
    messages do not give (``ignore_id``, the text when it is not rebuilt)."""
    for key in memory:
        if key not in ("storage", "index", "ignore_id"):
            raise AdapterError.at(f"/{i}", "UNSUPPORTED_ITEM", f"{key!r} is not a member of MetaGPT's Memory")
    for key in ("index", "ignore_id"):
        if key not in memory:
            raise AdapterError.at(f"/{i}", "MISSING_MEMBER", f"Memory.model_dump_json() writes {key!r}")
    storage = memory["storage"]
    if type(storage) is not list or not storage:
        raise AdapterError.at(f"/{i}", "NOT_REPRESENTABLE", "a Memory without messages has no record to carry it")
    encoded = [_encode_one(m, i, ids, scope, position + j, m, whole=True) for j, m in enumerate(storage)]
    marker: dict[str, Any] = {"count": len(storage), "ignore_id": to_value(memory["ignore_id"], f"/{i}")}
    records = [_finish(e) for e in encoded]
    # What the way back rebuilds: maps inside Values with their keys sorted.
    back = [_decode_one(json.loads(canonical_json(r)), json.loads(canonical_json(res)), i) for r, res in encoded]
    kept = keep_text(text, memory_text(back, memory["ignore_id"]))
    if kept is not None:
        marker["text"] = kept
    first, residue = encoded[0]
    residue[MEMORY] = marker
    records[0] = _finish((first, residue))
    return records


def _finish(encoded: tuple[Record, dict[str, Any]]) -> Record:
    record, residue = encoded
    record = dict(record)
    if residue:
        record["native"] = native(MESSAGE, FRAMEWORK, wrap_markers(residue))
    return record


def _encode_one(x: Any, i: int, ids: Ids, scope: dict[str, Any], position: int, parsed: Any,
                whole: bool = False) -> tuple[Record, dict[str, Any]]:
    """The record of one message (a dict, or dump() text) and its residue;
    with ``whole``, pointers name the item itself (a Memory text)."""
    text: str | None = None
    if type(x) is str and not whole:
        text = x
        x = parsed
        if type(x) is not dict:
            raise AdapterError.at(f"/{i}", "TYPE_MISMATCH", "Message.dump() text is a JSON object")
    elif type(x) is not dict:
        raise AdapterError.at(f"/{i}", "TYPE_MISMATCH",
                              f"a MetaGPT message is a model_dump() dict or dump() text, not {type(x).__name__}")
    item: dict[str, Any] = x
    for key in item:
        if key.startswith("$"):
            raise AdapterError.at(f"/{i}", "UNSUPPORTED_ITEM", f"member {key!r} is not a Message member")
    for key in ("content", "role"):
        if key not in item:
            raise AdapterError.at(f"/{i}", "MISSING_MEMBER", f"a Message has {key!r}")

    def ptr(key: str) -> str:
        return f"/{i}" if text is not None or whole else f"/{i}/{pointer_token(key)}"

    residue: dict[str, Any] = {}
    record: Record = {"specversion": "1.0", "id": ids.assign(position, item.get("id")), "kind": "message"}
    if "id" in item and (item["id"] != record["id"] or is_generated(record["id"])):
        residue["id"] = to_value(item["id"], ptr("id"))
    msg: dict[str, Any] = {}
    content, role = item["content"], item["role"]
    if type(content) is str:
        if content:
            msg["content"] = [{"text": {"text": content}}]
    else:
        residue["content"] = to_value(content, ptr("content"))
    if type(role) is str and role in _ROLES:
        msg["role"] = role
    else:
        # A free-text role (a role profile): assistant, named after it.
        msg["role"] = "assistant"
        residue["role"] = to_value(role, ptr("role"))
        if _name(role):
            msg["name"] = role
    record["message"] = msg
    routing: dict[str, Any] = {}
    if "cause_by" in item:
        if _name(item["cause_by"], 1024):
            routing["cause"] = item["cause_by"]
        else:
            residue["cause_by"] = to_value(item["cause_by"], ptr("cause_by"))
    if "sent_from" in item:
        if _name(item["sent_from"]):
            routing["sender"] = item["sent_from"]
        elif item["sent_from"] != "":
            residue["sent_from"] = to_value(item["sent_from"], ptr("sent_from"))
    if "send_to" in item:
        send_to = item["send_to"]
        if (type(send_to) is list and len(send_to) <= 1000 and all(_name(s) and s != ALL for s in send_to)
                and len(set(send_to)) == len(send_to)):
            recipients = sorted(_recipient(s) for s in send_to)
            if recipients:
                routing["recipients"] = recipients
            if [_send_to(r) for r in recipients] != send_to:
                residue["send_to"] = list(send_to)  # the set's iteration order
        else:
            residue["send_to"] = to_value(send_to, ptr("send_to"))
    if routing:
        record["routing"] = routing
    for key in item:
        if key not in ("id", "content", "role", "cause_by", "sent_from", "send_to"):
            residue[key] = to_value(item[key], ptr(key))
    absent = [k for k in _DEFAULTED if k not in item]
    if absent:
        residue[ABSENT] = absent
    if scope:
        record["scope"] = dict(scope)
    if text is not None:
        # What the way back rebuilds: maps inside Values come back with
        # their keys sorted (the canonical form).
        decoded = _decode_one(json.loads(canonical_json(record)), json.loads(canonical_json(residue)), i)
        residue[DUMP] = keep_text(text, dump_text(decoded)) or True
    return record, residue


def _decode(records: list[Record]) -> list[Any]:
    out: list[Any] = []
    k = 0
    while k < len(records):
        residue = unwrap_markers(residue_of(records[k], MESSAGE))
        marker = residue.get(MEMORY) if isinstance(residue, Mapping) else None
        if isinstance(marker, Mapping) and type(marker.get("count")) is int and marker["count"] > 0:
            group = records[k:k + marker["count"]]
            out.append(_decode_memory(group, marker, k))
            k += len(group)
            continue
        out.extend(_decode_messages([records[k]], k))
        k += 1
    return out


def _decode_memory(group: list[Record], marker: Mapping[str, Any], k: int) -> str:
    storage = [_decode_one(r, unwrap_markers(residue_of(r, MESSAGE)), k + m) for m, r in enumerate(group)]
    ignore_id = from_value(marker.get("ignore_id", False))
    kept = marker.get("text")
    if type(kept) is str:  # used while it holds the messages the records give
        found = json.loads(kept)
        if _same(found.get("storage"), storage) and _same(found.get("ignore_id"), ignore_id):
            return kept
    return memory_text(storage, ignore_id)


def _decode_messages(records: list[Record], start: int) -> list[Any]:
    out: list[Any] = []
    for i, r in enumerate(records, start):
        residue = unwrap_markers(residue_of(r, MESSAGE))
        own = isinstance(residue, Mapping)
        item = _decode_one(r, residue if isinstance(residue, Mapping) else None, i)
        kept = residue.get(DUMP) if own and isinstance(residue, Mapping) else None
        if kept is None:
            out.append(item)
        elif type(kept) is str and _same(json.loads(kept), item):
            out.append(kept)
        else:
            out.append(dump_text(item))
    return out


def _decode_one(r: Mapping[str, Any], residue: Mapping[str, Any] | None, i: int) -> dict[str, Any]:
    if r.get("kind") != "message" or not isinstance(r.get("message"), Mapping):
        raise AdapterError.at(f"/{i}/kind", "UNSUPPORTED_ITEM", f"a MetaGPT Message is a message record, "
                                                                f"not {r.get('kind')!r}")
    own = residue is not None
    res: Mapping[str, Any] = residue or {}
    absent = set(res.get(ABSENT, ()))
    item: dict[str, Any] = {k: from_value(v) for k, v in res.items() if not k.startswith("$")}
    msg, routing = r["message"], r.get("routing") or {}

    def put(key: str, value: Any) -> None:
        if key not in item and key not in absent:
            item[key] = value

    if not (own and is_generated(str(r.get("id", "")))):
        put("id", r.get("id"))
    parts = msg.get("content", [])
    texts = []
    for j, part in enumerate(parts):
        if "text" not in part:
            raise AdapterError.at(f"/{i}/message/content/{j}", "UNSUPPORTED_ITEM",
                                  "a MetaGPT Message holds text only")
        texts.append(part["text"].get("text", ""))
    put("content", "".join(texts) if own else "\n".join(texts))
    if not own:
        put("instruct_content", None)
    if msg.get("role") != "assistant" and "role" in item:
        del item["role"]  # a free-text role is kept for an assistant; the role changed since: it wins
    put("role", msg.get("role", "user"))
    if "cause" in routing:
        put("cause_by", routing["cause"])
    elif not own:
        put("cause_by", USER_REQUIREMENT)
    put("sent_from", routing.get("sender", ""))
    recipients = [_send_to(x) for x in routing.get("recipients", ())]
    kept = item.get("send_to")
    if type(kept) is list and recipients and sorted(map(_recipient, map(str, kept))) != sorted(routing["recipients"]):
        item["send_to"] = recipients  # the recipients changed since: they win
    put("send_to", recipients if recipients or own else [TO_ALL])
    out = {k: item[k] for k in ORDER if k in item}
    out.update((k, v) for k, v in sorted(item.items()) if k not in out)
    return out


MESSAGE = Form(
    "metagpt.message", FRAMEWORK,
    "MetaGPT Message.model_dump() dicts and Message.dump() JSON text (a str item).",
    _encode, _decode)

FORMS = (MESSAGE,)
