"""Scans and counts of the typed fast path, and the packing of float32
values the service stores and the sums of their squares, in C (_speedups.c)."""

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

def float32_bytes(values: Any, /) -> bytes | None:
    """The little-endian binary32 bytes of a list or tuple of floats, each
    rounded to binary32 as struct's 'f' format rounds it, or None when a
    value is not exactly a float, is not finite, or is beyond binary32."""

def float32_sum_squares(raw: bytes, /) -> float | None:
    """The sum of the squares of little-endian binary32 values, each widened
    to binary64, added one after the other in binary64; None when the length
    is not a multiple of 4, or where C evaluates doubles in a wider format."""
