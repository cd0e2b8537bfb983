"""Patches between two JSON maps, the residue and the extension remainder
of the bridges (spec/v1/adapters/README.md §12).

A patch turns a *candidate* map (what a mapping rebuilds from the neutral
fields) into the original map, exactly: ``apply(candidate, diff(original,
candidate)) == original``, type-exact and in member order. Its members:

- ``$set``: members whose value replaces the candidate's (or that the
  candidate lacks);
- ``$patch``: members whose map value is itself patched, by member name;
- ``$absent``: members of the candidate that the original lacks;
- ``$items``: in a ``$patch`` entry for a list that has as many elements
  as the candidate's, the patch of each element that differs, by index
  (applied only while the candidate's list has that length).

Member order is not part of a patch: the encodings do not keep the order of
a Value's members, so each bridge writes its format's own member order.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Iterator, Mapping
from typing import Any, TypeGuard

SET, PATCH, ABSENT, ITEMS = "$set", "$patch", "$absent", "$items"


def same(a: Any, b: Any) -> bool:
    """Type-exact equality: bool, int and float apart, floats by their bits,
    lists in order, maps by members (not their order)."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(same(v, b[k]) for k, v in a.items())
    return bool(a == b)


def diff(original: Mapping[str, Any], candidate: Mapping[str, Any]) -> dict[str, Any]:
    """The patch that turns ``candidate`` into ``original`` (empty when they
    are the same)."""
    out: dict[str, Any] = {}
    sets: dict[str, Any] = {}
    subs: dict[str, Any] = {}
    for key, value in original.items():
        if key in candidate:
            c = candidate[key]
            if type(value) is dict and type(c) is dict:
                sub = diff(value, c)
                if sub:
                    subs[key] = sub
                continue
            if same(value, c):
                continue
            items = _diff_items(value, c)
            if items is not None:
                subs[key] = {ITEMS: items}
                continue
        sets[key] = value
    absent = [k for k in candidate if k not in original]
    if sets:
        out[SET] = sets
    if subs:
        out[PATCH] = subs
    if absent:
        out[ABSENT] = absent
    return out


def _diff_items(original: Any, candidate: Any) -> dict[str, Any] | None:
    """The element patches of two lists of maps of one length, or None."""
    if not (isinstance(original, list) and isinstance(candidate, list) and len(original) == len(candidate)
            and all(type(x) is dict and type(y) is dict for x, y in zip(original, candidate, strict=True))):
        return None
    return {str(i): sub for i, (x, y) in enumerate(zip(original, candidate, strict=True)) if (sub := diff(x, y))}


def apply(candidate: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    """``candidate`` with ``patch`` applied; a member the patch names but the
    candidate lacks (the neutral fields changed since) is left out."""
    absent = set(patch.get(ABSENT, ()))
    out = {k: v for k, v in candidate.items() if k not in absent}
    for key, sub in (patch.get(PATCH) or {}).items():
        if type(out.get(key)) is dict and isinstance(sub, Mapping):
            out[key] = apply(out[key], sub)
        elif isinstance(out.get(key), list) and isinstance(sub, Mapping) and isinstance(sub.get(ITEMS), Mapping):
            listed = list(out[key])
            for index, item in sub[ITEMS].items():
                i = int(index)
                if 0 <= i < len(listed) and type(listed[i]) is dict and isinstance(item, Mapping):
                    listed[i] = apply(listed[i], item)
            out[key] = listed
    for key, value in (patch.get(SET) or {}).items():
        out[key] = value
    return out


def is_patch(value: Any) -> TypeGuard[dict[str, Any]]:
    return type(value) is dict and bool(value) and set(value) <= {SET, PATCH, ABSENT}


def paths(patch: Mapping[str, Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    """``(JSON Pointer, "set" | "absent")`` of every member a patch changes."""
    from memorywire.adapters._kit import pointer_token

    for key in patch.get(SET) or {}:
        yield f"{prefix}/{pointer_token(key)}", "set"
    for key in patch.get(ABSENT) or ():
        yield f"{prefix}/{pointer_token(key)}", "absent"
    for key, sub in (patch.get(PATCH) or {}).items():
        if ITEMS in sub:
            for index, item in sub[ITEMS].items():
                yield from paths(item, f"{prefix}/{pointer_token(key)}/{index}")
        else:
            yield from paths(sub, f"{prefix}/{pointer_token(key)}")


def reorder(value: Any, shape: Mapping[str, Any], name: str) -> Any:
    """``value`` with the members of each object in its format's order:
    ``shape[name]`` is ``(members, {member: shape name})``; members it
    does not name follow in their own order."""
    members, children = shape[name]
    if type(value) is not dict:
        return value
    out = {k: value[k] for k in members if k in value}
    out.update((k, v) for k, v in value.items() if k not in out)
    for key, child in children.items():
        if key in out:
            v = out[key]
            out[key] = [reorder(x, shape, child) for x in v] if type(v) is list else reorder(v, shape, child)
    return out
