"""LangGraph store items and SqliteStore rows (spec/v1/adapters/langgraph.md).

``langgraph.item`` accepts ``Item.dict()`` and ``SearchItem.dict()`` of any
``BaseStore`` (InMemoryStore, SqliteStore); ``langgraph.sqlite_store_row``
accepts the rows of SqliteStore's ``store`` table as column name to value.
Both write one ``custom`` record of type ``langgraph.item`` per item, so a
row read back as an item (and the other way round) keeps its namespace,
key, value and times.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import orjson

from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    from_value,
    isoformat,
    keep_text,
    native,
    ordered,
    parse_time,
    residue_of,
    split_time,
    sqlite_time,
    to_value,
)

FRAMEWORK = "langgraph"
#: The ``custom.type`` of every record of both forms.
CUSTOM_TYPE = "langgraph.item"

ITEM_MEMBERS = ("namespace", "key", "value", "created_at", "updated_at", "score")
ROW_COLUMNS = ("prefix", "key", "value", "created_at", "updated_at", "expires_at", "ttl_minutes")

_MAX_LABELS = 32
_MAX_LABEL = 256
_MAX_KEY = 1024


# -- shared -------------------------------------------------------------------------------------

def _namespace(labels: Sequence[Any], pointer: str) -> list[str]:
    out = []
    for i, label in enumerate(labels):
        if type(label) is not str:
            raise AdapterError.at(f"{pointer}/{i}", "TYPE_MISMATCH", "a namespace label is a string")
        if not 0 < len(label) <= _MAX_LABEL:
            raise AdapterError.at(f"{pointer}/{i}", "NOT_REPRESENTABLE",
                                  f"a namespace label of {len(label)} code points (scope.namespace takes 1..256)")
        out.append(label)
    if len(out) > _MAX_LABELS:
        raise AdapterError.at(pointer, "NOT_REPRESENTABLE",
                              f"a namespace of {len(out)} labels (scope.namespace takes at most 32)")
    return out


def _time(item: Mapping[str, Any], member: str, pointer: str,
          render: Callable[[str], str]) -> tuple[str, str | None]:
    text = item[member]
    if type(text) is not str:
        raise AdapterError.at(f"{pointer}/{member}", "TYPE_MISMATCH", f"{member} is a string")
    try:
        return split_time(text, render)
    except AdapterError as e:
        raise AdapterError.at(f"{pointer}/{member}", e.reason, e.message) from None


def _members(item: Any, members: Sequence[str], optional: Sequence[str], pointer: str) -> dict[str, Any]:
    if not isinstance(item, Mapping):
        raise AdapterError.at(pointer, "TYPE_MISMATCH", f"an item is a dict, not {type(item).__name__}")
    for k in item:
        if k not in members:
            raise AdapterError.at(f"{pointer}/{k}", "UNSUPPORTED_ITEM", f"{k!r} is not a member of this form")
    for k in members:
        if k not in item and k not in optional:
            raise AdapterError.at(f"{pointer}/{k}", "MISSING_MEMBER", f"the member {k!r} is missing")
    return dict(item)


class _Keys:
    """Record ids and keys of one list: the first item of a namespace and
    key carries the key and an id made of both and the scope (so that
    writing the item again replaces its record); a repeat gets a positional
    id and keeps its key in the residue."""

    def __init__(self, form: str, scope: Mapping[str, Any]) -> None:
        self._ids = Ids(form, scope)
        self._scope = dict(scope)
        self._seen: set[tuple[tuple[str, ...], str]] = set()

    def assign(self, position: int, namespace: list[str], key: str) -> tuple[str, bool]:
        """The record id, and whether the record carries ``key``."""
        if (tuple(namespace), key) in self._seen:
            return self._ids.assign(position), False
        self._seen.add((tuple(namespace), key))
        made = Ids(CUSTOM_TYPE, {**self._scope, "namespace": namespace, "key": key}).assign(0)
        return made, 0 < len(key) <= _MAX_KEY


def _record(record_id: str, scope: dict[str, Any], namespace: list[str], key: str | None,
            value: Any, created: str, updated: str) -> Record:
    rec: Record = {"specversion": "1.0", "id": record_id, "kind": "custom"}
    if key is not None:
        rec["key"] = key
    rec["scope"] = {**scope, "namespace": namespace} if namespace else dict(scope)
    if not rec["scope"]:
        del rec["scope"]
    rec["created_at"] = created
    rec["updated_at"] = updated
    rec["custom"] = {"type": CUSTOM_TYPE, "value": value}
    return rec


def _same(a: Any, b: Any) -> bool:
    """Type-exact equality of two framework values (1, 1.0 and True
    differ; -0.0 and 0.0 differ)."""
    try:
        return orjson.dumps(to_value(a), option=orjson.OPT_SORT_KEYS) == orjson.dumps(
            to_value(b), option=orjson.OPT_SORT_KEYS)
    except (AdapterError, orjson.JSONEncodeError):
        return False


def _kept_time(kept: Any, ts: str | None, render: Callable[[str], str]) -> str | None:
    """The kept time text when it still reads as ``ts``, else ``ts``
    rendered; None without a time."""
    if ts is None:
        return None
    if type(kept) is str:
        try:
            if parse_time(kept) == parse_time(ts):
                return kept
        except AdapterError:
            pass
    return render(parse_time(ts))


def _neutral(rec: Mapping[str, Any], res: Mapping[str, Any], pointer: str) -> tuple[list[str], str, Any]:
    """Namespace, key and value of a record, from its neutral fields (and
    the key the residue keeps)."""
    scope = rec.get("scope") or {}
    namespace = list(scope.get("namespace") or [])
    key = res["key"] if type(res.get("key")) is str else (rec.get("key") or rec.get("id"))
    if type(key) is not str:
        raise AdapterError.at(f"{pointer}/key", "MISSING_MEMBER", "the record has neither key nor id")
    kind = rec.get("kind")
    if kind == "custom" and isinstance(rec.get("custom"), Mapping) and "value" in rec["custom"]:
        value = from_value(rec["custom"]["value"])
    elif isinstance(kind, str) and isinstance(rec.get(kind), Mapping):
        value = {kind: rec[kind]}
    else:
        raise AdapterError.at(pointer, "MISSING_MEMBER", "the record has no payload to take as the item value")
    return namespace, key, value


def _residue(rec: Mapping[str, Any], form: str) -> dict[str, Any]:
    res = residue_of(rec, form)
    return dict(res) if isinstance(res, Mapping) else {}


def _order(item: Mapping[str, Any], canonical: Sequence[str], res: dict[str, Any]) -> None:
    if [k for k in canonical if k in item] != list(item):
        res["order"] = list(item)


# -- langgraph.item -----------------------------------------------------------------------------

ITEM = "langgraph.item"


def _encode_items(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    keys = _Keys(ITEM, scope)
    out = []
    for i, raw in enumerate(items):
        p = f"/{i}"
        item = _members(raw, ITEM_MEMBERS, ("score",), p)
        if not isinstance(item["namespace"], (list, tuple)):
            raise AdapterError.at(f"{p}/namespace", "TYPE_MISMATCH", "namespace is a list of strings")
        if type(item["namespace"]) is tuple:
            raise AdapterError.at(f"{p}/namespace", "TYPE_MISMATCH",
                                  "namespace is the list Item.dict() writes, not a tuple")
        namespace = _namespace(item["namespace"], f"{p}/namespace")
        key = item["key"]
        if type(key) is not str:
            raise AdapterError.at(f"{p}/key", "TYPE_MISMATCH", "key is a string")
        if not isinstance(item["value"], dict):
            raise AdapterError.at(f"{p}/value", "TYPE_MISMATCH", "value is a dict")
        value = to_value(item["value"], f"{p}/value")
        created, kept_created = _time(item, "created_at", p, isoformat)
        updated, kept_updated = _time(item, "updated_at", p, isoformat)
        record_id, carries_key = keys.assign(i, namespace, key)
        res: dict[str, Any] = {}
        if not carries_key:
            res["key"] = key
        if kept_created is not None:
            res["created_at"] = kept_created
        if kept_updated is not None:
            res["updated_at"] = kept_updated
        if "score" in item:
            score = item["score"]
            if score is not None and type(score) not in (int, float):
                raise AdapterError.at(f"{p}/score", "TYPE_MISMATCH", "score is a number or null")
            res["score"] = to_value(score, f"{p}/score")
        _order(item, ITEM_MEMBERS, res)
        rec = _record(record_id, scope, namespace, key if carries_key else None, value, created, updated)
        if res:
            rec["native"] = native(ITEM, FRAMEWORK, res)
        out.append(rec)
    return out


def _decode_items(records: list[Record]) -> list[Any]:
    out = []
    for i, rec in enumerate(records):
        p = f"/{i}"
        res = _residue(rec, ITEM)
        namespace, key, value = _neutral(rec, res, p)
        if not isinstance(value, dict):
            value = {"value": value}
        created = rec.get("created_at")
        updated = rec.get("updated_at", created)
        if created is None:
            raise AdapterError.at(f"{p}/created_at", "MISSING_MEMBER", "a LangGraph item has a creation time")
        item: dict[str, Any] = {
            "namespace": namespace,
            "key": key,
            "value": value,
            "created_at": _kept_time(res.get("created_at"), created, isoformat),
            "updated_at": _kept_time(res.get("updated_at"), updated, isoformat),
        }
        if "score" in res:
            item["score"] = from_value(res["score"])
        order = res.get("order")
        if isinstance(order, list) and sorted(order) == sorted(item):
            item = ordered(item, order)
        out.append(item)
    return out


# -- langgraph.sqlite_store_row -----------------------------------------------------------------

ROW = "langgraph.sqlite_store_row"


def _expires(ts: str) -> str:
    """``str(datetime)`` of an aware UTC datetime, as SqliteStore.put writes
    ``expires_at``."""
    return isoformat(ts, sep=" ")


def _value_text(value: Any, pointer: str) -> tuple[Any, bytes, bool]:
    """The parsed JSON of a row's ``value``, its bytes, and whether the
    column was text rather than a BLOB."""
    if type(value) not in (str, bytes):
        raise AdapterError.at(pointer, "TYPE_MISMATCH", f"value is bytes (the BLOB) or str, not {type(value).__name__}")
    is_text = type(value) is str
    try:
        raw = value.encode("utf-8") if isinstance(value, str) else value
        parsed = json.loads(raw.decode("utf-8"))
    except (UnicodeError, ValueError) as e:
        raise AdapterError.at(pointer, "TYPE_MISMATCH", f"value is not JSON text in UTF-8: {e}") from None
    return parsed, raw, is_text


def _dump(value: Any) -> bytes | None:
    """What SqliteStore writes (orjson) for ``value`` with its members in
    code point order, the order of a Value map read back; None when orjson
    refuses it (integers beyond 64 bits)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:
        return None


def _encode_rows(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    keys = _Keys(ROW, scope)
    out = []
    for i, raw_row in enumerate(items):
        p = f"/{i}"
        row = _members(raw_row, ROW_COLUMNS, (), p)
        prefix = row["prefix"]
        if type(prefix) is not str:
            raise AdapterError.at(f"{p}/prefix", "TYPE_MISMATCH", "prefix is a string")
        namespace = _namespace(prefix.split("."), f"{p}/prefix")
        key = row["key"]
        if type(key) is not str:
            raise AdapterError.at(f"{p}/key", "TYPE_MISMATCH", "key is a string")
        parsed, raw, is_text = _value_text(row["value"], f"{p}/value")
        value = to_value(parsed, f"{p}/value")
        created, kept_created = _time(row, "created_at", p, sqlite_time)
        updated, kept_updated = _time(row, "updated_at", p, sqlite_time)
        expires = kept_expires = None
        if row["expires_at"] is not None:
            expires, kept_expires = _time(row, "expires_at", p, _expires)
        ttl = row["ttl_minutes"]
        if ttl is not None and type(ttl) not in (int, float):
            raise AdapterError.at(f"{p}/ttl_minutes", "TYPE_MISMATCH", "ttl_minutes is a number or null")
        record_id, carries_key = keys.assign(i, namespace, key)
        res: dict[str, Any] = {}
        if not carries_key:
            res["key"] = key
        rebuilt = _dump(parsed)
        kept = keep_text(raw.decode("utf-8"), rebuilt.decode("utf-8") if rebuilt is not None else "")
        if kept is not None:
            res["value"] = kept
        if is_text:
            res["value_is_text"] = True
        for member, text in (("created_at", kept_created), ("updated_at", kept_updated),
                             ("expires_at", kept_expires)):
            if text is not None:
                res[member] = text
        if ttl is not None:
            res["ttl_minutes"] = ttl
        _order(row, ROW_COLUMNS, res)
        rec = _record(record_id, scope, namespace, key if carries_key else None, value, created, updated)
        if expires is not None:
            rec["lifecycle"] = {"expires_at": expires}
        if res:
            rec["native"] = native(ROW, FRAMEWORK, res)
        out.append(rec)
    return out


def _decode_rows(records: list[Record]) -> list[Any]:
    out = []
    for i, rec in enumerate(records):
        p = f"/{i}"
        res = _residue(rec, ROW)
        namespace, key, value = _neutral(rec, res, p)
        for j, label in enumerate(namespace):
            if "." in label:
                raise AdapterError.at(f"{p}/scope/namespace/{j}", "NOT_REPRESENTABLE",
                                      "a LangGraph namespace label cannot contain '.'")
        blob = _dump(value)
        kept = res.get("value")
        if type(kept) is str:
            try:
                if _same(json.loads(kept), value):
                    blob = kept.encode("utf-8")
            except ValueError:
                pass
        if blob is None:
            raise AdapterError.at(f"{p}/custom/value", "NOT_REPRESENTABLE",
                                  "SqliteStore cannot store this value (an integer beyond 64 bits)")
        created = rec.get("created_at")
        if created is None:
            raise AdapterError.at(f"{p}/created_at", "MISSING_MEMBER", "a store row has a creation time")
        updated = rec.get("updated_at", created)
        lifecycle = rec.get("lifecycle") or {}
        ttl = res.get("ttl_minutes")
        row: dict[str, Any] = {
            "prefix": ".".join(namespace),
            "key": key,
            "value": blob.decode("utf-8") if res.get("value_is_text") is True else blob,
            "created_at": _kept_time(res.get("created_at"), created, sqlite_time),
            "updated_at": _kept_time(res.get("updated_at"), updated, sqlite_time),
            "expires_at": _kept_time(res.get("expires_at"), lifecycle.get("expires_at"), _expires),
            "ttl_minutes": ttl if type(ttl) in (int, float) else None,
        }
        order = res.get("order")
        if isinstance(order, list) and sorted(order) == sorted(row):
            row = ordered(row, order)
        out.append(row)
    return out


FORMS = (
    Form(ITEM, FRAMEWORK,
         "Item.dict() and SearchItem.dict() of a LangGraph BaseStore (InMemoryStore, SqliteStore).",
         _encode_items, _decode_items),
    Form(ROW, FRAMEWORK,
         "Rows of SqliteStore's store table (SELECT * FROM store) as column name to value.",
         _encode_rows, _decode_rows),
)
