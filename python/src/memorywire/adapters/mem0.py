"""mem0 (mem0ai 2.2.1): memories, their history and the results of ``add()``
as ``fact`` records (spec/v1/adapters/mem0.md)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from datetime import date, datetime, timedelta
from typing import Any

from memorywire import _timestamp
from memorywire.adapters._kit import (
    AdapterError,
    Form,
    Ids,
    Record,
    from_value,
    is_generated,
    isoformat,
    native,
    parse_time,
    pointer_token,
    residue_of,
    split_time,
    to_value,
    unwrap_markers,
    wrap_markers,
)

FRAMEWORK = "mem0"

#: The members of a memory item, in the order mem0 writes them.
ITEM_ORDER = ("id", "memory", "hash", "metadata", "score", "created_at", "updated_at",
              "user_id", "agent_id", "run_id", "actor_id", "role", "attributed_to", "expiration_date")
#: The members of a history entry and of a row of the history table.
HISTORY_ORDER = ("id", "memory_id", "old_memory", "new_memory", "event", "created_at", "updated_at",
                 "is_deleted", "actor_id", "role")
#: The members of one entry of ``add()["results"]``.
ADD_ORDER = ("id", "memory", "event", "actor_id", "role")

_SCOPE = (("user_id", "user"), ("agent_id", "agent"), ("run_id", "run"))
_ORIGIN = {"user": "user", "assistant": "agent"}
_ROLE = {v: k for k, v in _ORIGIN.items()}
#: The residue member listing members the item lacks although the neutral
#: fields (the scope of the call, a time a store sets) would give them.
ABSENT = "$absent"
#: The residue member of the first record of a ``{"results": [...]}``
#: wrapper: how many entries (records) the wrapper holds.
RESULTS = "$results"
_TIMES = (("created_at", "created_at"), ("updated_at", "updated_at"))
#: The custom type of a memory whose text is empty (or not a string).
CUSTOM_TYPE = "mem0.memory"
_EPOCH = datetime(1970, 1, 1)
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")


def _name(x: Any) -> bool:
    """A string that fits a scope member or ``provenance.actor``."""
    return type(x) is str and 0 < len(x) <= 256


def _item(x: Any, where: str) -> dict[str, Any]:
    if type(x) is not dict:
        raise AdapterError.at(where, "TYPE_MISMATCH", f"a mem0 item is a dict, not {type(x).__name__}")
    for key in x:
        if type(key) is not str or key.startswith("$"):
            raise AdapterError.at(where, "UNSUPPORTED_ITEM", f"member {key!r} is not a mem0 member name")
    return x


def _entries(items: list[Any], wrapped: bool) -> list[tuple[str, dict[str, Any], int]]:
    """Each entry to map, with its pointer and, for the first entry of a
    ``{"results": [...]}`` wrapper (what add(), get_all() and search()
    return), the number of entries of the wrapper (else 0)."""
    out = []
    for i, x in enumerate(items):
        if wrapped and type(x) is dict and "results" in x and "memory" not in x:
            for key in x:
                if key != "results":
                    raise AdapterError.at(f"/{i}/{pointer_token(str(key))}", "UNSUPPORTED_ITEM",
                                          f"{key!r} is not a member of a mem0 results wrapper")
            results = x["results"]
            if type(results) is not list:
                raise AdapterError.at(f"/{i}/results", "TYPE_MISMATCH", "results is a list")
            if not results:
                raise AdapterError.at(f"/{i}/results", "NOT_REPRESENTABLE",
                                      "an empty results list has no record to carry it")
            for j, entry in enumerate(results):
                out.append((f"/{i}/results/{j}", _item(entry, f"/{i}/results/{j}"), 0 if j else len(results)))
        else:
            out.append((f"/{i}", _item(x, f"/{i}"), 0))
    return out


def _regroup(records: list[Record], form: Form, decode: Callable[[Record, int], dict[str, Any]]) -> list[Any]:
    """The items of ``records``: entries that came from one results wrapper
    go back into it."""
    out: list[Any] = []
    k = 0
    while k < len(records):
        residue = unwrap_markers(residue_of(records[k], form))
        count = residue.get(RESULTS) if isinstance(residue, Mapping) else None
        if type(count) is int and count > 0:
            out.append({"results": [decode(r, k + m) for m, r in enumerate(records[k:k + count])]})
            k += count
        else:
            out.append(decode(records[k], k))
            k += 1
    return out


class _Encoder:
    """Builds one record: neutral fields where a member fits, the rest in
    the residue under the member's own name."""

    def __init__(self, form: Form, entry: tuple[str, dict[str, Any], int], position: int, ids: Ids,
                 scope: Mapping[str, Any]) -> None:
        self.form = form
        self.where, self.item, count = entry
        self.residue: dict[str, Any] = {RESULTS: count} if count else {}
        self.record: Record = {"specversion": "1.0"}
        self.scope = dict(scope)
        framework_id = self.item.get("id")
        self.record["id"] = ids.assign(position, framework_id)
        if "id" in self.item and (framework_id != self.record["id"] or is_generated(self.record["id"])):
            self.residue["id"] = self.keep("id")

    def pointer(self, key: str) -> str:
        return f"{self.where}/{pointer_token(key)}"

    def keep(self, key: str) -> Any:
        return to_value(self.item[key], self.pointer(key))

    def text(self, key: str) -> None:
        """The memory text as ``fact.text``; an empty or null text, which
        a fact cannot hold, as a ``custom`` record of type ``mem0.memory``."""
        if key not in self.item:
            raise AdapterError.at(self.pointer(key), "MISSING_MEMBER", f"a mem0 {self.form.name} has {key!r}")
        value = self.item[key]
        if type(value) is str and value:
            self.record["kind"] = "fact"
            self.record["fact"] = {"text": value}
        else:
            self.record["kind"] = "custom"
            self.record["custom"] = {"type": CUSTOM_TYPE, "value": self.keep(key)}

    def expiry(self) -> None:
        """``expiration_date`` (YYYY-MM-DD, the last UTC day the memory is
        shown) as ``lifecycle.expires_at``: midnight UTC of the next day."""
        if "expiration_date" not in self.item:
            return
        value = self.item["expiration_date"]
        if type(value) is str and _DATE.match(value):
            try:
                day = date.fromisoformat(value)
            except ValueError:
                day = None
            if day is not None and day < date.max:
                self.record["lifecycle"] = {"expires_at": f"{day + timedelta(days=1)}T00:00:00Z"}
                return
        self.residue["expiration_date"] = self.keep("expiration_date")

    def times(self) -> None:
        for key, field in _TIMES:
            if key not in self.item:
                self.absent(key)
                continue
            value = self.item[key]
            if type(value) is str:
                try:
                    ts, kept = split_time(value, isoformat)
                except AdapterError:
                    ts, kept = None, value
                if ts is not None:
                    self.record[field] = ts
                if kept is not None:
                    self.residue[key] = kept
            else:
                self.residue[key] = self.keep(key)

    def scope_ids(self) -> None:
        for key, field in _SCOPE:
            if key not in self.item:
                if field in self.scope:
                    self.absent(key)
            elif _name(self.item[key]):
                self.scope[field] = self.item[key]
            else:
                self.residue[key] = self.keep(key)

    def provenance(self) -> None:
        prov: dict[str, Any] = {}
        if "actor_id" in self.item:
            if _name(self.item["actor_id"]):
                prov["actor"] = self.item["actor_id"]
            else:
                self.residue["actor_id"] = self.keep("actor_id")
        if "role" in self.item:
            role = self.item["role"]
            if type(role) is str and role in _ORIGIN:
                prov["origin"] = _ORIGIN[role]
            else:
                self.residue["role"] = self.keep("role")
        if prov:
            self.record["provenance"] = prov

    def extension(self, key: str, name: str) -> None:
        if key in self.item:
            if type(self.item[key]) is str:
                self.record.setdefault("extensions", {})[name] = self.item[key]
            else:
                self.residue[key] = self.keep(key)

    def absent(self, key: str) -> None:
        self.residue.setdefault(ABSENT, []).append(key)

    def rest(self, mapped: tuple[str, ...]) -> None:
        for key in self.item:
            if key not in mapped and key not in self.residue:
                self.residue[key] = self.keep(key)

    def done(self) -> Record:
        if self.scope:
            self.record["scope"] = self.scope
        if self.residue:
            self.record["native"] = native(self.form, FRAMEWORK, wrap_markers(self.residue))
        return self.record


class _Decoder:
    """Rebuilds one item from a record: the residue of this form where the
    record has one, else the neutral fields alone."""

    def __init__(self, form: Form, record: Mapping[str, Any], i: int) -> None:
        self.record, self.i = record, i
        residue = unwrap_markers(residue_of(record, form))
        self.own = isinstance(residue, Mapping)
        self.residue: Mapping[str, Any] = residue if isinstance(residue, Mapping) else {}
        absent = self.residue.get(ABSENT, [])
        self.absent = set(absent) if isinstance(absent, list) else set()
        self.item: dict[str, Any] = {}
        for key, value in self.residue.items():
            if not key.startswith("$"):
                self.item[key] = from_value(value)
        if "id" not in self.item and not (self.own and is_generated(str(record.get("id", "")))):
            self.item["id"] = record.get("id")
        fact, custom = record.get("fact"), record.get("custom")
        if record.get("kind") == "fact" and isinstance(fact, Mapping):
            self.text: Any = fact.get("text", "")
        elif record.get("kind") == "custom" and isinstance(custom, Mapping) and custom.get("type") == CUSTOM_TYPE:
            self.text = from_value(custom.get("value"))
        else:
            raise AdapterError.at(f"/{i}/kind", "UNSUPPORTED_ITEM",
                                  f"a mem0 memory is a fact record, not {record.get('kind')!r}")

    def put(self, key: str, value: Any) -> None:
        if key not in self.item and key not in self.absent:
            self.item[key] = value

    def times(self) -> None:
        for key, field in _TIMES:
            kept = self.item.get(key)
            if field in self.record and type(kept) is str:
                try:
                    stale = parse_time(kept) != parse_time(self.record[field])
                except AdapterError:
                    stale = True
                if stale:  # the neutral time changed since: it wins
                    self.item[key] = isoformat(self.record[field])
            elif field in self.record:
                self.put(key, isoformat(self.record[field]))
            elif not self.own:
                self.put(key, None)

    def scope_ids(self) -> None:
        scope = self.record.get("scope") or {}
        for key, field in _SCOPE:
            if field in scope:
                self.put(key, scope[field])

    def provenance(self, *, nulls: bool = False) -> None:
        """actor_id and role; with ``nulls``, a record of another producer
        gives them as null when it has none (mem0 always writes them)."""
        prov = self.record.get("provenance") or {}
        # The residue holds actor_id and role only when the record had no
        # actor or origin for them: one there now was set since, and wins.
        if "actor" in prov:
            self.item["actor_id"] = prov["actor"]
        elif nulls and not self.own:
            self.put("actor_id", None)
        if prov.get("origin") in _ROLE:
            self.item["role"] = _ROLE[prov["origin"]]
        elif nulls and not self.own:
            self.put("role", None)

    def expiry(self) -> None:
        expires = (self.record.get("lifecycle") or {}).get("expires_at")
        if expires is not None:
            # The UTC day of the last microsecond before the expiry.
            seconds, nanos = _timestamp.parse(expires)
            try:
                last = _EPOCH + timedelta(seconds=seconds, microseconds=-(-nanos // 1000) - 1)
            except OverflowError:  # the first instant of year 1: no day before it
                return
            self.put("expiration_date", last.date().isoformat())

    def extension(self, key: str, name: str, default: Any = None) -> None:
        ext = self.record.get("extensions") or {}
        if name in ext:
            self.put(key, ext[name])
        elif not self.own and default is not None:
            self.put(key, default)

    def done(self, order: tuple[str, ...]) -> dict[str, Any]:
        out = {k: self.item[k] for k in order if k in self.item}
        out.update((k, v) for k, v in sorted(self.item.items()) if k not in out)
        return out


# -- mem0.memory_item ---------------------------------------------------------------------------

def _encode_items(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(MEMORY_ITEM.name, scope)
    out = []
    for k, entry in enumerate(_entries(items, wrapped=True)):
        e = _Encoder(MEMORY_ITEM, entry, k, ids, scope)
        e.text("memory")
        e.extension("hash", "mem0.hash")
        meta = e.item.get("metadata", None)
        if type(meta) is dict and 0 < len(meta) <= 1000 and all(type(k) is str for k in meta):
            e.record["metadata"] = {k: to_value(v, f"{e.pointer('metadata')}/{pointer_token(k)}")
                                    for k, v in meta.items()}
        e.times()
        e.scope_ids()
        e.provenance()
        e.expiry()
        e.rest(("id", "memory", "hash", "created_at", "updated_at", "user_id", "agent_id", "run_id",
                "actor_id", "role", "expiration_date", *(("metadata",) if "metadata" in e.record else ())))
        out.append(e.done())
    return out


def _decode_items(records: list[Record]) -> list[Any]:
    return _regroup(records, MEMORY_ITEM, _decode_item)


def _decode_item(r: Record, i: int) -> dict[str, Any]:
    d = _Decoder(MEMORY_ITEM, r, i)
    d.put("memory", d.text)
    if type(d.text) is str:
        d.extension("hash", "mem0.hash", hashlib.md5(d.text.encode("utf-8")).hexdigest())
    if "metadata" in r:
        d.put("metadata", {k: from_value(v) for k, v in r["metadata"].items()})
    elif not d.own:
        d.put("metadata", None)
    d.times()
    d.scope_ids()
    d.provenance()
    d.expiry()
    return d.done(ITEM_ORDER)


# -- mem0.history_row ---------------------------------------------------------------------------

def _encode_history(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(HISTORY_ROW.name, scope)
    out = []
    for k, entry in enumerate(_entries(items, wrapped=False)):
        e = _Encoder(HISTORY_ROW, entry, k, ids, scope)
        new, old = e.item.get("new_memory"), e.item.get("old_memory")
        # The text of the entry: the new one, or the old one of a deletion.
        source = "old_memory" if not (type(new) is str and new) and type(old) is str and old else "new_memory"
        e.text(source)
        if "memory_id" in e.item:
            if _name(e.item["memory_id"]):
                e.record["links"] = [{"type": "references", "target": e.item["memory_id"]}]
            else:
                e.residue["memory_id"] = e.keep("memory_id")
        e.extension("event", "mem0.event")
        e.times()
        e.provenance()
        e.rest(("id", source, "memory_id", "event", "created_at", "updated_at", "actor_id", "role"))
        if source == "old_memory" and "new_memory" not in e.item:
            e.absent("new_memory")
        out.append(e.done())
    return out


def _decode_history(records: list[Record]) -> list[Any]:
    out = []
    for i, r in enumerate(records):
        d = _Decoder(HISTORY_ROW, r, i)
        source = "old_memory" if "new_memory" in d.item or "new_memory" in d.absent else "new_memory"
        d.put(source, d.text)
        links = [lk for lk in r.get("links", ()) if lk.get("type") == "references"]
        if links:
            d.put("memory_id", links[0]["target"])
        elif not d.own:
            d.put("memory_id", None)
        if not d.own:
            d.put("old_memory", None)
        d.extension("event", "mem0.event", "ADD")
        d.times()
        if not d.own:
            d.put("is_deleted", False)
        d.provenance(nulls=True)
        out.append(d.done(HISTORY_ORDER))
    return out


# -- mem0.add_result ----------------------------------------------------------------------------

def _encode_adds(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(ADD_RESULT.name, scope)
    out = []
    for k, entry in enumerate(_entries(items, wrapped=True)):
        e = _Encoder(ADD_RESULT, entry, k, ids, scope)
        e.text("memory")
        e.extension("event", "mem0.event")
        e.provenance()
        e.rest(("id", "memory", "event", "actor_id", "role"))
        out.append(e.done())
    return out


def _decode_adds(records: list[Record]) -> list[Any]:
    return _regroup(records, ADD_RESULT, _decode_add)


def _decode_add(r: Record, i: int) -> dict[str, Any]:
    d = _Decoder(ADD_RESULT, r, i)
    d.put("memory", d.text)
    d.extension("event", "mem0.event", "ADD")
    d.provenance(nulls=True)
    return d.done(ADD_ORDER)


MEMORY_ITEM = Form(
    "mem0.memory_item", FRAMEWORK,
    "The memory dicts of Memory.get(), and the entries of get_all()['results'] and search()['results'].",
    _encode_items, _decode_items)
HISTORY_ROW = Form(
    "mem0.history_row", FRAMEWORK,
    "The entries of Memory.history(memory_id) and the rows of SELECT * FROM history (is_deleted 0/1).",
    _encode_history, _decode_history)
ADD_RESULT = Form(
    "mem0.add_result", FRAMEWORK,
    "The entries of Memory.add(...)['results']: {id, memory, event, actor_id, role}.",
    _encode_adds, _decode_adds)

FORMS = (MEMORY_ITEM, HISTORY_ROW, ADD_RESULT)
