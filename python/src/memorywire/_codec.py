"""Walkers between the JSON form of a document and each encoding's form.

Every walker is driven by the field tables of :mod:`memorywire._model`. The
JSON form is the Python data model of the package (see the README); the
MessagePack form is what ``msgpack`` packs and unpacks; the Protobuf form is
an upb message. Walkers assume a document the validator has accepted, except
the ``*_to_json`` decoders, which also meet malformed input and report it
with a JSON Pointer.
"""

from __future__ import annotations

import base64
import binascii
import math
import sys
from array import array
from typing import Any

import msgpack
from google.protobuf.message import Message

from memorywire import _model as m
from memorywire import _timestamp
from memorywire.errors import UnrepresentableError, Violation, decode_error, escape_token

_LITTLE = sys.byteorder == "little"
_copysign = math.copysign


class PathError(Exception):
    """A failure deep in a walk; each level adds its token to the pointer."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.tokens: list[str] = []

    def at(self, token: str | int) -> PathError:
        self.tokens.append(escape_token(str(token)))
        return self

    @property
    def pointer(self) -> str:
        return "".join("/" + t for t in reversed(self.tokens))


def float32_values(values: list[Any]) -> list[float]:
    """The values rounded to binary32 and widened back, exactly."""
    return array("f", values).tolist()


def _is_default(v: Any, f: m.FieldInfo) -> bool:
    k = f.kind
    if k == m.STRING or k == m.BYTES:
        return v == ""
    if k == m.UINT:
        return v == 0
    if k == m.BOOL:
        return v is False
    if k == m.DOUBLE:
        return v == 0 and _copysign(1.0, v) > 0
    return False


# -- JSON form -> canonical JSON form --------------------------------------


def normalize(doc: dict[str, Any], info: m.MessageInfo) -> dict[str, Any]:
    """The canonical JSON form: defaults dropped, doubles as floats, float32
    values rounded, timestamps in canonical spelling. Key order is left to
    the serializer."""
    fields = info.fields
    out: dict[str, Any] = {}
    for key, v in doc.items():
        f = fields.get(key)
        if f is None:
            out[key] = v
        elif f.is_map:
            if v:
                out[key] = v
        elif f.repeated:
            if not v:
                continue
            k = f.kind
            if k == m.MESSAGE:
                sub = f.message
                assert sub is not None
                out[key] = [normalize(x, sub) for x in v]
            elif k == m.FLOAT32:
                out[key] = float32_values(v)
            elif k == m.TIMESTAMP:
                out[key] = [_timestamp.canonical(x) for x in v]
            else:
                out[key] = v
        else:
            k = f.kind
            if k == m.MESSAGE:
                sub = f.message
                assert sub is not None
                out[key] = normalize(v, sub)
            elif k == m.TIMESTAMP:
                out[key] = _timestamp.canonical(v)
            elif k == m.VALUE:
                out[key] = v
            elif f.presence or not _is_default(v, f):
                out[key] = float(v) if k == m.DOUBLE else v
    return out


# -- JSON form <-> MessagePack form ------------------------------------------


def to_msgpack(doc: dict[str, Any], info: m.MessageInfo) -> dict[str, Any]:
    fields = info.fields
    out: dict[str, Any] = {}
    for key in sorted(doc):
        v = doc[key]
        f = fields.get(key)
        if f is None:
            out[key] = _sorted_value(v)
        elif f.is_map:
            if v:
                out[key] = _sorted_value(v)
        elif f.repeated:
            if not v:
                continue
            k = f.kind
            if k == m.MESSAGE:
                sub = f.message
                assert sub is not None
                out[key] = [to_msgpack(x, sub) for x in v]
            elif k == m.FLOAT32:
                a = array("f", v)
                if not _LITTLE:
                    a.byteswap()
                out[key] = a.tobytes()
            elif k == m.TIMESTAMP:
                out[key] = [msgpack.Timestamp(*_timestamp.parse(x)) for x in v]
            elif k == m.BYTES:
                out[key] = [base64.b64decode(x) for x in v]
            else:
                out[key] = v
        else:
            k = f.kind
            if k == m.MESSAGE:
                sub = f.message
                assert sub is not None
                out[key] = to_msgpack(v, sub)
            elif k == m.TIMESTAMP:
                out[key] = msgpack.Timestamp(*_timestamp.parse(v))
            elif k == m.VALUE:
                out[key] = _sorted_value(v)
            elif f.presence or not _is_default(v, f):
                if k == m.DOUBLE:
                    out[key] = float(v)
                elif k == m.BYTES:
                    out[key] = base64.b64decode(v)
                else:
                    out[key] = v
    return out


def _sorted_value(v: Any) -> Any:
    t = type(v)
    if t is dict:
        return {k: _sorted_value(v[k]) for k in sorted(v)}
    if t is list:
        return [_sorted_value(x) for x in v]
    return v


def from_msgpack(doc: Any, info: m.MessageInfo) -> Any:
    """The JSON form of a MessagePack-form document. Types the JSON form
    shares with MessagePack pass through for the validator to judge."""
    if type(doc) is not dict:
        return doc
    fields = info.fields
    out: dict[str, Any] = {}
    for key, v in doc.items():
        f = fields.get(key) if type(key) is str else None
        try:
            if f is None:
                out[key] = _plain_value(v)
            elif f.is_map or f.kind == m.VALUE:
                out[key] = _plain_value(v)
            elif f.repeated:
                k = f.kind
                if k == m.FLOAT32:
                    out[key] = _vector(v)
                elif type(v) is not list:
                    out[key] = _plain_value(v)
                elif k == m.MESSAGE:
                    sub = f.message
                    assert sub is not None
                    out[key] = [_at(i, from_msgpack, x, sub) for i, x in enumerate(v)]
                elif k == m.TIMESTAMP:
                    out[key] = [_at(i, _timestamp_json, x) for i, x in enumerate(v)]
                elif k == m.BYTES:
                    out[key] = [_at(i, _bytes_json, x) for i, x in enumerate(v)]
                else:
                    out[key] = [_at(i, _plain_value, x) for i, x in enumerate(v)]
            else:
                k = f.kind
                if k == m.MESSAGE:
                    sub = f.message
                    assert sub is not None
                    out[key] = from_msgpack(v, sub)
                elif k == m.TIMESTAMP:
                    out[key] = _timestamp_json(v)
                elif k == m.BYTES:
                    out[key] = _bytes_json(v)
                elif k == m.DOUBLE and type(v) is int:
                    out[key] = float(v)
                else:
                    out[key] = _plain_value(v)
        except PathError as e:
            raise e.at(key) from None
    return out


def _at(index: int, fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except PathError as e:
        raise e.at(index) from None


def _timestamp_json(v: Any) -> Any:
    if type(v) is not msgpack.Timestamp:
        raise PathError("TYPE_MISMATCH", f"expected a timestamp extension, got {type(v).__name__}")
    if not _timestamp.in_range(v.seconds, v.nanoseconds):
        raise PathError("INVALID_TIMESTAMP", "timestamp outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z")
    return _timestamp.format(v.seconds, v.nanoseconds)


def _bytes_json(v: Any) -> Any:
    if type(v) is not bytes:
        raise PathError("TYPE_MISMATCH", f"expected bin, got {type(v).__name__}")
    return base64.b64encode(v).decode("ascii")


def _vector(v: Any) -> list[float]:
    if type(v) is not bytes:
        raise PathError("TYPE_MISMATCH", "a float32 vector is a bin of little-endian binary32 values")
    if len(v) % 4:
        raise PathError("INVALID_VECTOR", f"a float32 vector of {len(v)} bytes is not a multiple of 4")
    a = array("f")
    a.frombytes(v)
    if not _LITTLE:
        a.byteswap()
    values = a.tolist()
    for i, x in enumerate(values):
        if x - x != 0:
            raise PathError("NON_FINITE_NUMBER", "NaN and infinities are not allowed").at(i)
    return values


def _plain_value(v: Any) -> Any:
    t = type(v)
    if t is dict:
        out = {}
        for k, x in v.items():
            if type(k) is not str:
                raise PathError("TYPE_MISMATCH", "map keys must be strings")
            try:
                out[k] = _plain_value(x)
            except PathError as e:
                raise e.at(k) from None
        return out
    if t is list:
        return [_at(i, _plain_value, x) for i, x in enumerate(v)]
    if t is bytes or t is msgpack.Timestamp or t is msgpack.ExtType:
        raise PathError("TYPE_MISMATCH", f"{t.__name__} is not allowed here")
    return v


# -- JSON form <-> Protobuf form ---------------------------------------------


def to_proto(doc: dict[str, Any], info: m.MessageInfo, msg: Message) -> None:
    fields = info.fields
    for key, v in doc.items():
        f = fields.get(key)
        if f is None:
            raise UnrepresentableError(
                "UNREPRESENTABLE",
                f"{key!r} is not a field of {info.name} in this version; Protobuf cannot carry it by name",
                [Violation("/" + escape_token(key), "UNREPRESENTABLE", "unknown member")],
            )
        k = f.kind
        if f.is_map:
            entries = getattr(msg, key)
            for name in sorted(v):
                entry = entries.add()
                if name:
                    entry.key = name
                _value_to_proto(v[name], entry.value)
        elif f.repeated:
            if not v:
                continue
            target = getattr(msg, key)
            if k == m.MESSAGE:
                sub = f.message
                assert sub is not None
                for x in v:
                    to_proto(x, sub, target.add())
            elif k == m.ENUM:
                assert f.enum is not None
                by_json = f.enum.by_json
                target.extend([by_json[x] for x in v])
            elif k == m.TIMESTAMP:
                for x in v:
                    ts = target.add()
                    ts.seconds, ts.nanos = _timestamp.parse(x)
            elif k == m.BYTES:
                target.extend([base64.b64decode(x) for x in v])
            else:
                target.extend(v)
        elif k == m.MESSAGE:
            sub = f.message
            assert sub is not None
            child = getattr(msg, key)
            child.SetInParent()
            to_proto(v, sub, child)
        elif k == m.TIMESTAMP:
            ts = getattr(msg, key)
            ts.seconds, ts.nanos = _timestamp.parse(v)
            ts.SetInParent()
        elif k == m.VALUE:
            _value_to_proto(v, getattr(msg, key))
        elif k == m.ENUM:
            assert f.enum is not None
            setattr(msg, key, f.enum.by_json[v])
        elif k == m.BYTES:
            setattr(msg, key, base64.b64decode(v))
        elif f.presence or not _is_default(v, f):
            setattr(msg, key, v)


def _value_to_proto(v: Any, pb: Any) -> None:
    t = type(v)
    if t is str:
        pb.string_value = v
    elif t is int:
        pb.integer_value = v
    elif t is float:
        pb.float_value = v
    elif t is bool:
        pb.bool_value = v
    elif v is None:
        pb.null_value = 0
    elif t is list:
        lst = pb.list_value
        lst.SetInParent()
        values = lst.values
        for x in v:
            _value_to_proto(x, values.add())
    else:
        mp = pb.map_value
        mp.SetInParent()
        entries = mp.entries
        for name in sorted(v):
            entry = entries.add()
            if name:
                entry.key = name
            _value_to_proto(v[name], entry.value)


def from_proto(msg: Message, info: m.MessageInfo) -> dict[str, Any]:
    """The JSON form of a parsed message, keys in field-number order."""
    fields = info.fields
    out: dict[str, Any] = {}
    for fd, v in msg.ListFields():
        key = fd.name
        f = fields[key]
        k = f.kind
        try:
            if f.is_map:
                out[key] = _entries_json(v)
            elif f.repeated:
                if k == m.MESSAGE:
                    sub = f.message
                    assert sub is not None
                    out[key] = [_at(i, from_proto, x, sub) for i, x in enumerate(v)]
                elif k == m.ENUM:
                    assert f.enum is not None
                    out[key] = [_at(i, _enum_json, x, f.enum) for i, x in enumerate(v)]
                elif k == m.TIMESTAMP:
                    out[key] = [_at(i, _proto_timestamp, x) for i, x in enumerate(v)]
                elif k == m.BYTES:
                    out[key] = [base64.b64encode(x).decode("ascii") for x in v]
                else:
                    out[key] = list(v)
            elif k == m.MESSAGE:
                sub = f.message
                assert sub is not None
                out[key] = from_proto(v, sub)
            elif k == m.TIMESTAMP:
                out[key] = _proto_timestamp(v)
            elif k == m.VALUE:
                out[key] = _value_json(v)
            elif k == m.ENUM:
                assert f.enum is not None
                out[key] = _enum_json(v, f.enum)
            elif k == m.BYTES:
                out[key] = base64.b64encode(v).decode("ascii")
            else:
                out[key] = v
        except PathError as e:
            raise e.at(key) from None
    return out


def _enum_json(number: int, enum: m.EnumInfo) -> str:
    name = enum.by_number.get(number)
    if name is None:
        raise PathError("UNKNOWN_ENUM_VALUE", f"{number} is not a value of {enum.name}")
    return name


def _proto_timestamp(ts: Any) -> str:
    if not _timestamp.in_range(ts.seconds, ts.nanos):
        raise PathError("INVALID_TIMESTAMP", "timestamp outside 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z")
    return _timestamp.format(ts.seconds, ts.nanos)


def _entries_json(entries: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for entry in entries:
        key = entry.key
        if key in out:
            raise PathError("DUPLICATE_KEY", f"the key {key!r} appears twice").at(key)
        try:
            out[key] = _value_json(entry.value)
        except PathError as e:
            raise e.at(key) from None
    return out


def _value_json(pb: Any) -> Any:
    which = pb.WhichOneof("kind")
    if which == "string_value":
        return pb.string_value
    if which == "integer_value":
        return pb.integer_value
    if which == "float_value":
        return pb.float_value
    if which == "bool_value":
        return pb.bool_value
    if which == "null_value":
        return None
    if which == "list_value":
        return [_at(i, _value_json, x) for i, x in enumerate(pb.list_value.values)]
    if which == "map_value":
        return _entries_json(pb.map_value.entries)
    raise PathError("VALUE_KIND_MISSING", "a Value has none of its kinds set")


def path_error(e: PathError) -> Exception:
    return decode_error(e.reason, e.pointer, e.message)


_ = binascii  # strict base64 is checked by the validator before decoding
