"""Scans and counts of the typed fast path and the canonical pass of the
writers, in C (_speedups.c)."""

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

# The canonical pass of the writers (memorywire._encode).

def canonical_tables(tables: list[tuple[list[tuple[str, str, bool, int, Any]], Any, Any]],
                     timestamp: type | None = None, /) -> Any:
    """The tables of the canonical pass, checked: for each message type, its
    fields (name, how a member changes, whether each element changes, the
    index of a message type, the function of one value), its walker and its
    generated function; and the type of the timestamps of the walkers of
    MessagePack (attributes seconds and nanoseconds)."""

def canonical(tables: Any, index: int, doc: Any, /) -> Any:
    """The canonical form of a valid document of the message type of index:
    what the generated function of the tables gives, the document itself
    where no member changes."""

def canonical_msgpack(tables: Any, index: int, fallback: Any, doc: Any, /) -> bytes:
    """The canonical MessagePack bytes of a valid document of the message
    type of index, as msgspec writes the canonical form of the tables'
    functions; fallback(doc) where anything is not certain."""
