"""Documents shared by the case sources."""

from __future__ import annotations

import copy
from typing import Any

SPECVERSION = "1.0"


def record(kind: str, payload: dict[str, Any] | None = None, *, id: str = "r1", **fields: Any) -> dict[str, Any]:
    """A top-level MemoryRecord: specversion, id, kind, then the payload of
    the kind, then the other fields in the order given."""
    doc: dict[str, Any] = {"specversion": SPECVERSION, "id": id, "kind": kind}
    if payload is not None:
        doc[kind] = payload
    doc.update(fields)
    return doc


def fact(text: str = "The user prefers window seats.", **fields: Any) -> dict[str, Any]:
    return record("fact", {"text": text}, id="fact-1", **fields)


def with_(doc: dict[str, Any], **fields: Any) -> dict[str, Any]:
    """A deep copy of doc with fields set (a value of None removes the field)."""
    out = copy.deepcopy(doc)
    for k, v in fields.items():
        if v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def without(doc: dict[str, Any], *names: str) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    for n in names:
        out.pop(n, None)
    return out


def nested(value: Any, depth: int) -> Any:
    """value wrapped in `depth` single-element arrays."""
    for _ in range(depth):
        value = [value]
    return value
