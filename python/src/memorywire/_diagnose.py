"""Where in a document a fault of well-formedness lies.

The fast parsers (orjson, msgpack) say that input is malformed but not in
which member. When they refuse input, these scanners read it again, slowly,
to find the JSON Pointer of the first fault. They run only on the error path.
"""

from __future__ import annotations

import json as _stdjson
import struct
from typing import Any

from memorywire.errors import escape_token
from memorywire.limits import Limits


class Fault(Exception):
    def __init__(self, reason: str, pointer: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.pointer, self.message = reason, pointer, message


# -- JSON ---------------------------------------------------------------------


def json_surrogate(data: bytes) -> str | None:
    """The pointer of the first string that holds invalid UTF-8 or a lone
    surrogate escape; a member name that does holds its object's pointer."""
    try:
        # Only the strings matter: numbers are read as floats, which have no
        # limit on their digits.
        doc = _stdjson.loads(data.decode("utf-8", "surrogateescape"), parse_int=float)
    except (ValueError, RecursionError):
        return None
    return _find_surrogate(doc, "")


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= c <= "\udfff" for c in text)


def _find_surrogate(node: Any, ptr: str) -> str | None:
    if isinstance(node, str):
        return ptr if _has_surrogate(node) else None
    if isinstance(node, dict):
        for key, value in node.items():
            if _has_surrogate(key):
                return ptr
            found = _find_surrogate(value, f"{ptr}/{escape_token(key)}")
            if found is not None:
                return found
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found = _find_surrogate(value, f"{ptr}/{i}")
            if found is not None:
                return found
    return None


def json_depth(data: bytes, max_depth: int) -> str | None:
    """The pointer of the first value nested deeper than max_depth."""
    text = data.decode("utf-8", "replace")
    path: list[Any] = []  # per open container: [key or index, is_object]
    i, n = 0, len(text)
    expecting_key = False
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if expecting_key and path:
                try:
                    path[-1][0] = _stdjson.loads(text[i:j + 1])
                except ValueError:
                    return None
            i = j + 1
            continue
        if c in "{[":
            if len(path) + 1 > max_depth:
                return "".join("/" + escape_token(str(k)) for k, _ in path)
            path.append([0 if c == "[" else "", c == "{"])
            expecting_key = c == "{"
        elif c in "}]":
            if path:
                path.pop()
            expecting_key = False
        elif c == ",":
            if path:
                if path[-1][1]:
                    expecting_key = True
                else:
                    path[-1][0] += 1
        elif c == ":":
            expecting_key = False
        i += 1
    return None


class Duplicate(Exception):
    """A name repeats in one object; raised by ``unique_pairs``."""


def unique_pairs(items: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """The object of a parser's pairs hook, refusing a repeated name; the
    caller then reads again with ``PairList`` to point at it."""
    out = dict(items)
    if len(out) != len(items):
        raise Duplicate
    return out


class PairList(list):  # type: ignore[type-arg]
    """An object or map read as its list of (name, value) pairs, repeats kept."""


def find_duplicate(node: Any, ptr: str) -> str | None:
    """The pointer of the first repeated member name in a tree whose objects
    and maps are read as PairList (all of them, or only those that repeat a
    name, the others being dicts)."""
    t = type(node)
    if t is PairList:
        seen: set[Any] = set()
        for k, v in node:
            p = f"{ptr}/{escape_token(str(k))}"
            if k in seen:
                return p
            seen.add(k)
            found = find_duplicate(v, p)
            if found:
                return found
    elif t is dict:
        for k, v in node.items():
            found = find_duplicate(v, f"{ptr}/{escape_token(str(k))}")
            if found:
                return found
    elif t is list:
        for i, v in enumerate(node):
            found = find_duplicate(v, f"{ptr}/{i}")
            if found:
                return found
    return None


# -- MessagePack -------------------------------------------------------------


class _Reader:
    def __init__(self, data: bytes, max_depth: int, max_string_bytes: int, max_items: int) -> None:
        self.data = data
        self.max_depth = max_depth
        self.max_string_bytes = max_string_bytes
        self.max_items = max_items

    def need(self, pos: int, size: int, ptr: str) -> None:
        if pos + size > len(self.data):
            raise Fault("TRUNCATED", ptr, "the document ends early")

    def uint(self, pos: int, size: int, ptr: str) -> int:
        self.need(pos, size, ptr)
        return int.from_bytes(self.data[pos:pos + size], "big")

    def text(self, pos: int, size: int, ptr: str) -> str:
        self.need(pos, size, ptr)
        if size > self.max_string_bytes:
            raise Fault("STRING_TOO_LONG", ptr, f"a string of {size} bytes; the limit is {self.max_string_bytes}")
        try:
            return bytes(self.data[pos:pos + size]).decode("utf-8")
        except UnicodeDecodeError:
            raise Fault("INVALID_UTF8", ptr, "a string is not valid UTF-8") from None

    def raw_text(self, pos: int) -> str:
        """The str at pos, whatever its length."""
        b = self.data[pos]
        width = 0 if b <= 0xBF else {0xD9: 1, 0xDA: 2, 0xDB: 4}[b]
        size = b & 0x1F if b <= 0xBF else int.from_bytes(self.data[pos + 1:pos + 1 + width], "big")
        return bytes(self.data[pos + 1 + width:pos + 1 + width + size]).decode("utf-8", "replace")

    def obj(self, pos: int, ptr: str, depth: int, as_key: bool = False) -> tuple[Any, int]:
        """Read one object at pos; return a key (for str) or None, and the end."""
        data = self.data
        self.need(pos, 1, ptr)
        b = data[pos]
        pos += 1
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            return None, pos
        if 0xA0 <= b <= 0xBF or b in (0xD9, 0xDA, 0xDB):
            size = b & 0x1F if b <= 0xBF else self.uint(pos, {0xD9: 1, 0xDA: 2, 0xDB: 4}[b], ptr)
            pos += 0 if b <= 0xBF else {0xD9: 1, 0xDA: 2, 0xDB: 4}[b]
            return self.text(pos, size, ptr), pos + size
        if 0x90 <= b <= 0x9F or b in (0xDC, 0xDD):
            count = b & 0x0F if b <= 0x9F else self.uint(pos, 2 if b == 0xDC else 4, ptr)
            pos += 0 if b <= 0x9F else (2 if b == 0xDC else 4)
            if count > len(data) - pos:
                raise Fault("TRUNCATED", ptr, f"an array of {count} elements cannot fit in the bytes left")
            if count > self.max_items:
                raise Fault("TOO_MANY_ITEMS", ptr, f"{count} elements; the limit is {self.max_items}")
            if depth + 1 > self.max_depth:
                raise Fault("NESTING_TOO_DEEP", ptr, f"nesting deeper than {self.max_depth}")
            for i in range(count):
                _, pos = self.obj(pos, f"{ptr}/{i}", depth + 1)
            return None, pos
        if 0x80 <= b <= 0x8F or b in (0xDE, 0xDF):
            count = b & 0x0F if b <= 0x8F else self.uint(pos, 2 if b == 0xDE else 4, ptr)
            pos += 0 if b <= 0x8F else (2 if b == 0xDE else 4)
            if 2 * count > len(data) - pos:
                raise Fault("TRUNCATED", ptr, f"a map of {count} entries cannot fit in the bytes left")
            if count > self.max_items:
                raise Fault("TOO_MANY_ITEMS", ptr, f"{count} entries; the limit is {self.max_items}")
            if depth + 1 > self.max_depth:
                raise Fault("NESTING_TOO_DEEP", ptr, f"nesting deeper than {self.max_depth}")
            seen: set[str] = set()
            for _ in range(count):
                self.need(pos, 1, ptr)
                kb = data[pos]
                if not (0xA0 <= kb <= 0xBF or kb in (0xD9, 0xDA, 0xDB)):
                    raise Fault("TYPE_MISMATCH", ptr, "a map key is not a string")
                try:
                    key, pos = self.obj(pos, ptr, depth + 1, as_key=True)
                except Fault as f:
                    if f.reason == "STRING_TOO_LONG":  # named by the member it names
                        f.pointer = f"{ptr}/{escape_token(self.raw_text(pos))}"
                    raise
                here = f"{ptr}/{escape_token(key)}"
                if key in seen:
                    raise Fault("DUPLICATE_KEY", here, f"the key {key!r} appears twice")
                seen.add(key)
                _, pos = self.obj(pos, here, depth + 1)
            return None, pos
        if b in (0xC4, 0xC5, 0xC6):
            width = {0xC4: 1, 0xC5: 2, 0xC6: 4}[b]
            size = self.uint(pos, width, ptr)
            self.need(pos + width, size, ptr)
            return None, pos + width + size
        if b in (0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF, 0xD0, 0xD1, 0xD2, 0xD3):
            size = {0xCA: 4, 0xCB: 8, 0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8,
                    0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8}[b]
            self.need(pos, size, ptr)
            if b in (0xCA, 0xCB):
                value = struct.unpack(">f" if b == 0xCA else ">d", data[pos:pos + size])[0]
                if value - value != 0:
                    raise Fault("NON_FINITE_NUMBER", ptr, "NaN and infinities are not allowed")
            return None, pos + size
        if b in (0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xC7, 0xC8, 0xC9):
            if b >= 0xD4:
                size = {0xD4: 1, 0xD5: 2, 0xD6: 4, 0xD7: 8, 0xD8: 16}[b]
            else:
                width = {0xC7: 1, 0xC8: 2, 0xC9: 4}[b]
                size = self.uint(pos, width, ptr)
                pos += width
            self.need(pos, 1 + size, ptr)
            ext_type = data[pos]
            if ext_type == 0xFF:
                self.timestamp(bytes(data[pos + 1:pos + 1 + size]), ptr)
            return None, pos + 1 + size
        raise Fault("INVALID_WIRE_FORMAT", ptr, f"the byte 0x{b:02x} is not a MessagePack format")

    def timestamp(self, raw: bytes, ptr: str) -> None:
        if len(raw) == 4:
            return
        if len(raw) == 8:
            nanos = int.from_bytes(raw, "big") >> 34
        elif len(raw) == 12:
            nanos = int.from_bytes(raw[:4], "big")
        else:
            raise Fault("INVALID_TIMESTAMP", ptr, f"a timestamp extension of {len(raw)} bytes")
        if nanos >= 1_000_000_000:
            raise Fault("INVALID_TIMESTAMP", ptr, "timestamp nanoseconds are 10^9 or more")


def msgpack_fault(data: bytes, limits: Limits) -> Fault | None:
    """The first fault of a MessagePack document, with its pointer."""
    reader = _Reader(data, limits.max_depth, limits.max_string_bytes, limits.max_items)
    try:
        if data and not (0x80 <= data[0] <= 0x8F or data[0] in (0xDE, 0xDF)):
            _, end = reader.obj(0, "", 1)
            return Fault("TYPE_MISMATCH", "", "a document is a MessagePack map")
        _, end = reader.obj(0, "", 0)
        if end < len(data):
            return Fault("TRAILING_DATA", "", "bytes follow the end of the document")
    except Fault as f:
        if f.reason in ("TRUNCATED", "INVALID_WIRE_FORMAT"):
            f.pointer = ""  # faults of framing belong to the document, not a member
        return f
    except RecursionError:
        return Fault("NESTING_TOO_DEEP", "", "the document nests too deeply")
    return None
