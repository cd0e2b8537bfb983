"""Records in their JSON form, as the service keeps them: canonical form,
content hash, scopes, tombstones, JSON Merge Patch, the text that full-text
search reads, and the compact form in which the store keeps a record.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import struct
import sys
import time
from array import array
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from memorywire import _compiled, _encode, _timestamp
from memorywire import _model as m
from memorywire._codec import Float32Bytes

RECORD_TYPE = "memorywire.v1.MemoryRecord"
PAYLOADS = tuple(m.kind_payloads()) + ("encrypted",)
SCOPE_FIELDS = ("user", "agent", "session", "run", "task", "project")
#: Members a tombstone keeps no value of (core.md section 8.2).
TOMBSTONE_DROPS = PAYLOADS + ("embeddings", "native", "metadata", "extensions")

_canonical_record = _encode.json_canonical(RECORD_TYPE)
_canonical_embedding = _encode.json_canonical("memorywire.v1.Embedding")
_LITTLE = sys.byteorder == "little"
#: Packers of little-endian binary32 vectors, by their number of values.
_PACKERS: dict[int, struct.Struct] = {}


def now() -> str:
    """The service's clock, in UTC, as a canonical timestamp."""
    ns = time.time_ns()
    return _timestamp.format(ns // 1_000_000_000, ns % 1_000_000_000)


def instant(text: str) -> tuple[int, int]:
    """The instant of a valid timestamp, as (seconds, nanoseconds)."""
    return _timestamp.parse(text)


def canonical(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical JSON form of a valid nested record as a dict: defaults
    dropped, timestamps and Float32 values in their canonical values. It
    is a new dict, but shares the members that are canonical already with
    ``doc`` (nested objects and lists included), so the service never
    writes into a member of a record in place: it writes a copy
    (``set_member``)."""
    out: dict[str, Any] = _canonical_record(doc)
    return dict(out) if out is doc else out


class Vector:
    """The values of a float32 vector as the service writes them: their
    little-endian binary32 bytes (``raw``), each value rounded to binary32,
    from the request to the store. A written record holds its embeddings'
    values so (``canonical_record``); they become Python floats only when
    they are read (iteration, ``tolist``), and a record read from the store
    holds lists of floats. It compares equal to the values of the same
    binary32 bytes in any form (0.0 and -0.0 differ). It is no list: JSON
    writers refuse it rather than write it as something else, and the stored
    forms (``pack``, ``pack_split``) and the request digest read its bytes
    (and write its number of values in its place, ``counted_dumps``).
    ``norm`` is its norm once measured (``vectors.norms_of``), else None."""

    __slots__ = ("norm", "raw")

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.norm: float | None = None

    def __len__(self) -> int:
        return len(self.raw) // 4

    def __iter__(self) -> Iterator[float]:
        return iter(float32_values(self.raw))

    def __bool__(self) -> bool:
        return bool(self.raw)

    def tolist(self) -> list[float]:
        return float32_values(self.raw)

    def __eq__(self, other: object) -> bool:
        if type(other) is Vector:
            return self.raw == other.raw
        if isinstance(other, (list, tuple)):
            try:
                return raw_values(list(other)) == self.raw
            except (TypeError, OverflowError):
                return False
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Vector({self.tolist()!r})"


def float32s(values: list[float] | Vector | Float32Bytes) -> Vector:
    """The canonical values of a float32 vector (each rounded to binary32)
    as their little-endian binary32 bytes (``raw_values``); a ``Vector`` is
    kept as it is."""
    if type(values) is Vector:
        return values
    return Vector(raw_values(values))


def canonical_record(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``canonical`` of a valid record whose embedding values come out as
    ``float32s`` gives them, so that the store, the request digest and the
    vector index read their bytes without converting the values again."""
    embeddings = doc.get("embeddings")
    if not embeddings:
        return canonical(doc)
    bare = dict(doc)
    del bare["embeddings"]
    out = canonical(bare)
    out["embeddings"] = [_embedding(e) for e in embeddings]
    return out


def _embedding(e: Mapping[str, Any]) -> dict[str, Any]:
    bare = dict(e)
    values = bare.pop("values", None)
    out: dict[str, Any] = _canonical_embedding(bare)
    if values:
        out["values"] = float32s(values)
    return out


def recanonical(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``canonical`` of a record whose embeddings are canonical already
    (they came from ``canonical`` or ``canonical_record``): they are kept as
    they are, not converted again."""
    embeddings = doc.get("embeddings")
    if not embeddings:
        return canonical(doc)
    bare = dict(doc)
    del bare["embeddings"]
    out = canonical(bare)
    out["embeddings"] = embeddings
    return out


#: The members of a record whose own members ``in_canonical_order`` orders too.
_ORDERED_MEMBERS = ("lifecycle", "provenance", "scope")


def in_canonical_order(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``recanonical`` of a record whose values are canonical already, and
    whose members are in canonical order but for its own and those of its
    scope, lifecycle and provenance (those the service sets on a record it
    writes): the members in the order ``recanonical`` gives them (that of
    their names, embeddings last), without converting any value again."""
    if _compiled.ordered_record is not None:
        ordered = _compiled.ordered_record(doc)  # type: ignore[arg-type]
        if ordered is not None:
            return ordered
    out = {name: doc[name] for name in sorted(doc)}
    embeddings = out.pop("embeddings", None)
    if embeddings is not None:
        out["embeddings"] = embeddings
    for name in _ORDERED_MEMBERS:
        sub = out.get(name)
        if sub is not None and len(sub) > 1:
            out[name] = {k: sub[k] for k in sorted(sub)}
    return out


def dumps(doc: Mapping[str, Any]) -> bytes:
    """Canonical JSON bytes of a canonical dict."""
    return orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)


def payload_member(doc: Mapping[str, Any]) -> str | None:
    for name in PAYLOADS:
        if name in doc:
            return name
    return None


def content_hash(doc: Mapping[str, Any]) -> str | None:
    """The content hash of a canonical record (core.md section 9.2), or None
    for a record without a payload. It reads the payload alone: that of a
    record whose payload is canonical will do."""
    name = payload_member(doc)
    if name is None:
        return None
    return payload_hash(doc[name])


def payload_hash(payload: Mapping[str, Any]) -> str:
    """The content hash of a record of a canonical payload."""
    return "sha256:" + hashlib.sha256(orjson.dumps(payload, option=orjson.OPT_SORT_KEYS)).hexdigest()


def status(doc: Mapping[str, Any]) -> str:
    """The record's status; an absent status is active."""
    life = doc.get("lifecycle")
    return "active" if life is None else str(life.get("status", "active"))


def set_member(doc: dict[str, Any], parent: str, name: str, value: Any) -> None:
    """Set doc[parent][name], creating the parent object."""
    sub = dict(doc.get(parent, {}))
    sub[name] = value
    doc[parent] = sub


def drop_member(doc: dict[str, Any], parent: str, name: str) -> None:
    sub = doc.get(parent)
    if sub is not None and name in sub:
        sub = dict(sub)
        del sub[name]
        if sub:
            doc[parent] = sub
        else:
            del doc[parent]


# -- scopes (core.md section 5, operations.md section 4.1) ---------------------


def complete_scope(record: dict[str, Any], request_scope: Mapping[str, Any] | None,
                   tenant: str) -> None:
    """Fill in the record's scope from the request scope and set its tenant."""
    scope = dict(record.get("scope", {}))
    if request_scope:
        for name in SCOPE_FIELDS:
            if request_scope.get(name) and not scope.get(name):
                scope[name] = request_scope[name]
        if request_scope.get("namespace") and not scope.get("namespace"):
            scope["namespace"] = list(request_scope["namespace"])
    scope["tenant"] = tenant
    record["scope"] = scope


def within(record_scope: Mapping[str, Any] | None, request_scope: Mapping[str, Any] | None) -> bool:
    """Whether a record of the caller's tenant lies within the request scope."""
    if not request_scope:
        return True
    rs = record_scope or {}
    for name in SCOPE_FIELDS:
        want = request_scope.get(name)
        if want and rs.get(name) != want:
            return False
    prefix = request_scope.get("namespace")
    if prefix:
        ns = rs.get("namespace", [])
        if len(ns) < len(prefix) or list(ns[:len(prefix)]) != list(prefix):
            return False
    return True


def namespace_key(namespace: Any) -> str:
    """The stored form of a namespace: its JSON array, so that equal lists
    have equal keys and a prefix of labels is a prefix of the key."""
    return orjson.dumps(list(namespace or [])).decode("utf-8")


# -- tombstones (operations.md section 4.7) -----------------------------------


def soft_deleted(doc: Mapping[str, Any], when: str, reason: str | None) -> dict[str, Any]:
    """The tombstone of a record, before its store-maintained revision and
    updated_at are set."""
    out = {k: v for k, v in doc.items() if k not in TOMBSTONE_DROPS}
    lifecycle = dict(doc.get("lifecycle", {}))
    lifecycle["status"] = "deleted"
    lifecycle["deleted_at"] = when
    if reason:
        lifecycle["reason"] = reason
    else:
        lifecycle.pop("reason", None)
    out["lifecycle"] = lifecycle
    return out


def minimal_tombstone(doc: Mapping[str, Any], revision: int, when: str,
                      reason: str | None = None) -> dict[str, Any]:
    """The minimal tombstone a hard deletion reports: id, kind, scope,
    sequence, revision and a lifecycle with status deleted, deleted_at and
    the reason; nothing else."""
    lifecycle: dict[str, Any] = {"status": "deleted", "deleted_at": when}
    if reason:
        lifecycle["reason"] = reason
    out: dict[str, Any] = {"id": doc["id"], "kind": doc["kind"], "lifecycle": lifecycle}
    for name in ("scope", "sequence"):
        if name in doc:
            out[name] = doc[name]
    out["revision"] = revision
    return out


def strip_tombstone(doc: dict[str, Any]) -> None:
    """Remove what a tombstone does not keep."""
    for name in TOMBSTONE_DROPS:
        doc.pop(name, None)


# -- JSON Merge Patch (RFC 7396) ------------------------------------------------


def merge_patch(target: Any, patch: Any) -> Any:
    if type(patch) is not dict:
        return patch
    out = dict(target) if type(target) is dict else {}
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = merge_patch(out.get(key), value)
    return out


# -- the text of a record (operations.md section 9.1) --------------------------


def _parts_text(parts: Any, out: list[str]) -> None:
    for part in parts or ():
        for name in ("text", "refusal"):
            sub = part.get(name)
            if sub is not None and sub.get("text"):
                out.append(sub["text"])
        if "tool_call" in part:
            _tool_call_text(part["tool_call"], out)
        if "tool_result" in part:
            _tool_result_text(part["tool_result"], out)


def _tool_call_text(call: Mapping[str, Any], out: list[str]) -> None:
    for name in ("name", "arguments"):
        if call.get(name):
            out.append(call[name])


def _tool_result_text(result: Mapping[str, Any], out: list[str]) -> None:
    if result.get("output"):
        out.append(result["output"])
    _parts_text(result.get("output_parts"), out)


def _value_strings(value: Any, out: list[str]) -> None:
    """The strings within a Value, in document order (map keys left out)."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        for x in value:
            _value_strings(x, out)
    elif isinstance(value, Mapping):
        for x in value.values():
            _value_strings(x, out)


def text_of(doc: Mapping[str, Any]) -> str:
    """The text full-text search reads in a record; "" for none. Beyond the
    fields operations.md section 9.1 names, the strings within a custom
    record's value (a LangGraph item's ``{"text": ...}``), so that what a
    framework keeps as free-form data is found by text like a fact. An
    encrypted payload is never read."""
    out: list[str] = []
    if "message" in doc:
        _parts_text(doc["message"].get("content"), out)
    elif "tool_call" in doc:
        _tool_call_text(doc["tool_call"], out)
    elif "tool_result" in doc:
        _tool_result_text(doc["tool_result"], out)
    elif "fact" in doc:
        out.append(doc["fact"].get("text", ""))
    elif "episode" in doc:
        out.append(doc["episode"].get("text", ""))
    elif "summary" in doc:
        out.append(doc["summary"].get("text", ""))
    elif "block" in doc:
        out.append(doc["block"].get("value", ""))
    elif "procedure" in doc:
        out.extend((doc["procedure"].get("name", ""), doc["procedure"].get("description", "")))
    elif "emotion" in doc:
        out.append(doc["emotion"].get("text", ""))
    elif "custom" in doc:
        _value_strings(doc["custom"].get("value"), out)
    # Most payloads hold one text (Put reads each record's twice): no join.
    if len(out) == 1:
        return out[0]
    return "\n".join([t for t in out if t])


# -- the stored form ----------------------------------------------------------
# A record is kept as its canonical JSON form in which each embedding's values
# are a base64 string of little-endian binary32 numbers: bit-exact and four
# times smaller than their decimal spelling.


def _pack_values(values: list[float] | Vector) -> str:
    return base64.b64encode(raw_values(values)).decode("ascii")


def _unpack_values(text: str) -> list[float]:
    raw = array("f")
    raw.frombytes(base64.b64decode(text))
    if not _LITTLE:
        raw.byteswap()
    return raw.tolist()


def pack(doc: Mapping[str, Any]) -> bytes:
    """The stored bytes of a canonical record."""
    embeddings = doc.get("embeddings")
    if embeddings:
        doc = dict(doc)
        doc["embeddings"] = [dict(e, values=_pack_values(e["values"])) for e in embeddings]
    return orjson.dumps(doc)


def unpack(data: bytes) -> dict[str, Any]:
    """The canonical record of stored bytes."""
    doc: dict[str, Any] = orjson.loads(data)
    embeddings = doc.get("embeddings")
    if embeddings:
        for e in embeddings:
            e["values"] = _unpack_values(e["values"])
    return doc


# The split stored form (the SQLite store): the canonical JSON form in which
# each embedding's values are replaced by their count, and apart, the values
# of every embedding in document order, as one run of little-endian binary32
# numbers, so that the store keeps them once, as raw bytes, and reads an
# embedding as a slice of them.


def raw_values(values: list[float] | Vector | Float32Bytes) -> bytes:
    """The little-endian binary32 bytes of float32 values (each rounded to
    binary32, from one conversion and no Python float): those of a
    ``Vector``, or those the codec read them from when it did
    (``Float32Values``, ``Float32Bytes``), without a round trip through floats. A value that
    is no number raises TypeError."""
    if type(values) is Vector:
        return values.raw
    if type(values) is Float32Bytes:
        return bytes(values)
    raw = getattr(values, "raw", None)
    if type(raw) is bytes:
        return raw
    if _compiled.float32_le is not None:
        # Without a call per value; None for what struct decides.
        raw = _compiled.float32_le(values)
        if raw is not None:
            return raw
    n = len(values)
    packer = _PACKERS.get(n)
    if packer is None:
        packer = struct.Struct(f"<{n}f")
        if len(_PACKERS) < 64:
            _PACKERS[n] = packer
    try:
        return packer.pack(*values)
    except OverflowError:
        # A value beyond binary32, which the codec's checks refuse: as an infinity.
        a = array("f", values)
    except struct.error as e:
        raise TypeError(str(e)) from None
    if not _LITTLE:
        a.byteswap()
    return a.tobytes()


def float32_values(raw: bytes) -> list[float]:
    """The values of little-endian binary32 bytes."""
    a = array("f")
    a.frombytes(raw)
    if not _LITTLE:
        a.byteswap()
    return a.tolist()


def _vector_count(value: Any) -> int:
    """What ``counted_dumps`` writes of a ``Vector``: its number of values."""
    if type(value) is Vector:
        return len(value.raw) >> 2
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


#: ``orjson.dumps`` of a record whose embeddings each hold a ``Vector``, as
#: ``pack_split`` writes it: each embedding's values as their number.
dumps_counted = functools.partial(orjson.dumps, default=_vector_count)


def counted_dumps(doc: Mapping[str, Any], embeddings: Any, option: int = 0) -> bytes | None:
    """The JSON of a record whose ``embeddings`` (a list) each hold a
    ``Vector`` of values, with each embedding's values replaced by their
    number, without a copy of the record (the stored form and the request
    digest write it so); None when an embedding holds other values."""
    for e in embeddings:
        if type(e.get("values")) is not Vector:
            return None
    return dumps_counted(doc, option=option)


def counted_json(doc: Mapping[str, Any], embeddings: Any, option: int = 0) -> bytes:
    """The JSON of a record with each of its ``embeddings`` holding the
    number of its values in their place: without a copy of the record where
    they are ``Vector``s (``counted_dumps``), else from a copy."""
    data = counted_dumps(doc, embeddings, option)
    if data is None:
        data = orjson.dumps({**doc, "embeddings": [{**e, "values": len(e.get("values") or ())} for e in embeddings]},
                            option=option)
    return data


def pack_split(doc: Mapping[str, Any]) -> tuple[bytes, bytes | None]:
    """The stored bytes of a canonical record: its JSON without embedding
    values, and the binary32 bytes of those values (None without
    embeddings)."""
    return _split(doc, 0)


def same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two canonical records are equal (core.md section 13.7): the
    same JSON, members in any order, and embedding values of the same
    binary32 bytes, whatever form each holds them in (``Vector`` or floats)."""
    return _split(a, orjson.OPT_SORT_KEYS) == _split(b, orjson.OPT_SORT_KEYS)


def _split(doc: Mapping[str, Any], option: int) -> tuple[bytes, bytes | None]:
    embeddings = doc.get("embeddings")
    if not embeddings:
        return orjson.dumps(doc, option=option), None
    raws = []
    for e in embeddings:
        values = e.get("values")
        if type(values) is not Vector:
            break
        raws.append(values.raw)
    else:
        # Every embedding holds a Vector (a record Put writes): counted_dumps
        # without its second walk over the embeddings.
        return dumps_counted(doc, option=option), b"".join(raws)
    return counted_json(doc, embeddings, option), b"".join([raw_values(e["values"]) for e in embeddings])


def unpack_split(data: bytes, vecs: bytes | None) -> dict[str, Any]:
    """The canonical record of the split stored form (``pack_split``), or of
    the single form (``pack``) when ``vecs`` is None."""
    if vecs is None:
        return unpack(data)
    doc: dict[str, Any] = orjson.loads(data)
    start = 0
    for e in doc.get("embeddings", ()):
        end = start + 4 * e["values"]
        e["values"] = float32_values(vecs[start:end])
        start = end
    return doc


def embedding_values(doc: Mapping[str, Any]) -> list[tuple[str, int, list[float]]]:
    """(model, dimensions, values) of each embedding of a record."""
    return [(e["model"], int(e["dimensions"]) if "dimensions" in e else len(e["values"]), e["values"])
            for e in doc.get("embeddings", ())]
