"""Messages from and to plain Python data, in the shape of memorywire's JSON form.

Scenarios write requests and read responses as dicts shaped like the JSON form
of json-format.md: members by field name, enums by their lowercase name
(``"fact"``, ``"pending_approval"``), ``Value`` fields as Python values,
``metadata`` and ``extensions`` as dicts, timestamps as RFC 3339 strings. A
response dict holds only the fields that are present, as the canonical form
does (an explicit-presence field set to 0 is present).
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from google.protobuf.descriptor import Descriptor, EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from memorywire_conformance.service.descriptors import (
    enum_descriptor,
    message_class,
    message_descriptor,
)

__all__ = ["NULL", "enum_name", "enum_number", "from_message", "to_message", "to_value",
           "from_value"]

VALUE = "memorywire.v1.Value"
MAP_ENTRY = "memorywire.v1.MapEntry"
TIMESTAMP = "google.protobuf.Timestamp"


class _Null:
    """The null Value, where ``None`` would mean "not given"."""

    def __repr__(self) -> str:
        return "NULL"


#: A null Value in a message field of type Value (inside a Value, None is null).
NULL = _Null()


def _prefix(enum: EnumDescriptor) -> str:
    zero = enum.values_by_number[0].name
    return zero[: -len("UNSPECIFIED")] if zero.endswith("UNSPECIFIED") else ""


def enum_number(enum: EnumDescriptor | str, name: str | int) -> int:
    """The number of an enum value by its lowercase name (``"fact"``)."""
    if isinstance(enum, str):
        enum = enum_descriptor(enum)
    if isinstance(name, int):
        return name
    value = enum.values_by_name.get(_prefix(enum) + name.upper())
    if value is None:
        raise ValueError(f"{enum.full_name} has no value {name!r}")
    return int(value.number)


def enum_name(enum: EnumDescriptor | str, number: int) -> str | int:
    """The lowercase name of an enum value; the number when it has none."""
    if isinstance(enum, str):
        enum = enum_descriptor(enum)
    value = enum.values_by_number.get(number)
    if value is None:
        return number
    return value.name[len(_prefix(enum)):].lower()


# Values.


def to_value(data: Any) -> Message:
    """A ``memorywire.v1.Value`` from a Python value (None and NULL are null)."""
    cls = message_class(VALUE)
    v: Any = cls()
    if data is None or data is NULL:
        v.null_value = 0
    elif isinstance(data, bool):
        v.bool_value = data
    elif isinstance(data, int):
        v.integer_value = data
    elif isinstance(data, float):
        v.float_value = data
    elif isinstance(data, str):
        v.string_value = data
    elif isinstance(data, (list, tuple)):
        v.list_value.SetInParent()
        for item in data:
            v.list_value.values.append(to_value(item))
    elif isinstance(data, Mapping):
        v.map_value.SetInParent()
        for key, item in data.items():
            v.map_value.entries.add(key=key).value.CopyFrom(to_value(item))
    else:
        raise TypeError(f"no Value for {type(data).__name__}")
    return v  # type: ignore[no-any-return]


def from_value(v: Any) -> Any:
    """A Python value from a ``memorywire.v1.Value``."""
    kind = v.WhichOneof("kind")
    if kind is None or kind == "null_value":
        return None
    if kind == "list_value":
        return [from_value(x) for x in v.list_value.values]
    if kind == "map_value":
        return {e.key: from_value(e.value) for e in v.map_value.entries}
    return getattr(v, kind)


# Messages.


def _repeated(field: FieldDescriptor) -> bool:
    flag = getattr(field, "is_repeated", None)
    if flag is not None:
        return bool(flag)
    return bool(getattr(field, "label", None) == FieldDescriptor.LABEL_REPEATED)


def _set(msg: Any, field: FieldDescriptor, data: Any) -> None:
    name = field.name
    mtype = field.message_type
    if _repeated(field):
        target = getattr(msg, name)
        if mtype is not None and mtype.full_name == MAP_ENTRY:
            if not isinstance(data, Mapping):
                raise TypeError(f"{name} takes a dict")
            for key, item in data.items():
                target.add(key=key).value.CopyFrom(to_value(item))
        elif mtype is not None and mtype.full_name == VALUE:
            for item in data:
                target.append(to_value(item))
        elif mtype is not None:
            for item in data:
                target.append(item if isinstance(item, Message) else _build(mtype, item))
        elif field.enum_type is not None:
            target.extend(enum_number(field.enum_type, x) for x in data)
        else:
            target.extend(data)
        return
    if mtype is not None:
        if mtype.full_name == VALUE:
            getattr(msg, name).CopyFrom(to_value(data))
        elif mtype.full_name == TIMESTAMP:
            ts = getattr(msg, name)
            if isinstance(data, str):
                ts.FromJsonString(data)
            else:
                ts.FromDatetime(data)
        elif isinstance(data, Message):
            getattr(msg, name).CopyFrom(data)
        else:
            sub = getattr(msg, name)
            sub.SetInParent()
            _fill(sub, mtype, data)
    elif field.enum_type is not None:
        setattr(msg, name, enum_number(field.enum_type, data))
    elif field.type == FieldDescriptor.TYPE_BYTES and isinstance(data, str):
        setattr(msg, name, base64.b64decode(data))
    else:
        setattr(msg, name, data)


def _fill(msg: Message, desc: Descriptor, data: Mapping[str, Any]) -> None:
    for key, item in data.items():
        if item is None:
            continue
        field = desc.fields_by_name.get(key)
        if field is None:
            raise KeyError(f"{desc.full_name} has no field {key!r}")
        _set(msg, field, item)


def _build(desc: Descriptor, data: Mapping[str, Any]) -> Message:
    msg = message_class(desc.full_name)()
    _fill(msg, desc, data)
    return msg


def to_message(type_name: str, data: Mapping[str, Any] | Message) -> Message:
    """A message of ``type_name`` (e.g. ``"PutRequest"``) from a dict. Members
    whose value is None are left out; ``NULL`` is a null Value."""
    if isinstance(data, Message):
        return data
    return _build(message_descriptor(type_name), data)


def _get(field: FieldDescriptor, value: Any) -> Any:
    mtype = field.message_type
    if _repeated(field):
        if mtype is not None and mtype.full_name == MAP_ENTRY:
            return {e.key: from_value(e.value) for e in value}
        return [_scalar(field, x) for x in value]
    return _scalar(field, value)


def _scalar(field: FieldDescriptor, value: Any) -> Any:
    mtype = field.message_type
    if mtype is not None:
        if mtype.full_name == VALUE:
            return from_value(value)
        if mtype.full_name == TIMESTAMP:
            return value.ToJsonString()
        return from_message(value)
    if field.enum_type is not None:
        return enum_name(field.enum_type, value)
    return value


def from_message(msg: Message) -> dict[str, Any]:
    """The present fields of a message as a dict."""
    return {field.name: _get(field, value) for field, value in msg.ListFields()}
