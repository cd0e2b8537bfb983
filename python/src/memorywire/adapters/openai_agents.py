"""OpenAI Agents SDK: session items and the rows of SQLiteSession
(spec/v1/adapters/openai-agents.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from memorywire.adapters import _responses as r
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    canonical_json,
    native,
    ordered,
    residue_of,
    split_time,
    sqlite_time,
)

FRAMEWORK = "openai-agents"
SESSION_ITEM = "openai_agents.session_item"
SQLITE_ROW = "openai_agents.sqlite_session_row"
#: The custom type of an agent_sessions row.
SESSION_TYPE = "openai-agents.session"

MESSAGE_COLUMNS = ("id", "session_id", "message_data", "created_at")
SESSION_COLUMNS = ("session_id", "created_at", "updated_at")

Json = dict[str, Any]


def _encode_items(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    return r.encode_items(SESSION_ITEM, FRAMEWORK, items, scope)


def _decode_items(records: list[Record]) -> list[Any]:
    return r.decode_records(SESSION_ITEM, records)


# -- SQLiteSession rows ------------------------------------------------------------------------

def dumps(item: Any) -> str:
    """``message_data`` as SQLiteSession writes it: ``json.dumps(item)``."""
    return json.dumps(item)


def _time(rest: r.Rest, key: str, record: Record) -> None:
    """A SQLite CURRENT_TIMESTAMP column as a record time; other text is kept."""
    v = rest.get(key)
    if type(v) is not str:
        return
    try:
        ts, kept = split_time(v, sqlite_time)
    except AdapterError:
        return
    record[key] = ts
    rest.take(key)
    if kept is not None:
        rest.left[key] = kept


def _session_scope(rest: r.Rest, scope: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(scope)
    session = rest.text("session_id", 256)
    if session is not None:
        out["session"] = session
    return out


def _encode_row(row: Any, position: int, ids: Ids, scope: Mapping[str, Any]) -> Record:
    pointer = f"/{position}"
    if type(row) is not dict:
        raise AdapterError.at(pointer, "TYPE_MISMATCH",
                              f"a row is a dict of column name to value, not {type(row).__name__}")
    if "message_data" not in row:
        if not set(SESSION_COLUMNS) <= set(row):
            raise AdapterError.at(pointer, "UNSUPPORTED_ITEM",
                                  "a row has message_data (agent_messages) or session_id, created_at and updated_at "
                                  "(agent_sessions)")
        rest = r.Rest(row, pointer)
        record: Record = {"specversion": "1.0", "id": ids.assign(position), "kind": "custom",
                          "custom": {"type": SESSION_TYPE, "value": {}}}
        row_scope = _session_scope(rest, scope)
        if row_scope:
            record["scope"] = row_scope
        _time(rest, "created_at", record)
        _time(rest, "updated_at", record)
        residue = rest.residue()
        if residue:
            record["native"] = native(SQLITE_ROW, FRAMEWORK, residue)
        return record
    for column in ("session_id", "created_at"):
        # Every row has them; without, from records could not tell a missing
        # column from the scope given or a time a store set.
        if column not in row:
            raise AdapterError.at(f"{pointer}/{column}", "MISSING_MEMBER", f"a row of agent_messages has {column}")
    text = row["message_data"]
    data_pointer = f"{pointer}/message_data"
    if type(text) is not str:
        raise AdapterError.at(data_pointer, "TYPE_MISMATCH", "message_data is JSON text")
    try:
        item = json.loads(text)
    except ValueError as e:
        raise AdapterError.at(data_pointer, "TYPE_MISMATCH", f"message_data is not JSON: {e}") from None
    rest = r.Rest(row, pointer)
    rest.take("message_data")
    row_scope = _session_scope(rest, scope)
    mapped = r.encode_item(item, data_pointer)
    record = r.record_of(SQLITE_ROW, FRAMEWORK, ids, position, mapped, row_scope)
    item_residue = record.pop("native", {}).get("record")
    if not all(dumps(_decode_item(_keys_in_order(record, o), _keys_in_order(item_residue, o))) == text
               for o in (False, True)):
        rest.put("message_data", text)
    elif item_residue:
        rest.put("message_data", item_residue)
    _time(rest, "created_at", record)
    residue = rest.residue()
    if residue:
        record["native"] = native(SQLITE_ROW, FRAMEWORK, residue)
    return record


def _keys_in_order(x: Any, reverse: bool) -> Any:
    """``x`` with the members of every map in sorted (or reverse sorted)
    order: a Value map does not keep the order of its members, so the text
    is kept unless it comes back whatever order they arrive in."""
    if type(x) is dict:
        return {k: _keys_in_order(x[k], reverse) for k in sorted(x, reverse=reverse)}
    if type(x) is list:
        return [_keys_in_order(e, reverse) for e in x]
    return x


def _decode_item(record: Mapping[str, Any], item_residue: Any) -> Any:
    return r.decode_item(record, item_residue, "")


def _payload(record: Mapping[str, Any]) -> str:
    kind = record.get("kind")
    return canonical_json({"kind": kind, "payload": record.get(str(kind)), "links": record.get("links", [])})


def _message_data(record: Mapping[str, Any], kept: Any, pointer: str) -> str:
    """The text of message_data: the kept text when it still holds the item
    the neutral fields give, else json.dumps of that item."""
    if type(kept) is str:
        try:
            again = r.record_of(SQLITE_ROW, FRAMEWORK, Ids(SQLITE_ROW, {}), 0,
                                r.encode_item(json.loads(kept), pointer), {})
        except (ValueError, AdapterError):
            again = None
        if again is not None:
            residue = again.get("native", {}).get("record")
            if _payload(again) == _payload(record):
                return kept
            return dumps(r.decode_item(record, residue, pointer))
        return dumps(r.decode_item(record, None, pointer))
    return dumps(r.decode_item(record, kept, pointer))


def _decode_row(record: Mapping[str, Any], residue: Any, pointer: str) -> Json:
    extra = r.unwrap(residue)
    scope = record.get("scope") or {}
    custom = record.get("custom") or {}
    if record.get("kind") == "custom" and custom.get("type") == SESSION_TYPE:
        row = r.members(extra)
        if "session" in scope:
            row["session_id"] = scope["session"]
        for key in ("created_at", "updated_at"):
            if key not in row and key in record:
                row[key] = sqlite_time(record[key])
        return ordered(row, SESSION_COLUMNS)
    row = r.members({k: v for k, v in extra.items() if k != "message_data"})
    row["message_data"] = _message_data(record, extra.get("message_data"), pointer)
    if "session" in scope:
        row["session_id"] = scope["session"]
    if "created_at" not in row and "created_at" in record:
        row["created_at"] = sqlite_time(record["created_at"])
    return ordered(row, MESSAGE_COLUMNS)


def _encode_rows(rows: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(SQLITE_ROW, scope)
    return [_encode_row(row, i, ids, scope) for i, row in enumerate(rows)]


def _decode_rows(records: list[Record]) -> list[Any]:
    rows: list[Any] = []
    for i, rec in enumerate(records):
        residue = residue_of(rec, SQLITE_ROW)
        items = r.decode_items(rec, None, f"/{i}") if residue is None and rec.get("kind") == "message" else []
        if len(items) < 2:
            rows.append(_decode_row(rec, residue, f"/{i}"))
            continue
        # A message of another producer that Responses keeps as several items.
        scope = rec.get("scope") or {}
        for item in items:
            row: Json = {}
            if "session" in scope:
                row["session_id"] = scope["session"]
            row["message_data"] = dumps(item)
            if "created_at" in rec:
                row["created_at"] = sqlite_time(rec["created_at"])
            rows.append(row)
    return rows


FORMS = (
    Form(SESSION_ITEM, FRAMEWORK,
         "What SQLiteSession.get_items() (and every Session of the Agents SDK) returns: Responses input "
         "items as the Runner stores them.",
         _encode_items, _decode_items),
    Form(SQLITE_ROW, FRAMEWORK,
         "Rows of SQLiteSession's tables, as dicts of column name to value: agent_messages (message_data "
         "kept byte for byte) and agent_sessions.",
         _encode_rows, _decode_rows),
)
