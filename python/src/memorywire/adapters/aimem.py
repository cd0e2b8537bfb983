"""The AIMEM Bundle (draft-vu-aimem-bundle-00): a bundle of chunks, edges
and entities as memorywire records, and back (spec/v1/adapters/aimem.md)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
import struct
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, unquote

from memorywire.adapters._bridge import jcs, readable
from memorywire.adapters._kit import (
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

FRAMEWORK = "aimem"
#: The AIMEM Bundle publishes no package: its form is checked against the
#: draft and the conformance corpus of its reference implementation
#: (spec/v1/adapters/aimem.md §6).
PACKAGE = None

FORMAT = "aimem-bundle"
LEGACY_FORMAT = "memoryai-bundle"
VERSION = "1"
#: The Producer Namespace of the bundles memorywire writes for records of
#: other producers: the local part of a chunk id is the record id.
PRODUCER = "memorywire"
ENVELOPE_TYPE = "aimem.envelope"

SCOPES = ("FULL", "DNA_ONLY", "SINCE")
MEMORY_TYPES = ("fact", "preference", "decision", "identity", "pitfall", "procedure", "episodic", "goal")
#: The memory types that are a fact category of memorywire.
CATEGORIES = ("fact", "preference")
ZONES = ("critical", "important", "standard")
EDGE_TYPES = ("hebbian", "semantic", "temporal", "causal")
ENTITY_KINDS = ("person", "organization", "place", "technology", "concept")
MAX_CONTENT = 65536

ENVELOPE_ORDER = ("format", "version", "producer", "tenant_id", "exported_at", "scope", "since", "checksum",
                  "embedding_dim", "embedding_model", "chunks", "edges", "entities", "chunk_entities")
CHUNK_ORDER = ("id", "content", "content_hash", "memory_type", "zone", "is_pinned", "created_at", "tags",
               "embedding")
#: The members of the envelope that the envelope record keeps as they are.
LISTS = ("chunks", "edges", "entities", "chunk_entities")

_PRODUCER = re.compile(r"^[a-z0-9-]{1,63}\Z")
_URN = re.compile(r"^urn:aimem:([a-z0-9-]{1,63}):([\x21-\x39\x3b-\x7e]{1,256})\Z")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\Z")
_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+\Z")
_HASH = re.compile(r"^sha256:[0-9a-f]{64}\Z")
#: What a chunk id's local part may hold as it is (RFC 3986 unreserved and
#: sub-delims, less the colon): every other character is percent-encoded.
_SAFE = "!$&'()*+,;=-._~@"
NO_TIME = "1970-01-01T00:00:00Z"
#: The tenant of a bundle of records without a user, and the prefix of a
#: user id that is neither a UUID nor a URI.
NO_USER = f"urn:{PRODUCER}:no-user"
USER_URN = f"urn:{PRODUCER}:user:"


def content_hash(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode("utf-8")).hexdigest()


def checksum(bundle: Mapping[str, Any]) -> str:
    """The checksum of a bundle: SHA-256 of the RFC 8785 text of the
    bundle without its ``checksum`` member."""
    body = {k: v for k, v in bundle.items() if k != "checksum"}
    return "sha256:" + hashlib.sha256(jcs(body).encode("utf-8")).hexdigest()


# -- Validation (the Consumer rules of the draft) --------------------------------------------------

def _fail(pointer: str, reason: str, message: str) -> AdapterError:
    return AdapterError.at(pointer, reason, message)


def _time(value: Any, pointer: str) -> str:
    if type(value) is not str:
        raise _fail(pointer, "TYPE_MISMATCH", "an ISO 8601 time in UTC is a string")
    try:
        return parse_time(value)
    except AdapterError as e:
        raise _fail(pointer, "INVALID_TIMESTAMP", str(e)) from None


def _urn(value: Any, pointer: str) -> str:
    if type(value) is not str or _URN.match(value) is None:
        raise _fail(pointer, "PATTERN_MISMATCH", f"{value!r} is not urn:aimem:<producer>:<local>")
    return value


def _check(bundle: Any, at: str) -> dict[str, Any]:
    if type(bundle) is not dict:
        raise _fail(at, "TYPE_MISMATCH", f"a bundle is an object, not {type(bundle).__name__}")
    for key in ("format", "version", "producer", "tenant_id", "exported_at", "scope", "checksum", "chunks"):
        if key not in bundle:
            raise _fail(f"{at}/{key}", "MISSING_MEMBER", f"a bundle has {key!r} (REQUIRED)")
    if bundle["format"] not in (FORMAT, LEGACY_FORMAT):
        raise _fail(f"{at}/format", "VALUE_OUT_OF_RANGE", f"format is {FORMAT!r}")
    if bundle["version"] != VERSION:
        raise _fail(f"{at}/version", "UNSUPPORTED_VERSION", f"this draft is version {VERSION!r}")
    if type(bundle["producer"]) is not str or _PRODUCER.match(bundle["producer"]) is None:
        raise _fail(f"{at}/producer", "PATTERN_MISMATCH", "the producer is 1 to 63 of [a-z0-9-]")
    tenant = bundle["tenant_id"]
    if type(tenant) is not str or not (_UUID.match(tenant) or _URI.match(tenant)):
        raise _fail(f"{at}/tenant_id", "INVALID_FORMAT", "tenant_id is a UUID or a URI")
    _time(bundle["exported_at"], f"{at}/exported_at")
    if bundle["scope"] not in SCOPES:
        raise _fail(f"{at}/scope", "VALUE_OUT_OF_RANGE", f"scope is one of {', '.join(SCOPES)}")
    if bundle["scope"] == "SINCE" or "since" in bundle:
        if "since" not in bundle:
            raise _fail(f"{at}/since", "MISSING_MEMBER", "a SINCE bundle has 'since'")
        _time(bundle["since"], f"{at}/since")
    if type(bundle["checksum"]) is not str or bundle["checksum"] != checksum(bundle):
        raise _fail(f"{at}/checksum", "DATA_LOSS", "the checksum does not match the bundle (RFC 8785, SHA-256)")
    dim = bundle.get("embedding_dim")
    if "embedding_dim" in bundle and (type(dim) is not int or dim < 1):
        raise _fail(f"{at}/embedding_dim", "TYPE_MISMATCH", "embedding_dim is a positive integer")
    if "embedding_model" in bundle and type(bundle["embedding_model"]) is not str:
        raise _fail(f"{at}/embedding_model", "TYPE_MISMATCH", "embedding_model is a string")
    for key in LISTS:
        if key in bundle and type(bundle[key]) is not list:
            raise _fail(f"{at}/{key}", "TYPE_MISMATCH", f"{key} is a list")
    chunk_ids: set[str] = set()
    for j, chunk in enumerate(bundle["chunks"]):
        chunk_ids.add(_check_chunk(chunk, bundle, chunk_ids, f"{at}/chunks/{j}"))
    for j, edge in enumerate(bundle.get("edges", [])):
        p = f"{at}/edges/{j}"
        if type(edge) is not dict:
            raise _fail(p, "TYPE_MISMATCH", "an edge is an object")
        for key in ("source_id", "target_id"):
            if _urn(edge.get(key), f"{p}/{key}") not in chunk_ids:
                raise _fail(f"{p}/{key}", "VALUE_OUT_OF_RANGE", f"{key} names no chunk of the bundle")
        kind = edge.get("edge_type")
        if type(kind) is not str or not (kind in EDGE_TYPES or kind.startswith("x-")):
            raise _fail(f"{p}/edge_type", "VALUE_OUT_OF_RANGE", "edge_type is a standard type or x-...")
        weight = edge.get("weight")
        if not (type(weight) is int or type(weight) is float) or not 0.0 <= weight <= 1.0:
            raise _fail(f"{p}/weight", "VALUE_OUT_OF_RANGE", "weight is a number from 0.0 to 1.0")
        _time(edge.get("created_at"), f"{p}/created_at")
    entity_ids: set[str] = set()
    for j, entity in enumerate(bundle.get("entities", [])):
        p = f"{at}/entities/{j}"
        if type(entity) is not dict:
            raise _fail(p, "TYPE_MISMATCH", "an entity is an object")
        entity_ids.add(_urn(entity.get("id"), f"{p}/id"))
        if type(entity.get("name")) is not str or not entity["name"]:
            raise _fail(f"{p}/name", "MISSING_MEMBER", "an entity has a name")
        kind = entity.get("kind")
        if type(kind) is not str or not (kind in ENTITY_KINDS or kind.startswith("x-")):
            raise _fail(f"{p}/kind", "VALUE_OUT_OF_RANGE", "kind is a standard kind or x-...")
        _time(entity.get("created_at"), f"{p}/created_at")
    for j, link in enumerate(bundle.get("chunk_entities", [])):
        p = f"{at}/chunk_entities/{j}"
        if type(link) is not dict or link.get("chunk_id") not in chunk_ids:
            raise _fail(f"{p}/chunk_id", "VALUE_OUT_OF_RANGE", "chunk_id names no chunk of the bundle")
        if link.get("entity_id") not in entity_ids:
            raise _fail(f"{p}/entity_id", "VALUE_OUT_OF_RANGE", "entity_id names no entity of the bundle")
    return bundle


def _check_chunk(chunk: Any, bundle: Mapping[str, Any], seen: set[str], p: str) -> str:
    if type(chunk) is not dict:
        raise _fail(p, "TYPE_MISMATCH", "a chunk is an object")
    for key in ("id", "content", "memory_type", "created_at"):
        if key not in chunk:
            raise _fail(f"{p}/{key}", "MISSING_MEMBER", f"a chunk has {key!r} (REQUIRED)")
    cid = _urn(chunk["id"], f"{p}/id")
    if cid in seen:
        raise _fail(f"{p}/id", "RECORD_EXISTS", "two chunks of the bundle have this id")
    content = chunk["content"]
    if type(content) is not str or not content or len(content) > MAX_CONTENT:
        raise _fail(f"{p}/content", "LENGTH_OUT_OF_RANGE", f"content is a string of 1 to {MAX_CONTENT} code points")
    if "content_hash" in chunk:
        if type(chunk["content_hash"]) is not str or _HASH.match(chunk["content_hash"]) is None:
            raise _fail(f"{p}/content_hash", "PATTERN_MISMATCH", "content_hash is sha256:<64 lowercase hex>")
        if chunk["content_hash"] != content_hash(content):
            raise _fail(f"{p}/content_hash", "DATA_LOSS", "content_hash is not the SHA-256 of the content")
    if chunk["memory_type"] not in MEMORY_TYPES:
        raise _fail(f"{p}/memory_type", "VALUE_OUT_OF_RANGE", f"memory_type is one of {', '.join(MEMORY_TYPES)}")
    if "zone" in chunk and chunk["zone"] not in ZONES:
        raise _fail(f"{p}/zone", "VALUE_OUT_OF_RANGE", f"zone is one of {', '.join(ZONES)}")
    if "is_pinned" in chunk and type(chunk["is_pinned"]) is not bool:
        raise _fail(f"{p}/is_pinned", "TYPE_MISMATCH", "is_pinned is a boolean")
    _time(chunk["created_at"], f"{p}/created_at")
    tags = chunk.get("tags", [])
    if type(tags) is not list or not all(type(t) is str and 1 <= len(t) <= 64 for t in tags):
        raise _fail(f"{p}/tags", "LENGTH_OUT_OF_RANGE", "tags are strings of 1 to 64 code points")
    embedding = chunk.get("embedding")
    if embedding is not None:
        if "embedding_dim" not in bundle or "embedding_model" not in bundle:
            raise _fail(f"{p}/embedding", "MISSING_MEMBER",
                        "a bundle with embeddings declares embedding_dim and embedding_model")
        try:
            raw = base64.b64decode(embedding, validate=True) if type(embedding) is str else b"?"
        except binascii.Error:
            raw = b"?"
        if len(raw) != 4 * bundle["embedding_dim"]:
            raise _fail(f"{p}/embedding", "DIMENSION_MISMATCH",
                        "the embedding is base64 of embedding_dim little-endian float32")
    return cid


# -- Bundle -> records ------------------------------------------------------------------------------

def _user(tenant: str) -> str | None:
    """The user a bundle's tenant names (what :func:`_tenant` wrote)."""
    if tenant == NO_USER:
        return None
    return unquote(tenant[len(USER_URN):]) if tenant.startswith(USER_URN) else tenant


def _encode(items: list[Any], given: dict[str, Any]) -> list[Record]:
    ids = Ids(AIMEM_BUNDLE.name, given)
    out: list[Record] = []
    position = 0
    for i, item in enumerate(items):
        bundle = _check(item, f"/{i}")
        user = _user(bundle["tenant_id"])
        scope = dict(given)
        if user is not None and "user" not in scope:
            scope["user"] = user
        value = {k: to_value(v, f"/{i}/{pointer_token(k)}") for k, v in bundle.items()
                 if k not in ("chunks", "checksum")}
        envelope: Record = {"specversion": "1.0", "id": ids.assign(position), "kind": "custom",
                            "custom": {"type": ENVELOPE_TYPE, "value": value}}
        if scope:
            envelope["scope"] = dict(scope)
        envelope["native"] = native(AIMEM_BUNDLE, FRAMEWORK, {})
        out.append(envelope)
        position += 1
        for j, chunk in enumerate(bundle["chunks"]):
            out.append(_chunk_record(chunk, bundle, f"/{i}/chunks/{j}", position, ids, scope))
            position += 1
    return out


def _local_id(cid: str, producer: str) -> str:
    """The record id of a chunk: a chunk that memorywire wrote has its
    record id as local part; every other chunk keeps its URN."""
    m = _URN.match(cid)
    if m is not None and m.group(1) == PRODUCER == producer:
        return unquote(m.group(2))
    return cid


def _chunk_record(chunk: dict[str, Any], bundle: Mapping[str, Any], p: str, position: int, ids: Ids,
                  scope: dict[str, Any]) -> Record:
    rid = ids.assign(position, _local_id(chunk["id"], bundle["producer"]))
    residue: dict[str, Any] = {}
    if rid != chunk["id"]:
        residue["id"] = chunk["id"]
    created = parse_time(chunk["created_at"])
    if created != chunk["created_at"]:
        residue["created_at"] = chunk["created_at"]
    record: Record = {"specversion": "1.0", "id": rid, "kind": "fact", "created_at": created}
    if scope:
        record["scope"] = dict(scope)
    mapped = {"id", "content", "created_at", "content_hash"}
    record["fact"] = {"text": chunk["content"]}
    if chunk["memory_type"] in CATEGORIES:
        record["fact"]["category"] = chunk["memory_type"]
        mapped.add("memory_type")
    if "content_hash" not in chunk:
        residue["content_hash"] = None
    if chunk.get("is_pinned") is True:
        record["lifecycle"] = {"pinned": True}
        mapped.add("is_pinned")
    tags = chunk.get("tags")
    if type(tags) is list and tags and len(set(tags)) == len(tags):
        record["tags"] = list(tags)
        mapped.add("tags")
    embedding = chunk.get("embedding")
    if type(embedding) is str:
        raw = base64.b64decode(embedding)
        values = list(struct.unpack(f"<{len(raw) // 4}f", raw))
        record["embeddings"] = [{"model": bundle["embedding_model"], "dimensions": len(values), "values": values,
                                 "field": "/fact/text"}]
        mapped.add("embedding")
    for key, value in chunk.items():
        if key not in mapped:
            residue[key] = to_value(value, f"{p}/{pointer_token(key)}")
    record["native"] = native(AIMEM_BUNDLE, FRAMEWORK, residue)
    return record


# -- Records -> bundles -------------------------------------------------------------------------------

def _decode(records: list[Record]) -> list[Any]:
    bundles: list[Any] = []
    foreign: dict[str | None, list[Record]] = {}
    current: tuple[dict[str, Any], list[Record]] | None = None
    groups: list[tuple[dict[str, Any] | None, list[Record]]] = []
    for record in records:
        custom = record.get("custom")
        if (record.get("kind") == "custom" and isinstance(custom, Mapping) and custom.get("type") == ENVELOPE_TYPE
                and residue_of(record, AIMEM_BUNDLE) is not None):
            current = ({k: from_value(v) for k, v in custom.get("value", {}).items()}, [])
            groups.append(current)
        elif current is not None:
            current[1].append(record)
        else:
            scope = record.get("scope")
            user = scope.get("user") if isinstance(scope, Mapping) else None
            if user not in foreign:
                foreign[user] = []
                groups.append((None, foreign[user]))
            foreign[user].append(record)
    for envelope, members in groups:
        bundles.append(_bundle(envelope, members))
    return bundles


def _tenant(members: list[Record]) -> str:
    scope = members[0].get("scope") if members else None
    user = scope.get("user") if isinstance(scope, Mapping) else None
    if type(user) is not str:
        return NO_USER
    if (_UUID.match(user) or _URI.match(user)) and not user.startswith(f"urn:{PRODUCER}:"):
        return user
    return USER_URN + quote(user, safe="")


def _bundle(envelope: dict[str, Any] | None, members: list[Record]) -> dict[str, Any]:
    if envelope is None:
        times = [str(r[k]) for r in members for k in ("created_at", "updated_at") if type(r.get(k)) is str]
        envelope = {"format": FORMAT, "version": VERSION, "producer": PRODUCER, "tenant_id": _tenant(members),
                    "exported_at": max(times, default=NO_TIME), "scope": "FULL",
                    "edges": [], "entities": [], "chunk_entities": []}
    bundle = dict(envelope)
    producer = str(bundle.get("producer", PRODUCER))
    model = bundle.get("embedding_model")
    if model is None:
        model = next((e["model"] for r in members for e in _embeddings(r)), None)
    chunks = [_chunk(r, producer, model, str(bundle["exported_at"])) for r in members]
    vectors = [c for c in chunks if "embedding" in c]
    if vectors and model is not None:
        bundle["embedding_model"] = model
        bundle["embedding_dim"] = len(base64.b64decode(vectors[0]["embedding"])) // 4
        for c in vectors:  # one dimension per bundle: the first chunk's
            if len(base64.b64decode(c["embedding"])) // 4 != bundle["embedding_dim"]:
                del c["embedding"]
    bundle["chunks"] = chunks
    present = {c["id"] for c in chunks}
    if "edges" in bundle:
        bundle["edges"] = [e for e in bundle["edges"] if e.get("source_id") in present
                           and e.get("target_id") in present]
    if "chunk_entities" in bundle:
        bundle["chunk_entities"] = [c for c in bundle["chunk_entities"] if c.get("chunk_id") in present]
    bundle["checksum"] = checksum(bundle)
    return ordered(bundle, ENVELOPE_ORDER)


def _embeddings(record: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = record.get("embeddings")
    return [e for e in found if isinstance(e, dict) and type(e.get("model")) is str
            and isinstance(e.get("values"), list)] if type(found) is list else []


def _pack(values: list[Any]) -> str:
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode("ascii")


def _chunk(record: Record, producer: str, model: str | None, exported_at: str) -> dict[str, Any]:
    residue = residue_of(record, AIMEM_BUNDLE)
    fact = record.get("fact")
    if type(residue) is dict and record.get("kind") == "fact" and type(fact) is dict and fact.get("text"):
        chunk = {k: from_value(v) for k, v in residue.items()}
        chunk.setdefault("id", record["id"])
        chunk["content"] = fact["text"]
        if chunk.get("content_hash", "") is None:
            del chunk["content_hash"]
        else:
            chunk["content_hash"] = content_hash(chunk["content"])
        if "memory_type" not in chunk or fact.get("category") == "preference":
            chunk["memory_type"] = fact.get("category", "fact")
        chunk.setdefault("created_at", record.get("created_at", exported_at))
        lifecycle = record.get("lifecycle")
        if isinstance(lifecycle, Mapping) and lifecycle.get("pinned") is True:
            chunk["is_pinned"] = True
        if "tags" in record:
            chunk["tags"] = list(record["tags"])
        vectors = [e for e in _embeddings(record) if e["model"] == model]
        if vectors:
            chunk["embedding"] = _pack(vectors[0]["values"])
        return ordered(chunk, CHUNK_ORDER)
    return _foreign_chunk(record, producer, model, exported_at)


def _foreign_chunk(record: Record, producer: str, model: str | None, exported_at: str) -> dict[str, Any]:
    rid = str(record.get("id", ""))
    local = quote(rid, safe=_SAFE)
    if not 0 < len(local) <= 256:
        local = "sha256-" + hashlib.sha256(rid.encode("utf-8")).hexdigest()
    content = readable(record)[:MAX_CONTENT]
    kind = record.get("kind")
    fact = record.get("fact")
    category = fact.get("category") if isinstance(fact, Mapping) else None
    memory_type = (category if category in MEMORY_TYPES else "procedure" if kind == "procedure"
                   else "episodic" if kind in ("episode", "message", "tool_call", "tool_result") else "fact")
    lifecycle = record.get("lifecycle")
    chunk: dict[str, Any] = {
        "id": f"urn:aimem:{producer}:{local}", "content": content, "content_hash": content_hash(content),
        "memory_type": memory_type,
        "is_pinned": isinstance(lifecycle, Mapping) and lifecycle.get("pinned") is True,
        "created_at": record.get("created_at") or record.get("updated_at") or exported_at,
        "tags": [t for t in record.get("tags", []) if type(t) is str and 1 <= len(t) <= 64],
    }
    vectors = [e for e in _embeddings(record) if e["model"] == model]
    if vectors:
        chunk["embedding"] = _pack(vectors[0]["values"])
    return chunk


AIMEM_BUNDLE = Form("aimem.bundle", FRAMEWORK,
                    "AIMEM Bundles (draft-vu-aimem-bundle-00): a list of bundles, each an envelope with its chunks",
                    _encode, _decode, file="document")

FORMS = (AIMEM_BUNDLE,)
