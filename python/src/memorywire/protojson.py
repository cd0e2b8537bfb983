"""ProtoJSON: the canonical JSON mapping of Protocol Buffers, for stock tools.

memorywire JSON (spec/v1/json-format.md) is not ProtoJSON: it writes enum
values as short names, 64-bit integers as numbers and a Value as the JSON
value itself. grpcurl, ``buf curl``, gRPC-JSON gateways, protobufjs and
``google.protobuf.json_format`` speak ProtoJSON of the messages in proto/,
in which a memorywire Value is the message it is on the wire
(``{"integerValue": "1"}``, ``{"mapValue": {"entries": [...]}}``) and a map
of Values is its repeated MapEntry field. This module converts between the
two, exactly: a valid document written as ProtoJSON and read back is the
same document, type for type (spec/v1/protobuf-format.md, section 8).

``encode`` writes canonical ProtoJSON: lowerCamelCase member names, members
in field-number order, default values of fields without presence omitted,
64-bit integers as strings, enum values by their proto names (the null
Value as ``{"nullValue": "NULL_VALUE"}``), float32 values in their shortest
spelling, map entries sorted by key, no white space. ``decode`` reads any ProtoJSON that the
ProtoJSON mapping allows (either member name, numbers or strings for
numbers, enum names or numbers, RFC 3339 timestamps with offsets, standard
or URL-safe base64) and validates the document; a fault is a typed error
whose pointer names the member of the ProtoJSON input.
"""

from __future__ import annotations

import base64
import binascii
import json as _stdjson
import math
import re
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, replace
from decimal import Decimal
from typing import Any

import orjson
from google.protobuf import descriptor as _d

from memorywire import _diagnose, _document, _timestamp
from memorywire import _model as m
from memorywire import json as _json
from memorywire._compiled import FLOAT32_OVERFLOW
from memorywire._document import DEFAULT_TYPE
from memorywire.errors import (
    MemorywireError,
    UnrepresentableError,
    Violation,
    decode_error,
    escape_token,
)
from memorywire.limits import DEFAULT_LIMITS, Limits
from memorywire.protobuf import _is_newer, _major

__all__ = ["Decoder", "Encoder", "decode", "encode"]

_FD = _d.FieldDescriptor
#: Integer types that ProtoJSON writes as strings.
_INT64_TYPES = frozenset({_FD.TYPE_INT64, _FD.TYPE_UINT64, _FD.TYPE_SINT64,
                          _FD.TYPE_FIXED64, _FD.TYPE_SFIXED64})
_INT_RANGES = {
    _FD.TYPE_UINT32: (0, 2**32 - 1), _FD.TYPE_FIXED32: (0, 2**32 - 1),
    _FD.TYPE_INT32: (-(2**31), 2**31 - 1), _FD.TYPE_SINT32: (-(2**31), 2**31 - 1),
    _FD.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    _FD.TYPE_UINT64: (0, 2**64 - 1), _FD.TYPE_FIXED64: (0, 2**64 - 1),
    _FD.TYPE_INT64: (-(2**63), 2**63 - 1), _FD.TYPE_SINT64: (-(2**63), 2**63 - 1),
    _FD.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
}
# The members of a memorywire.v1.Value, by ProtoJSON and by proto name.
_VALUE_KINDS = {
    "nullValue": "null", "null_value": "null",
    "boolValue": "bool", "bool_value": "bool",
    "integerValue": "integer", "integer_value": "integer",
    "floatValue": "float", "float_value": "float",
    "stringValue": "string", "string_value": "string",
    "listValue": "list", "list_value": "list",
    "mapValue": "map", "map_value": "map",
}
_VALUE_INT64 = _INT_RANGES[_FD.TYPE_SINT64]
_FLOAT32_MAX = float.fromhex("0x1.fffffep+127")
# A JSON number, the form a number in a string must have too.
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?\Z")
# More digits than any 64-bit integer needs: refused before int() reads them.
_MAX_INTEGER_DIGITS = 40
_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})"
    r"(?:\.([0-9]{1,9}))?(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))\Z")
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/\-_=]")


# -- the field tables ----------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    info: m.FieldInfo
    json_name: str
    #: The protobuf type, for the integer rules.
    type: int
    #: For enum fields: proto value name by memorywire name, and back.
    proto_names: dict[str, str]
    json_names: dict[str, str]
    #: For enum fields: the proto name of the value 0.
    zero_name: str = ""


@dataclass(frozen=True)
class _Message:
    info: m.MessageInfo
    #: Fields in field-number order.
    ordered: tuple[_Field, ...]
    #: Fields by ProtoJSON name and by proto name.
    by_name: dict[str, _Field]


_tables: dict[str, _Message] = {}


def _table(info: m.MessageInfo) -> _Message:
    table = _tables.get(info.full_name)
    if table is not None:
        return table
    fields = []
    for f in info.ordered:
        fd = info.descriptor.fields_by_name[f.name]
        proto_names: dict[str, str] = {}
        zero_name = ""
        if f.enum is not None:
            assert fd.enum_type is not None
            proto_names = {name: fd.enum_type.values_by_number[number].name
                           for name, number in f.enum.by_json.items()}
            zero_name = fd.enum_type.values_by_number[0].name
        fields.append(_Field(f, fd.json_name, fd.type, proto_names,
                             {p: j for j, p in proto_names.items()}, zero_name))
    by_name = {f.json_name: f for f in fields} | {f.info.name: f for f in fields}
    table = _tables[info.full_name] = _Message(info, tuple(fields), by_name)
    return table


# -- memorywire JSON form -> ProtoJSON -------------------------------------------


def _message_out(node: Mapping[str, Any], table: _Message) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in table.ordered:
        if f.info.name not in node:
            continue
        v = node[f.info.name]
        if f.info.is_map:
            out[f.json_name] = [_entry_out(k, v[k]) for k in sorted(v)]
        elif f.info.repeated:
            out[f.json_name] = [_scalar_out(x, f) for x in v]
        else:
            out[f.json_name] = _scalar_out(v, f)
    return out


def _scalar_out(v: Any, f: _Field) -> Any:
    k = f.info.kind
    if k == m.MESSAGE:
        assert f.info.message is not None
        return _message_out(v, _table(f.info.message))
    if k == m.VALUE:
        return _value_out(v)
    if k == m.ENUM:
        return f.proto_names[v]
    if k == m.UINT and f.type in _INT64_TYPES:
        return str(v)
    if k == m.FLOAT32:
        return _float32_out(v)
    # Strings, booleans, uint32, floats, canonical timestamps and base64
    # are the same in both mappings.
    return v


def _float32_out(x: float) -> float:
    """The double of the shortest decimal that reads back as the binary32
    value x, as ProtoJSON writers spell a float: 0.1, not 0.10000000149011612.
    A spelling beyond the greatest binary32 (3.4028235e+38) is not used, as
    some readers (Python's json_format) refuse it as too large."""
    for digits in range(1, 10):
        y = float(f"{x:.{digits}g}")
        if array("f", [y])[0] == x and abs(y) <= _FLOAT32_MAX:
            return y
    return x


def _entry_out(key: str, value: Any) -> dict[str, Any]:
    # A default key is omitted, as in every message without presence.
    return {"key": key, "value": _value_out(value)} if key else {"value": _value_out(value)}


def _value_out(v: Any) -> dict[str, Any]:
    t = type(v)
    if v is None:
        # The enum name, which every ProtoJSON reader takes; some refuse the
        # JSON null that json_format writes (grpcurl 1.8).
        return {"nullValue": "NULL_VALUE"}
    if t is bool:
        return {"boolValue": v}
    if t is int:
        return {"integerValue": str(v)}
    if t is float:
        return {"floatValue": v}
    if t is str:
        return {"stringValue": v}
    if t is list:
        return {"listValue": {"values": [_value_out(x) for x in v]} if v else {}}
    return {"mapValue": {"entries": [_entry_out(k, v[k]) for k in sorted(v)]} if v else {}}


# -- ProtoJSON -> memorywire JSON form -------------------------------------------


class _Fault(Exception):
    def __init__(self, reason: str, pointer: str, message: str) -> None:
        super().__init__(message)
        self.reason, self.pointer, self.message = reason, pointer, message


class _Number(str):
    """The text of a JSON number token, read by the field it is in."""

    __slots__ = ()


def _constant(token: str) -> Any:
    raise decode_error("SYNTAX_ERROR", "", f"{token} is not JSON")


def _parse(data: bytes, limits: Limits) -> Any:
    # orjson names the syntax faults with the reasons of the JSON encoding;
    # the standard library then reads every number token as its text.
    depth = _protojson_depth(limits)
    _json._parse(data, depth)
    try:
        return _stdjson.loads(data, object_pairs_hook=_diagnose.unique_pairs, parse_int=_Number,
                              parse_float=_Number, parse_constant=_constant)
    except RecursionError:
        raise decode_error("NESTING_TOO_DEEP", _diagnose.json_depth(data, depth) or "",
                           "the document nests too deeply") from None
    except _diagnose.Duplicate:
        pass
    except ValueError as e:
        raise decode_error("SYNTAX_ERROR", "", f"not a JSON document: {e}") from None
    try:
        # Read again, whole, to name the repeated member; a syntax fault
        # after it still comes first.
        tree = _stdjson.loads(data, object_pairs_hook=_diagnose.PairList, parse_int=_Number,
                              parse_float=_Number, parse_constant=_constant)
    except ValueError as e:
        raise decode_error("SYNTAX_ERROR", "", f"not a JSON document: {e}") from None
    pointer = _diagnose.find_duplicate(tree, "") or ""
    raise decode_error("DUPLICATE_KEY", pointer, f"the member {pointer.rsplit('/', 1)[-1]!r} appears twice")


def _protojson_depth(limits: Limits) -> int:
    # A level of a memorywire document is at most four in ProtoJSON: a map
    # Value is {"mapValue": {"entries": [{"value": ...}]}}.
    return 4 * limits.max_depth + 1


class _Reader:
    """One reading of a ProtoJSON document into the memorywire JSON form."""

    def __init__(self, limits: Limits, tolerant: bool) -> None:
        self.limits = limits
        #: Whether unknown members are those of a newer minor version.
        self.tolerant = tolerant

    def fail(self, reason: str, ptr: str, message: str) -> _Fault:
        return _Fault(reason, ptr, message)

    def unknown(self, ptr: str, what: str) -> _Fault:
        if self.tolerant:
            return _Fault("UNREPRESENTABLE", ptr,
                          f"{what} is unknown to this reader; the memorywire document cannot keep it")
        reason = "UNKNOWN_ENUM_VALUE" if what.startswith("the enum value") else "UNKNOWN_FIELD"
        return _Fault(reason, ptr, f"{what} is not defined")

    def deeper(self, depth: int, ptr: str) -> None:
        if depth > self.limits.max_depth:
            raise _Fault("NESTING_TOO_DEEP", ptr,
                         f"the document nests deeper than {self.limits.max_depth}")

    def message(self, node: Any, table: _Message, ptr: str, depth: int) -> dict[str, Any]:
        if type(node) is not dict:
            raise self.fail("TYPE_MISMATCH", ptr, f"a {table.info.name} is a JSON object")
        self.deeper(depth, ptr)
        out: dict[str, Any] = {}
        for key, v in node.items():
            here = f"{ptr}/{escape_token(key)}"
            f = table.by_name.get(key)
            if f is None:
                raise self.unknown(here, f"the member {key!r} of {table.info.name}")
            name = f.info.name
            if name in out:
                raise self.fail("DUPLICATE_KEY", here, f"the field {name} is given twice")
            if v is None:
                continue  # null is the default value in ProtoJSON
            if f.info.is_map:
                value: Any = self.entries(v, here, depth + 1)
            elif f.info.repeated:
                if type(v) is not list:
                    raise self.fail("TYPE_MISMATCH", here, f"{key} is a JSON array")
                self.deeper(depth + 1, here)
                value = []
                for i, x in enumerate(v):
                    if x is None:
                        raise self.fail("NULL_VALUE", f"{here}/{i}", "null is not an element")
                    value.append(self.scalar(x, f, f"{here}/{i}", depth + 2))
            else:
                value = self.scalar(v, f, here, depth + 1)
            if not f.info.presence and _is_default(value):
                continue  # as Protobuf, which does not write it
            out[name] = value
        return out

    def scalar(self, v: Any, f: _Field, ptr: str, depth: int) -> Any:
        k = f.info.kind
        t = type(v)
        if k == m.STRING:
            if t is not str:
                raise self.fail("TYPE_MISMATCH", ptr, "expected a string")
            return v
        if k == m.BOOL:
            if t is not bool:
                raise self.fail("TYPE_MISMATCH", ptr, "expected true or false")
            return v
        if k == m.UINT:
            low, high = _INT_RANGES[f.type]
            return self.integer(v, ptr, low, high)
        if k in (m.DOUBLE, m.FLOAT32):
            x = self.floating(v, ptr)
            if k == m.FLOAT32 and -FLOAT32_OVERFLOW < x < FLOAT32_OVERFLOW:
                # Rounded as Protobuf would; a value beyond is left for the
                # validator to refuse as out of range.
                x = array("f", [x])[0]
            return x
        if k == m.BYTES:
            return self.bytes(v, ptr)
        if k == m.ENUM:
            return self.enum(v, f, ptr)
        if k == m.TIMESTAMP:
            return self.timestamp(v, ptr)
        if k == m.VALUE:
            return self.value(v, ptr, depth)
        assert f.info.message is not None
        return self.message(v, _table(f.info.message), ptr, depth)

    def integer(self, v: Any, ptr: str, low: int, high: int) -> int:
        t = type(v)
        if t is not _Number and t is not str:
            raise self.fail("TYPE_MISMATCH", ptr, "expected an integer, as a number or a string")
        if _NUMBER.match(v) is None:
            raise self.fail("TYPE_MISMATCH", ptr, f"{v[:40]!r} is not an integer")
        mantissa, _, exponent = v.lower().partition("e")
        if len(mantissa) > _MAX_INTEGER_DIGITS or len(exponent) > 4 \
                or (exponent and abs(int(exponent)) > _MAX_INTEGER_DIGITS):
            if "." in mantissa or exponent.startswith("-"):
                raise self.fail("TYPE_MISMATCH", ptr, "a number with a fraction is not an integer")
            raise self.fail("NUMBER_OUT_OF_RANGE", ptr, "the integer is outside 64 bits")
        d = Decimal(v)
        if d != d.to_integral_value():
            raise self.fail("TYPE_MISMATCH", ptr, "a number with a fraction is not an integer")
        n = int(d)
        if not low <= n <= high:
            raise self.fail("NUMBER_OUT_OF_RANGE", ptr, f"{n} is outside {low}..{high}")
        return n

    def floating(self, v: Any, ptr: str) -> float:
        t = type(v)
        if t is str and v in ("NaN", "Infinity", "-Infinity"):
            raise self.fail("NON_FINITE_NUMBER", ptr, "NaN and infinities are not allowed")
        if (t is not _Number and t is not str) or _NUMBER.match(v) is None:
            raise self.fail("TYPE_MISMATCH", ptr, "expected a number")
        x = float(v)
        if math.isinf(x):
            raise self.fail("NON_FINITE_NUMBER", ptr, "the number overflows binary64")
        return x

    def bytes(self, v: Any, ptr: str) -> str:
        if type(v) is not str:
            raise self.fail("TYPE_MISMATCH", ptr, "expected a base64 string")
        text = v.rstrip("=")
        if _NOT_BASE64.search(text) is not None or len(text) % 4 == 1 or len(v) - len(text) > 2:
            raise self.fail("TYPE_MISMATCH", ptr, "not base64")
        try:
            raw = base64.b64decode(text.replace("-", "+").replace("_", "/") + "=" * (-len(text) % 4),
                                   validate=True)
        except binascii.Error:
            raise self.fail("TYPE_MISMATCH", ptr, "not base64") from None
        return base64.b64encode(raw).decode("ascii")

    def enum(self, v: Any, f: _Field, ptr: str) -> str | int:
        enum = f.info.enum
        assert enum is not None
        t = type(v)
        if t is str:
            name = f.json_names.get(v)
            if name is not None:
                return name
            if v != f.zero_name:
                raise self.unknown(ptr, f"the enum value {v[:64]!r} of {enum.name}")
            number = 0
        elif t is _Number:
            number = self.integer(v, ptr, -(2**31), 2**31 - 1)
        else:
            raise self.fail("TYPE_MISMATCH", ptr, f"expected a {enum.name} name")
        if number == 0:
            if f.info.repeated or f.info.presence:
                # Protobuf has no memorywire name for the unspecified value.
                raise self.fail("UNKNOWN_ENUM_VALUE", ptr, f"{v} is not a value of {enum.name}")
            return 0  # the default, which is not written
        name = enum.by_number.get(number)
        if name is None:
            raise self.unknown(ptr, f"the enum value {number} of {enum.name}")
        return name

    def timestamp(self, v: Any, ptr: str) -> str:
        if type(v) is not str:
            raise self.fail("TYPE_MISMATCH", ptr, "expected an RFC 3339 timestamp string")
        match = _RFC3339.match(v)
        if match is None:
            raise self.fail("INVALID_TIMESTAMP", ptr, f"{v[:40]!r} is not an RFC 3339 timestamp")
        year, month, day, hh, mm, ss = (int(x) for x in match.group(1, 2, 3, 4, 5, 6))
        fraction = match.group(7) or ""
        days_in_month = (31, 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28,
                         31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
        if not (1 <= month <= 12 and 1 <= day <= days_in_month[month - 1] and hh < 24 and mm < 60
                and ss < 60):
            raise self.fail("INVALID_TIMESTAMP", ptr, f"{v!r} is not a date and time")
        seconds, _ = _timestamp.parse(f"{year:04d}-{month:02d}-{day:02d}T{hh:02d}:{mm:02d}:{ss:02d}Z")
        if match.group(9):
            oh, om = int(match.group(10)), int(match.group(11))
            if oh > 23 or om > 59:
                raise self.fail("INVALID_TIMESTAMP", ptr, f"{v!r} has no valid offset")
            offset = (oh * 3600 + om * 60) * (1 if match.group(9) == "+" else -1)
            seconds -= offset
        nanos = int(fraction.ljust(9, "0")) if fraction else 0
        if not _timestamp.in_range(seconds, nanos):
            raise self.fail("INVALID_TIMESTAMP", ptr,
                            "timestamp outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z")
        return _timestamp.format(seconds, nanos)

    def value(self, node: Any, ptr: str, depth: int) -> Any:
        if type(node) is not dict:
            raise self.fail("TYPE_MISMATCH", ptr, "a Value is a JSON object with one member")
        kind: str | None = None
        found: Any = None
        for key, v in node.items():
            here = f"{ptr}/{escape_token(key)}"
            which = _VALUE_KINDS.get(key)
            if which is None:
                raise self.unknown(here, f"the member {key!r} of Value")
            if v is None and which != "null":
                continue
            if kind is not None:
                raise self.fail("ONEOF_CONFLICT", here, "a Value has one kind")
            kind, found = which, (key, v)
        if kind is None:
            raise self.fail("VALUE_KIND_MISSING", ptr, "a Value has none of its kinds set")
        key, v = found
        here = f"{ptr}/{escape_token(key)}"
        if kind == "null":
            if v is None or v == "NULL_VALUE" or (type(v) is _Number and v == "0"):
                return None
            raise self.fail("UNKNOWN_ENUM_VALUE", here, "the only NullValue is NULL_VALUE")
        if kind == "bool":
            if type(v) is not bool:
                raise self.fail("TYPE_MISMATCH", here, "expected true or false")
            return v
        if kind == "integer":
            return self.integer(v, here, *_VALUE_INT64)
        if kind == "float":
            return self.floating(v, here)
        if kind == "string":
            if type(v) is not str:
                raise self.fail("TYPE_MISMATCH", here, "expected a string")
            return v
        if type(v) is not dict:
            raise self.fail("TYPE_MISMATCH", here, f"a Value{kind.capitalize()} is a JSON object")
        self.deeper(depth, ptr)
        member = "values" if kind == "list" else "entries"
        items: Any = None
        for inner, x in v.items():
            if inner != member:
                raise self.unknown(f"{here}/{escape_token(inner)}",
                                   f"the member {inner!r} of Value{kind.capitalize()}")
            items = x
        if kind == "map":
            return self.entries(items, f"{here}/entries", depth) if items is not None else {}
        out: list[Any] = []
        if items is None:
            return out
        if type(items) is not list:
            raise self.fail("TYPE_MISMATCH", f"{here}/values", "values is a JSON array")
        for i, x in enumerate(items):
            if x is None:
                raise self.fail("NULL_VALUE", f"{here}/values/{i}", "null is not an element")
            out.append(self.value(x, f"{here}/values/{i}", depth + 1))
        return out

    def entries(self, node: Any, ptr: str, depth: int) -> dict[str, Any]:
        """A repeated MapEntry field: a JSON array of {"key", "value"} objects."""
        if type(node) is not list:
            raise self.fail("TYPE_MISMATCH", ptr, "a map of Values is a JSON array of MapEntry objects")
        self.deeper(depth, ptr)
        out: dict[str, Any] = {}
        for i, entry in enumerate(node):
            here = f"{ptr}/{i}"
            if type(entry) is not dict:
                raise self.fail("TYPE_MISMATCH", here, "a MapEntry is a JSON object")
            key: Any = ""
            value: Any = None
            for name, x in entry.items():
                if name == "key":
                    key = "" if x is None else x
                    if type(key) is not str:
                        raise self.fail("TYPE_MISMATCH", f"{here}/key", "expected a string")
                elif name == "value":
                    value = x
                else:
                    raise self.unknown(f"{here}/{escape_token(name)}", f"the member {name!r} of MapEntry")
            if key in out:
                raise self.fail("DUPLICATE_KEY", f"{here}/key", f"the key {key!r} appears twice")
            if value is None:
                raise self.fail("VALUE_KIND_MISSING", f"{here}/value", "a MapEntry has no value")
            out[key] = self.value(value, f"{here}/value", depth + 1)
        return out


def _is_default(v: Any) -> bool:
    t = type(v)
    if t is float:
        return v == 0.0 and math.copysign(1.0, v) > 0  # -0.0 is written
    return v is False or (t is int and v == 0) or (t in (str, list, dict) and not v)


# -- pointers --------------------------------------------------------------------


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def input_pointer(pointer: str, raw: Any, info: m.MessageInfo, *, key: bool = False) -> str:
    """The pointer into the ProtoJSON input of a member of the memorywire
    document read from it: the same member, under its ProtoJSON name, with
    Values and maps of Values spelled as their messages. With ``key``, a
    pointer to a map entry names the entry's key rather than its value."""
    if not pointer:
        return pointer
    out: list[str] = []
    node: Any = raw
    # What node is: ("message", table), ("repeated", field), ("map", None),
    # ("value", None), or ("leaf", None).
    where: tuple[str, Any] = ("message", _table(info))
    tokens = [_unescape(t) for t in pointer.split("/")[1:]]
    last = len(tokens) - 1
    for n, token in enumerate(tokens):
        state, arg = where
        if state == "message":
            f = arg.by_name.get(token)
            if f is None:
                out.append(token)
                node, where = None, ("leaf", None)
                continue
            member = f.json_name
            if type(node) is dict and member not in node and f.info.name in node:
                member = f.info.name
            out.append(member)
            node = node.get(member) if type(node) is dict else None
            if f.info.is_map:
                where = ("map", None)
            elif f.info.repeated:
                where = ("repeated", f)
            else:
                where = _element(f)
        elif state == "repeated":
            out.append(token)
            node = _index(node, token)
            where = _element(arg)
        elif state == "map":
            i, node = _entry(node, token)
            out.extend((str(i), "value") if i is not None else (token,))
            if key and i is not None and n == last:
                out[-1] = "key"
                break
            where = ("value", None) if i is not None else ("leaf", None)
        elif state == "value":
            kind, inner = _value_member(node)
            if kind is None:
                out.append(token)
                node, where = None, ("leaf", None)
            elif _VALUE_KINDS[kind] == "list":
                out.extend((kind, "values", token))
                node = _index(inner.get("values") if type(inner) is dict else None, token)
            else:
                entries = inner.get("entries") if type(inner) is dict else None
                i, node = _entry(entries, token)
                out.extend((kind, "entries", str(i), "value") if i is not None else (kind, token))
        else:
            out.append(token)
    return "".join("/" + escape_token(t) for t in out)


def _element(f: _Field) -> tuple[str, Any]:
    if f.info.kind == m.MESSAGE:
        assert f.info.message is not None
        return ("message", _table(f.info.message))
    if f.info.kind == m.VALUE:
        return ("value", None)
    return ("leaf", None)


def _index(node: Any, token: str) -> Any:
    if type(node) is list and token.isascii() and token.isdigit() and int(token) < len(node):
        return node[int(token)]
    return None


def _entry(entries: Any, key: str) -> tuple[int | None, Any]:
    if type(entries) is list:
        for i, entry in enumerate(entries):
            if type(entry) is dict and (entry.get("key") or "") == key:
                return i, entry.get("value")
    return None, None


def _value_member(node: Any) -> tuple[str | None, Any]:
    if type(node) is dict:
        for key, v in node.items():
            if _VALUE_KINDS.get(key) in ("list", "map") and v is not None:
                return key, v
    return None, None


# -- the codec -------------------------------------------------------------------


class Decoder:
    """Decodes ProtoJSON documents of one message type."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None,
                 vectors: str = "floats") -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        #: Whether float32 vectors come as ``Float32Bytes`` (``vectors="bytes"``).
        self._bytes = _document.byte_vectors(vectors)
        self._info = _document.info(type)
        #: An Error carries no specversion; it is read as of a newer minor.
        self._always_tolerant = self._info.name == "Error"

    def decode(self, data: bytes | str) -> dict[str, Any]:
        """Parse and validate one document."""
        return self.decode_walk(data)[0]

    def decode_walk(self, data: bytes | str) -> tuple[dict[str, Any], Any]:
        """Parse and validate one document; return it and its validation walk."""
        data = _document.text_bytes(data, self.limits)
        raw = _parse(data, self.limits)
        version = raw.get("specversion") if type(raw) is dict else None
        version = version if type(version) is str else None
        tolerant = self._always_tolerant or _is_newer(version)
        try:
            doc = _Reader(self.limits, tolerant).message(raw, _table(self._info), "", 1)
        except _Fault as f:
            if version is not None and _major(version) not in (None, "1"):
                raise decode_error("UNSUPPORTED_VERSION", "/specversion",
                                   f"specversion {version} is not a 1.x version") from None
            if f.reason == "UNREPRESENTABLE":
                raise UnrepresentableError(f.reason, f.message,
                                           [Violation(f.pointer, f.reason, f.message)]) from None
            raise decode_error(f.reason, f.pointer, f.message) from None
        except RecursionError:
            raise decode_error("NESTING_TOO_DEEP", "", "the document nests too deeply") from None
        try:
            walk = _document.validated(doc, self.type, self.limits)
        except MemorywireError as e:
            raise _located(e, raw, self._info) from None
        if self._bytes:
            _document.with_byte_vectors(doc, self._info)
        return doc, walk


def _located(e: MemorywireError, raw: Any, info: m.MessageInfo) -> MemorywireError:
    """The error with its pointers moved from the document to the input."""
    # A pattern a map entry breaks is its key's: Values have no pattern.
    violations = [replace(v, pointer=input_pointer(v.pointer, raw, info, key=v.reason == "PATTERN_MISMATCH"))
                  for v in e.violations]
    return type(e)(e.reason, e.message, violations)


class Encoder:
    """Encodes documents of one message type as canonical ProtoJSON."""

    def __init__(self, type: str = DEFAULT_TYPE, *, limits: Limits | None = None) -> None:
        self.type = type
        self.limits = limits or DEFAULT_LIMITS
        self._table = _table(_document.info(type))
        self._canonical = _document.function("js", type)

    def encode(self, doc: Mapping[str, Any], *, canonical: bool = True) -> bytes:
        """Validate one document and write it as canonical ProtoJSON."""
        _document.refuse_partial(doc, "protojson")
        walk = _document.validated(doc, self.type, self.limits, written=True)
        return self.encode_valid(doc, walk)

    def encode_valid(self, doc: Mapping[str, Any], walk: Any = None) -> bytes:
        """Write a document the validator has accepted as canonical ProtoJSON."""
        if walk is not None:
            _document.refuse_unknown(walk, "protojson")
        # The canonical JSON form has the defaults omitted and the floats,
        # float32 values and timestamps in their canonical spelling.
        return orjson.dumps(_message_out(self._canonical(doc), self._table))


_codecs = _document.Codecs(Decoder, Encoder)


def decode(data: bytes | str, *, type: str = DEFAULT_TYPE, limits: Limits | None = None,
           vectors: str = "floats") -> dict[str, Any]:
    """Parse and validate one ProtoJSON document of the given message type;
    with ``vectors="bytes"``, each float32 vector is a ``Float32Bytes``."""
    return _codecs.decoder(type, limits, vectors).decode(data)  # type: ignore[no-any-return]


def encode(doc: Mapping[str, Any], *, type: str = DEFAULT_TYPE, canonical: bool = True) -> bytes:
    """Validate one document and write it as canonical ProtoJSON."""
    return _codecs.encoder(type).encode(doc, canonical=canonical)  # type: ignore[no-any-return]
