"""Scans and counts of the typed fast path, and the canonical Protobuf writer
of memorywire._encode, in C (_speedups.c)."""

from typing import Any

def json_scan(data: bytes, /) -> tuple[int, bool] | None:
    """The object members of a JSON text (its colons outside strings) and
    whether it holds neither an escape nor the byte DEL, or None when it
    holds the integer token -0 or a member name with an escape."""

def msgpack_scan(data: bytes, /) -> tuple[int, int, bool] | None:
    """The map entries and timestamp extensions of the MessagePack object at
    the start of data and whether none of its strings holds a control
    character, or None when it is malformed, nests too deeply, has a key
    that is not a string, another extension, or a timestamp that is not
    whole microseconds."""

def tree_counts(tree: Any, texts: bool = False, /) -> tuple[int, int]:
    """The members of every dict of a tree of dicts and lists, and its
    datetimes; with texts, each datetime in a dict or list becomes its
    canonical spelling (whole microseconds: no fraction, 3 or 6 digits)."""

def value_ok(v: Any, depth: int, max_depth: int, max_items: int, max_chars: int, /) -> bool:
    """Whether a Value at the given depth is certainly within the rules: JSON
    types only, 64-bit integers, no float that might be a long integer token,
    within the depth, count and string limits."""

def pb_tables(tables: list[tuple[tuple[Any, ...], ...]], vector_type: type, /) -> None:
    """The field tables of pb_write: per message type, (name, tag, kind,
    presence, index of the message type, enum values by name) per field."""

def pb_write(index: int, d: Any, /) -> bytes | None:
    """The canonical Protobuf bytes of a validated document of the message
    type of table number index, or None where the writers in Python are to
    write it."""
