"""Specialised walkers, generated once per process from the field tables.

The generic walkers of :mod:`memorywire._codec` and :mod:`memorywire.validation`
interpret the field tables at every field. This module writes one Python
function per message type and per job instead, with the checks and
conversions of each field inlined, and compiles them. The source is built
from the same tables, so the two sets of walkers cannot disagree on the
rules; ``tests/test_compiled.py`` checks that they give the same results.

Jobs, per message type ``M``:

* ``check_M(d, p, w, depth)``: validate the JSON form ``d`` at pointer ``p``,
  reporting to the walk ``w`` (a :class:`memorywire.validation._Walk`).
* ``mp_M(d)``: the canonical MessagePack form (keys sorted, defaults dropped).
* ``js_M(d)``: the canonical JSON form (defaults dropped, spellings fixed).
* ``un_M(d)``: the JSON form of a MessagePack-form document.
* ``pb_M(d)``: the canonical Protobuf bytes.
"""

from __future__ import annotations

import base64
import functools
import math
import os
import re
import struct
import sys
from array import array
from collections.abc import Callable
from typing import Any

import msgpack as _msgpack

from memorywire import _model as m
from memorywire import _rules, _timestamp
from memorywire._codec import Float32Bytes, Float32Values, vector_finite
from memorywire._formats import ENUM_NAME, check_format
from memorywire.errors import escape_token

#: Whether ``MEMORYWIRE_PURE=1`` asks for the pure path: no compiled helper
#: and no fast path, in this module or the others that read it.
PURE = os.environ.get("MEMORYWIRE_PURE", "") not in ("", "0")

#: The compiled reader of a float32 vector of Python floats
#: (``_speedups.float32_le``): its little-endian binary32 bytes, the bytes
#: struct gives, or None for what it cannot vouch for; None where the
#: extension is not built, or with MEMORYWIRE_PURE=1.
float32_le: Callable[[Any], bytes | None] | None
try:
    from memorywire._speedups import float32_le
except ImportError:  # not built: struct and array read the vectors
    float32_le = None
if PURE:
    float32_le = None

#: The compiled finder of a packed field in a message's bytes
#: (``_speedups.pb_packed_field``), which gives what ``_wire.packed_field``
#: gives for bytes and the field numbers a message can declare; None where
#: the extension is not built, or with MEMORYWIRE_PURE=1.
pb_packed_field: Callable[[bytes, int], bytes | None] | None
try:
    from memorywire._speedups import pb_packed_field
except ImportError:  # not built: _wire reads the bytes
    pb_packed_field = None
if PURE:
    pb_packed_field = None

#: The compiled term columns of the SQLite store's analyzer
#: (``_speedups.term_columns``), which gives what
#: ``service.store.Analyzer._columns_of`` gives from the terms of the chunks
#: of texts, or None for it to decide; None where the extension is not
#: built, or with MEMORYWIRE_PURE=1.
term_columns: Callable[[list[list[str]], dict[str, tuple[str, ...]], int],
                        list[tuple[int, str | None]] | None] | None
try:
    from memorywire._speedups import term_columns
except ImportError:  # not built: the analyzer counts the terms itself
    term_columns = None
if PURE:
    term_columns = None

#: The compiled canonical order of a record the service writes
#: (``_speedups.ordered_record``), which gives what
#: ``service.records.in_canonical_order`` gives, or None for it to decide;
#: None where the extension is not built, or with MEMORYWIRE_PURE=1.
ordered_record: Callable[[dict[str, Any]], dict[str, Any] | None] | None
try:
    from memorywire._speedups import ordered_record
except ImportError:  # not built: the service orders the members itself
    ordered_record = None
if PURE:
    ordered_record = None

#: The compiled stored row of a new record (``_speedups.record_row``), which
#: gives what ``service.store.record_row`` gives, or None for it to decide;
#: None where the extension is not built, or with MEMORYWIRE_PURE=1.
record_row: Callable[..., tuple[tuple[Any, ...], list[tuple[Any, ...]], list[tuple[Any, ...]]] | None] | None
try:
    from memorywire._speedups import record_row
except ImportError:  # not built: the store builds the rows itself
    record_row = None
if PURE:
    record_row = None

#: The compiled Protobuf reader (``_speedups.pb_reader_tables`` and
#: ``_speedups.pb_read``), which gives what ``_codec.from_proto`` gives of
#: the message upb parses, or None for that path to decide; None where the
#: extension is not built, or with MEMORYWIRE_PURE=1.
pb_reader_tables: Callable[[tuple[Any, ...]], Any] | None
pb_read: Callable[..., dict[str, Any] | None] | None
try:
    from memorywire._speedups import pb_read, pb_reader_tables
except ImportError:  # not built: upb parses every document
    pb_read = pb_reader_tables = None
if PURE:
    pb_read = pb_reader_tables = None

#: The least magnitude that rounds to infinity in binary32.
FLOAT32_OVERFLOW = 3.4028235677973366e38
#: Absent, as opposed to null, for fields whose Value may be null.
_MISSING = object()
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
#: Integers from this magnitude on are named by their size in messages: the
#: interpreter may refuse to write their digits, and they are of no use.
LONG_INTEGER = 10**30
#: The least integer that rounds to infinity as binary64 (2^1024 - 2^970).
_FLOAT_INT_END = 2**1024 - 2**970
_LITTLE = sys.byteorder == "little"

_TIMESTAMP = re.compile(
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?Z"
)
# The unused bits before padding are zero, so that each byte string has one spelling.
_BASE64 = re.compile(r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?")


def _int_text(v: int) -> str:
    """An integer for a message."""
    if -LONG_INTEGER < v < LONG_INTEGER:
        return str(v)
    return f"{'a negative' if v < 0 else 'an'} integer of more than 30 digits"


def _jtype(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", str: "string",
            list: "array", dict: "object"}.get(type(v), type(v).__name__)


def timestamp_ok(v: str) -> bool:
    if _TIMESTAMP.fullmatch(v) is None or v[:4] == "0000":
        return False
    return v[8:10] <= "28" or _days_ok(v)


def _days_ok(v: str) -> bool:
    from datetime import date

    try:
        date(int(v[0:4]), int(v[5:7]), int(v[8:10]))
    except ValueError:
        return False
    return True


def check_vector(v: list[Any] | Float32Bytes, p: str, w: Any) -> None:
    if type(v) is Float32Values or type(v) is Float32Bytes:
        return  # read from binary32 bytes and checked then
    if float32_le is not None and float32_le(v) is not None:
        return  # floats and ints, finite in binary32
    kinds = set(map(type, v))
    if not kinds <= {float, int}:
        for i, x in enumerate(v):
            if x is None:
                w.fail(f"{p}/{i}", "NULL_VALUE", "null is not a value of any field")
                return
            if type(x) is not float and type(x) is not int:
                w.fail(f"{p}/{i}", "TYPE_MISMATCH", f"expected a number, got {_jtype(x)}")
                return
    try:
        raw = array("f", v)
    except OverflowError:  # an integer beyond binary64
        i = next(i for i, x in enumerate(v) if type(x) is int and not -_FLOAT_INT_END < x < _FLOAT_INT_END)
        w.fail(f"{p}/{i}", "NUMBER_OUT_OF_RANGE", f"{_int_text(v[i])} overflows binary32")
        return
    if not _LITTLE:
        raw.byteswap()
    for i, x in enumerate(v) if not vector_finite(raw.tobytes()) else ():
        if x - x != 0:
            w.fail(f"{p}/{i}", "NON_FINITE_NUMBER", "NaN and infinities are not allowed")
            return
        if not -FLOAT32_OVERFLOW < x < FLOAT32_OVERFLOW:
            w.fail(f"{p}/{i}", "NUMBER_OUT_OF_RANGE", f"{x} overflows binary32")
            return


_ENUM_NAME = re.compile(ENUM_NAME)


def check_unknown_enum(v: Any, p: str, w: Any, enum: str) -> None:
    """A value that is not one of the enum's names: an error, or in a
    document of a newer minor version, content this reader keeps unread."""
    if type(v) is str:
        if w.tolerant and v != "unspecified" and _ENUM_NAME.fullmatch(v):
            w.unknown.append(p)
        else:
            w.fail(p, "UNKNOWN_ENUM_VALUE", f"{v!r} is not a value of {enum}")
    elif type(v) is int and w.tolerant:
        w.unknown.append(p)  # a number read from Protobuf
    else:
        w.fail(p, "TYPE_MISMATCH", f"expected a string ({enum}), got {_jtype(v)}")


def check_string_bytes(v: str, p: str, w: Any) -> bool:
    if len(v.encode("utf-8", "surrogatepass")) > w.limits.max_string_bytes:
        w.fail(p, "STRING_TOO_LONG", f"longer than {w.limits.max_string_bytes} bytes")
        return False
    return True


def check_value(v: Any, p: str, w: Any, depth: int) -> None:
    t = type(v)
    if t is dict:
        if depth > w.max_depth:
            w.fail(p, "NESTING_TOO_DEEP", f"nesting deeper than {w.max_depth}")
            return
        if len(v) > w.max_items:
            w.fail(p, "TOO_MANY_ITEMS", f"{len(v)} entries; the limit is {w.max_items}")
            return
        w.members += len(v)
        for key, x in v.items():
            if type(key) is not str:
                w.fail(p, "TYPE_MISMATCH", "object keys must be strings")
                return
            if len(key) > w.max_chars and not check_string_bytes(key, p, w):
                return
            tx = type(x)
            # Scalars are checked here; only their failures build a pointer.
            if tx is str:
                if len(x) > w.max_chars:
                    check_string_bytes(x, p + "/" + escape_token(key), w)
            elif tx is bool or x is None:
                pass
            elif tx is int:
                if x < INT64_MIN or x > INT64_MAX:
                    check_value(x, p + "/" + escape_token(key), w, depth + 1)
            elif tx is float:
                if x - x != 0 or x >= 9.2e18 or x <= -9.2e18:
                    check_value(x, p + "/" + escape_token(key), w, depth + 1)
            else:
                check_value(x, p + "/" + escape_token(key), w, depth + 1)
    elif t is list:
        if depth > w.max_depth:
            w.fail(p, "NESTING_TOO_DEEP", f"nesting deeper than {w.max_depth}")
            return
        if len(v) > w.max_items:
            w.fail(p, "TOO_MANY_ITEMS", f"{len(v)} elements; the limit is {w.max_items}")
            return
        for i, x in enumerate(v):
            tx = type(x)
            if tx is str:
                if len(x) > w.max_chars:
                    check_string_bytes(x, f"{p}/{i}", w)
            elif tx is bool or x is None:
                pass
            elif tx is float and x - x == 0 and -9.2e18 < x < 9.2e18:
                pass
            elif tx is int and INT64_MIN <= x <= INT64_MAX:
                pass
            else:
                check_value(x, f"{p}/{i}", w, depth + 1)
    elif t is str:
        if len(v) > w.max_chars:
            check_string_bytes(v, p, w)
    elif t is int:
        if v < INT64_MIN or v > INT64_MAX:
            w.fail(p, "NUMBER_OUT_OF_RANGE", f"{_int_text(v)} is outside the 64-bit signed range")
    elif t is float:
        if v - v != 0:
            w.fail(p, "NON_FINITE_NUMBER", "NaN and infinities are not allowed")
        elif v >= 9.2e18 or v <= -9.2e18:
            # Possibly an integer token too long for the fast JSON parser.
            w.large_float = True
    elif v is not None and t is not bool:
        w.fail(p, "TYPE_MISMATCH", f"{t.__name__} is not a JSON value")


def check_unknown_value(v: Any, p: str, w: Any, depth: int) -> None:
    """Content of a newer minor version: any value its encoding can carry,
    such as MessagePack bin and timestamps, within the limits."""
    t = type(v)
    if t is bytes or t is _msgpack.Timestamp:
        return
    if t is dict:
        if depth > w.max_depth:
            w.fail(p, "NESTING_TOO_DEEP", f"nesting deeper than {w.max_depth}")
            return
        w.members += len(v)
        for key, x in v.items():
            if type(key) is not str:
                w.fail(p, "TYPE_MISMATCH", "object keys must be strings")
                return
            check_unknown_value(x, p + "/" + escape_token(key), w, depth + 1)
    elif t is list:
        if depth > w.max_depth:
            w.fail(p, "NESTING_TOO_DEEP", f"nesting deeper than {w.max_depth}")
            return
        for i, x in enumerate(v):
            check_unknown_value(x, f"{p}/{i}", w, depth + 1)
    else:
        check_value(v, p, w, depth)


def check_member_names(d: dict[Any, Any], p: str, w: Any) -> None:
    """Member names are strings, and the string limit holds for them too."""
    for key in d:
        if type(key) is str and len(key.encode()) > w.limits.max_string_bytes:
            w.fail(f"{p}/{escape_token(key)}", "STRING_TOO_LONG",
                   f"the member name is longer than {w.limits.max_string_bytes} bytes")


def extra_member(key: Any, v: Any, p: str, w: Any, info: m.MessageInfo, depth: int) -> None:
    """Report a null member or an unknown member of an object."""
    if key in info.fields:
        w.fail(f"{p}/{key}", "NULL_VALUE", "null is not a value of any field; omit it")
    elif w.tolerant and type(key) is str:
        w.unknown.append(f"{p}/{escape_token(key)}")
        check_unknown_value(v, f"{p}/{escape_token(key)}", w, depth + 1)
    else:
        w.fail(f"{p}/{escape_token(str(key))}", "UNKNOWN_FIELD", f"{info.name} has no field {key!r}")
        # Its content is not read, but the depth limit holds for the whole document.
        deep = _too_deep(v, f"{p}/{escape_token(str(key))}", depth + 1, w.max_depth)
        if deep is not None:
            w.fail(deep, "NESTING_TOO_DEEP", f"nesting deeper than {w.max_depth}")


def _too_deep(v: Any, p: str, depth: int, limit: int) -> str | None:
    """The pointer of the first container nested deeper than the limit."""
    if type(v) is dict or type(v) is list:
        if depth > limit:
            return p
        items = v.items() if type(v) is dict else enumerate(v)
        for key, x in items:
            found = _too_deep(x, f"{p}/{escape_token(str(key))}", depth + 1, limit)
            if found is not None:
                return found
    return None


def sorted_value(v: Any) -> Any:
    t = type(v)
    if t is dict:
        return {k: sorted_value(v[k]) for k in sorted(v)}
    if t is list:
        return [sorted_value(x) for x in v]
    return v


def ts_mp(v: str) -> _msgpack.Timestamp:
    return _msgpack.Timestamp(*_timestamp.parse(v))


@functools.lru_cache(maxsize=64)
def _float32_format(count: int) -> struct.Struct:
    return struct.Struct(f"<{count}f")


def float32_bytes(v: Any) -> bytes:
    """The little-endian binary32 bytes of a valid float32 vector: those it
    was read from, or its values rounded to nearest (struct packs them in
    one call, where an array converts them one at a time)."""
    if type(v) is Float32Values:
        return v.raw
    if type(v) is Float32Bytes:
        return bytes(v)  # exact bytes, which the MessagePack writer in C takes
    if float32_le is not None:
        raw = float32_le(v)
        if raw is not None:
            return raw
    return _float32_format(len(v)).pack(*v)


def float32_values(v: Any) -> tuple[float, ...]:
    """The values of a valid float32 vector rounded to binary32."""
    raw = float32_bytes(v)
    return _float32_format(len(raw) >> 2).unpack(raw)


def vector_values(v: Any) -> list[float]:
    """The values of a valid float32 vector rounded to binary32, as a list."""
    if type(v) is Float32Bytes:
        return v.values()
    return array("f", v).tolist()


def vec_mp(v: Any) -> bytes:
    return float32_bytes(v)


# -- Protobuf wire bytes -----------------------------------------------------

_VARINT1 = [bytes((i,)) for i in range(128)]
_pack_double = struct.Struct("<d").pack


def varint(n: int) -> bytes:
    if 0 <= n < 128:
        return _VARINT1[n]
    if n < 0:
        n += 1 << 64
    out = bytearray()
    while n > 127:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def pb_string(tag: bytes, v: str) -> bytes:
    b = v.encode("utf-8")
    n = len(b)
    return tag + (_VARINT1[n] if n < 128 else varint(n)) + b


def pb_bytes(tag: bytes, b: bytes) -> bytes:
    n = len(b)
    return tag + (_VARINT1[n] if n < 128 else varint(n)) + b


def pb_timestamp(tag: bytes, v: str) -> bytes:
    seconds, nanos = _timestamp.parse(v)
    inner = (b"\x08" + varint(seconds) if seconds else b"") + (b"\x10" + varint(nanos) if nanos else b"")
    return tag + _VARINT1[len(inner)] + inner


def pb_vector(tag: bytes, v: Any) -> bytes:
    return pb_bytes(tag, float32_bytes(v))


def pb_packed(tag: bytes, values: list[int]) -> bytes:
    return pb_bytes(tag, b"".join([varint(x) for x in values]))


def pb_value(v: Any) -> bytes:
    """The fields of a memorywire.v1.Value message."""
    t = type(v)
    if t is str:
        return pb_string(b"\x2a", v)
    if t is int:
        return b"\x18" + varint((v << 1) ^ (v >> 63) if v < 0 else v << 1)
    if t is float:
        return b"\x21" + _pack_double(v)
    if t is bool:
        return b"\x10\x01" if v else b"\x10\x00"
    if v is None:
        return b"\x08\x00"
    if t is list:
        return pb_bytes(b"\x32", b"".join([pb_bytes(b"\x0a", pb_value(x)) for x in v]))
    return pb_bytes(b"\x3a", pb_entries(b"\x0a", v))


def pb_entries(tag: bytes, v: dict[str, Any]) -> bytes:
    """A map from strings to Values as repeated MapEntry, sorted by key."""
    out = []
    for key in sorted(v):
        entry = (pb_string(b"\x0a", key) if key else b"") + pb_bytes(b"\x12", pb_value(v[key]))
        out.append(pb_bytes(tag, entry))
    return b"".join(out)


# -- source generation -------------------------------------------------------


class _Source:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: dict[str, Any] = {}
        self._n = 0

    def const(self, value: Any, prefix: str = "_k") -> str:
        for name, existing in self.consts.items():
            if existing is value or (type(existing) is type(value) and existing == value
                                     and not isinstance(value, (dict, list))):
                return name
        self._n += 1
        name = f"{prefix}{self._n}"
        self.consts[name] = value
        return name

    def add(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)


def _pt(p: str, key: str) -> str:
    """Source of a pointer expression for member key below pointer p."""
    return f'{p} + "/{escape_token(key)}"'


def _gen_check(src: _Source, info: m.MessageInfo) -> None:
    name = info.name
    src.add(0, f"def check_{name}(d, p, w, depth):")
    src.add(1, "if type(d) is not dict:")
    src.add(2, f'w.fail(p, "TYPE_MISMATCH", "expected an object ({name}), got " + _jtype(d))')
    src.add(2, "return")
    src.add(1, "if depth > w.max_depth:")
    src.add(2, 'w.fail(p, "NESTING_TOO_DEEP", f"nesting deeper than {w.max_depth}")')
    src.add(2, "return")
    longest = max((len(name.encode()) for name in info.fields), default=0)
    src.add(1, f"if w.limits.max_string_bytes < {longest}:")
    src.add(2, "check_member_names(d, p, w)")
    src.add(1, "if len(d) > w.max_items:")
    src.add(2, 'w.fail(p, "TOO_MANY_ITEMS", f"{len(d)} members; the limit is {w.max_items}")')
    src.add(2, "return")
    src.add(1, "w.members += len(d)")
    nullable = src.const(frozenset(f.name for f in info.ordered if f.kind == m.VALUE and not f.is_map), "_nullable")
    for oneof in info.oneofs:
        src.add(1, f"n_{oneof} = 0")
    src.add(1, "for key, v in d.items():")
    src.add(2, f"if v is None and key not in {nullable}:")
    src.add(3, f"extra_member(key, v, p, w, {src.const(info, '_info')}, depth)")
    src.add(3, "continue")
    # Dispatch on the member name with one dict lookup and a binary tree of
    # integer comparisons, not a chain of string comparisons.
    index = src.const({f.name: i for i, f in enumerate(info.ordered)}, "_index")
    src.add(2, f"i = {index}.get(key)")
    src.add(2, "if i is None:")
    src.add(3, f"extra_member(key, v, p, w, {src.const(info, '_info')}, depth)")
    src.add(3, "continue")
    _gen_dispatch(src, info, list(enumerate(info.ordered)), 2)
    for f in info.ordered:
        if f.required:
            absent = f'"{f.name}" not in d' if f.kind == m.VALUE else f'd.get("{f.name}") is None'
            src.add(1, f"if {absent}:")
            src.add(2, f'w.fail({_pt("p", f.name)}, "REQUIRED_FIELD_MISSING", "{name}.{f.name} is required")')
    for oneof, members in info.oneofs.items():
        mem = src.const(tuple(members), "_one")
        src.add(1, f"if n_{oneof} > 1:")
        src.add(2, f"present = [k for k in d if k in {mem} and d[k] is not None]")
        src.add(2, f'w.fail(p + "/" + present[1], "ONEOF_CONFLICT", "at most one of {", ".join(members)} may be set")')
        if (info.name, oneof) in _EXACTLY_ONE:
            # In a document of a newer minor version, unknown content may be the member.
            fields = src.const(frozenset(info.fields), "_fields")
            src.add(1, f"elif n_{oneof} == 0 and not (w.tolerant and any(k not in {fields} for k in d)):")
            src.add(2, f'w.fail(p, "REQUIRED_FIELD_MISSING", "one of {", ".join(members)} is required")')
    if info.name in _rules.SPECIAL:
        src.add(1, f"SPECIAL[{src.const(info.name, '_name')}](w, d, p)")
    src.add(0, "")



#: Oneofs of which exactly one member is set; a record's payload is checked
#: by memorywire.validation, since a tombstone has none.
_EXACTLY_ONE = frozenset({("ContentPart", "part"), ("Filter", "expression")})


def _gen_dispatch(src: _Source, info: m.MessageInfo, fields: list[tuple[int, m.FieldInfo]],
                  ind: int) -> None:
    if len(fields) == 1:
        _gen_check_field(src, info, fields[0][1], ind)
        return
    mid = len(fields) // 2
    src.add(ind, f"if i < {fields[mid][0]}:")
    _gen_dispatch(src, info, fields[:mid], ind + 1)
    src.add(ind, "else:")
    _gen_dispatch(src, info, fields[mid:], ind + 1)


def _gen_check_field(src: _Source, info: m.MessageInfo, f: m.FieldInfo, ind: int) -> None:
    key = f.name
    ptr = _pt("p", key)
    if f.oneof is not None:
        src.add(ind, f"n_{f.oneof} += 1")
    if f.is_map:
        _gen_check_map(src, f, ptr, ind)
    elif f.repeated:
        _gen_check_repeated(src, f, ptr, ind)
    else:
        _gen_check_single(src, f, "v", ptr, ind, "depth + 1")
    if f.required and (f.repeated or f.is_map or f.kind in (m.STRING, m.BYTES, m.UINT)):
        src.add(ind, "if not v:")
        src.add(ind + 1, f'w.fail({ptr}, "REQUIRED_FIELD_MISSING", "{info.name}.{key} is required")')


def _gen_check_single(src: _Source, f: m.FieldInfo, var: str, ptr: str, ind: int, depth: str,
                      item: bool = False) -> None:
    k = f.kind
    if k == m.STRING:
        src.add(ind, f"if type({var}) is not str:")
        src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected a string, got " + _jtype({var}))')
        src.add(ind, "else:")
        limit = f.max_length
        cond = f"len({var}) > w.max_chars" + (f" or len({var}) > {limit}" if limit is not None else "")
        src.add(ind + 1, f"if {cond}:")
        if limit is None:
            src.add(ind + 2, f"check_string_bytes({var}, {ptr}, w)")
        else:
            src.add(ind + 2, f"if check_string_bytes({var}, {ptr}, w) and len({var}) > {limit}:")
            src.add(ind + 3, f'w.fail({ptr}, "LENGTH_OUT_OF_RANGE", '
                             f'f"{{len({var})}} characters; at most {limit} allowed")')
        if f.min_length is not None and (f.min_length > 1 or item or not f.required):
            src.add(ind + 1, f"if len({var}) < {f.min_length}:")
            src.add(ind + 2, f'w.fail({ptr}, "LENGTH_OUT_OF_RANGE", '
                             f'f"{{len({var})}} characters; at least {f.min_length} required")')
        if f.format:
            src.add(ind + 1, f"if {var} and not check_format({var}, {f.format!r}):")
            src.add(ind + 2, f'w.fail({ptr}, "INVALID_FORMAT", f"{{{var}[:64]!r}} is not a {f.format}")')
        if f.pattern is not None:
            pat = src.const(f.pattern, "_re")
            src.add(ind + 1, f"if {var} and {pat}.search({var}) is None:")
            src.add(ind + 2, f'w.fail({ptr}, "PATTERN_MISMATCH", f"{{{var}[:64]!r}} does not match " + {pat}.pattern)')
    elif k == m.MESSAGE:
        assert f.message is not None
        src.add(ind, f"check_{f.message.name}({var}, {ptr}, w, {depth})")
    elif k == m.ENUM:
        assert f.enum is not None
        names = src.const(frozenset(f.enum.by_json), "_enum")
        src.add(ind, f"if type({var}) is not str or {var} not in {names}:")
        src.add(ind + 1, f"check_unknown_enum({var}, {ptr}, w, {f.enum.name!r})")
    elif k == m.UINT:
        src.add(ind, f"if type({var}) is not int:")
        src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected an integer, got " + _jtype({var}))')
        # Possibly an integer token too long for the fast JSON parser.
        src.add(ind + 1, f"w.large_float = w.large_float or type({var}) is float")
        type_max = f.type_max
        src.add(ind, f"elif {var} < 0 or {var} > {type_max}:")
        src.add(ind + 1, f'w.fail({ptr}, "NUMBER_OUT_OF_RANGE", f"{{_int_text({var})}} is outside 0..{type_max}")')
        if f.uint_max < type_max:
            src.add(ind, f"elif {var} > {f.uint_max}:")
            src.add(ind + 1, f'w.fail({ptr}, "VALUE_OUT_OF_RANGE", '
                             f'f"{{_int_text({var})}} is greater than {f.uint_max}")')
        if f.minimum is not None and f.minimum > 0:
            src.add(ind, f"elif {var} < {int(f.minimum)}:")
            src.add(ind + 1, f'w.fail({ptr}, "VALUE_OUT_OF_RANGE", f"{{{var}}} is less than {int(f.minimum)}")')
    elif k == m.BOOL:
        src.add(ind, f"if type({var}) is not bool:")
        src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected a boolean, got " + _jtype({var}))')
    elif k == m.DOUBLE:
        src.add(ind, f"t = type({var})")
        src.add(ind, "if t is not float and t is not int:")
        src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected a number, got " + _jtype({var}))')
        src.add(ind, f"elif t is float and {var} - {var} != 0:")
        src.add(ind + 1, f'w.fail({ptr}, "NON_FINITE_NUMBER", "NaN and infinities are not allowed")')
        src.add(ind, f"elif t is int and not -FLOAT_INT_END < {var} < FLOAT_INT_END:")
        src.add(ind + 1, f'w.fail({ptr}, "NON_FINITE_NUMBER", _int_text({var}) + " rounds to infinity")')
        if f.minimum is not None or f.maximum is not None:
            lo = f.minimum if f.minimum is not None else -math.inf
            hi = f.maximum if f.maximum is not None else math.inf
            src.add(ind, f"elif not {lo!r} <= {var} <= {hi!r}:")
            src.add(ind + 1, f'w.fail({ptr}, "VALUE_OUT_OF_RANGE", f"{{{var}}} is outside {lo:g}..{hi:g}")')
    elif k == m.TIMESTAMP:
        src.add(ind, f"if type({var}) is not str:")
        src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected an RFC 3339 string, got " + _jtype({var}))')
        src.add(ind, f"elif not timestamp_ok({var}):")
        src.add(ind + 1, f'w.fail({ptr}, "INVALID_TIMESTAMP", '
                         f'f"{{{var}!r}} is not an RFC 3339 UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fraction]Z)")')
    elif k == m.VALUE:
        src.add(ind, f"check_value({var}, {ptr}, w, {depth})")
    elif k == m.BYTES:
        src.add(ind, f"if type({var}) is not str:")
        src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected a base64 string, got " + _jtype({var}))')
        src.add(ind, f"elif _BASE64.fullmatch({var}) is None:")
        src.add(ind + 1, f'w.fail({ptr}, "INVALID_BASE64", "not base64 with padding in the standard alphabet")')
    else:
        # Float32 values come only in vectors, which check_vector reads whole.
        raise AssertionError(f"no check for a single value of {f.name}")


def _gen_check_repeated(src: _Source, f: m.FieldInfo, ptr: str, ind: int) -> None:
    if f.kind == m.FLOAT32:
        # A list of numbers, or a vector read from binary32 bytes: a
        # Float32Values, or a Float32Bytes of four bytes a value.
        src.add(ind, "nv = len(v) >> 2 if type(v) is Float32Bytes else "
                     "len(v) if type(v) is list or type(v) is Float32Values else -1")
        src.add(ind, "if nv < 0:")
        count = "nv"
    else:
        src.add(ind, "if type(v) is not list:")
        count = "len(v)"
    src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected an array, got " + _jtype(v))')
    src.add(ind, f"elif {count} > w.max_items:")
    src.add(ind + 1, f'w.fail({ptr}, "TOO_MANY_ITEMS", f"{{{count}}} elements; the limit is {{w.max_items}}")')
    src.add(ind, "else:")
    if f.max_items is not None:
        src.add(ind + 1, f"if {count} > {f.max_items}:")
        src.add(ind + 2, f'w.fail({ptr}, "COUNT_OUT_OF_RANGE", f"{{{count}}} elements; at most {f.max_items} allowed")')
    src.add(ind + 1, "if depth + 1 > w.max_depth:")
    src.add(ind + 2, f'w.fail({ptr}, "NESTING_TOO_DEEP", f"nesting deeper than {{w.max_depth}}")')
    src.add(ind + 1, "else:")
    if f.kind == m.FLOAT32:
        src.add(ind + 2, f"check_vector(v, {ptr}, w)")
        return
    src.add(ind + 2, "for i, x in enumerate(v):")
    src.add(ind + 3, "if x is None:")
    src.add(ind + 4, f'w.fail({ptr} + f"/{{i}}", "NULL_VALUE", "null is not a value of any field")')
    src.add(ind + 4, "continue")
    _gen_check_single(src, f, "x", f'{ptr} + f"/{{i}}"', ind + 3, "depth + 2", item=True)


def _gen_check_map(src: _Source, f: m.FieldInfo, ptr: str, ind: int) -> None:
    src.add(ind, "if type(v) is not dict:")
    src.add(ind + 1, f'w.fail({ptr}, "TYPE_MISMATCH", "expected an object, got " + _jtype(v))')
    src.add(ind, "else:")
    if f.max_items is not None:
        src.add(ind + 1, f"if len(v) > {f.max_items}:")
        src.add(ind + 2, f'w.fail({ptr}, "COUNT_OUT_OF_RANGE", f"{{len(v)}} entries; at most {f.max_items} allowed")')
    if f.key_pattern is not None:
        pat = src.const(f.key_pattern, "_re")
        src.add(ind + 1, "for key in v:")
        src.add(ind + 2, f"if type(key) is str and {pat}.search(key) is None:")
        src.add(ind + 3, f'w.fail({ptr} + "/" + escape_token(key), "PATTERN_MISMATCH", '
                         f'f"key {{key!r}} does not match " + {pat}.pattern)')
    src.add(ind + 1, f"check_value(v, {ptr}, w, depth + 1)")


# Fields whose canonical form is their JSON form as it stands.
_PLAIN = (m.STRING, m.BOOL, m.UINT)


def _needs(kind: int, info: m.MessageInfo | None, job: str) -> bool:
    """Whether values of this kind change in the given job."""
    if kind == m.MESSAGE:
        assert info is not None
        return True
    if job == "mp":
        return kind in (m.TIMESTAMP, m.BYTES, m.FLOAT32, m.DOUBLE, m.VALUE)
    if job == "js":
        return kind in (m.TIMESTAMP, m.FLOAT32, m.DOUBLE)
    if job == "un":
        return kind in (m.TIMESTAMP, m.BYTES, m.FLOAT32, m.DOUBLE)
    return False


def _default_test(f: m.FieldInfo, var: str) -> str:
    """Source of a test that is true when var is worth writing."""
    if f.presence or f.kind in (m.MESSAGE, m.TIMESTAMP, m.VALUE):
        return "True"
    if f.kind == m.DOUBLE:
        return f"({var} or copysign(1.0, {var}) < 0)"
    return var


def _gen_out(src: _Source, info: m.MessageInfo, job: str) -> None:
    """mp_ and js_: canonical forms, keys in sorted order, defaults dropped."""
    src.add(0, f"def {job}_{info.name}(d):")
    src.add(1, "o = {}")
    src.add(1, "n = 0")
    for f in sorted(info.ordered, key=lambda f: f.name):
        if f.kind == m.VALUE and not f.is_map:
            src.add(1, f'v = d.get("{f.name}", MISSING)')
            src.add(1, "if v is not MISSING:")
        else:
            src.add(1, f'v = d.get("{f.name}")')
            src.add(1, "if v is not None:")
        src.add(2, "n += 1")
        if f.is_map:
            src.add(2, "if v:")
            src.add(3, f'o["{f.name}"] = ' + ("sorted_value(v)" if job == "mp" else "v"))
            continue
        if f.repeated:
            src.add(2, "if v:")
            src.add(3, f'o["{f.name}"] = ' + _out_expr(src, f, job, repeated=True))
            continue
        test = _default_test(f, "v")
        if test == "True":
            src.add(2, f'o["{f.name}"] = ' + _out_expr(src, f, job, repeated=False))
        else:
            src.add(2, f"if {test}:")
            src.add(3, f'o["{f.name}"] = ' + _out_expr(src, f, job, repeated=False))
    src.add(1, "if n != len(d):")
    src.add(2, f"return unknown_out(d, o, {src.const(info, '_info')}, {job!r})")
    src.add(1, "return o")
    src.add(0, "")


def _out_expr(src: _Source, f: m.FieldInfo, job: str, repeated: bool) -> str:
    k = f.kind
    if k == m.FLOAT32:
        return "vec_mp(v)" if job == "mp" else "vector_values(v)"

    def one(x: str) -> str:
        if k == m.MESSAGE:
            assert f.message is not None
            return f"{job}_{f.message.name}({x})"
        if k == m.TIMESTAMP:
            return f"ts_mp({x})" if job == "mp" else f"ts_canonical({x})"
        if k == m.DOUBLE:
            return f"float({x})"
        if k == m.BYTES and job == "mp":
            return f"b64decode({x})"
        if k == m.VALUE and job == "mp":
            return f"sorted_value({x})"
        return x

    if repeated:
        if not _needs(k, f.message, job) or (k == m.BYTES and job != "mp") or (k == m.VALUE and job != "mp"):
            return "v"
        return f"[{one('x')} for x in v]"
    return one("v")


def _tag(number: int, wire: int) -> bytes:
    return varint(number << 3 | wire)


def field_tag(f: m.FieldInfo) -> bytes:
    """The tag of a field as the Protobuf writers write it: length-delimited
    for maps, repeated fields (packed) and strings, bytes and messages."""
    k = f.kind
    wire = 2 if (f.is_map or f.repeated or k in (m.STRING, m.BYTES, m.MESSAGE, m.TIMESTAMP, m.VALUE)) \
        else (1 if k == m.DOUBLE else 0)
    return _tag(f.number, wire)


def _gen_pb(src: _Source, info: m.MessageInfo) -> None:
    """pb_: the canonical Protobuf bytes, fields in field-number order. The
    common cases (strings, nested messages, lengths under 128) are inlined."""
    src.add(0, f"def pb_{info.name}(d):")
    src.add(1, "o = []")
    src.add(1, "add = o.append")
    for f in info.ordered:
        key = f.name
        k = f.kind
        if k == m.VALUE and not f.is_map:
            src.add(1, f'v = d.get("{key}", MISSING)')
        else:
            src.add(1, f'v = d.get("{key}")')
        tag = src.const(field_tag(f), "_tag")
        test = "v" if (f.is_map or f.repeated) else ("v is not None" if f.presence else None)
        if k == m.VALUE and not f.is_map:
            test = "v is not MISSING"
        if test is None:
            test = "v is not None and (v or copysign(1.0, v) < 0)" if k == m.DOUBLE else "v"
        src.add(1, f"if {test}:")
        if f.is_map:
            src.add(2, f"add(pb_entries({tag}, v))")
        elif f.repeated:
            if k == m.FLOAT32:
                src.add(2, f"add(pb_vector({tag}, v))")
            elif k in (m.UINT, m.ENUM):
                conv = f"[{src.const(f.enum.by_json, '_ev')}[x] for x in v]" if f.enum else "v"
                src.add(2, f"add(pb_packed({tag}, {conv}))")
            elif k == m.STRING:
                src.add(2, "for x in v:")
                _inline_len(src, 3, tag, "x.encode()")
            elif k == m.MESSAGE:
                assert f.message is not None
                src.add(2, "for x in v:")
                _inline_len(src, 3, tag, f"pb_{f.message.name}(x)")
            elif k == m.BYTES:
                src.add(2, f"o.extend([pb_bytes({tag}, b64decode(x)) for x in v])")
            elif k == m.TIMESTAMP:
                src.add(2, f"o.extend([pb_timestamp({tag}, x) for x in v])")
            else:
                raise AssertionError(f"no Protobuf writer for repeated {f.name}")
        elif k == m.STRING:
            _inline_len(src, 2, tag, "v.encode()")
        elif k == m.BOOL:
            src.add(2, f"add({tag} + (b'\\x01' if v else b'\\x00'))")
        elif k == m.UINT:
            src.add(2, f"add({tag} + (V1[v] if v < 128 else varint(v)))")
        elif k == m.ENUM:
            assert f.enum is not None
            src.add(2, f"add({tag} + varint({src.const(f.enum.by_json, '_ev')}[v]))")
        elif k == m.DOUBLE:
            src.add(2, f"add({tag} + pack_double(v))")
        elif k == m.BYTES:
            src.add(2, f"add(pb_bytes({tag}, b64decode(v)))")
        elif k == m.TIMESTAMP:
            src.add(2, f"add(pb_timestamp({tag}, v))")
        elif k == m.VALUE:
            _inline_len(src, 2, tag, "pb_value(v)")
        elif k == m.MESSAGE:
            assert f.message is not None
            _inline_len(src, 2, tag, f"pb_{f.message.name}(v)")
        else:
            raise AssertionError(f"no Protobuf writer for {f.name}")
    src.add(1, 'return b"".join(o)')
    src.add(0, "")


def _inline_len(src: _Source, ind: int, tag: str, expr: str) -> None:
    """Append tag, length and bytes of a length-delimited field."""
    src.add(ind, f"b = {expr}")
    src.add(ind, "n = len(b)")
    src.add(ind, f"add({tag} + (V1[n] if n < 128 else varint(n)) + b)")


def _gen_un(src: _Source, info: m.MessageInfo) -> None:
    """un_: MessagePack form to JSON form; other values pass to the validator."""
    special = [f for f in info.ordered if not f.is_map and _needs(f.kind, f.message, "un")]
    src.add(0, f"def un_{info.name}(d):")
    if not special:
        src.add(1, "return d")
        src.add(0, "")
        return
    src.add(1, "if type(d) is not dict:")
    src.add(2, "return d")
    src.add(1, "o = dict(d)")
    for f in special:
        src.add(1, f'v = d.get("{f.name}")')
        src.add(1, "if v is not None:")
        src.add(2, "try:")
        if f.kind == m.FLOAT32:
            src.add(3, f'o["{f.name}"] = un_vector(v)')
        elif f.repeated:
            src.add(3, "if type(v) is list:")
            src.add(4, f'o["{f.name}"] = [at(i, {_un_fn(f)}, x) for i, x in enumerate(v)]')
        else:
            src.add(3, f'o["{f.name}"] = {_un_fn(f)}(v)')
        src.add(2, "except PathError as e:")
        src.add(3, f'raise e.at("{f.name}") from None')
    src.add(1, "return o")
    src.add(0, "")


def _un_fn(f: m.FieldInfo) -> str:
    if f.kind == m.MESSAGE:
        assert f.message is not None
        return f"un_{f.message.name}"
    return {m.TIMESTAMP: "un_timestamp", m.BYTES: "un_bytes", m.DOUBLE: "un_double"}[f.kind]


def unknown_out(d: dict[str, Any], o: dict[str, Any], info: m.MessageInfo, job: str) -> dict[str, Any]:
    """Members a newer minor version added: kept, in key order."""
    for key, v in d.items():
        if key not in info.fields:
            o[key] = sorted_value(v) if job == "mp" else v
    return {k: o[k] for k in sorted(o)}


def _build() -> dict[str, Any]:
    from memorywire import _codec

    src = _Source()
    infos = m.reachable_infos()
    for info in infos:
        _gen_check(src, info)
        _gen_out(src, info, "mp")
        _gen_out(src, info, "js")
        _gen_un(src, info)
        _gen_pb(src, info)
    namespace: dict[str, Any] = {
        "_jtype": _jtype, "_int_text": _int_text, "FLOAT_INT_END": _FLOAT_INT_END,
        "timestamp_ok": timestamp_ok, "check_vector": check_vector,
        "check_unknown_enum": check_unknown_enum, "check_format": check_format,
        "check_member_names": check_member_names,
        "check_string_bytes": check_string_bytes, "check_value": check_value,
        "extra_member": extra_member, "escape_token": escape_token, "_BASE64": _BASE64,
        "ts_mp": ts_mp, "vec_mp": vec_mp, "vector_values": vector_values, "MISSING": _MISSING,
        "sorted_value": sorted_value, "b64decode": base64.b64decode, "array": array,
        "copysign": math.copysign, "ts_canonical": _timestamp.canonical, "unknown_out": unknown_out,
        "un_vector": _codec._vector, "un_timestamp": _codec._timestamp_json,
        "un_bytes": _codec._bytes_json, "un_double": _un_double, "at": _codec._at,
        "PathError": _codec.PathError, "SPECIAL": _rules.SPECIAL, "Float32Values": Float32Values,
        "Float32Bytes": Float32Bytes,
        "pb_string": pb_string, "pb_bytes": pb_bytes, "pb_timestamp": pb_timestamp,
        "pb_vector": pb_vector, "pb_packed": pb_packed, "pb_value": pb_value,
        "pb_entries": pb_entries, "varint": varint, "pack_double": _pack_double, "V1": _VARINT1,
    }
    namespace.update(src.consts)
    code = compile("\n".join(src.lines), "<memorywire._compiled>", "exec")
    exec(code, namespace)  # noqa: S102 - the source is generated above from the field tables
    namespace["__source__"] = "\n".join(src.lines)
    return namespace


def _un_double(v: Any) -> Any:
    return float(v) if type(v) is int else v


FUNCTIONS = _build()


def function(job: str, type_name: str) -> Any:
    """The generated function of a job for a message type."""
    return FUNCTIONS[f"{job}_{m.message(type_name).name}"]
