"""The Memory Interchange Format (MIF 2.0, proposed to MCP): a document as
memorywire records, and back (spec/v1/adapters/mif.md)."""

from __future__ import annotations

import struct
import uuid
from collections.abc import Mapping
from typing import Any

from memorywire.adapters._bridge import readable
from memorywire.adapters._kit import (
    ID_NAMESPACE,
    AdapterError,
    Form,
    Ids,
    Record,
    from_value,
    native,
    ordered,
    parse_time,
    pointer_token,
    residue_of,
    to_value,
)
from memorywire.adapters._patch import same

FRAMEWORK = "mif"
#: MIF's package, mif-tools, validates documents but has no mapping to test
#: this form against: the form is checked with its validators and on its
#: published example (spec/v1/adapters/mif.md §6).
PACKAGE = None

VERSION = "2.0"
#: The member of ``vendor_extensions`` that memorywire writes.
VENDOR = "memorywire"
ENVELOPE_TYPE = "mif.envelope"
NO_TIME = "1970-01-01T00:00:00Z"

ENVELOPE_ORDER = ("mif_version", "generator", "export_meta", "memories", "knowledge_graph", "vendor_extensions")
MEMORY_ORDER = ("id", "content", "memory_type", "created_at", "updated_at", "agent_id", "external_id", "tags",
                "entities", "metadata", "embeddings", "source", "parent_id", "related_memory_ids", "version")
#: The order in which the specification writes the members of the objects
#: inside a document and a memory (vendor extensions are free-form).
INNER_ORDER = {"generator": ("name", "version"), "export_meta": ("id", "created_at", "user_id", "checksum", "privacy"),
               "privacy": ("pii_detected", "redacted_fields"), "knowledge_graph": ("entities", "relationships"),
               "embeddings": ("model", "dimensions", "vector", "normalized"),
               "source": ("source_type", "session_id", "agent_name")}
ITEM_ORDER = {("memory", "entities"): ("name", "entity_type", "confidence"),
              ("knowledge_graph", "entities"): ("id", "name", "types", "attributes", "summary", "created_at",
                                                "last_seen_at"),
              ("knowledge_graph", "relationships"): ("id", "source_entity_id", "target_entity_id", "relation_type",
                                                     "context", "confidence", "created_at", "invalidated_at")}


def _restore(obj: dict[str, Any], order: tuple[str, ...], where: str) -> dict[str, Any]:
    """``obj`` in the specification's member order, with the objects
    inside it that the specification defines."""
    out = ordered(obj, order)
    for key, value in out.items():
        if type(value) is dict and key in INNER_ORDER:
            out[key] = _restore(value, INNER_ORDER[key], key)
        elif type(value) is list and (where, key) in ITEM_ORDER:
            out[key] = [ordered(x, ITEM_ORDER[(where, key)]) if type(x) is dict else x for x in value]
    return out


#: The MIF type of each kind of record (the standard types of MIF 2.0).
TYPE_OF_KIND = {"fact": "observation", "emotion": "observation", "custom": "observation", "block": "context",
                "episode": "context", "procedure": "learning", "summary": "conversation",
                "message": "conversation", "tool_call": "conversation", "tool_result": "conversation"}


def _is_uuid(text: Any) -> bool:
    try:
        return type(text) is str and str(uuid.UUID(text)) == text
    except ValueError:
        return False


def mif_id(record_id: str) -> str:
    """The MIF id of a record: its id when that is a UUID, else a UUID of
    version 4's form made from the SHA-1 of the id (name-based, so the same
    record always has the same MIF id)."""
    if _is_uuid(record_id):
        return record_id
    return str(uuid.UUID(bytes=uuid.uuid5(ID_NAMESPACE, f"mif\n{record_id}").bytes, version=4))


# -- memorywire record -> MIF memory ------------------------------------------------------------

def floor(record: Mapping[str, Any]) -> dict[str, Any]:
    """The MIF memory of a record of any producer (the record itself is
    kept in ``vendor_extensions.memorywire.records`` under the MIF id)."""
    rid = str(record.get("id"))
    kind = str(record.get("kind"))
    fact = record.get("fact")
    memory_type = TYPE_OF_KIND.get(kind, "observation")
    if kind == "fact" and isinstance(fact, Mapping) and fact.get("category") == "preference":
        memory_type = "decision"
    memory: dict[str, Any] = {"id": mif_id(rid), "content": readable(record), "memory_type": memory_type,
                              "created_at": record.get("created_at") or record.get("updated_at") or NO_TIME}
    scope = record.get("scope")
    scope = scope if isinstance(scope, Mapping) else {}
    if type(scope.get("agent")) is str:
        memory["agent_id"] = scope["agent"]
    if memory["id"] != rid:
        memory["external_id"] = rid
    if type(record.get("tags")) is list and record["tags"]:
        memory["tags"] = list(record["tags"])
    if type(record.get("metadata")) is dict and record["metadata"]:
        memory["metadata"] = record["metadata"]
    embeddings = record.get("embeddings")
    if type(embeddings) is list and embeddings and isinstance(embeddings[0], Mapping):
        first = embeddings[0]
        memory["embeddings"] = {"model": first.get("model"), "dimensions": first.get("dimensions"),
                                "vector": list(first.get("values", []))}
    if type(scope.get("session")) is str:
        memory["source"] = {"session_id": scope["session"]}
    return memory


def _memory(record: Record, kept: dict[str, Any]) -> dict[str, Any]:
    residue = residue_of(record, MIF_DOCUMENT)
    fact = record.get("fact")
    if type(residue) is not dict or record.get("kind") != "fact" or type(fact) is not dict:
        memory = floor(record)
        kept[memory["id"]] = record
        return memory
    memory = {k: from_value(v) for k, v in residue.items() if not k.startswith("$")}
    memory["id"] = from_value(residue["$id"]) if "$id" in residue else record["id"]
    memory["content"] = fact.get("text", "")
    memory["created_at"] = residue.get("$created", record.get("created_at"))
    if "tags" in record:
        memory["tags"] = list(record["tags"])
    if "metadata" in record:
        memory["metadata"] = from_value(record["metadata"])
    embeddings = record.get("embeddings")
    if "$vector" in residue and type(embeddings) is list and embeddings:
        memory["embeddings"] = dict(from_value(residue["$vector"]), vector=list(embeddings[0]["values"]))
    return _restore(memory, MEMORY_ORDER, "memory")


# -- MIF memory -> memorywire record -------------------------------------------------------------

def _float32_exact(values: Any) -> bool:
    return type(values) is list and bool(values) and all(
        type(v) is float and struct.unpack("<f", struct.pack("<f", v))[0] == v for v in values)


def _record(memory: Any, p: str, position: int, ids: Ids, scope: dict[str, Any], kept: dict[str, Any],
            used: set[str]) -> Record:
    if type(memory) is not dict:
        raise AdapterError.at(p, "TYPE_MISMATCH", f"a MIF memory is an object, not {type(memory).__name__}")
    for key in ("id", "content", "created_at"):
        if key not in memory:
            raise AdapterError.at(f"{p}/{key}", "MISSING_MEMBER", f"a MIF memory has {key!r} (REQUIRED)")
    if type(memory["id"]) is not str or not memory["id"]:
        raise AdapterError.at(f"{p}/id", "TYPE_MISMATCH", "id is a non-empty string (a UUID)")
    if type(memory["content"]) is not str:
        raise AdapterError.at(f"{p}/content", "TYPE_MISMATCH", "content is a string")
    record_kept = kept.get(memory["id"])
    if type(record_kept) is dict and same(floor(record_kept), memory):
        used.add(memory["id"])
        return dict(record_kept)
    try:
        created = parse_time(memory["created_at"])
    except AdapterError as e:
        raise AdapterError.at(f"{p}/created_at", "INVALID_TIMESTAMP", str(e)) from None
    rid = ids.assign(position, memory["id"])
    residue: dict[str, Any] = {}
    if rid != memory["id"]:
        residue["$id"] = memory["id"]
    if created != memory["created_at"]:
        residue["$created"] = memory["created_at"]
    out: Record = {"specversion": "1.0", "id": rid, "kind": "fact", "created_at": created}
    rscope = dict(scope)
    if "agent" not in rscope and type(memory.get("agent_id")) is str and memory["agent_id"]:
        rscope["agent"] = memory["agent_id"]
    source = memory.get("source")
    session = source.get("session_id") if type(source) is dict else None
    if "session" not in rscope and type(session) is str and session:
        rscope["session"] = session
    if rscope:
        out["scope"] = rscope
    out["fact"] = {"text": memory["content"]} if memory["content"] else {}
    mapped = {"id", "content", "created_at"}
    tags = memory.get("tags")
    if type(tags) is list and tags and all(type(t) is str and t for t in tags) and len(set(tags)) == len(tags):
        out["tags"] = list(tags)
        mapped.add("tags")
    metadata = memory.get("metadata")
    if type(metadata) is dict and metadata:
        out["metadata"] = to_value(metadata, f"{p}/metadata")
        mapped.add("metadata")
    emb = memory.get("embeddings")
    if (type(emb) is dict and type(emb.get("model")) is str and emb["model"]
            and emb.get("dimensions") == len(emb.get("vector", ())) and _float32_exact(emb.get("vector"))):
        out["embeddings"] = [{"model": emb["model"], "dimensions": emb["dimensions"], "values": list(emb["vector"]),
                              "field": "/fact/text"}]
        residue["$vector"] = to_value({k: v for k, v in emb.items() if k != "vector"}, f"{p}/embeddings")
        mapped.add("embeddings")
    for key, value in memory.items():
        if key not in mapped:
            residue[key] = to_value(value, f"{p}/{pointer_token(key)}")
    out["native"] = native(MIF_DOCUMENT, FRAMEWORK, residue)
    return out


# -- Documents ----------------------------------------------------------------------------------

def _encode(items: list[Any], given: dict[str, Any]) -> list[Record]:
    ids = Ids(MIF_DOCUMENT.name, given)
    out: list[Record] = []
    position = 0
    for i, doc in enumerate(items):
        if type(doc) is not dict:
            raise AdapterError.at(f"/{i}", "TYPE_MISMATCH", f"a MIF document is an object, not {type(doc).__name__}")
        version = doc.get("mif_version")
        if type(version) is not str or not version.startswith("2."):
            raise AdapterError.at(f"/{i}/mif_version", "MISSING_MEMBER" if "mif_version" not in doc
                                  else "UNSUPPORTED_VERSION", "mif_version is \"2.x\" (REQUIRED)")
        memories = doc.get("memories")
        if type(memories) is not list:
            raise AdapterError.at(f"/{i}/memories", "MISSING_MEMBER" if "memories" not in doc
                                  else "TYPE_MISMATCH", "a MIF document has a list 'memories' (REQUIRED)")
        found = doc.get("vendor_extensions")
        extensions: dict[str, Any] = found if type(found) is dict else {}
        mine = extensions.get(VENDOR)
        ours: dict[str, Any] = mine if type(mine) is dict else {}
        kept: dict[str, Any] = ours["records"] if type(ours.get("records")) is dict else {}
        scope = dict(given)
        export_meta = doc.get("export_meta")
        user = export_meta.get("user_id") if type(export_meta) is dict else None
        if "user" not in scope and type(user) is str and user:
            scope["user"] = user
        used: set[str] = set()
        records = [_record(m, f"/{i}/memories/{j}", position + 1 + j, ids, scope, kept, used)
                   for j, m in enumerate(memories)]
        envelope = {k: v for k, v in doc.items() if k != "memories"}
        if kept:
            rest = {k: v for k, v in kept.items() if k not in used}
            vendors = {k: v for k, v in extensions.items() if k != VENDOR}
            if rest or set(ours) != {"records"}:
                vendors[VENDOR] = dict(ours, records=rest)
            if vendors:
                envelope["vendor_extensions"] = vendors
            else:
                del envelope["vendor_extensions"]
        if envelope != {"mif_version": VERSION} or i > 0 or not memories:
            value = {k: to_value(v, f"/{i}/{pointer_token(k)}") for k, v in envelope.items()}
            record: Record = {"specversion": "1.0", "id": ids.assign(position), "kind": "custom",
                              "custom": {"type": ENVELOPE_TYPE, "value": value}}
            if given:
                record["scope"] = dict(given)
            record["native"] = native(MIF_DOCUMENT, FRAMEWORK, {})
            out.append(record)
        out.extend(records)
        position += 1 + len(memories)
    return out


def _decode(records: list[Record]) -> list[Any]:
    groups: list[tuple[dict[str, Any] | None, list[Record]]] = []
    for record in records:
        custom = record.get("custom")
        if (record.get("kind") == "custom" and isinstance(custom, Mapping) and custom.get("type") == ENVELOPE_TYPE
                and residue_of(record, MIF_DOCUMENT) is not None):
            groups.append(({k: from_value(v) for k, v in custom.get("value", {}).items()}, []))
        else:
            if not groups:
                groups.append((None, []))
            groups[-1][1].append(record)
    docs = []
    for envelope, members in groups:
        doc: dict[str, Any] = dict(envelope) if envelope is not None else {"mif_version": VERSION}
        kept: dict[str, Any] = {}
        doc["memories"] = [_memory(r, kept) for r in members]
        if kept:
            vendors = dict(doc.get("vendor_extensions") or {})
            ours = dict(vendors.get(VENDOR) or {})
            ours["records"] = {**(ours.get("records") or {}), **kept}
            vendors[VENDOR] = ours
            doc["vendor_extensions"] = vendors
        docs.append(_restore(doc, ENVELOPE_ORDER, "document"))
    return docs


MIF_DOCUMENT = Form("mif.document", FRAMEWORK,
                    "MIF 2.0 documents (.mif.json): one list of documents, each with its memories",
                    _encode, _decode, file="document")

FORMS = (MIF_DOCUMENT,)
