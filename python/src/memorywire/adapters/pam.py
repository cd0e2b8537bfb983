"""Portable AI Memory (PAM 1.0): memory stores, conversations and
embeddings files as memorywire records, and back (spec/v1/adapters/pam.md).

The items of the form ``pam.memory_store`` are PAM documents, each a dict
with its ``schema``: the memory store (``memory-store.json``), conversation
files (``conversations/*.json``) and the embeddings file
(``embeddings.json``) of one export, in the order of :func:`read_bundle`.
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
import uuid
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from memorywire.adapters import _patch
from memorywire.adapters._bridge import LossReport, jcs
from memorywire.adapters._kit import (
    ID_NAMESPACE,
    AdapterError,
    Files,
    Form,
    Ids,
    Record,
    canonical_json,
    from_value,
    memory_text,
    native,
    parse_time,
    pointer_token,
    residue_of,
    to_value,
    valid_id,
)

FRAMEWORK = "pam"
STORE = "portable-ai-memory"
CONVERSATION = "portable-ai-memory-conversation"
EMBEDDINGS = "portable-ai-memory-embeddings"
VERSION = "1.0"
#: The member of a memory's ``metadata`` and of a message's
#: ``raw_metadata`` that keeps what PAM's own fields do not carry.
EXTENSION = "memorywire"
#: The platform and provider name of what memorywire writes.
PLATFORM = "memorywire"
#: The time PAM requires where a record has none.
NO_TIME = "1970-01-01T00:00:00Z"
#: The owner of a memory store whose records name no one user.
ANONYMOUS = "anonymous"
#: The custom types of the memory records of kinds that PAM has no type for.
CUSTOM_PREFIX = "memorywire_"
_MEMORY_KINDS = ("fact", "episode", "procedure", "emotion", "summary", "block", "custom", "encrypted")
_CONVERSATION_KINDS = ("message", "tool_call", "tool_result")
_TAG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
_LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?$")
_STORE_ADDED = ("sequence", "revision")
_SAFE = 2**53 - 1
_LINK_OF_RELATION = {"supersedes": "supersedes", "contradicts": "contradicts", "derived_from": "derived_from",
                     "supports": "references", "extends": "references", "related_to": "references"}
_ROLES = ("user", "assistant", "system", "tool")
_TEXT_FIELD = {"fact": "text", "episode": "text", "emotion": "text", "summary": "text", "block": "value"}


#: The member order of each PAM 1.0 object, as its JSON Schemas list them
#: and its SDK writes them: (members, {member: the shape of its value}).
SHAPES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    STORE: (("schema", "schema_version", "spec_uri", "export_id", "exported_by", "export_date", "owner", "memories",
             "relations", "conversations_index", "integrity", "export_type", "base_export_id", "since",
             "type_registry", "signature"),
            {"owner": "owner", "memories": "memory", "relations": "relation", "conversations_index": "index",
             "integrity": "integrity", "signature": "signature"}),
    "owner": (("id", "did", "created_at"), {}),
    "memory": (("id", "type", "custom_type", "status", "content", "content_hash", "summary", "tags", "confidence",
                "temporal", "provenance", "access", "embedding_ref", "metadata"),
               {"confidence": "confidence", "temporal": "temporal", "provenance": "provenance", "access": "access",
                "metadata": "metadata"}),
    "confidence": (("initial", "current", "decay_model", "last_reinforced"), {}),
    "temporal": (("created_at", "updated_at", "valid_from", "valid_until", "superseded_by"), {}),
    "provenance": (("platform", "platform_user_id", "conversation_ref", "message_ref", "extraction_method",
                    "extracted_at", "extractor"), {}),
    "access": (("visibility", "exportable", "shared_with"), {"shared_with": "grant"}),
    "grant": (("entity", "permissions"), {}),
    "metadata": (("language", "domain"), {}),
    "relation": (("id", "from", "to", "type", "confidence", "created_at"), {}),
    "index": (("id", "platform", "title", "message_count", "temporal", "tags", "derived_memories", "storage"),
              {"temporal": "temporal", "storage": "storage"}),
    "storage": (("type", "ref", "format"), {}),
    "signature": (("algorithm", "public_key", "value", "signed_at", "key_id"), {}),
    "integrity": (("canonicalization", "checksum", "total_memories"), {}),
    CONVERSATION: (("schema", "schema_version", "id", "provider", "title", "temporal", "participants", "messages",
                    "model", "system_instruction", "is_archived", "tags", "raw_metadata", "import_metadata"),
                   {"provider": "provider", "temporal": "temporal", "participants": "participant",
                    "messages": "message", "import_metadata": "import"}),
    "provider": (("name", "conversation_id", "account_id", "export_format_version"), {}),
    "participant": (("role", "name", "provider_id"), {}),
    "message": (("id", "provider_message_id", "role", "content", "created_at", "parent_id", "children_ids", "model",
                 "is_thought", "token_count", "attachments", "citations", "tool_calls", "raw_metadata"),
                {"content": "content", "attachments": "attachment", "citations": "citation",
                 "tool_calls": "tool_call"}),
    "content": (("type", "text", "parts"), {"parts": "part"}),
    "part": (("type", "text", "language", "mime_type", "ref"), {}),
    "attachment": (("type", "name", "mime_type", "size_bytes", "ref", "provider_id"), {}),
    "citation": (("title", "url", "snippet"), {}),
    "tool_call": (("id", "name", "input", "output"), {}),
    "import": (("importer", "importer_version", "imported_at", "source_file", "source_checksum"), {}),
    EMBEDDINGS: (("schema", "schema_version", "embeddings"), {"embeddings": "embedding"}),
    "embedding": (("id", "memory_id", "model", "dimensions", "created_at", "vector", "storage"), {}),
}


# -- PAM's own computations (PAM 1.0 §6, §15) ----------------------------------------------------

def content_hash(content: str) -> str:
    """``content_hash`` of PAM §6: SHA-256 of the trimmed, lower-cased, NFC,
    white-space-collapsed text."""
    text = unicodedata.normalize("NFC", content.strip().lower())
    text = re.sub(r"\s+", " ", text)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


_PAM_TIME = re.compile(r"^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|z|[+-]\d{2}:\d{2})?$")


def _reader_time(text: Any) -> Any:
    """A time as a PAM reader's model writes it again: microseconds at
    most, ``Z`` for UTC."""
    m = _PAM_TIME.match(text) if type(text) is str else None
    if m is None:
        return text
    day, clock, fraction, zone = m.groups()
    micros = (fraction or "")[:6].ljust(6, "0")
    zone = "Z" if zone in ("Z", "z", "+00:00", "-00:00") else (zone or "")
    return f"{day}T{clock}{'.' + micros if int(micros) else ''}{zone}"


def _pruned(block: Any, times: tuple[str, ...] = ()) -> Any:
    if type(block) is not dict:
        return block
    out = {k: v for k, v in block.items() if v is not None}
    for t in times:
        if t in out:
            out[t] = _reader_time(out[t])
    return out


def reader_form(memory: Mapping[str, Any]) -> dict[str, Any]:
    """A memory object as a PAM 1.0 reader's model holds it: nulls left
    out, defaults given, times rewritten. PAM's integrity checksum is
    computed over this form."""
    out: dict[str, Any] = {k: v for k, v in memory.items() if v is not None}
    out.setdefault("status", "active")
    out.setdefault("tags", [])
    if "temporal" in out:
        out["temporal"] = _pruned(out["temporal"], ("created_at", "updated_at", "valid_from", "valid_until"))
    if "provenance" in out:
        out["provenance"] = _pruned(out["provenance"], ("extracted_at",))
    if "confidence" in out:
        conf = _pruned(out["confidence"], ("last_reinforced",))
        if type(conf) is dict:
            conf = {k: float(v) if k in ("initial", "current") and type(v) is int else v for k, v in conf.items()}
        out["confidence"] = conf
    if type(out.get("access")) is dict:
        access = _pruned(out["access"])
        access.setdefault("visibility", "private")
        access.setdefault("exportable", True)
        access.setdefault("shared_with", [])
        if type(access["shared_with"]) is list:
            access["shared_with"] = [_pruned(g) for g in access["shared_with"]]
        out["access"] = access
    if type(out.get("metadata")) is dict:
        out["metadata"] = {k: v for k, v in out["metadata"].items() if v is not None}
    return out


def integrity_checksum(memories: list[Any]) -> str:
    """``integrity.checksum`` of PAM §15: SHA-256 of the JCS text of the
    memories (as a reader holds them) sorted by id."""
    listed = [reader_form(m) for m in memories if type(m) is dict]
    listed.sort(key=lambda m: str(m.get("id", "")))
    return "sha256:" + hashlib.sha256(jcs(listed).encode("utf-8")).hexdigest()


# -- Records and PAM objects: the neutral mapping ------------------------------------------------

def _time_of(text: Any) -> str | None:
    try:
        return parse_time(text) if type(text) is str else None
    except AdapterError:
        return None


def _pam_time(ts: Any) -> str:
    """A record Timestamp as PAM writes it (RFC 3339, UTC, ``Z``)."""
    return str(_reader_time(ts)) if type(ts) is str else NO_TIME


def _float32(x: Any) -> float | None:
    import struct

    if type(x) not in (int, float):
        return None
    try:
        return float(struct.unpack("<f", struct.pack("<f", float(x)))[0])
    except OverflowError:
        return None


def _memory_record(mem: Mapping[str, Any], ctx: Mapping[str, Any]) -> Record:
    """The record of a PAM memory from PAM's own fields, before any kept
    remainder (memory objects of any origin)."""
    meta = mem.get("metadata")
    record: Record = {"specversion": "1.0", "id": str(mem.get("id", "")), "kind": "fact"}
    content = mem.get("content")
    text = content if type(content) is str else ""
    mtype, custom = mem.get("type"), mem.get("custom_type")
    if mtype == "custom" and type(custom) is str and custom.startswith(CUSTOM_PREFIX) \
            and custom[len(CUSTOM_PREFIX):] in _MEMORY_KINDS:
        kind = custom[len(CUSTOM_PREFIX):]
        record["kind"] = kind
        if kind in _TEXT_FIELD:
            record[kind] = {_TEXT_FIELD[kind]: text}
        elif kind == "procedure":
            record[kind] = {"name": text}
        elif kind == "custom":
            record[kind] = {"type": "pam.memory", "value": text}
        else:
            record[kind] = {}
    else:
        fact: dict[str, Any] = {"text": text}
        if mtype in ("fact", "preference"):
            fact["category"] = mtype
        record["fact"] = fact
        if type(mtype) is str and mtype not in ("fact", "preference"):
            record["extensions"] = {"pam.type": mtype}
    temporal = mem.get("temporal")
    if type(temporal) is dict:
        for src, dst in (("created_at", "created_at"), ("updated_at", "updated_at")):
            ts = _time_of(temporal.get(src))
            if ts is not None:
                record[dst] = ts
    tags = mem.get("tags")
    if type(tags) is list and tags and all(type(t) is str and t for t in tags) and len(tags) <= 1000:
        record["tags"] = list(tags)
    if type(meta) is dict:
        own = {k: _sorted(to_value(v)) for k, v in sorted(meta.items()) if k != EXTENSION}
        if own and len(own) <= 1000:
            record["metadata"] = own
    if ctx.get("scope"):
        record["scope"] = dict(ctx["scope"])
    return record


def _memory_of(record: Mapping[str, Any], ctx: Mapping[str, Any]) -> dict[str, Any]:
    """The PAM memory of a record from its neutral fields, without the
    remainder."""
    kind = str(record.get("kind"))
    payload = record.get(kind)
    try:
        text = memory_text(record, "")
    except AdapterError:
        text = ""
    if not text and type(payload) is dict:
        text = canonical_json(payload) if payload else kind
    ext = record.get("extensions")
    pam_type = ext.get("pam.type") if isinstance(ext, Mapping) else None
    mem: dict[str, Any] = {"id": str(record.get("id", ""))}
    if kind == "fact":
        category = payload.get("category") if type(payload) is dict else None
        if type(pam_type) is str and pam_type not in ("fact", "preference", "custom") and category is None:
            mem["type"] = pam_type
        else:
            mem["type"] = "preference" if category == "preference" else "fact"
    else:
        mem["type"] = "custom"
        mem["custom_type"] = CUSTOM_PREFIX + kind
    mem["status"] = "active"
    mem["content"] = text or kind
    mem["content_hash"] = content_hash(mem["content"])
    tags = record.get("tags")
    mem["tags"] = list(tags) if type(tags) is list and all(type(t) is str and _TAG.match(t) for t in tags) \
        and len(set(tags)) == len(tags) else []
    temporal: dict[str, Any] = {"created_at": _pam_time(record.get("created_at"))}
    if type(record.get("updated_at")) is str:
        temporal["updated_at"] = _pam_time(record["updated_at"])
    mem["temporal"] = temporal
    mem["provenance"] = {"platform": PLATFORM}
    meta = record.get("metadata")
    if isinstance(meta, Mapping) and meta and EXTENSION not in meta:
        plain = {k: from_value(v) for k, v in meta.items()}
        lang = plain.get("language", None)
        # A reader leaves out the metadata members that are null.
        if (lang is None or (type(lang) is str and _LANGUAGE.match(lang))) \
                and type(plain.get("domain", "")) in (str, type(None)) \
                and _json_only(plain) and None not in plain.values():
            mem["metadata"] = plain
    return mem


def _json_only(v: Any) -> bool:
    if type(v) is dict:
        return all(type(k) is str and _json_only(x) for k, x in v.items())
    if isinstance(v, list):
        return all(_json_only(x) for x in v)
    return v is None or type(v) in (bool, float, str) or (type(v) is int and abs(v) <= _SAFE)


def _strip(record: Mapping[str, Any], drop: tuple[str, ...]) -> dict[str, Any]:
    return {k: v for k, v in record.items() if k not in drop}


class _Bridge:
    """The exact mapping of one kind of PAM object (a memory, a message):
    its neutral mapping, the remainder in PAM's extension point, the
    residue in ``native``."""

    def __init__(self, to_record: Any, of_record: Any, extension: str) -> None:
        self.to_record, self.of_record, self.extension = to_record, of_record, extension

    def _ext(self, obj: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
        box = obj.get(self.extension)
        if type(box) is dict and EXTENSION in box:
            rest = {k: v for k, v in box.items() if k != EXTENSION}
            out = dict(obj)
            if rest:
                out[self.extension] = rest
            else:
                del out[self.extension]
            return out, box[EXTENSION]
        return dict(obj), None

    def record(self, obj: Mapping[str, Any], ctx: Mapping[str, Any]) -> Record:
        """The record of a PAM object: its neutral fields with the kept
        remainder applied."""
        plain, kept = self._ext(obj)
        record: Record = self.to_record(plain, ctx)
        kept = from_value(kept) if type(kept) is dict else kept
        if _patch.is_patch(kept):
            record = _patch.apply(record, kept)
        return record

    def pam(self, record: Mapping[str, Any], ctx: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The PAM object of a record of any producer, and the remainder
        (a patch of the record, its members sorted) it keeps in its
        extension point."""
        obj = self.of_record(record, ctx)
        rebuilt = self.to_record(obj, ctx)
        remainder = _patch.diff(dict(record), rebuilt)
        if remainder:
            box = dict(obj.get(self.extension) or {})
            box[EXTENSION] = _sorted(_plain(remainder))
            obj[self.extension] = box
        return obj, remainder


def _plain(v: Any) -> Any:
    """Record data as JSON values that PAM's canonical form (RFC 8785, on
    I-JSON) holds: an integer beyond 2^53 as a ``$bigint`` tag, a map whose
    one member starts with ``$`` as a ``$map`` tag (README.md §3); a vector
    of the codec as a list."""
    if isinstance(v, dict):
        out = {k: _plain(x) for k, x in v.items()}
        return {"$map": out} if len(out) == 1 and next(iter(out)).startswith("$") else out
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if type(v) is int and abs(v) > _SAFE:
        return {"$bigint": str(v)}
    return v


MEMORY = _Bridge(_memory_record, _memory_of, "metadata")


def _message_record(msg: Mapping[str, Any], ctx: Mapping[str, Any]) -> Record:
    parents = ctx.get("parents")
    role = msg.get("role")
    record: Record = {"specversion": "1.0", "id": str(msg.get("id", "")), "kind": "message"}
    message: dict[str, Any] = {"role": role if role in _ROLES else "user"}
    content = msg.get("content")
    parts: list[Any] = []
    if type(content) is dict and content.get("type") == "text" and type(content.get("text")) is str \
            and content["text"]:
        parts.append({"text": {"text": content["text"]}})
    message["content"] = parts
    record["message"] = message
    ts = _time_of(msg.get("created_at"))
    if ts is not None:
        record["created_at"] = ts
    parent = msg.get("parent_id")
    if type(parent) is str and parents is not None and parent in parents:
        record["links"] = [{"type": "responds_to", "target": parents[parent]}]
    if ctx.get("scope"):
        record["scope"] = dict(ctx["scope"])
    return record


def _message_of(record: Mapping[str, Any], ctx: Mapping[str, Any]) -> dict[str, Any]:
    parents = ctx.get("parents")
    message = record.get("message") if record.get("kind") == "message" else None
    msg: dict[str, Any] = {"id": str(record.get("id", ""))}
    role = message.get("role") if type(message) is dict else None
    msg["role"] = role if role in _ROLES else "system" if role == "developer" else "user" \
        if record.get("kind") != "tool_result" else "tool"
    texts = [p["text"]["text"] for p in (message or {}).get("content", ()) if type(p) is dict
             and type(p.get("text")) is dict and type(p["text"].get("text")) is str] if type(message) is dict else []
    if record.get("kind") == "tool_result" and type(record.get("tool_result")) is dict \
            and type(record["tool_result"].get("output")) is str:
        texts = [record["tool_result"]["output"]]
    if len(texts) == 1 and texts[0]:
        msg["content"] = {"type": "text", "text": texts[0]}
    msg["created_at"] = _pam_time(record.get("created_at"))
    for link in record.get("links") or ():
        if type(link) is dict and link.get("type") == "responds_to" and parents is not None \
                and link.get("target") in parents:
            msg["parent_id"] = parents[link["target"]]
            break
    return msg


MESSAGE = _Bridge(_message_record, _message_of, "raw_metadata")


# -- Documents -------------------------------------------------------------------------------------

def _sorted(v: Any) -> Any:
    """A Value as the encodings give it back: map members sorted."""
    if type(v) is dict:
        return {k: _sorted(v[k]) for k in sorted(v)}
    if type(v) is list:
        return [_sorted(x) for x in v]
    return v


def _header(ids: Ids, n: int, doc: Mapping[str, Any], ctype: str, drop: tuple[str, ...], own_id: Any,
            scope: dict[str, Any], named_by: Mapping[str, Any] | None = None) -> Record:
    value = {k: v for k, v in doc.items() if k not in drop}
    if not valid_id(own_id):
        # Named by what it heads (its owner, its conversation: ``named_by``, else
        # its scope), not by its place in the list, so that the headers of two
        # exports brought into one store do not take each other's identifier.
        name = "\n".join((FORM_NAME, ctype, canonical_json(dict(named_by if named_by is not None else scope))))
        own_id = f"urn:uuid:{uuid.uuid5(ID_NAMESPACE, name)}"
    return {"specversion": "1.0", "id": ids.assign(n, own_id), "kind": "custom",
            "custom": {"type": ctype, "value": _sorted(to_value(value))}, **({"scope": dict(scope)} if scope else {})}


def _set_residue(record: Record, obj: Mapping[str, Any], full: Mapping[str, Any], stripped: Any,
                 pointer: str) -> None:
    """The residue of a record: none when the record as it is gives the
    object back; else the patch against the record without what a store
    adds (from records reads a record with residue so)."""
    if not _patch.diff(dict(obj), dict(full)):
        return
    patch = _patch.diff(dict(obj), dict(stripped()))
    record["native"] = native(FORM_NAME, FRAMEWORK, to_value(patch, pointer))


def _own(record: Mapping[str, Any]) -> Any:
    res = residue_of(record, FORM_NAME)
    return from_value(res) if res is not None else None


def _encode(items: list[Any], scope: dict[str, Any]) -> list[Record]:
    ids = Ids(FORM_NAME, scope)
    out: list[Record] = []
    later: list[Any] = []
    memory_records: dict[str, Record] = {}
    # The owner of the export's memory store owns its conversations too.
    owners = [_owner_user(d.get("owner")) for d in items if type(d) is dict and d.get("schema") == STORE]
    owner = owners[0] if owners else None
    for i, doc in enumerate(items):
        if type(doc) is not dict:
            raise AdapterError.at(f"/{i}", "TYPE_MISMATCH",
                                  f"a PAM document is a JSON object, not {type(doc).__name__}")
        schema = doc.get("schema")
        if schema == STORE:
            records, done = _encode_store(doc, i, ids, len(out), scope, memory_records)
        elif schema == CONVERSATION:
            records, done = _encode_conversation(doc, i, ids, len(out), scope, owner)
        elif schema == EMBEDDINGS:
            records, done = [{}], None
            later.append((len(out), i, doc))
        else:
            raise AdapterError.at(f"/{i}/schema", "UNSUPPORTED_ITEM",
                                  f"{schema!r} is not a PAM document schema ({STORE}, {CONVERSATION}, {EMBEDDINGS})")
        out.extend(records)
        if done is not None:
            later.append(done)
    # Embeddings go onto the memory records first; then the residues.
    for step in later:
        if type(step) is tuple:
            position, i, doc = step
            out[position] = _encode_embeddings(doc, i, ids, position, scope, memory_records, owner)
    for step in later:
        if type(step) is not tuple:
            step()
    return [r for r in out if r]


def _scope_for(scope: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    out = dict(scope)
    for k, v in more.items():
        if k not in out and type(v) is str and 0 < len(v) <= 256:
            out[k] = v
    return out


def _owner_user(owner: Any) -> Any:
    """The scope user of a store's owner ("anonymous" is no user)."""
    user = owner.get("id") if type(owner) is dict else None
    return None if user == ANONYMOUS else user


def _loose_store(members: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The root of the memory store that records without a header make."""
    users = {str((r.get("scope") or {}).get("user", "")) for r in members}
    owner = users.pop() if len(users) == 1 else ""
    return {"schema": STORE, "schema_version": VERSION, "owner": {"id": owner or ANONYMOUS},
            "integrity": {"canonicalization": "RFC8785"}}


def _loose_conversation(session: str, messages: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    times = sorted(str(m["created_at"]) for m in messages if type(m.get("created_at")) is str
                   and m["created_at"] != NO_TIME)
    return {"schema": CONVERSATION, "schema_version": VERSION, "id": session or "default",
            "provider": {"name": PLATFORM}, "temporal": {"created_at": times[0] if times else NO_TIME}}


def _encode_store(doc: dict[str, Any], i: int, ids: Ids, n: int, scope: dict[str, Any],
                  memory_records: dict[str, Record]) -> tuple[list[Record], Any]:
    memories = doc.get("memories")
    if type(memories) is not list:
        raise AdapterError.at(f"/{i}/memories", "MISSING_MEMBER", "a PAM memory store has a list of memories")
    owner = doc.get("owner")
    ctx = {"scope": _scope_for(scope, user=_owner_user(owner))}
    header = _header(ids, n, doc, "pam.memory_store", ("memories",), doc.get("export_id"), ctx["scope"])
    records = [header]
    by_pam: dict[str, Record] = {}
    for j, mem in enumerate(memories):
        if type(mem) is not dict:
            raise AdapterError.at(f"/{i}/memories/{j}", "TYPE_MISMATCH", "a PAM memory is a JSON object")
        record = MEMORY.record(mem, ctx)
        record["id"] = ids.assign(n + 1 + j, mem.get("id"))
        by_pam.setdefault(str(mem.get("id")), record)
        memory_records.setdefault(str(mem.get("id")), record)
        records.append(record)
    relations = doc.get("relations")
    if type(relations) is list:
        for rel in relations:
            if type(rel) is dict and rel.get("type") in _LINK_OF_RELATION and rel.get("from") in by_pam \
                    and rel.get("to") in by_pam and len(by_pam[rel["from"]].get("links", ())) < 1000:
                by_pam[rel["from"]].setdefault("links", []).append(
                    {"type": _LINK_OF_RELATION[rel["type"]], "target": by_pam[rel["to"]]["id"]})

    def done() -> None:
        for j, (mem, record) in enumerate(zip(memories, records[1:], strict=True)):
            _set_residue(record, mem, _decode_memory(record, ctx, None),
                         lambda r=record: _decode_memory(_strip(r, _STORE_ADDED), ctx, None), f"/{i}/memories/{j}")
        members = records[1:]
        if not scope and _patch.same(doc, _store_doc(None, members, None)):
            header.clear()  # the store that its records make without a header: no header record
            return
        _set_residue(header, doc, _store_doc(header, members, None), lambda: _store_doc(header, members, None),
                     f"/{i}")
    return records, done


def _decode_memory(record: Mapping[str, Any], ctx: Mapping[str, Any],
                   report: tuple[LossReport, int, str] | None) -> dict[str, Any]:
    """The PAM memory of a record."""
    own = _own(record)
    if own is not None:
        mem, _ = MEMORY.pam(_strip(record, ("native", *_STORE_ADDED)), ctx)
        return _patch.apply(mem, own) if _patch.is_patch(own) else mem
    mem, remainder = MEMORY.pam(record, ctx)
    if report is not None and remainder:
        loss, index, where = report
        loss.add_patch(index, record, remainder, f"{where}/metadata/{EXTENSION}")
    return mem


def _store_doc(header: Mapping[str, Any] | None, members: Sequence[Mapping[str, Any]],
               report: tuple[LossReport, str] | None, indexes: list[int] | None = None) -> dict[str, Any]:
    if header is not None:
        base = dict(from_value(header["custom"]["value"]))
        ctx = {"scope": dict(header.get("scope") or {})}
    else:
        base = _loose_store(members)
        ctx = {"scope": _scope_for({}, user=_owner_user(base["owner"]))}
    memories = []
    for k, r in enumerate(members):
        at = (report[0], indexes[k], f"{report[1]}/memories/{k}") if report is not None and indexes else None
        memories.append(_decode_memory(r, ctx, at))
    doc: dict[str, Any] = {}
    for key, value in base.items():
        if key != "integrity":
            doc[key] = value
        if key == "owner":
            doc["memories"] = memories
    doc.setdefault("memories", memories)
    if "integrity" in base:
        integrity = dict(base["integrity"]) if type(base["integrity"]) is dict else {}
        integrity["checksum"] = integrity_checksum(memories)
        integrity["total_memories"] = len(memories)
        doc["integrity"] = integrity
    if header is not None:
        own = _own(header)
        if _patch.is_patch(own):
            doc = _patch.apply(doc, own)
    return doc


def _encode_conversation(doc: dict[str, Any], i: int, ids: Ids, n: int, scope: dict[str, Any],
                         owner: Any = None) -> tuple[list[Record], Any]:
    messages = doc.get("messages")
    if type(messages) is not list:
        raise AdapterError.at(f"/{i}/messages", "MISSING_MEMBER", "a PAM conversation has a list of messages")
    sc = _scope_for(scope, user=owner, session=doc.get("id"))
    header = _header(ids, n, doc, "pam.conversation", ("messages",), None, sc)
    records: list[Record] = [header]
    parents: dict[str, str] = {}
    for j, msg in enumerate(messages):
        if type(msg) is not dict:
            raise AdapterError.at(f"/{i}/messages/{j}", "TYPE_MISMATCH", "a PAM message is a JSON object")
        rid = ids.assign(n + 1 + j, msg.get("id"))
        parents.setdefault(str(msg.get("id")), rid)
        records.append({"id": rid})
    ctx = {"scope": sc, "parents": parents}
    for j, msg in enumerate(messages):
        record = MESSAGE.record(msg, ctx)
        record["id"] = records[j + 1]["id"]
        records[j + 1] = record

    def done() -> None:
        members = records[1:]
        full = _messages(members, sc, None, None, strip=False)
        stripped = _messages(members, sc, None, None, strip=True)
        for j, msg in enumerate(messages):
            _set_residue(members[j], msg, full[j], lambda j=j: stripped[j], f"/{i}/messages/{j}")
        session = str(doc.get("id", ""))
        if not scope and owner is None and _patch.same(doc, _conversation_doc(None, members, None, session=session)):
            header.clear()
            return
        _set_residue(header, doc, _conversation_doc(header, members, None),
                     lambda: _conversation_doc(header, members, None), f"/{i}")
    return records, done


def _messages(members: Sequence[Mapping[str, Any]], scope: Mapping[str, Any], report: tuple[LossReport, str] | None,
              indexes: list[int] | None, strip: bool = False) -> list[dict[str, Any]]:
    """The PAM messages of a conversation's records: each from its neutral
    fields (its remainder in ``raw_metadata``), parent ids as PAM ids,
    children from the parents, then each record's residue."""
    ctx = {"scope": dict(scope), "parents": {str(r.get("id")): str(r.get("id")) for r in members}}
    messages = []
    owns = []
    for k, r in enumerate(members):
        own = _own(r)
        owns.append(own)
        if own is not None or strip:
            msg, _ = MESSAGE.pam(_strip(r, ("native", *_STORE_ADDED)), ctx)
        else:
            msg, remainder = MESSAGE.pam(r, ctx)
            if report is not None and indexes is not None and remainder:
                report[0].add_patch(indexes[k], r, remainder, f"{report[1]}/messages/{k}/raw_metadata/{EXTENSION}")
        messages.append(msg)
    pam_ids = {str(r.get("id")): m["id"] for r, m in zip(members, messages, strict=True)}
    for m in messages:
        if type(m.get("parent_id")) is str and m["parent_id"] in pam_ids:
            m["parent_id"] = pam_ids[m["parent_id"]]
    for m in messages:
        m["children_ids"] = [c["id"] for c in messages if c.get("parent_id") == m["id"] and c is not m]
    return [_patch.apply(m, own) if _patch.is_patch(own) else m for m, own in zip(messages, owns, strict=True)]


def _conversation_doc(header: Mapping[str, Any] | None, members: Sequence[Mapping[str, Any]],
                      report: tuple[LossReport, str] | None, indexes: list[int] | None = None,
                      session: str = "") -> dict[str, Any]:
    if header is not None:
        base = dict(from_value(header["custom"]["value"]))
        messages = _messages(members, dict(header.get("scope") or {}), report, indexes)
    else:
        messages = _messages(members, _scope_for({}, session=session or "default"), report, indexes)
        base = _loose_conversation(session, messages)
    doc = dict(base)
    doc["messages"] = messages
    if header is not None:
        own = _own(header)
        if _patch.is_patch(own):
            doc = _patch.apply(doc, own)
    return doc


def _encode_embeddings(doc: dict[str, Any], i: int, ids: Ids, n: int, scope: dict[str, Any],
                       memory_records: dict[str, Record], owner: Any = None) -> Record:
    entries = doc.get("embeddings")
    if type(entries) is not list:
        raise AdapterError.at(f"/{i}/embeddings", "MISSING_MEMBER", "a PAM embeddings file has a list of embeddings")
    kept = []
    for entry in entries:
        record = memory_records.get(str(entry.get("memory_id"))) if type(entry) is dict else None
        vector = entry.get("vector") if type(entry) is dict else None
        values = [_float32(x) for x in vector] if type(vector) is list else None
        model, dims = (entry.get("model"), entry.get("dimensions")) if type(entry) is dict else (None, None)
        if record is not None and values and None not in values and type(model) is str and 0 < len(model) <= 256 \
                and type(dims) is int and dims == len(values) <= 65536 and not record.get("embeddings"):
            record["embeddings"] = [{"model": model, "dimensions": dims, "values": values}]
            kept.append({k: v for k, v in entry.items() if k not in ("model", "dimensions", "vector")})
        else:
            kept.append(entry)
    value = dict(doc)
    value["embeddings"] = kept
    header = _header(ids, n, value, "pam.embeddings", (), None, scope, _scope_for(scope, user=owner))
    cand = _embeddings_doc(header, memory_records)
    _set_residue(header, doc, cand, lambda: cand, f"/{i}")
    return header


def _embeddings_doc(header: Mapping[str, Any], by_pam: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    value = from_value(header["custom"]["value"])
    doc = dict(value)
    entries = []
    for entry in value.get("embeddings", ()):
        e = dict(entry) if type(entry) is dict else entry
        record = by_pam.get(str(e.get("memory_id"))) if type(e) is dict else None
        if type(e) is dict and "vector" not in e and "model" not in e and record is not None \
                and record.get("embeddings"):
            emb = record["embeddings"][0]
            full = {"id": e.pop("id", None), "memory_id": e.pop("memory_id", None), "model": emb["model"],
                    "dimensions": emb["dimensions"]}
            full.update(e)
            full["vector"] = list(emb["values"])
            e = {k: v for k, v in full.items() if v is not None or k in entry}
        entries.append(e)
    doc["embeddings"] = entries
    own = _own(header)
    return _patch.apply(doc, own) if _patch.is_patch(own) else doc


_HEADERS = ("pam.memory_store", "pam.conversation", "pam.embeddings")


def _header_type(record: Mapping[str, Any]) -> str | None:
    c = record.get("custom")
    if record.get("kind") == "custom" and isinstance(c, Mapping) and c.get("type") in _HEADERS \
            and isinstance(c.get("value"), Mapping):
        return str(c["type"])
    return None


def _session(record: Mapping[str, Any]) -> str:
    scope = record.get("scope")
    return str(scope.get("session", "")) if isinstance(scope, Mapping) else ""


def _report(records: list[Record]) -> tuple[list[Any], LossReport]:
    """The PAM documents of records, with the loss report: a header record
    opens its document; a memory record belongs to the last memory store
    opened, a message record to the last conversation opened in its
    session; other records make one memory store and a conversation per
    session, in the order of their first record."""
    loss = LossReport(FORM_NAME, len(records))
    slots: list[list[Any]] = []  # [type, header, [(index, record)], session]
    store: list[Any] | None = None
    conversations: dict[str, list[Any]] = {}
    loose_store: list[Any] | None = None
    loose_sessions: dict[str, list[Any]] = {}
    for index, r in enumerate(records):
        htype = _header_type(r)
        if htype is not None:
            opened: list[Any] = [htype, r, [], _session(r)]
            slots.append(opened)
            if htype == "pam.memory_store":
                store = opened
            elif htype == "pam.conversation":
                conversations[_session(r)] = opened
            continue
        slot: list[Any] | None
        if r.get("kind") in _CONVERSATION_KINDS:
            session = _session(r)
            slot = conversations.get(session)
            if slot is None:
                slot = loose_sessions.get(session)
                if slot is None:
                    slot = loose_sessions[session] = ["loose.conversation", None, [], session]
                    slots.append(slot)
        else:
            slot = store
            if slot is None:
                if loose_store is None:
                    loose_store = ["loose.memory_store", None, [], ""]
                    slots.append(loose_store)
                slot = loose_store
        slot[2].append((index, r))
    docs: list[Any] = []
    by_pam: dict[str, Mapping[str, Any]] = {}
    embeddings: list[tuple[int, Any]] = []
    for htype, header, members, session in slots:
        at = f"/{len(docs)}"
        recs = [m for _, m in members]
        idx = [k for k, _ in members]
        if htype.endswith("memory_store"):
            doc = _store_doc(header, recs, (loss, at), idx)
            for r, mem in zip(recs, doc.get("memories", ()), strict=False):
                if type(mem) is dict:
                    by_pam.setdefault(str(mem.get("id")), r)
            docs.append(doc)
        elif htype.endswith("conversation"):
            docs.append(_conversation_doc(header, recs, (loss, at), idx, session=session))
        else:
            embeddings.append((len(docs), header))
            docs.append(None)
    for position, header in embeddings:
        docs[position] = _embeddings_doc(header, by_pam)
    return [_patch.reorder(d, SHAPES, d["schema"]) if type(d) is dict and d.get("schema") in SHAPES else d
            for d in docs], loss


def _decode(records: list[Record]) -> list[Any]:
    return _report(records)[0]


FORM_NAME = "pam.memory_store"


# -- Bundles: the files of one export ------------------------------------------------------------

STORE_FILE = "memory-store.json"
EMBEDDINGS_FILE = "embeddings.json"
CONVERSATIONS_DIR = "conversations"


def read_bundle(path: str | Path) -> list[Any]:
    """The documents of a PAM export: a directory (``memory-store.json``,
    ``conversations/*.json`` by name, ``embeddings.json``) or one file (a
    document, or a JSON list of documents)."""
    path = Path(path)
    if not path.is_dir():
        doc = _load(path)
        return doc if type(doc) is list else [doc]
    docs: list[Any] = []
    if (path / STORE_FILE).is_file():
        docs.append(_load(path / STORE_FILE))
    if (path / CONVERSATIONS_DIR).is_dir():
        docs.extend(_load(p) for p in sorted((path / CONVERSATIONS_DIR).glob("*.json")))
    if (path / EMBEDDINGS_FILE).is_file():
        docs.append(_load(path / EMBEDDINGS_FILE))
    if not docs:
        raise AdapterError.at("", "MISSING_MEMBER", f"{path} holds no {STORE_FILE}, {CONVERSATIONS_DIR}/ or "
                                                    f"{EMBEDDINGS_FILE}")
    return docs


def _load(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except ValueError as e:
        raise AdapterError.at("", "INVALID_JSON", f"{path} is not JSON: {e}") from None


def bundle_files(docs: list[Any]) -> dict[str, Any]:
    """The relative file name of each document of a bundle directory: the
    store's conversations index names a conversation's file where it has a
    ``storage.ref`` of type ``file``, else ``conversations/<id>.json``."""
    files: dict[str, Any] = {}
    refs: dict[str, str] = {}
    for doc in docs:
        schema = doc.get("schema") if type(doc) is dict else None
        if schema == STORE:
            for entry in doc.get("conversations_index") or ():
                storage = entry.get("storage") if type(entry) is dict else None
                if type(storage) is dict and storage.get("type") == "file" and type(storage.get("ref")) is str:
                    refs[str(entry.get("id"))] = storage["ref"]
    for i, doc in enumerate(docs):
        schema = doc.get("schema") if type(doc) is dict else None
        if schema == STORE:
            name = STORE_FILE
        elif schema == EMBEDDINGS:
            name = EMBEDDINGS_FILE
        elif schema == CONVERSATION:
            cid = str(doc.get("id", ""))
            name = refs.get(cid) or f"{CONVERSATIONS_DIR}/{re.sub(r'[^A-Za-z0-9._-]', '_', cid) or 'default'}.json"
        else:
            raise AdapterError.at(f"/{i}/schema", "UNSUPPORTED_ITEM", f"{schema!r} is not a PAM document schema")
        parts = Path(name).parts
        if Path(name).is_absolute() or ".." in parts or not name.endswith(".json") or \
                (schema == CONVERSATION and (len(parts) != 2 or parts[0] != CONVERSATIONS_DIR)):
            raise AdapterError.at(f"/{i}", "NOT_REPRESENTABLE", f"{name!r} is not a file of a PAM bundle")
        if name in files:
            raise AdapterError.at(f"/{i}", "NOT_REPRESENTABLE", f"two documents of the bundle are {name}")
        files[name] = doc
    return files


def write_bundle(docs: list[Any], path: str | Path) -> list[Path]:
    """Writes the documents as a bundle directory (created if need be)."""
    root = Path(path)
    written = []
    for name, doc in bundle_files(docs).items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(doc, ensure_ascii=False, indent=2) + "\n", "utf-8")
        written.append(target)
    return written


def _write_path(docs: list[Any], path: str) -> bool:
    """A bundle directory where ``path`` is one (or ends with a separator)."""
    if not (Path(path).is_dir() or path.endswith(("/", "\\"))):
        return False
    write_bundle(docs, path)
    return True


FORM = Form(
    FORM_NAME, FRAMEWORK,
    "Portable AI Memory 1.0 documents: the memory store, conversation and embeddings files of an export "
    "(a bundle directory on the command line).",
    _encode, _decode, file=Files(lambda p: read_bundle(p), _write_path), report=_report)

FORMS = (FORM,)
__all__ = ["FORM", "FORMS", "bundle_files", "content_hash", "integrity_checksum", "jcs", "read_bundle",
           "reader_form", "write_bundle", "pointer_token"]
