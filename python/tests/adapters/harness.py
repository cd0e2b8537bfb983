"""Checks shared by the adapter tests: type-exact comparison, the trip
through every encoding and through the reference service, and the
captured real output."""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import capture

import memorywire.json
import memorywire.msgpack
import memorywire.protobuf
from memorywire.adapters import Form

DATA = Path(__file__).parent / "data"
ENCODINGS = {"json": memorywire.json, "msgpack": memorywire.msgpack, "protobuf": memorywire.protobuf}


def exact(a: Any, b: Any, *, ordered: bool = False, path: str = "") -> str | None:
    """None when ``a`` and ``b`` are equal type-exactly (bool, int and
    float apart, floats by their bits, lists in order, dicts by keys and,
    when ``ordered``, by key order); else where they first differ."""
    where = path or "/"
    if type(a) is not type(b):
        return f"{where}: {type(a).__name__} {a!r} is not {type(b).__name__} {b!r}"
    if isinstance(a, float):
        if struct.pack("<d", a) != struct.pack("<d", b) and not (math.isnan(a) and math.isnan(b)):
            return f"{where}: {a!r} is not {b!r}"
        return None
    if isinstance(a, dict):
        if ordered and list(a) != list(b):
            return f"{where}: keys {list(a)} are not {list(b)} in order"
        if set(a) != set(b):
            return f"{where}: keys differ: {sorted(set(a) ^ set(b))}"
        for k in a:
            found = exact(a[k], b[k], ordered=ordered, path=f"{path}/{k}")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{where}: {len(a)} elements, not {len(b)}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = exact(x, y, ordered=ordered, path=f"{path}/{i}")
            if found:
                return found
        return None
    if isinstance(a, (str, bytes, int, bool, type(None))):
        return None if a == b else f"{where}: {a!r} is not {b!r}"
    # A framework object: its own equality, then its serialized form.
    if a != b:
        return f"{where}: {a!r} != {b!r}"
    dump = getattr(a, "model_dump", None)
    if dump is not None:
        return exact(dump(), b.model_dump(), ordered=ordered, path=path)
    return exact(vars(a), vars(b), ordered=ordered, path=path) if hasattr(a, "__dict__") else None


def assert_exact(a: Any, b: Any, *, ordered: bool = False) -> None:
    found = exact(a, b, ordered=ordered)
    assert found is None, found


def through_encodings(records: Iterable[Mapping[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Each record encoded canonically and decoded back, per encoding."""
    listed = list(records)
    out = {}
    for name, codec in ENCODINGS.items():
        out[name] = [codec.decode(codec.encode(r)) for r in listed]
    return out


def assert_round_trip(form: Form, items: list[Any], *, ordered: bool = False,
                      **scope: Any) -> list[dict[str, Any]]:
    """to_records, every encoding, from_records: exactly the items."""
    records = form.to_records(items, **scope)
    for name, decoded in through_encodings(records).items():
        back = form.from_records(decoded)
        found = exact(back, items, ordered=ordered)
        assert found is None, f"{form.name} through {name}: {found}"
    return records


def assert_service_round_trip(client: Any, form: Form, items: list[Any], *, ordered: bool = False,
                              **scope: Any) -> list[dict[str, Any]]:
    """The records Put as one list into a fresh tenant of the reference
    service, read back with History in insertion order: exactly the items."""
    records = form.to_records(items, **scope)
    for start in range(0, len(records), 500):
        client.put(records[start:start + 500])
    stored: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = client.history(cursor=cursor, limit=500)
        stored.extend(page.get("records", ()))
        cursor = page.get("next_cursor")
        if not cursor:
            break
    assert [r["id"] for r in stored] == [r["id"] for r in records], f"{form.name}: History order"
    assert_exact(form.from_records(stored), items, ordered=ordered)
    return records


def load(form: str, filename: str) -> dict[str, Any]:
    """A captured file of real framework output, its tags undone."""
    with open(DATA / form / filename, encoding="utf-8") as f:
        doc: dict[str, Any] = capture.decode(json.load(f))
    return doc


def captured(form: str) -> list[str]:
    """The captured files of a form."""
    return sorted(p.name for p in (DATA / form).glob("*.json"))
